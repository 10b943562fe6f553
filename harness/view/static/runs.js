// Runs page: every run of the folder, sortable and filterable; polls /api/runs so a run being asked updates.
// The metric columns are the ones the metric families declare (/api/runs "columns"): no metric is named here.
"use strict";
(() => {
  const { el, clear, fill, api, runUrl, badge, metricCell, fmtCount } = HV;
  const state = { runs: [], columns: [], sort: "started_at", dir: -1, filter: "", status: "", picked: new Set() };
  const main = document.getElementById("main");
  HV.nav("runs");

  const filterBox = el("input", { type: "search", placeholder: "Filter by run, suite, target, model…",
                                  "aria-label": "filter runs", id: "run-filter" });
  const statusBox = el("select", { "aria-label": "status", id: "status-filter" },
    el("option", { value: "", text: "any status" }),
    ...["running", "stopped", "complete", "interrupted", "failed", "incomplete", "killed"].map(
      (s) => el("option", { value: s, text: s })));
  const compareBtn = el("button", { class: "primary", id: "compare-picked", disabled: true, text: "Compare selected" });
  const table = el("table", { id: "runs" });
  const summary = el("p", { class: "muted", id: "runs-summary" });
  fill(main, el("h1", { text: "Runs" }), summary,
    el("div", { class: "toolbar" }, filterBox, statusBox, compareBtn), table);

  filterBox.addEventListener("input", () => { state.filter = filterBox.value.toLowerCase(); render(); });
  statusBox.addEventListener("change", () => { state.status = statusBox.value; render(); });
  compareBtn.addEventListener("click", () => {
    const q = [...state.picked].map((r) => "runs=" + encodeURIComponent(r)).join("&");
    location.href = "/compare?" + q;
  });

  let shown = [];  // the declared metric columns some run of the folder has: {key, label}
  const columns = () => [
    ["", null], ["run", "id"], ["suite", "suite"], ["target", "target"], ["model", "model"],
    ["started (UTC)", "started_at"], ["status", "status"], ["answered", "answered"], ["errors", "errors"],
    ["to do", "pending"], ...shown.map((c) => [c.label, "m:" + c.key]),
  ];

  function value(run, key) {
    if (key.startsWith("m:")) {
      const m = run.metrics.find((x) => x.key === key.slice(2));
      return m ? m.value : null;
    }
    if (["answered", "errors", "pending"].includes(key)) return run.counts[key] ?? null;
    return run[key] ?? "";
  }

  function render() {
    const rows = state.runs.filter((r) => {
      const hay = [r.id, r.suite, r.target, r.model].join(" ").toLowerCase();
      return (!state.filter || hay.includes(state.filter)) && (!state.status || r.status === state.status);
    });
    rows.sort((a, b) => {
      const x = value(a, state.sort), y = value(b, state.sort);
      if (x === y) return 0;
      if (x === null || x === "") return 1;
      if (y === null || y === "") return -1;
      return (x < y ? -1 : 1) * state.dir;
    });
    shown = state.columns.filter((c) => state.runs.some((r) => r.metrics.some((m) => m.key === c.key)));
    const head = el("tr", {}, columns().map(([label, key]) => {
      const th = el("th", { class: key ? "sortable" + (state.sort === key ? (state.dir > 0 ? " asc" : " desc") : "") : "",
                            text: label });
      if (key) th.addEventListener("click", () => {
        state.dir = state.sort === key ? -state.dir : 1; state.sort = key; render();
      });
      return th;
    }));
    const body = rows.map((r) => el("tr", { dataset: { run: r.id } },
      el("td", {}, el("input", { type: "checkbox", "aria-label": "pick " + r.id, checked: state.picked.has(r.id),
                                 disabled: !r.scored, title: r.scored ? "pick to compare" : "not scored yet",
                                 onchange: (e) => { e.target.checked ? state.picked.add(r.id) : state.picked.delete(r.id);
                                                    compareBtn.disabled = state.picked.size < 2; } })),
      el("td", { class: "run-id" }, el("a", { href: runUrl(r.id), text: r.id })),
      el("td", { text: r.suite }), el("td", { text: r.target }), el("td", { text: r.model }),
      el("td", { text: (r.started_at || "").slice(0, 16).replace("T", " ") }),
      el("td", { class: "run-status" }, badge(r.status)),
      el("td", { class: "num answered", text: fmtCount(r.counts.answered) }),
      el("td", { class: "num", text: fmtCount(r.counts.errors) }),
      el("td", { class: "num", text: fmtCount(r.counts.pending) }),
      ...shown.map((c) => el("td", { class: "num" }, metricCell(r.metrics.find((m) => m.key === c.key)))),
    ));
    fill(table, el("thead", {}, head), el("tbody", {}, body));
    summary.textContent = `${state.runs.length} run(s) in ${state.folder || "the folder"}; showing ${rows.length}.`;
    compareBtn.disabled = state.picked.size < 2;
  }

  async function load() {
    try {
      const data = await api("/api/runs");
      state.runs = data.runs;
      state.columns = data.columns || [];
      state.folder = data.folder;
      render();
      const live = data.runs.some((r) => r.status === "running");
      setTimeout(load, live ? 1500 : 5000);
    } catch (e) {
      HV.status(e.message, "error");
      setTimeout(load, 5000);
    }
  }
  load();
})();
