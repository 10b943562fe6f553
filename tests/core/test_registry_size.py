"""Issue 37 asks for a registry in the shape of lm-evaluation-harness's api/registry.py: under 200 lines."""

from pathlib import Path

import harness.core.registry as registry


def test_registry_module_is_under_200_lines() -> None:
    lines = Path(registry.__file__).read_text(encoding="utf-8").splitlines()
    assert len(lines) < 200, f"harness/core/registry.py has {len(lines)} lines; keep it under 200"
