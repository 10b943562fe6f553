"""The before/after report of a debiasing run: report.json, report.md and report.html.

The first table is the paper's Table 3 (t per category, before and after; a t near 0 with a large p is
the aim); the second is what it cost (Tables 4-5: held-out perplexity, BLEU-4, Dist-1, Dist-2), then
the validation p-value of every grid point and which one was kept.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any


def _f(value: Any, digits: int = 2) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}" if abs(value) >= 10 ** -digits or value == 0 else f"{value:.2g}"
    return str(value)


def bias_rows(result: dict[str, Any]) -> list[list[str]]:
    rows = []
    for cat, b in result["before"]["bias"].items():
        a = result["after"]["bias"][cat]
        mark = " (trained)" if cat == result["category"] else ""
        rows.append([cat + mark, _f(b["t"]), _f(b["p"], 3), _f(a["t"]), _f(a["p"], 3), f"{a['n']}/{a['pairs']}",
                     a["reading"]])
    return rows


def cost_rows(result: dict[str, Any]) -> list[list[str]]:
    b, a = result["before"], result["after"]
    rows = [["held-out perplexity", _f(b["heldout"]["perplexity"]), _f(a["heldout"]["perplexity"])]]
    if "replies" in b:
        # sacrebleu's scale is 0-100 (Dist-n is a share, 0-1): said in the row, since 0.39 reads as 39% otherwise
        for key, name in (("bleu4", "BLEU-4, 0-100 (zh tokens)"), ("dist1", "Dist-1"), ("dist2", "Dist-2")):
            rows.append([name, _f(b["replies"][key], 4), _f(a["replies"][key], 4)])
    return rows


def run_rows(result: dict[str, Any]) -> list[list[str]]:
    rows = []
    for i, run in enumerate(result["runs"]):
        p, v, t = run["point"], run["valid"], run["train"]
        rows.append(["*" if i == result["selected"] else "", str(p["batch_size"]), str(p["grad_accum"]),
                     _f(p["lm_hyp"], 3), _f(p["debias_hyp"], 1), str(t["steps"]), _f(t["seconds"], 0),
                     _f(v["t"]), _f(v["p"], 3)])
    return rows


BIAS_HEAD = ["category", "t before", "p before", "t after", "p after", "pairs used", "after, read out"]
COST_HEAD = ["measure", "before", "after"]
RUN_HEAD = ["kept", "batch", "accum", "lm_hyp", "debias_hyp", "steps", "seconds", "valid t", "valid p"]


def _md_table(head: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
    return "\n".join(lines)


def _intro(result: dict[str, Any]) -> list[str]:
    aug = result.get("augmentation")
    lines = [f"Method **{result['method'].upper()}** on **{result['category']}**, model {result['model']}; "
             f"{result['training_sentences']} training sentences, grid '{result['grid']}' "
             f"({len(result['runs'])} run(s)), {result['seconds']:.0f} s in all. "
             f"Saved model: `{result['output_model']}`."]
    if aug:
        lines.append(f"Augmentation: {aug['original']} originals + {aug['swapped_copies']} swapped copies; "
                     f"{aug['no_term_found']} sentences had no term to swap.")
    lines.append(f"Held-out text: {result['heldout_source']}. Replies: {result['replies_source']}.")
    lines.append("t is ttest_rel(perplexity T1, perplexity T2) on the test split: negative means the model "
                 "finds the stereotyped sentence more likely; the aim is a t near 0.")
    return lines


def markdown(result: dict[str, Any]) -> str:
    parts = [f"# Debiasing report: {result['method'].upper()} / {result['category']}", "", *_intro(result), "",
             "## Bias (paper Table 3)", "", _md_table(BIAS_HEAD, bias_rows(result)), "",
             "## What it cost (paper Tables 4-5)", "", _md_table(COST_HEAD, cost_rows(result)), "",
             "## Model selection (validation split)", "", _md_table(RUN_HEAD, run_rows(result)), ""]
    return "\n".join(parts)


def _html_table(head: list[str], rows: list[list[str]]) -> str:
    th = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


def to_html(result: dict[str, Any]) -> str:
    intro = "".join(f"<p>{html.escape(line.replace('**', '').replace('`', ''))}</p>" for line in _intro(result))
    title = html.escape(f"Debiasing report: {result['method'].upper()} / {result['category']}")
    style = ("body{font-family:system-ui,'Noto Sans CJK SC',sans-serif;max-width:60rem;margin:2rem auto;}"
             "table{border-collapse:collapse;margin:1rem 0}td,th{border:1px solid #ccc;padding:.3rem .6rem;"
             "text-align:left}th{background:#f4f4f4}")
    return (f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{title}</title>"
            f"<style>{style}</style></head><body><h1>{title}</h1>{intro}"
            f"<h2>Bias (paper Table 3)</h2>{_html_table(BIAS_HEAD, bias_rows(result))}"
            f"<h2>What it cost (paper Tables 4-5)</h2>{_html_table(COST_HEAD, cost_rows(result))}"
            f"<h2>Model selection (validation split)</h2>{_html_table(RUN_HEAD, run_rows(result))}"
            "</body></html>")


def write(result: dict[str, Any], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "report.json").write_text(json.dumps(result, ensure_ascii=False, indent=1), "utf-8")
    (out / "report.md").write_text(markdown(result), "utf-8")
    (out / "report.html").write_text(to_html(result), "utf-8")
