"""Nothing registers itself at import (issue 37): the probe kinds a family module defines reach KINDS only
through its method's declaration, read from the harness.methods entry point on the first lookup.

A fresh interpreter imports every module of harness.metrics (the families used to call register_kind at
import) and then looks at what the kinds' table holds before anyone asked it for a kind: nothing."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import importlib, json, pkgutil
import harness.metrics
names = [f"harness.metrics.{m.name}" for m in pkgutil.iter_modules(harness.metrics.__path__)]
for name in names:
    importlib.import_module(name)
from harness.core.kinds import KINDS
from harness.core.method import METHODS
held = dict(KINDS._entries)  # what was registered, before a lookup reads the methods
print(json.dumps({"modules": len(names), "kinds": sorted(held), "methods": sorted(METHODS._entries),
                  "after_lookup": KINDS.get("bbq") is not None}))
"""


def test_importing_every_family_module_registers_no_kind() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["modules"] >= 20  # every family module was imported
    assert report["kinds"] == [] and report["methods"] == []
    assert report["after_lookup"]  # and the first lookup finds the kind through its method's declaration
