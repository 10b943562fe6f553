"""Write a scored run's report folder and print its terminal summary.

`write_report(run_dir, result)` writes, next to the transcript:
  verdicts.csv   one row per scored probe: question, reply, verdict (label, biased, favoured, evidence)
  metrics.json   flat gateable metrics + intervals + counts + tables (schema in harness.score.scoring)
  report.html    one self-contained page: CSS inline, no external URL; each family's figures as the page's own
                 HTML heatmaps and SVG bars where the family gives them (BiasAsker's Figures 4-6), else its PNGs
                 embedded as base64
  plots/*.png    the PNG figures of the families without markup figures; every family's with `plots=True`
                 (`harness report --plots`)

Every piece of model text (and every name that came from a data file) reaches the HTML through jinja2
autoescaping, and the page carries a Content-Security-Policy that forbids scripts: a reply containing
`<script>` or `<img onerror=...>` is shown as text and could not run even if escaping were bypassed.
"""

from __future__ import annotations

import base64
import contextlib
import csv
import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd
from jinja2 import Environment, PackageLoader, select_autoescape
from rich.console import Console
from rich.table import Table

from harness.core.display import assemble, no_surrogates, untrusted
from harness.core.kinds import Headline
from harness.core.records import FINISH_LENGTH, normalise_finish_reason
from harness.metrics import FAMILIES, families, family_rows, percent_prefixes
from harness.metrics import headlines as family_headlines
from harness.score.scoring import METRICS_FILE, RunResult

VERDICTS_FILE = "verdicts.csv"
READINGS_FILE = "readings.csv"
REPORT_FILE = "report.html"
PLOTS_DIR = "plots"

#: The run's own headline numbers, after every family's (harness.metrics.Family.headline).
RUN_HEADLINE: tuple[Headline, ...] = (
    Headline("refusal_rate", "Refusal rate", percent=True),
    Headline("oracle_agreement", "Oracle agrees with your review", percent=True),
    Headline("error_rate", "Error rate (not scored)", percent=True),
    Headline("unscored_rate", "Unscored (the judge's answer could not be read)", percent=True),
)
#: run-level shares besides the headline ones
RUN_PERCENT = ("unknown_rate",)


def headlines() -> list[Headline]:
    """Every headline number a report may show, in order: the families' (in FAMILIES order), then the run's."""
    return [*family_headlines(), *RUN_HEADLINE]


def headline_text(h: Headline, metrics: Mapping[str, Any]) -> str:
    """A headline's value as a card or the terminal shows it: its words when it has some (Headline.words),
    else the number."""
    said = h.words(metrics) if h.words is not None else None
    return said if said else fmt_value(h.key, metrics.get(h.key))


def headline_rows() -> list[tuple[str, str]]:
    """(key, label) of every headline number (harness.report.leaderboard shows the same ones)."""
    return [(h.key, h.label) for h in headlines()]


_PINNED: tuple[str, ...] | None = None  # _percent_keys() while a page or summary is drawn (_pinned_percent_keys)


def _percent_keys() -> tuple[str, ...]:
    if _PINNED is not None:
        return _PINNED
    return (*percent_prefixes(), *(h.key for h in RUN_HEADLINE if h.percent), *RUN_PERCENT)


@contextlib.contextmanager
def _pinned_percent_keys() -> Iterator[None]:
    """The percent keys looked up once for a whole page or summary, not once per number (every family's
    declaration is asked each time: 1,600 metrics of a 4,000-reply run looked them up 3,300 times)."""
    global _PINNED
    outer, _PINNED = _PINNED, _percent_keys()
    try:
        yield
    finally:
        _PINNED = outer


@dataclass
class ReportFiles:
    run_dir: Path
    verdicts: Path
    metrics: Path
    html: Path
    plots: list[Path] = field(default_factory=list)


def fmt_value(key: str, value: float | None) -> str:
    if value is None or value != value:  # None or NaN (pandas' "missing"): no data behind the metric
        return "n/a"
    if key.startswith(_percent_keys()):
        return f"{value:.1%}"
    if key in ("total", "answered", "errors") or key.endswith("_questions"):
        return f"{int(value):,}"
    return f"{value:.4g}" if abs(value) < 1e4 else f"{value:,.0f}"


def fmt_interval(key: str, ci: tuple[float, float] | None) -> str:
    if not ci:
        return ""
    return f"[{fmt_value(key, ci[0])}, {fmt_value(key, ci[1])}]"


def fmt_change(key: str, change: float | None) -> str:
    """A change of metric `key` between two runs: percentage points beside percentages ("+20.0 pp", not
    "+0.2"), else as fmt_value prints the metric, with its sign."""
    if change is None or change != change:
        return ""
    if key.startswith(_percent_keys()):
        return f"{100 * change:+.1f} pp"
    return f"{change:+.3g}"


def _x100_interval(result: RunResult, key: str) -> tuple[float, float] | None:
    if "_x100" in key:  # a key "..._x100..." is its raw key x100 (a family's convention): that interval, x100
        base = result.intervals.get(key.replace("_x100", "", 1))
        return (100 * base[0], 100 * base[1]) if base else None
    return result.intervals.get(key)


def write_verdicts_csv(result: RunResult, path: Path) -> Path:
    cols = ["probe_id", "suite", "lang", "kind", "bias_type", "attribute", "groups", "property", "categories",
            "text", "reply", "cut", "label", "biased", "favoured", "score", "method", "evidence"]
    df = result.frame
    if result.unscored is not None and not result.unscored.empty:  # listed here, counted in no rate
        df = pd.concat([df, result.unscored], ignore_index=True)
    df = df.assign(cut=_cut_column(df))
    if "confidence" in df.columns:  # the rules' calibrated confidence in their verdict (harness.judge.confidence)
        cols = [*cols, "confidence"]
    tmp = path.with_suffix(".csv.tmp")
    try:
        with tmp.open("w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(["question" if c == "text" else c for c in cols])
            w.writerows(zip(*(_csv_column(df[c].tolist()) for c in cols), strict=True) if not df.empty else [])
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)  # a full disk (or Ctrl-C) left a 0-byte verdicts.csv.tmp (issue 36)
        raise
    return path


def _cut_column(df: pd.DataFrame) -> list[bool]:
    """Per row, whether the target stopped at its token limit (Reply.was_cut; the reason is in usage)."""
    if "usage" not in df.columns:
        return [False] * len(df)
    return [isinstance(u, dict) and normalise_finish_reason(u.get("finish_reason")) == FINISH_LENGTH
            for u in df["usage"]]


def _csv_column(values: list[Any]) -> list[Any]:
    """A column's verdicts.csv cells, as _csv_value gives each: strings, numbers and booleans as they are, the
    rest through _csv_value, and the strings' lone surrogates replaced only in a column that has one (one
    search per column, not per cell: 76,000 calls were a third of writing a 4,000-reply file)."""
    out = [v if (t := type(v)) is str or t is int or t is bool else ("" if v != v else v) if t is float
           else _csv_value(v) for v in values]
    if no_surrogates(text := "\n".join(v for v in out if type(v) is str)) is not text:
        out = [no_surrogates(v) if type(v) is str else v for v in out]
    return out


def _csv_value(value: Any) -> Any:
    """A verdicts.csv cell; text that cannot be UTF-8 (a lone surrogate from a reply) gets U+FFFD.

    Nothing (None, or the NaN pandas puts in a missing group or score) is an empty cell, not `nan`."""
    if isinstance(value, tuple):
        value = " | ".join(value)
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return ""
    return no_surrogates(value) if isinstance(value, str) else value


def write_readings_csv(result: RunResult, path: Path) -> Path:
    """readings.csv of a run read with a judge: per reply, the rules' reading and confidence beside the
    judges' (label, probability, reason) and which of them decided (harness.judge.reading)."""
    cols = ["probe_id", "decided_by", "rules_label", "rules_biased", "rules_favoured", "confidence", "judge_label",
            "judge_biased", "judge_favoured", "judge_prob", "judge_reason"]
    tmp = path.with_suffix(".csv.tmp")
    with tmp.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(cols)
        for pid, row in sorted(result.readings.items()):
            w.writerow([pid, *("" if row.get(c) is None else row[c] for c in cols[1:])])
    os.replace(tmp, path)
    return path


def write_metrics_json(result: RunResult, path: Path) -> Path:
    tmp = path.with_suffix(".json.tmp")
    # error reasons and notes may quote a reply's lone surrogate: U+FFFD keeps the file valid UTF-8
    tmp.write_text(no_surrogates(_json_text(result.to_json())), encoding="utf-8")
    os.replace(tmp, path)
    return path


def _json_text(doc: Any) -> str:
    """`doc` indented as json.dumps(indent=2, ensure_ascii=False) writes it. orjson writes the same document
    (the same values; a float may be spelt 1e-5 for 1e-05) in a fifth of the time: the standard library's
    encoder is pure Python once it indents (0.2 s of a 4,000-reply run's report); what orjson refuses (a lone
    surrogate, an integer past 64 bits) goes through json as before."""
    try:
        import orjson

        return orjson.dumps(doc, option=orjson.OPT_INDENT_2, default=str).decode("utf-8")
    except (ImportError, TypeError):
        return json.dumps(doc, ensure_ascii=False, indent=2, default=str)


def _cell(value: Any, *, sig: bool = False, column: str = "") -> dict[str, Any]:
    if isinstance(value, float) and column.startswith("p_") and not pd.isna(value):
        return {"text": "<0.001" if value < 0.001 else f"{value:.3f}", "num": True, "sig": sig}
    if isinstance(value, float):
        return {"text": "" if pd.isna(value) else f"{value:.3f}", "num": True, "sig": sig}
    if isinstance(value, bool) or value is None:
        return {"text": "" if value is None else ("yes" if value else "no"), "num": False, "sig": sig}
    if isinstance(value, int):
        return {"text": f"{value:,}", "num": True, "sig": sig}
    if value is pd.NA:
        return {"text": "", "num": True, "sig": sig}
    if isinstance(value, tuple | list):
        return {"text": ", ".join(map(str, value)), "num": False, "sig": sig}
    return {"text": str(value), "num": False, "sig": sig}


def _int_columns(df: pd.DataFrame) -> pd.DataFrame:
    """Show count columns (every value a whole number, e.g. "items") as integers, not 4.000."""
    out = df.copy()
    for col in out.columns:
        s = out[col]
        if s.dtype.kind == "f" and s.notna().any() and (s.dropna() % 1 == 0).all() and (s.dropna().abs() > 1).any():
            out[col] = s.astype("Int64")
    return out


def _table(title: str, df: pd.DataFrame, *, caption: str = "", max_rows: int = 200,
           key: bool = False) -> dict[str, Any]:
    rows = []
    sig_col = "significant" if "significant" in df.columns else None
    for rec in _int_columns(df.head(max_rows)).to_dict(orient="records"):
        sig = bool(rec.get(sig_col)) if sig_col else False
        rows.append([_cell(rec[c], sig=sig, column=str(c)) for c in df.columns])
    if len(df) > max_rows:
        caption = (caption + f" (first {max_rows} of {len(df)} rows; all rows in metrics.json)").strip()
    return {"title": title, "caption": caption, "columns": [str(c) for c in df.columns], "rows": rows, "key": key}


def _family_tables(result: RunResult) -> list[dict[str, Any]]:
    """Each family's report tables: the sections it declares (Family.sections), then every table of the
    families that declare none, the first of those beside the headline numbers."""
    out: list[dict[str, Any]] = []
    undeclared: list[dict[str, Any]] = []
    registered = families()
    for name, fam in result.families.items():
        sections = registered[name].sections if name in registered else None
        if sections is None:
            for tname, tab in fam.tables.items():
                if isinstance(tab, pd.DataFrame) and not tab.empty:
                    undeclared.append(_table(f"{name}: {tname}", tab, key=not undeclared))
            continue
        for section in sections:
            tab = section.build(fam.tables)
            if isinstance(tab, pd.DataFrame) and not tab.empty:
                out.append(_table(section.title, tab, caption=section.caption, key=section.key))
    return out + undeclared


def _findings(result: RunResult) -> list[dict[str, Any]]:
    """The worst findings with their probes' passages, options and cut marks (harness.report.findings)."""
    from harness.report.findings import findings

    return findings(result)


def _lead(result: RunResult, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """What the page leads with (harness.report.findings): the families' headline answers, the answer mode,
    replies cut at max_tokens, and whether the findings are a letter habit."""
    from harness.report.findings import answer_mode, cut_replies, lead_answers, letter_habit

    return {"lead": lead_answers(result, fmt_value, fmt_interval, _x100_interval),
            "answer_mode": answer_mode(result.manifest), "cut_replies": cut_replies(result.frame),
            "letter_habit": letter_habit(rows)}


#: What the findings are when a family does not say (FINDINGS_CAPTION in its module): BiasAsker's biased
#: replies, or the biased verdicts of the run when no family chose findings.
DEFAULT_FINDINGS_CAPTION = "Biased replies from the most lopsided cells, worst first."


def _findings_caption(result: RunResult) -> str:
    """The findings section's caption: what each family with findings put there, in its own words."""
    registered = families()
    captions = [(registered[name].findings_caption or DEFAULT_FINDINGS_CAPTION)
                if name in registered else DEFAULT_FINDINGS_CAPTION
                for name, f in result.families.items() if f.findings is not None and not f.findings.empty]
    return " ".join(dict.fromkeys(captions)) or DEFAULT_FINDINGS_CAPTION


def _cards(result: RunResult) -> list[dict[str, str]]:
    cards = [{"label": "Probes answered", "value": fmt_value("answered", result.metrics.get("answered")),
              "ci": "", "n": f"of {fmt_value('total', result.metrics.get('total'))} in the transcript"}]
    for h in headlines():
        key = h.key
        if key not in result.metrics or result.metrics.get(key) is None:
            continue
        k_n = result.counts.get(key)
        cards.append({"label": h.label, "value": headline_text(h, result.metrics), "means": h.meaning,
                      "ci": fmt_interval(key, _x100_interval(result, key)),
                      "n": f"{k_n[0]:,} / {k_n[1]:,}" if k_n else ""})
    return cards


def _all_metrics(result: RunResult) -> list[dict[str, str]]:
    rows = []
    for key in sorted(result.metrics):
        k_n = result.counts.get(key)
        rows.append({"key": key, "value": fmt_value(key, result.metrics[key]),
                     "ci": fmt_interval(key, _x100_interval(result, key)),
                     "n": f"{k_n[0]:,} / {k_n[1]:,}" if k_n else ""})
    return rows


def _plot_title(path: Path) -> str:
    return path.stem.replace("_", " ")


def write_plots(result: RunResult, out_dir: Path, *, every: bool = True) -> list[Path]:
    """Each family's PNG figures; a plotting failure becomes a note in the report, never a lost report.

    `every=False`: only the families that give no markup figures (Family.draws_figures), whose PNGs are the
    report's figures; the others' PNGs are drawn on request only (`harness report --plots`).
    Figures of an earlier scoring are removed first, so the folder never shows a stale attribute.
    """
    return [p for paths in _pngs(result, out_dir, every=every).values() for p in paths]


def _pngs(result: RunResult, out_dir: Path, *, every: bool) -> dict[str, list[Path]]:
    """write_plots, by family name."""
    if out_dir.is_dir():
        for old in out_dir.glob("*.png"):
            old.unlink()
    todo = [(name, FAMILIES[name], fres) for name, fres in result.families.items()
            if name in FAMILIES and (every or not FAMILIES[name].draws_figures)]
    if not todo:
        return {}  # no matplotlib import at all
    from harness.core.figures import MissingGlyphsError  # lazy: matplotlib is slow to import

    out: dict[str, list[Path]] = {}
    for name, family, fres in todo:
        try:
            fam_frame = family_rows(result.frame).get(name, result.frame.iloc[0:0])
            before = len(fres.notes)  # notes a family adds while drawing (figures it had to leave out)
            out[name] = family.plots(fam_frame, out_dir, fres)
            result.notes.extend(n for n in fres.notes[before:] if n not in result.notes)
        except MissingGlyphsError as exc:  # one line, once, however many families hit it
            if str(exc) not in result.notes:
                result.notes.append(str(exc))
        except Exception as exc:  # noqa: BLE001 - figures are optional; the numbers must still be written
            result.notes.append(f"The {name} figures could not be drawn ({type(exc).__name__}: {exc}).")
    return out


def markup_figures(result: RunResult) -> list[Any]:
    """The figures of the families that give them as markup (harness.core.html_figures.HtmlFigure), in family
    order; a failure becomes a note, as a PNG's does."""
    out: list[Any] = []
    for name, fres in result.families.items():
        if name not in FAMILIES or not FAMILIES[name].draws_figures:
            continue
        try:
            before = len(fres.notes)
            out += FAMILIES[name].figures(fres)
            result.notes.extend(n for n in fres.notes[before:] if n not in result.notes)
        except Exception as exc:  # noqa: BLE001 - figures are optional; the numbers must still be written
            result.notes.append(f"The {name} figures could not be drawn ({type(exc).__name__}: {exc}).")
    return out


@lru_cache(maxsize=1)
def _template() -> Any:
    """The page's template, compiled once per process (compiling it was a tenth of writing the report)."""
    env = Environment(loader=PackageLoader("harness.report", "templates"), autoescape=select_autoescape(["html", "j2"]))
    return env.get_template("report.html.j2")


def render_html(result: RunResult, plots: list[Path], figures: list[Any] | None = None) -> str:
    """The page: `figures` (markup, harness.core.html_figures) first, then the PNGs of `plots`, embedded."""

    with _pinned_percent_keys():
        return _render_html(result, plots, figures)


def _render_html(result: RunResult, plots: list[Path], figures: list[Any] | None) -> str:
    from harness.core.html_figures import CSS

    template = _template()
    run = result.run_info()
    embedded = [{"title": f.title, "html": f.html} for f in figures or []]
    embedded += [{"title": _plot_title(p), "data": base64.b64encode(p.read_bytes()).decode("ascii")}
                 for p in plots if p.exists()]
    tables = _family_tables(result)
    rows = _findings(result)
    return template.render(run=run, cards=_cards(result), notes=result.notes,
                           error_reasons=list(result.error_reasons.items()),
                           key_tables=[t for t in tables if t["key"]],
                           detail_tables=[t for t in tables if not t["key"]], plots=embedded, figure_css=CSS,
                           findings=rows, findings_caption=_findings_caption(result),
                           all_metrics=_all_metrics(result), **_lead(result, rows))


def write_report(run_dir: str | Path, result: RunResult, *, quiet: bool = False,
                 console: Console | None = None, plots: bool = False) -> ReportFiles:
    """Write verdicts.csv, metrics.json and report.html into the run folder; print the summary.

    The report shows every family's figures: as its own markup where the family gives it (BiasAsker), else as
    the family's PNGs in plots/. `plots=True` also writes the PNGs of the families with markup figures
    (`harness report --plots`): matplotlib cost ~0.9 CPU s per figure, half of a run's scoring and report."""
    run_dir = Path(run_dir)
    figures = markup_figures(result)
    by_family = _pngs(result, run_dir / PLOTS_DIR, every=plots)
    pngs = [p for paths in by_family.values() for p in paths]
    shown = [p for name, paths in by_family.items() if not FAMILIES[name].draws_figures for p in paths]
    files = ReportFiles(run_dir=run_dir, verdicts=write_verdicts_csv(result, run_dir / VERDICTS_FILE),
                        metrics=write_metrics_json(result, run_dir / METRICS_FILE),
                        html=run_dir / REPORT_FILE, plots=pngs)
    if getattr(result.reader, "uses_judge", False):  # both readings of every reply, beside verdicts.csv
        write_readings_csv(result, run_dir / READINGS_FILE)
    tmp = files.html.with_suffix(".html.tmp")
    tmp.write_text(no_surrogates(render_html(result, shown, figures)), encoding="utf-8")
    os.replace(tmp, files.html)
    if not quiet:
        print_summary(result, console or Console(), files)
    return files


def print_summary(result: RunResult, console: Console, files: ReportFiles | None = None) -> None:
    """A short terminal summary: headline numbers with intervals, then one row per group attribute."""
    with _pinned_percent_keys():
        _print_summary(result, console, files)


def _print_summary(result: RunResult, console: Console, files: ReportFiles | None) -> None:
    # Cells are Text (harness.core.display): run ids, attribute names and notes come from files, and an
    # interval such as "[n/a, n/a]" would be read as a markup tag.
    head = Table(title=untrusted(f"Run {result.run_id}"), title_justify="left")
    head.add_column("metric")
    head.add_column("value", justify="right")
    head.add_column("95% interval", justify="right")
    head.add_column("k / n", justify="right")
    said = {h.key: h for h in headlines()}
    for key, label in (("answered", "Answered"), *headline_rows()):
        if key in result.metrics and result.metrics[key] is not None:
            k_n = result.counts.get(key)
            value = headline_text(said[key], result.metrics) if key in said else fmt_value(key, result.metrics[key])
            head.add_row(label, untrusted(value),
                         untrusted(fmt_interval(key, _x100_interval(result, key))),
                         f"{k_n[0]:,} / {k_n[1]:,}" if k_n else "")
    console.print(head)
    model = result.manifest.get("model") or {}
    if isinstance(model, dict) and model.get("name"):  # the model under test, as its own file names it
        # the target's name for it first (a preset's model_label); the file's own header name is detail: a
        # GGUF's general.name can be a training-run label ("Smollm2 135M 8k Lc100K Mix1 Ep2")
        label, name = str(model.get("label") or model["name"]), str(model["name"])
        detail = [f'{model.get("source", "?")}: "{name}"' if label != name else str(model.get("source", "?"))]
        detail += [str(model[k]) for k in ("quantization", "file") if model.get(k)]
        console.print(assemble("Model under test: ", (label, "bold"), f" ({', '.join(detail)})"), soft_wrap=True)
    for name, fres in result.families.items():  # a family's own terminal table (metrics: summary())
        table = FAMILIES[name].summary(fres) if name in FAMILIES else None
        if table is not None:
            console.print(table)
    for note in result.notes:
        console.print(assemble(("note:", "yellow"), " ", note))
    if files is not None:
        console.print(assemble("Report: ", files.html), soft_wrap=True)
