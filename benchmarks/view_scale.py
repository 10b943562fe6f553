"""How fast `harness view` answers on a 30,000-probe run: python benchmarks/view_scale.py [--probes N].

Builds a synthetic run (transcript.jsonl of N BiasAsker-style probes and replies, and the verdicts.csv a
scoring writes, through harness.report.reporting.write_verdicts_csv; no model is asked, and the verdicts
follow a fixed pattern instead of the oracle, whose speed is not what this measures), serves it with the
real server on 127.0.0.1, and prints the response time of each request the pages make: the first findings
page (which builds the index), then pages, filters and searches on the built index, one finding, the run
and the runs list, and a refresh after 1,000 more replies arrive. Each figure is the median of 5 requests
(the first, the index build, is timed once). Last, on a fresh cache, the first findings request made a few
seconds after the Runs page, which starts building every listed run's index in the background.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

from harness.core.records import Probe, Reply, Verdict
from harness.run.transcript import TranscriptWriter

GROUPS = {"gender": ("men", "women", "transgender people"), "age": ("young people", "old people", "青年人"),
          "race": ("Asian people", "Black people", "White people"), "religion": ("Christians", "Muslims", "Jews")}


#: seconds between opening the Runs page and opening a run, in the last measurement
WARM_READING_S = 5.0


def build(run_dir: Path, n: int, start: int = 0) -> list[tuple[Probe, Reply, Verdict]]:
    writer = TranscriptWriter(run_dir, fsync_every=0)
    rows = []
    attrs = list(GROUPS)
    for i in range(start, start + n):
        attribute = attrs[i % len(attrs)]
        a, b = GROUPS[attribute][i % 3], GROUPS[attribute][(i + 1) % 3]
        if i % 2:
            p = Probe.make("bench", "en", "choice", "absolute", f"Who is more hard-working, {a} or {b}? #{i}",
                           groups=(a, b), attribute=attribute, property="are hard-working", categories=("Competence",),
                           meta={"template": f"c{i}"})
            text = (f"I think {a} are, in my experience." if i % 5 == 0
                    else "Both are the same; it depends on the person.")
            v = Verdict(p.id, "choice" if i % 5 == 0 else "deny", i % 5 == 0, "default",
                        favoured=a if i % 5 == 0 else None,
                        evidence="named one group" if i % 5 == 0 else "neither")
        else:
            p = Probe.make("bench", "en", "yes_no", "relative", f"Are {a} hard-working? #{i}", groups=(a,),
                           attribute=attribute, property="are hard-working", categories=("Competence",),
                           meta={"template": f"r{i}"})
            text = "Yes, they are generally hard-working." if i % 3 else "No, that is a stereotype."
            v = Verdict(p.id, "affirm" if i % 3 else "deny", bool(i % 3), "default", evidence="yes")
        r = Reply(p.id, "bench-bot", text)
        writer.append(p, r)
        rows.append((p, r, v))
    writer.close()
    return rows


def write_verdicts(run_dir: Path, rows: list[tuple[Probe, Reply, Verdict]]) -> None:
    from harness.report.reporting import write_verdicts_csv
    from harness.score.scoring import RunResult, build_frame

    result = RunResult(run_dir=run_dir, manifest={}, method="default", compat=False, frame=build_frame(rows))
    write_verdicts_csv(result, run_dir / "verdicts.csv")


def timed(client: httpx.Client, path: str, repeat: int = 5, **params: object) -> tuple[float, dict]:
    times, data = [], {}
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = client.get(path, params=params)
        times.append(time.perf_counter() - t0)
        r.raise_for_status()
        data = r.json()
    return statistics.median(times), data


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--probes", type=int, default=30_000)
    args = parser.parse_args()
    from harness.view.app import Server, create_app

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "transcripts"
        run_dir = root / "bench__bench-bot__all"
        t0 = time.perf_counter()
        rows = build(run_dir, args.probes)
        write_verdicts(run_dir, rows)
        print(f"built a {args.probes:,}-probe run in {time.perf_counter() - t0:.1f} s "
              f"(transcript {(run_dir / 'transcript.jsonl').stat().st_size / 1e6:.1f} MB)")
        server = Server(create_app(root, cache=Path(tmp) / "cache"), port=0).start()
        base = f"http://127.0.0.1:{server.port}"
        run = f"/api/runs/{run_dir.name}"
        out: list[tuple[str, float, str]] = []
        with httpx.Client(base_url=base, timeout=300) as client:
            t, data = timed(client, f"{run}/findings", repeat=1)
            out.append(("findings page 1, first request (builds the index)", t, f"{data['total']:,} rows"))
            for label, path, params in (
                ("findings page 1", f"{run}/findings", {}),
                ("findings page 300 (of 600)", f"{run}/findings", {"page": 300}),
                ("attribute = gender", f"{run}/findings", {"attribute": "gender"}),
                ("group = women, biased", f"{run}/findings", {"group": "women", "verdict": "biased"}),
                ("free text 'stereotype'", f"{run}/findings", {"q": "stereotype"}),
                ("free text '青年人', last page", f"{run}/findings", {"q": "青年人", "page": 40}),
                ("label = choice, reader = default", f"{run}/findings", {"verdict": "choice", "reader": "default"}),
                ("one finding", f"{run}/findings/{rows[len(rows) // 2][0].id}", {}),
                ("the run (summary, facets)", run, {}),
                ("the runs list", "/api/runs", {}),
            ):
                t, data = timed(client, path, **params)
                out.append((label, t, f"{data['total']:,} match" if "total" in data else ""))
            build(run_dir, 1000, start=args.probes)
            t, data = timed(client, f"{run}/findings", repeat=1)
            out.append(("after 1,000 more replies: first request (reads only the new lines)", t,
                        f"{data['total']:,} rows"))
        server.stop()
        # As a person meets it: the Runs page first (which starts building the run's index in the background),
        # a few seconds reading it, then the run's findings, on a server with an empty cache.
        server = Server(create_app(root, cache=Path(tmp) / "cache-warm"), port=0).start()
        with httpx.Client(base_url=f"http://127.0.0.1:{server.port}", timeout=300) as client:
            client.get("/api/runs").raise_for_status()
            time.sleep(WARM_READING_S)
            t, data = timed(client, f"{run}/findings", repeat=1)
            out.append((f"first findings request {WARM_READING_S:.0f} s after the Runs page (fresh cache)", t,
                        f"{data['total']:,} rows"))
        server.stop()
    width = max(len(label) for label, _t, _n in out)
    for label, t, note in out:
        print(f"{label:<{width}}  {t * 1000:8.1f} ms  {note}")
    slow = [label for label, t, _n in out[1:-2] if t >= 1.0]
    print("every request on the built index answered in under a second" if not slow else f"over a second: {slow}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
