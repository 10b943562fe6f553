"""A suite's content fingerprint: what a run folder asked, by content, so one folder holds one suite content.

Why: a run folder is found by its suite's name and selection, and a suite file edited under the same `name:`
used to resume the old folder: 48 old answers, 16 new wordings asked, "64 answered" for a 48-probe suite,
old and new wordings scored together without a word. The fingerprint hashes what the target is asked (each
selected probe's id, text, options and turns, in order), never the file's path, so a moved file is the same
suite and an edited one is not. Other probe fields (meta a newer harness adds) are left out on purpose: an
upgrade that asks the same questions must not orphan every run folder.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass

from harness.core.records import Probe

#: The manifest key holding the fingerprint (manifest.json, beside "suite").
MANIFEST_KEY = "suite_content"
#: json.dumps(..., ensure_ascii=False)'s own encoder, built once: dumps builds a new one per call with that
#: option, which was a third of fingerprinting a 4,000-probe sample before the first request (issue 38)
_ENCODE = json.JSONEncoder(ensure_ascii=False).encode


@dataclass(frozen=True, slots=True)
class SuiteContent:
    """The fingerprint of a selection and how many probes it holds."""

    sha256: str
    probes: int
    ids: frozenset[str]

    def as_manifest(self) -> dict[str, object]:
        return {"sha256": self.sha256, "probes": self.probes}


def fingerprint(probes: Iterable[Probe]) -> SuiteContent:
    """Hash what each probe asks, in selection order (the same suite, selection and seed give the same hash
    on every machine)."""
    digest = hashlib.sha256()
    ids: set[str] = set()
    count = 0
    for probe in probes:
        asked = [probe.id, probe.text, list(probe.options), list(probe.turns)]
        digest.update(_ENCODE(asked).encode("utf-8") + b"\n")
        ids.add(probe.id)
        count += 1
    return SuiteContent(digest.hexdigest(), count, frozenset(ids))


def stored(manifest: dict[str, object]) -> str | None:
    """The fingerprint a run folder's manifest recorded (None: a folder from before it was recorded)."""
    value = manifest.get(MANIFEST_KEY)
    return str(value.get("sha256")) if isinstance(value, dict) and value.get("sha256") else None


def changed_message(*, suite: str, run_id: str, resumed: bool, gone: int, answered: int) -> str:
    """One sentence for a folder whose suite content is not the one asked now, naming what to do."""
    what = (f"{gone:,} of its {answered:,} recorded probes are no longer in the suite" if gone
            else "its probes' wording or order differs")
    if resumed:
        return (f"Suite '{suite}' has changed since run {run_id} was asked ({what}), so resuming would mix two "
                "versions in one run; its replies are kept: start the changed suite as a new run with --new "
                "(or --run-id NAME).")
    return (f"Suite '{suite}' has changed since run {run_id} was asked ({what}); a run folder holds one suite "
            f"content, so start the changed suite with --new (or --run-id NAME), or restore the suite file to "
            f"resume {run_id}.")
