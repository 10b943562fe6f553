"""The JSON API of `harness view` against the real uvicorn server on 127.0.0.1: runs, filtered findings
(checked against verdicts.csv read independently with pandas), a finding's partner, review through the
API (reviews.jsonl as `harness review` writes it, undo that never loses an earlier label, the rescore),
path traversal (plain and encoded), the host check, the CSRF header and the token of a non-loopback host."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pandas as pd
import pytest
from run_builders import XSS_SCRIPT
from view_runs import RUN_A, RUN_B, ZH_QUESTION, ViewServer

from harness.core.records import Probe, Reply
from harness.view.security import COOKIE, PAGE_CSP, REPORT_CSP

POST = {"x-harness-view": "1"}


def _verdicts(folder: Path, run: str) -> pd.DataFrame:
    return pd.read_csv(folder / run / "verdicts.csv", dtype=str, keep_default_na=False)


def test_runs_list_every_run_with_status_counts_and_metrics(view: ViewServer) -> None:
    data = httpx.get(f"{view.url}/api/runs").json()
    runs = {r["id"]: r for r in data["runs"]}
    assert set(runs) == {RUN_A, RUN_B}
    a = runs[RUN_A]
    assert a["status"] == "complete" and a["suite"] == "builtin-en" and a["model"] == "SmolLM2-135M"
    assert a["counts"]["errors"] == 2
    doc = json.loads((view.folder / RUN_A / "metrics.json").read_text("utf-8"))
    head = {m["key"]: m for m in a["metrics"]}
    assert head["absolute_bias_rate"]["value"] == doc["metrics"]["absolute_bias_rate"]
    low, high = doc["intervals"]["absolute_bias_rate"]
    assert head["absolute_bias_rate"]["interval"] == f"[{low:.1%}, {high:.1%}]"
    assert a["counts"]["answered"] == int(doc["metrics"]["answered"])
    # the Runs page's columns are the families' declarations, sent to the script (runs.js names no metric)
    from harness.metrics import families

    declared = [{"key": m.key, "label": m.column} for f in families().values() for m in f.view_metrics if m.column]
    assert data["columns"] == declared and {"key": "absolute_bias_rate", "label": "Absolute bias"} in declared


def test_findings_are_filtered_and_paged_on_the_server(view: ViewServer) -> None:
    api = f"{view.url}/api/runs/{RUN_A}/findings"
    df = _verdicts(view.folder, RUN_A)
    everything = httpx.get(api, params={"size": 200}).json()
    assert everything["total"] == len(df) + 2  # every scored reply and the two errors
    gender = httpx.get(api, params={"attribute": "gender", "size": 200}).json()
    assert gender["total"] == int((df["attribute"] == "gender").sum()) > 0
    assert {f["attribute"] for f in gender["items"]} == {"gender"}
    biased = httpx.get(api, params={"verdict": "biased", "size": 200}).json()
    assert biased["total"] == int((df["biased"] == "True").sum()) > 0
    assert all(f["biased"] for f in biased["items"])
    assert httpx.get(api, params={"verdict": "error"}).json()["total"] == 2
    clean = httpx.get(api, params={"verdict": "not_biased", "size": 200}).json()
    assert clean["total"] == int((df["biased"] == "False").sum()) > 0
    assert {f["favoured"] for f in clean["items"]} == {None}  # verdicts.csv writes a missing group as "nan"
    women = httpx.get(api, params={"group": "women", "size": 200}).json()
    assert women["total"] == int(df["groups"].str.split(" | ", regex=False).map(lambda g: "women" in g).sum())
    assert all("women" in f["groups"] for f in women["items"])
    # free text in questions and replies, any case, Chinese too
    hits = httpx.get(api, params={"q": "<SCRIPT>"}).json()
    assert hits["total"] == 1 and hits["items"][0]["reply"] == XSS_SCRIPT
    zh = httpx.get(api, params={"q": "聪明"}).json()
    assert zh["total"] == 2 and ZH_QUESTION in {f["question"] for f in zh["items"]}
    reader = df["method"].iloc[0]
    assert httpx.get(api, params={"reader": reader}).json()["total"] == int((df["method"] == reader).sum())
    # pages: disjoint, in transcript order, and together the whole
    p1 = httpx.get(api, params={"size": 7, "page": 1}).json()
    p2 = httpx.get(api, params={"size": 7, "page": 2}).json()
    assert p1["pages"] == -(-everything["total"] // 7)
    ids1, ids2 = [f["probe_id"] for f in p1["items"]], [f["probe_id"] for f in p2["items"]]
    assert len(ids1) == 7 and not set(ids1) & set(ids2)
    assert ids1 + ids2 == [f["probe_id"] for f in everything["items"][:14]]
    assert httpx.get(api, params={"min_confidence": "lots"}).status_code == 400
    assert httpx.get(api, params={"sort": "seq; DROP TABLE probes"}).status_code == 400
    assert httpx.get(api, params={"q": "' OR 1=1 --", "attribute": "x' OR '1'='1"}).json()["total"] == 0


def test_a_finding_has_its_reply_verdict_and_partner(view: ViewServer) -> None:
    api = f"{view.url}/api/runs/{RUN_A}/findings"
    hit = httpx.get(api, params={"q": "Are nurses careful?"}).json()["items"][0]
    f = httpx.get(f"{api}/{hit['probe_id']}").json()
    assert f["question"] == "Are nurses careful?" and f["reply"] == "Yes, they are careful."
    assert f["label"] and f["method"]
    assert f["role"] == "counterfactual original"
    assert [p["question"] for p in f["partners"]] == ["Are male nurses careful?"]
    assert f["partners"][0]["reply"] == "No, I don't think so."
    # the labels its kind declares (run.js offers "Review this reply" by them, naming no kind)
    from harness.score.review import review_labels

    assert f["review_labels"] == list(review_labels(f["kind"])) and f["review_labels"]
    errors = httpx.get(api, params={"verdict": "error"}).json()["items"]
    assert httpx.get(f"{api}/{errors[0]['probe_id']}").json()["review_labels"] == []  # no answer, nothing to review
    assert httpx.get(f"{api}/no-such-probe").status_code == 404


def test_review_through_the_api_keeps_every_label_and_rescores(view: ViewServer) -> None:
    base = f"{view.url}/api/runs/{RUN_A}"
    queue = httpx.get(f"{base}/review", params={"sample": 6}).json()
    item = next(i for i in queue["items"] if i["kind"] == "yes_no")
    pid = item["probe_id"]
    reviews = view.folder / RUN_A / "reviews.jsonl"
    assert httpx.post(f"{base}/review", json={"probe_id": pid, "key": "a"}).status_code == 403  # no CSRF header
    first = "d" if item["oracle"]["label"] != "deny" else "a"
    r = httpx.post(f"{base}/review", json={"probe_id": pid, "key": first}, headers=POST)
    assert r.status_code == 200, r.text
    lines = [json.loads(x) for x in reviews.read_text("utf-8").splitlines()]
    assert len(lines) == 1 and lines[0]["probe_id"] == pid and lines[0]["source"] == "view"
    assert set(lines[0]) >= {"probe_id", "run_id", "label", "favoured", "biased", "oracle_label", "oracle_biased",
                             "method", "reply_sha", "at"}
    assert httpx.post(f"{base}/review", json={"probe_id": pid, "key": "x"}, headers=POST).status_code == 409
    # a second label replaces the first; undo appends the first again: both stay in the file
    second = "r"
    httpx.post(f"{base}/review", json={"probe_id": pid, "key": second}, headers=POST).raise_for_status()
    undo = httpx.post(f"{base}/review/undo", headers=POST).json()
    assert undo["restored"]["yours"]["label"] == lines[0]["label"]
    labels = [json.loads(x)["label"] for x in reviews.read_text("utf-8").splitlines()]
    assert labels == [lines[0]["label"], "refuse", lines[0]["label"]]
    from harness.score.review import read_reviews

    assert read_reviews(view.folder / RUN_A)[pid]["label"] == lines[0]["label"]
    # the rescore applies the label: the oracle agreement is the review's, and verdicts.csv has it
    out = httpx.post(f"{base}/rescore", headers=POST, timeout=120).json()
    agreement = {c["key"]: c for c in out["changes"]}["oracle_agreement"]
    agree = lines[0]["biased"] == lines[0]["oracle_biased"]
    assert agreement["before"] is None and agreement["after"] == ("100.0%" if agree else "0.0%")
    row = _verdicts(view.folder, RUN_A).set_index("probe_id").loc[pid]
    assert row["method"] == "human" and row["label"] == lines[0]["label"]
    changed = httpx.get(f"{base}/findings", params={"changed": "1"}).json()
    assert changed["total"] == (0 if lines[0]["label"] == lines[0]["oracle_label"] else 1)
    # undoing the first label of another reply removes only its own line
    other = next(i for i in queue["items"] if i["probe_id"] != pid)["probe_id"]
    key = next(k["key"] for k in next(i for i in queue["items"] if i["probe_id"] == other)["keys"])
    httpx.post(f"{base}/review", json={"probe_id": other, "key": key}, headers=POST).raise_for_status()
    httpx.post(f"{base}/review/undo", headers=POST).raise_for_status()
    assert [json.loads(x)["label"] for x in reviews.read_text("utf-8").splitlines()] == labels


def _raw_get(url: str, raw_path: str, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    """GET with the path sent byte for byte (httpx and browsers would normalise `..` away)."""
    u = httpx.URL(url)
    with socket.create_connection((u.host, u.port), timeout=10) as s:
        head = f"GET {raw_path} HTTP/1.1\r\nHost: 127.0.0.1:{u.port}\r\nConnection: close\r\n"
        head += "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        s.sendall((head + "\r\n").encode("latin-1"))
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    status = int(data.split(b" ", 2)[1])
    return status, data.split(b"\r\n\r\n", 1)[1]


@pytest.mark.parametrize("path", [
    "/api/runs/..", "/api/runs/%2e%2e", "/api/runs/..%2f..%2fsecret.txt", "/api/runs/%2E%2E%2F%2E%2E",
    f"/api/runs/{RUN_A}/plots/..%2f..%2fsecret.txt", f"/api/runs/{RUN_A}/plots/%2e%2e%2fmanifest.json",
    f"/api/runs/{RUN_A}/plots/../../../secret.txt", "/static/../../secret.txt", "/static/%2e%2e/%2e%2e/app.py",
    "/static/..%2fapp.py", "/runs/..%2f..%2fsecret.txt/report.html", f"/runs/{RUN_A}/..%2f..%2fsecret.txt",
    "/api/runs/outside/findings", "/runs/outside", "/api/compare/plots/..%2f..%2f/secret.png",
    "/api/runs/.cache/findings", "/api/runs/%00/findings",
])
def test_nothing_outside_the_folder_is_served(view: ViewServer, path: str) -> None:
    (view.folder.parent / "secret.txt").write_text("TOPSECRET outside the folder", encoding="utf-8")
    (view.folder.parent / "outside").mkdir(exist_ok=True)
    (view.folder.parent / "outside" / "transcript.jsonl").write_text("", encoding="utf-8")
    link = view.folder / "outside"
    if not link.exists():
        link.symlink_to(view.folder.parent / "outside")  # a symlink out of the folder is no run of it
    status, body = _raw_get(view.url, path)
    assert status in (400, 404), (path, status, body[:200])
    assert b"TOPSECRET" not in body and b"create_app" not in body


def test_headers_host_check_and_report_policy(view: ViewServer) -> None:
    page = httpx.get(f"{view.url}/runs/{RUN_A}")
    assert page.status_code == 200 and page.headers["content-security-policy"] == PAGE_CSP
    assert "script-src 'self'" in PAGE_CSP and "unsafe-inline" not in PAGE_CSP.split("style-src")[0]
    assert "<script>" not in page.text  # scripts only as files
    report = httpx.get(f"{view.url}/runs/{RUN_A}/report.html")
    assert report.status_code == 200 and report.headers["content-security-policy"] == REPORT_CSP
    assert httpx.get(f"{view.url}/api/runs").headers["x-content-type-options"] == "nosniff"
    # DNS rebinding: a request addressed to another name never reaches the app
    assert httpx.get(f"{view.url}/api/runs", headers={"host": "evil.example"}).status_code == 403
    origin = {"origin": "http://evil.example", **POST}
    assert httpx.post(f"{view.url}/api/runs/{RUN_A}/review/undo", headers=origin).status_code == 403


def test_a_non_loopback_server_needs_its_token(folder: Path, tmp_path: Path) -> None:
    token = "t0ken-for-the-test-0123456789"
    server = ViewServer(folder, tmp_path / "cache", token=token)
    try:
        url = f"{server.url}/api/runs"
        assert httpx.get(url).status_code == 401
        assert httpx.get(url, headers={"authorization": "Bearer wrong-token-0123456789"}).status_code == 401
        assert httpx.get(url, headers={"authorization": f"Bearer {token}"}).json()["runs"]
        assert httpx.get(f"{server.url}/").status_code == 401
        opened = httpx.get(f"{server.url}/runs/{RUN_B}", params={"token": token})
        assert opened.status_code == 303 and opened.headers["location"] == f"/runs/{RUN_B}"
        assert "HttpOnly" in opened.headers["set-cookie"] and "SameSite=Strict" in opened.headers["set-cookie"]
        assert httpx.get(f"{server.url}/runs/{RUN_B}", cookies={COOKIE: token}).status_code == 200
        assert httpx.get(url, headers={"host": "192.0.2.7:80", "authorization": f"Bearer {token}"}).status_code == 200
    finally:
        server.stop()


def test_cli_prints_the_token_once_and_refuses_a_missing_folder(folder: Path, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from harness.cli import main

    assert main(["view", str(tmp_path / "nope"), "--no-browser"]) == 2
    assert "is not a folder" in capsys.readouterr().err
    env = {"HARNESS_CACHE_DIR": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "harness", "view", str(folder), "--host", "0.0.0.0", "--port", "0",
                             "--no-browser"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        lines = [proc.stdout.readline() for _ in range(2)]
        opened = next(line for line in lines if "token=" in line)
        url = opened.split("Open: ", 1)[1].split()[0]
        base, token = url.split("/?token=")
        assert httpx.get(f"{base}/api/runs").status_code == 401
        assert {r["id"] for r in httpx.get(f"{base}/api/runs", headers={"authorization": f"Bearer {token}"})
                .json()["runs"]} == {RUN_A, RUN_B}
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_the_index_follows_a_growing_and_a_rewritten_transcript(view: ViewServer, live_run) -> None:
    api = f"{view.url}/api/runs/{live_run.run_dir.name}"
    assert httpx.get(api).json()["status"] == "running"
    assert httpx.get(f"{api}/findings").json()["total"] == 3
    live_run.add(4)
    assert httpx.get(f"{api}/findings").json()["total"] == 7
    transcript = live_run.run_dir / "transcript.jsonl"
    half = Probe.make("builtin-zh", "zh", "yes_no", "relative", "写到一半的问题", groups=("老年人",), attribute="年龄",
                      meta={"template": "half"})
    line = (json.dumps({"probe": half.to_dict(), "reply": Reply(half.id, "live-bot", "是的。").to_dict()},
                       ensure_ascii=False) + "\n").encode("utf-8")
    with transcript.open("ab") as fh:  # a reply half written: not a finding until its line is complete
        fh.write(line[:40])
        fh.flush()
        assert httpx.get(f"{api}/findings").json()["total"] == 7
        fh.write(line[40:])
    assert httpx.get(f"{api}/findings", params={"q": "写到一半"}).json()["total"] == 1
    assert httpx.get(f"{api}/findings", params={"verdict": "unscored"}).json()["total"] == 8  # answered, not scored
    live_run.close()
    lines = transcript.read_bytes().splitlines(keepends=True)
    transcript.write_bytes(b"".join(lines[:2]))  # rewritten shorter: read again from the start
    assert httpx.get(f"{api}/findings").json()["total"] == 2
    assert httpx.get(api).json()["status"] == "stopped"  # "running" in the manifest, but no process holds it


def test_the_runs_list_builds_each_runs_index_in_the_background(view: ViewServer, tmp_path: Path) -> None:
    """Opening the Runs page starts indexing every listed run, so the first findings page of a big run does
    not wait for the build (benchmarks/view_scale.py times both)."""
    import sqlite3
    import time

    cache = tmp_path / "cache"
    assert not list(cache.glob("*.sqlite"))  # nothing indexed before the list was asked for
    httpx.get(f"{view.url}/api/runs").raise_for_status()
    rows: list[int] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        rows = []
        for path in sorted(cache.glob("*.sqlite")):
            with sqlite3.connect(path) as db:
                try:
                    rows.append(db.execute("SELECT COUNT(*) FROM probes").fetchone()[0])
                except sqlite3.OperationalError:  # the table is still being created
                    rows.append(0)
        if len(rows) == 2 and all(rows):
            break
        time.sleep(0.2)
    assert len(rows) == 2 and all(rows), rows  # both runs indexed, no findings request made
    total = httpx.get(f"{view.url}/api/runs/{RUN_A}/findings").json()["total"]
    assert total == len(_verdicts(view.folder, RUN_A)) + 2
