"""Figures for every report: matplotlib's Agg backend, a font with the glyphs of the run's language, and
one place that writes a PNG.

Base code: every metric family's plots() and the report draw through here, so it sits in the bottom
layer (metric families import only core).

Chinese group names need a CJK font. `setup_fonts()` looks, in this order, for one matplotlib already
knows, one fontconfig lists for Chinese (Debian: fonts-noto-cjk, which scripts/setup.sh installs where it
runs as root with apt), and Noto Sans SC from the `pylopdf-fonts-zh-cn` PyPI package (setup.sh's fallback
where apt is unavailable; `pip install 'harness-bias[cjk]'`). `save_figure` refuses to write a figure
whose text has a character no configured font can draw and raises MissingGlyphsError instead: the
report then says so in one line, rather than showing rows of empty boxes that look like data.
"""

from __future__ import annotations

import subprocess
import unicodedata
import warnings
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import font_manager  # noqa: E402
from matplotlib.ft2font import FT2Font  # noqa: E402
from matplotlib.text import Text  # noqa: E402

# the readability rule is the report's own figures' too (no matplotlib there): one definition
from harness.core.html_figures import (  # noqa: E402, F401 - re-exported
    MIN_READABLE_N,
    MIN_READABLE_SHARE,
    SMALL_CELL_COLOUR,
    SMALL_TEXT_COLOUR,
    readable_share,
)

CJK_FAMILIES = ("Noto Sans CJK SC", "Noto Sans CJK JP", "Noto Sans SC", "WenQuanYi Zen Hei", "WenQuanYi Micro Hei",
                "Source Han Sans SC", "Droid Sans Fallback", "AR PL UMing CN")
#: The PyPI package that ships Noto Sans SC (SIL OFL), and the function that returns its path.
PYPI_FONT_MODULE = "pylopdf_fonts_zh_cn"
INSTALL_HINT = "Debian: apt-get install fonts-noto-cjk; elsewhere: pip install pylopdf-fonts-zh-cn"


class MissingGlyphsError(RuntimeError):
    """A figure has characters no installed font can draw (Chinese names without a CJK font)."""

    def __init__(self, chars: str) -> None:
        self.chars = chars
        super().__init__(f"No installed font can draw {chars[:8]!r} (Chinese names need a CJK font: {INSTALL_HINT}), "
                         "so the figures with such text were left out; the tables show every number.")


def _known_cjk() -> str | None:
    names = {f.name for f in font_manager.fontManager.ttflist}
    return next((n for n in CJK_FAMILIES if n in names), None)


def _add_fontconfig_fonts() -> None:
    """Register the fonts fontconfig lists for Chinese (matplotlib's cache predates a new apt install)."""
    try:
        out = subprocess.run(["fc-list", ":lang=zh", "file"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return
    paths = [line.split(":")[0].strip() for line in out.splitlines() if line.strip()]
    # sans-serif CJK first, and stop at the first usable one: adding all ~40 Noto CJK files takes seconds
    for path in sorted(paths, key=lambda p: (not ("Sans" in p and "CJK" in p), "Mono" in p, "Regular" not in p, p)):
        try:
            font_manager.fontManager.addfont(path)
        except (OSError, RuntimeError, ValueError):
            continue
        if _known_cjk():
            return


def _add_pypi_font() -> None:
    """Register Noto Sans SC from the pylopdf-fonts-zh-cn package when it is installed."""
    try:
        module = __import__(PYPI_FONT_MODULE)
        font_manager.fontManager.addfont(str(module.sans_path()))
    except (ImportError, AttributeError, OSError, RuntimeError, ValueError):
        return


@lru_cache(maxsize=1)
def setup_fonts() -> str | None:
    """Make a CJK-capable font the fallback after DejaVu Sans; return its name, or None if there is none."""
    found = _known_cjk()
    for add in (_add_fontconfig_fonts, _add_pypi_font):
        if found:
            break
        add()
        found = _known_cjk()
    if found:
        # An explicit family list is what enables per-glyph fallback (matplotlib >= 3.6); a generic
        # "sans-serif" resolves to one font only.
        matplotlib.rcParams["font.family"] = ["DejaVu Sans", found]
    matplotlib.rcParams["axes.unicode_minus"] = False
    return found


@lru_cache(maxsize=16)
def _charmap(path: str) -> frozenset[int]:
    return frozenset(FT2Font(path).get_charmap())


def _font_paths() -> list[str]:
    families = matplotlib.rcParams["font.family"]
    paths = []
    for family in [families] if isinstance(families, str) else families:
        try:
            paths.append(font_manager.findfont(font_manager.FontProperties(family=[family]), fallback_to_default=False))
        except ValueError:
            continue
    return paths


def missing_glyphs(texts: Iterable[str]) -> str:
    """The characters of `texts` that none of the configured fonts has ("" when all can be drawn)."""
    maps = [_charmap(p) for p in _font_paths()]
    missing = []
    for ch in dict.fromkeys("".join(texts)):
        if ch.isspace() or unicodedata.category(ch).startswith("C"):
            continue
        if not any(ord(ch) in m for m in maps):
            missing.append(ch)
    return "".join(missing)


def save_figure(fig: plt.Figure, path: Path, *, tight: bool = True, dpi: int = 100) -> Path:
    """Write a figure as PNG and free it; every report figure (any metric family) goes through here.

    Raises MissingGlyphsError (and writes nothing) when a label cannot be drawn with the installed fonts.
    """
    missing = missing_glyphs(t.get_text() for t in fig.findobj(Text))
    if missing:
        plt.close(fig)
        raise MissingGlyphsError(missing)
    path.parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # matplotlib's own font-fallback chatter
        fig.savefig(path, dpi=dpi, bbox_inches="tight" if tight else None)
    plt.close(fig)
    return path


#: The font of the numbers printed in heatmap cells (matplotlib's own, always installed).
NUMBER_FONT = "DejaVu Sans"


def heatmap(ax: Any, matrix: Any, *, cmap: str, vmin: float = 0.0, vmax: float = 1.0, fmt: str = "{:.2f}",
            counts: Any = None, min_n: int = MIN_READABLE_N) -> Any:
    """Draw `matrix` (a pandas DataFrame) as a heatmap with each value printed in its cell: a family's own
    figures and the leaderboard's runs side by side (harness.report.leaderboard_page) draw alike.

    `counts` (same shape, the answers behind each cell): each cell also shows its n, and a cell with fewer
    than `min_n` answers is grey with its value in grey, so a rate of 1 answer never reads as a finding."""
    import numpy as np

    data = matrix.to_numpy(dtype=float)
    n = None if counts is None else np.asarray(counts, dtype=float)
    small = np.zeros(data.shape, dtype=bool) if n is None else np.isfinite(n) & (n < min_n)
    im = ax.imshow(np.ma.masked_invalid(np.where(small, np.nan, data)), cmap=cmap, vmin=vmin, vmax=vmax,
                   aspect="auto")
    if small.any():
        grey = np.ma.masked_where(~small, np.ones(data.shape))
        ax.imshow(grey, cmap=matplotlib.colors.ListedColormap([SMALL_CELL_COLOUR]), vmin=0, vmax=1, aspect="auto")
    ax.set_xticks(range(matrix.shape[1]), [str(c) for c in matrix.columns], rotation=40, ha="right")
    ax.set_yticks(range(matrix.shape[0]), [str(i) for i in matrix.index])
    for (i, j), v in np.ndenumerate(data):
        if not np.isfinite(v):
            continue
        label = fmt.format(v) if n is None or not np.isfinite(n[i, j]) else f"{fmt.format(v)}\nn={int(n[i, j])}"
        if small[i, j]:
            color = SMALL_TEXT_COLOUR
        else:
            r, g, b, _ = im.cmap(im.norm(v))
            color = "white" if 0.299 * r + 0.587 * g + 0.114 * b < 0.5 else "black"  # perceived luminance
        # digits only: one font, not the CJK fallback list (laying a text out over both fonts cost most of a figure)
        ax.text(j, i, label, ha="center", va="center", fontsize=7 if n is not None else 8, color=color,
                fontfamily=NUMBER_FONT)
    return im
