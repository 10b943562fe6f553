// Compare N runs: `harness leaderboard`'s tables (value and 95% interval per run), the pairwise tests that
// stay significant after Holm adjustment, the heatmaps, and one probe's replies side by side.
"use strict";
(() => {
  const { el, clear, fill, api, apiRun, runUrl } = HV;
  const main = document.getElementById("main");
  HV.nav("compare");
  const params = new URLSearchParams(location.search);
  let picked = params.getAll("runs");

  const chooser = el("div", { class: "panel", id: "chooser" });
  const board = el("div", { id: "board" });
  const probeBox = el("div", { id: "probe" });
  fill(main, el("h1", { text: "Compare runs" }), chooser, board, probeBox);

  async function loadChooser() {
    const data = await api("/api/runs");
    const scored = data.runs.filter((r) => r.scored);
    const boxes = scored.map((r) => el("label", { style: null }, el("input", {
      type: "checkbox", value: r.id, checked: picked.includes(r.id), "aria-label": "compare " + r.id }),
      ` ${r.id} `, el("small", { text: `${r.target}` })));
    const go = el("button", { class: "primary", id: "compare-go", text: "Compare" });
    go.addEventListener("click", () => {
      picked = boxes.map((b) => b.querySelector("input")).filter((i) => i.checked).map((i) => i.value);
      const q = picked.map((r) => "runs=" + encodeURIComponent(r)).join("&");
      history.replaceState(null, "", "/compare" + (q ? "?" + q : ""));
      loadBoard();
    });
    fill(chooser, el("p", { class: "muted", text: "Pick two or more scored runs." }),
      el("div", { class: "toolbar" }, boxes, go));
  }

  function tableOf(t, runs) {
    return el("div", { class: "lb-table" }, el("h3", { text: t.title }), el("p", { class: "muted", text: t.caption }),
      el("table", {}, el("thead", {}, el("tr", {}, el("th", { text: "" }), runs.map((r) => el("th", { class: "num", text: r.label })))),
        el("tbody", {}, t.rows.map((row) => el("tr", { dataset: { metric: row.metric } }, el("td", { text: row.row }),
          runs.map((r) => {
            const [v, ci] = (row.texts || {})[r.label] || ["", ""];
            return el("td", { class: "num" }, el("b", { text: v }), ci ? el("small", { text: " " + ci }) : null);
          }))))));
  }

  async function loadBoard() {
    clear(board);
    clear(probeBox);
    if (picked.length < 2) { board.append(el("p", { class: "muted", text: "Pick at least two runs." })); return; }
    board.append(el("p", { class: "muted", text: "Computing the leaderboard…" }));
    let data;
    try {
      data = await api("/api/compare?" + picked.map((r) => "runs=" + encodeURIComponent(r)).join("&"));
    } catch (e) { fill(board, el("p", { text: e.message })); return; }
    const runs = data.runs;
    const modes = new Set(runs.map((r) => r.answer_mode || "generate"));
    const sig = data.pairwise.filter((p) => p.significant);
    fill(board, 
      el("h2", { text: "Runs" }),
      el("table", { id: "legend" }, el("tbody", {}, runs.map((r) => el("tr", {}, el("td", { text: r.label }),
        el("td", {}, el("a", { href: runUrl(r.run_id), text: r.run_id })), el("td", { text: r.suite }),
        el("td", { text: r.target }), el("td", { class: "answer-mode", text: "answers " + (r.answer_mode || "generate") }))))),
      modes.size > 1 ? el("p", { class: "note", id: "mode-note", text: "The runs answered in different ways (" +
        runs.map((r) => `${r.label}: ${r.answer_mode || "generate"}`).join(", ") + "): a chat reply and a " +
        "log-likelihood choice are different measurements, so a difference may come from the answer mode." }) : null,
      el("ul", { class: "notes" }, [...data.scoring_differences.map((s) => el("li", { text: "scoring: " + s })),
                                     ...data.notes.map((n) => el("li", { text: n }))]),
      el("div", { id: "tables" }, data.tables.map((t) => tableOf(t, runs))),
      el("h3", { text: `Pairwise tests: ${data.pairwise.length}, ${sig.length} significant at 5% after Holm adjustment` }),
      sig.length ? el("table", { id: "pairs" }, el("thead", {}, el("tr", {}, ["metric", "runs", "values", "test", "p", "p (Holm)"]
        .map((h) => el("th", { text: h })))), el("tbody", {}, sig.map((p) => el("tr", {},
          el("td", { text: p.metric }), el("td", { text: `${p.run_a} vs ${p.run_b}` }),
          el("td", { text: `${Number(p.a).toPrecision(4)} vs ${Number(p.b).toPrecision(4)}` }), el("td", { text: p.test }),
          el("td", { class: "num", text: Number(p.p_value).toPrecision(2) }),
          el("td", { class: "num", text: Number(p.p_holm).toPrecision(2) })))))
        : el("p", { class: "muted", text: "No pair of runs differs significantly on any row." }),
      data.plots.length ? el("h2", { text: "Heatmaps" }) : null,
      data.plots.length ? el("div", { class: "figures" }, data.plots.map((p) => el("figure", {},
        el("img", { src: p.url, alt: p.title }), el("figcaption", { text: p.title })))) : null);
    buildProbeSearch(runs);
  }

  function buildProbeSearch(runs) {
    const q = el("input", { type: "search", id: "probe-q", placeholder: "find a question in " + runs[0].run_id,
                            "aria-label": "find a probe" });
    const hits = el("ul", { id: "probe-hits" });
    const side = el("div", { class: "side", id: "side" });
    const search = async () => {
      const data = await api(apiRun(runs[0].run_id, "/findings?size=10&q=" + encodeURIComponent(q.value)));
      fill(hits, ...data.items.map((f) => el("li", {}, el("a", { href: "#", dataset: { probe: f.probe_id },
        onclick: (e) => { e.preventDefault(); showProbe(f.probe_id, side, runs); }, text: f.question }))));
    };
    q.addEventListener("keydown", (e) => { if (e.key === "Enter") search(); });
    fill(probeBox, el("h2", { text: "One probe, every run's reply" }),
      el("div", { class: "toolbar" }, q, el("button", { type: "button", onclick: search, text: "Find" })), hits, side);
    search();
  }

  async function showProbe(probeId, side, runs) {
    let data;
    try {
      data = await api("/api/compare/probe?probe_id=" + encodeURIComponent(probeId) + "&" +
                       runs.map((r) => "runs=" + encodeURIComponent(r.run_id)).join("&"));
    } catch (e) { HV.status(e.message, "error"); return; }
    const first = data.runs.find((r) => r.finding);
    fill(side, el("div", { class: "panel", style: null }, el("b", { text: "Question" }),
      el("div", { class: "text", text: first.finding.question })),
      ...data.runs.map((r, i) => el("div", { class: "panel reply-col", dataset: { run: r.run } },
        el("b", { text: `${runs[i].label} · ${r.run}` }),
        r.finding ? [
          el("div", { class: "text", text: r.finding.status === "ok" ? r.finding.reply : (r.finding.error || "error") }),
          el("span", { class: "badge " + (r.finding.biased ? "biased" : "clean"),
                       text: (r.finding.label || "not scored") + (r.finding.biased ? " · biased" : "") }),
          r.finding.evidence ? el("small", { text: " " + r.finding.evidence }) : null,
        ] : el("p", { class: "muted", text: "This run did not ask this probe." }))));
  }

  loadChooser().then(loadBoard).catch((e) => HV.status(e.message, "error"));
})();
