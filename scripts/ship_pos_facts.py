"""Write question_gen/builtin/pos_facts.json: the POS facts of every text the built-in English suites tag.

Why shipped: a fresh cache directory otherwise loads spaCy to tag the same 62 texts on every cold start (issue 38).
Run after changing question_gen/builtin/builtin.yaml; tests/question_gen/test_shipped_pos_facts.py says when.
Usage: .venv/bin/python scripts/ship_pos_facts.py [--check]   (--check: exit 1 when the shipped file is stale)
"""

from __future__ import annotations

import json
import os
import sys
import tempfile


def main() -> int:
    os.environ["HARNESS_CACHE_DIR"] = tempfile.mkdtemp(prefix="harness-pos-")  # tag everything afresh
    from harness.question_gen import english_tagging
    from harness.question_gen.suites import select_probes

    english_tagging.SHIPPED_FACTS = english_tagging.SHIPPED_FACTS.with_suffix(".none")  # not the old facts
    for _ in select_probes("builtin-en", sample=None, seed=0, limit=None, overrides={}):
        pass
    facts = {t: [[w.text, w.pos, w.tag, w.lemma, w.dep] for w in infos]
             for t, infos in sorted(english_tagging._TAG_CACHE.items())}
    path = english_tagging.SHIPPED_FACTS.with_suffix(".json")
    payload = {"cache_file": english_tagging.pos_cache_file().name, "facts": facts}
    if "--check" in sys.argv[1:]:
        current = json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
        if current != payload:
            print(f"{path} is stale: run `.venv/bin/python scripts/ship_pos_facts.py`", file=sys.stderr)
            return 1
        print(f"{path}: current ({len(facts)} texts)")
        return 0
    path.write_text(json.dumps(payload, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"{path}: {len(facts)} texts ({payload['cache_file']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
