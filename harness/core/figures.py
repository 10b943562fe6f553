"""Figures for every report: matplotlib's Agg backend, a font with the glyphs of the run's language, and
one place that writes a PNG.

Base code: every metric family's plots() and the report draw through here, so it sits in the bottom
layer (metric families import only core).

Chinese group names need a CJK font; `setup_fonts()` adds one if the system has it (Debian:
fonts-noto-cjk) and otherwise falls back to the default font (missing glyphs show as boxes, never an
error).
"""

from __future__ import annotations

import subprocess
import warnings
from functools import lru_cache
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import font_manager  # noqa: E402

CJK_FAMILIES = ("Noto Sans CJK SC", "Noto Sans CJK JP", "Noto Sans SC", "WenQuanYi Zen Hei", "WenQuanYi Micro Hei",
                "Source Han Sans SC", "Droid Sans Fallback", "AR PL UMing CN")


@lru_cache(maxsize=1)
def setup_fonts() -> str | None:
    """Make a CJK-capable font the fallback after DejaVu Sans; return its name, or None if there is none."""
    names = {f.name for f in font_manager.fontManager.ttflist}
    found = next((n for n in CJK_FAMILIES if n in names), None)
    if found is None:
        try:
            out = subprocess.run(["fc-list", ":lang=zh", "file"], capture_output=True, text=True, timeout=10).stdout
        except (OSError, subprocess.SubprocessError):
            out = ""
        for line in out.splitlines():
            path = line.split(":")[0].strip()
            if not path:
                continue
            try:
                font_manager.fontManager.addfont(path)
            except (OSError, RuntimeError, ValueError):
                continue
        names = {f.name for f in font_manager.fontManager.ttflist}
        found = next((n for n in CJK_FAMILIES if n in names), None)
    if found:
        # An explicit family list is what enables per-glyph fallback (matplotlib >= 3.6); a generic
        # "sans-serif" resolves to one font only.
        matplotlib.rcParams["font.family"] = ["DejaVu Sans", found]
    matplotlib.rcParams["axes.unicode_minus"] = False
    return found


def save_figure(fig: plt.Figure, path: Path, *, tight: bool = True, dpi: int = 100) -> Path:
    """Write a figure as PNG and free it; every report figure (any metric family) goes through here."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Glyph missing" warnings when no CJK font exists
        fig.savefig(path, dpi=dpi, bbox_inches="tight" if tight else None)
    plt.close(fig)
    return path
