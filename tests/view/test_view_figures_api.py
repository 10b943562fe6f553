"""GET /api/runs/{id}/figures on the real server: a run's figures are report.html's own (the same markup,
byte for byte, drawn by the family's figures function from metrics.json), served under the view's policy, with
every group name from the data escaped; the figures' styles come from the server, not a copy in the page."""

from __future__ import annotations

import json
import shutil

import httpx
from view_runs import RUN_A, ViewServer

from harness.core.html_figures import CSS
from harness.view.security import PAGE_CSP

EVIL = '<img src=x onerror="alert(1)">'


def test_a_runs_figures_are_the_reports_own_markup(view: ViewServer) -> None:
    res = httpx.get(f"{view.url}/api/runs/{RUN_A}/figures")
    assert res.status_code == 200 and res.headers["content-security-policy"] == PAGE_CSP
    data = res.json()
    titles = [f["title"] for f in data["figures"]]
    assert "Absolute bias rate" in titles  # BiasAsker draws its own: no PNG is needed for the view to show it
    report = (view.folder / RUN_A / "report.html").read_text("utf-8")
    for f in data["figures"]:  # the same code drew them from the same numbers: each is in the report verbatim
        assert f["html"] and f["html"] in report, f["title"]
    assert data["plots"] == []  # the run's PNGs are drawn on request only (harness report --plots)


def test_group_names_from_the_data_reach_the_figures_escaped(view: ViewServer) -> None:
    evil_run = view.folder / "evil"
    shutil.copytree(view.folder / RUN_A, evil_run)
    doc = json.loads((evil_run / "metrics.json").read_text("utf-8"))
    tables = doc["tables"]["biasasker"]
    for row in tables["absolute_bias_rate"]:  # an attribute and a group as a suite file could name them
        row["attribute"] = EVIL
    group = tables["preference_rate"][0]["group"]
    for row in tables["preference_rate"]:
        row["group"] = EVIL if row["group"] == group else row["group"]
    (evil_run / "metrics.json").write_text(json.dumps(doc), encoding="utf-8")
    markup = "".join(f["html"] for f in httpx.get(f"{view.url}/api/runs/evil/figures").json()["figures"])
    assert markup.count("&lt;img src=x onerror=&#34;alert(1)&#34;&gt;") >= 2  # a bar's label, a heatmap's row
    assert "<img" not in markup and "onerror=" not in markup.replace("onerror=&#34;", "")


def test_the_figures_styles_and_a_missing_run(view: ViewServer) -> None:
    css = httpx.get(f"{view.url}/api/figures.css")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    assert css.text == str(CSS) and "table.hm" in css.text
    missing = httpx.get(f"{view.url}/api/runs/no-such-run/figures")
    assert missing.status_code == 404 and missing.json() == {"error": "No such run or file in this folder."}
