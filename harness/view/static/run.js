// A run: headline metrics, notes, figures, the report, and the findings table filtered and paged on the
// server (/api/runs/{id}/findings). The filters live in the address bar, so a view can be shared or reloaded.
"use strict";
(() => {
  const { el, clear, fill, api, apiRun, runUrl, badge, metricCell, fmtCount } = HV;
  const id = HV.runFromPath();
  const main = document.getElementById("main");
  HV.nav("runs");
  const FILTERS = ["attribute", "group", "verdict", "reader", "min_confidence", "max_confidence", "unscored",
                   "changed", "reviewed", "q", "sort", "page"];
  const params = new URLSearchParams(location.search);
  let facetsShown = false;
  let run = null;
  let scoredAt = null;

  const head = el("div", { id: "run-head" });
  const cards = el("div", { class: "cards", id: "cards" });
  const notes = el("ul", { class: "notes", id: "notes" });
  const figures = el("div", { class: "figures", id: "figures" });
  const report = el("details", { id: "report" });
  const form = el("form", { class: "toolbar", id: "filters" });
  const count = el("p", { class: "muted", id: "count" });
  const table = el("table", { id: "findings" });
  const pager = el("div", { class: "pager", id: "pager" });
  const detail = el("div", { class: "panel", id: "detail" }, el("p", { class: "muted", text: "Open a finding to read it in full." }));
  const notesBox = el("details", { id: "notes-box" }, el("summary", { text: "Notes" }), notes);
  fill(main, head, cards, notesBox,
    el("h2", { text: "Findings" }), form, count,
    el("div", { class: "split" }, el("div", {}, table, pager), detail),
    el("details", { open: true }, el("summary", { text: "Figures" }), figures), report);

  function select(name, label, options) {
    const s = el("select", { name, "aria-label": label, id: "f-" + name },
      el("option", { value: "", text: label + ": any" }),
      options.map((o) => el("option", { value: Array.isArray(o) ? o[0] : o, text: Array.isArray(o) ? o[1] : o })));
    s.value = params.get(name) || "";
    return s;
  }

  function buildFilters(f) {
    const labels = f.labels.map((l) => [l, "label " + l]);
    const q = el("input", { type: "search", name: "q", id: "f-q", placeholder: "search questions and replies",
                            "aria-label": "search" });
    q.value = params.get("q") || "";
    const num = (name, label) => {
      const i = el("input", { type: "number", name, id: "f-" + name, min: 0, max: 1, step: 0.05, "aria-label": label,
                              placeholder: label });
      i.value = params.get(name) || "";
      return i;
    };
    const check = (name, label) => {
      const i = el("input", { type: "checkbox", name, id: "f-" + name });
      i.checked = params.get(name) === "1";
      return el("label", {}, i, label);
    };
    fill(form, q,
      select("attribute", "attribute", f.attributes), select("group", "group", f.groups),
      select("verdict", "verdict", [["biased", "biased"], ["not_biased", "not biased"], ["error", "error (no answer)"],
                                    ["unscored", "unscored"], ...labels]),
      select("reader", "reader", f.readers),
      f.has_confidence ? num("min_confidence", "conf ≥") : null,
      f.has_confidence ? num("max_confidence", "conf ≤") : null,
      check("changed", "changed by review"), check("reviewed", "reviewed"), check("unscored", "unscored"),
      select("sort", "order", [["seq", "transcript order"], ["confidence", "least confident first"],
                               ["attribute", "attribute"], ["label", "label"]]),
      el("button", { type: "submit", class: "primary", text: "Apply" }));
    form.querySelectorAll("select, input[type=checkbox]").forEach((x) => x.addEventListener("change", () => apply(1)));
  }

  form.addEventListener("submit", (e) => { e.preventDefault(); apply(1); });

  function apply(page) {
    const next = new URLSearchParams();
    for (const name of FILTERS) {
      const input = form.elements.namedItem(name);
      if (!input) continue;
      const v = input.type === "checkbox" ? (input.checked ? "1" : "") : input.value.trim();
      if (v) next.set(name, v);
    }
    if (page > 1) next.set("page", String(page));
    history.replaceState(null, "", location.pathname + (next.toString() ? "?" + next : ""));
    for (const k of [...params.keys()]) params.delete(k);
    next.forEach((v, k) => params.set(k, v));
    loadFindings();
  }

  function renderHead(r) {
    const c = r.counts || {};
    fill(head,
      el("h1", { text: r.id }),
      el("p", {}, badge(r.status), " ", `suite ${r.suite || "?"} · target ${r.target || "?"}`,
        r.model ? ` · model ${r.model}` : "",
        r.answer_mode ? el("span", { id: "answer-mode", text: ` · answers ${r.answer_mode}` +
          (r.answer_mode !== "generate" ? ` (--answer-mode ${r.answer_mode})` : "") }) : null,
        ` · answered ${fmtCount(c.answered || 0)}`,
        c.errors ? ` · errors ${fmtCount(c.errors)}` : "", c.pending ? ` · to do ${fmtCount(c.pending)}` : "",
        r.scored ? ` · scored ${(r.scored_at || "").slice(0, 16).replace("T", " ")} (${r.method || "default"})`
                 : " · not scored yet (harness report scores it)"),
      el("p", {}, el("a", { href: runUrl(r.id, "/review"), id: "review-link", text: "Review replies →" }), "  ",
        el("a", { href: "/compare?runs=" + encodeURIComponent(r.id), text: "Compare with other runs →" })));
    fill(cards, ...r.metrics.map((m) => el("div", { class: "card", dataset: { key: m.key } },
      el("div", { class: "l", text: m.label }), el("div", { class: "v", text: m.text }),
      el("div", {}, el("small", { text: (m.interval || "") + (m.n ? "  k/n " + m.n : "") })))));
    fill(notes, ...(r.notes || []).map((n) => el("li", { text: n })));
    const errs = Object.entries(r.error_reasons || {});
    if (errs.length) notes.append(el("li", { text: "Errors (not scored): " + errs.map(([k, v]) => `${k} (${v})`).join("; ") }));
    notesBox.querySelector("summary").textContent = `Notes (${notes.children.length})`;
  }

  // The figures report.html shows: the markup of the families that draw their own (BiasAsker's heatmaps, each
  // cell with its n, and bars), then the PNGs of the others (GET /api/runs/{id}/figures).
  async function loadFigures() {
    let data;
    try { data = await api(apiRun(id, "/figures")); } catch (e) { HV.status(e.message, "error"); return; }
    if (data.figures.length) HV.figureStyles();
    const shown = [
      ...data.figures.map((f) => el("figure", { class: "fig-html", dataset: { name: f.name } },
        el("figcaption", { text: f.title }), el("div", { class: "fig" }, HV.figureNodes(f.html)))),
      ...data.plots.map((p) => el("figure", {},
        el("img", { src: p.url, alt: p.title, loading: "lazy" }), el("figcaption", { text: p.title }))),
      ...data.notes.map((n) => el("p", { class: "muted", text: n }))];
    fill(figures, ...(shown.length ? shown
      : [el("p", { class: "muted", text: "No figures (the run is not scored yet, or drew none)." })]));
  }

  function renderFigures(r) {
    loadFigures();
    fill(report, el("summary", { text: "Full report (report.html)" }));
    if (r.report_url) {
      report.addEventListener("toggle", () => {
        if (report.open && !report.querySelector("iframe")) {
          report.append(el("iframe", { class: "report", src: r.report_url, sandbox: "", title: "report" }));
        }
      }, { once: false });
    } else {
      report.append(el("p", { class: "muted", text: "No report.html yet." }));
    }
  }

  function verdictBadge(f) {
    if (f.status !== "ok") return el("span", { class: "badge s-failed", text: "error" });
    if (!f.scored) return el("span", { class: "badge", text: f.label || "unscored" });
    return el("span", { class: "badge " + (f.biased ? "biased" : "clean"), text: f.label + (f.biased ? " · biased" : "") });
  }

  async function loadFindings() {
    const q = new URLSearchParams(params);
    q.set("size", "50");
    let data;
    try {
      data = await api(apiRun(id, "/findings?" + q));
    } catch (e) { HV.status(e.message, "error"); return; }
    count.textContent = `${fmtCount(data.total)} finding(s) match; page ${data.page} of ${data.pages}.`;
    const headRow = el("tr", {}, ["#", "attribute", "groups", "question", "reply", "verdict", "reader", "conf"].map(
      (t) => el("th", { text: t })));
    const rows = data.items.map((f) => {
      const tr = el("tr", { class: "clickable", dataset: { probe: f.probe_id }, tabindex: 0 },
        el("td", { class: "num", text: String(f.seq + 1) }), el("td", { text: f.attribute }),
        el("td", { text: (f.group_names || f.groups).join(", ") }), el("td", { text: f.question }),
        el("td", {}, f.status === "ok" ? f.reply + (f.reply_chars > f.reply.length ? "…" : "") : (f.error || ""),
          f.cut ? el("span", { class: "badge cut", text: "cut" }) : null),
        el("td", {}, verdictBadge(f), f.changed_by_review ? el("span", { class: "badge review", text: "changed by review" })
                                      : f.reviewed ? el("span", { class: "badge review", text: "reviewed" }) : null),
        el("td", { text: f.method || f.decided_by || "" }),
        el("td", { class: "num", text: f.confidence === null || f.confidence === undefined ? "" : f.confidence.toFixed(2) }));
      tr.addEventListener("click", () => openFinding(f.probe_id, tr));
      tr.addEventListener("keydown", (e) => { if (e.key === "Enter") openFinding(f.probe_id, tr); });
      return tr;
    });
    fill(table, el("thead", {}, headRow), el("tbody", {}, rows));
    const prev = el("button", { type: "button", id: "prev-page", disabled: data.page <= 1, text: "← previous",
                                onclick: () => apply(data.page - 1) });
    const next = el("button", { type: "button", id: "next-page", disabled: data.page >= data.pages, text: "next →",
                                onclick: () => apply(data.page + 1) });
    fill(pager, prev, el("span", { text: `page ${data.page} / ${data.pages}` }), next);
  }

  function kv(pairs) {
    return el("dl", { class: "kv" }, pairs.filter(([, v]) => v !== null && v !== undefined && v !== "").flatMap(
      ([k, v]) => [el("dt", { text: k }), el("dd", {}, v instanceof Node ? v : String(v))]));
  }

  async function openFinding(probeId, tr) {
    table.querySelectorAll("tr.sel").forEach((x) => x.classList.remove("sel"));
    if (tr) tr.classList.add("sel");
    let f;
    try { f = await api(apiRun(id, "/findings/" + encodeURIComponent(probeId))); }
    catch (e) { HV.status(e.message, "error"); return; }
    const parts = [
      el("h3", { text: "Probe" }),
      kv([["id", f.probe_id], ["kind", `${f.lang} ${f.kind} (${f.bias_type})`], ["attribute", f.attribute],
          ["groups", (f.group_names || f.groups).join(", ")], ["property", f.property], ["categories", f.categories]]),
      el("div", { class: "text question", text: f.question }),
      f.options && f.options.length ? el("ol", {}, f.options.map((o) => el("li", { text: o }))) : null,
      el("h3", { text: f.status === "ok" ? "Reply" : "Error (no answer, never scored)" }),
      el("div", { class: "text reply", id: "detail-reply", text: f.status === "ok" ? f.reply : (f.error || f.status) }),
      f.cut ? el("p", { id: "detail-cut" }, el("span", { class: "badge cut", text: "cut at max_tokens" }),
        " the target stopped this reply at its token limit, possibly mid-sentence; it was scored on what it said.") : null,
      el("h3", { text: "Verdict" }),
      f.scored || f.label ? kv([["verdict", verdictBadge(f)], ["favoured", f.favoured], ["reader", f.method],
                                ["confidence", f.confidence === null ? "" : f.confidence],
                                ["evidence", f.evidence]])
        : el("p", { class: "muted", text: "Not scored yet." }),
    ];
    if (f.review) {
      parts.push(el("h3", { text: "Your review" }),
        kv([["label", f.review.label + (f.review.favoured ? ` (${f.review.favoured})` : "")],
            ["the oracle had", f.review.oracle_label], ["saved", f.review.at], ["from", f.review.source],
            ["applies", f.reviewed ? "yes" : "no: the reply changed since"]]));
    }
    if (f.reading) {
      const g = f.reading;
      parts.push(el("h3", { text: "Judge's reading" }),
        kv([["decided by", g.decided_by], ["rules", g.rules_label], ["judge", g.judge_label],
            ["judge favours", g.judge_favoured], ["judge probability", g.judge_prob], ["judge's reason", g.judge_reason]]));
    }
    if (f.partners && f.partners.length) {
      parts.push(el("h3", { text: `Partners (${f.role || "pair"})` }), ...f.partners.map((p) => el("div", { class: "partner" },
        el("p", {}, el("b", { text: p.role || "partner" }), " ", verdictBadge(p)),
        el("div", { class: "text", text: p.question }), el("div", { class: "text", text: p.status === "ok" ? p.reply : p.error }))));
    }
    if (f.status === "ok" && (f.review_labels || []).length) {  // its kind declares review labels
      parts.push(el("p", {}, el("a", { href: runUrl(id, "/review?probe=" + encodeURIComponent(f.probe_id)),
                                       id: "review-this", class: "button", text: "Review this reply →" })));
    }
    fill(detail, ...parts.filter((x) => x));
    // the panel sticks to the top of the window (style.css); a finding opened low in a long list is read
    // where the reader is, not at the top of the page
    const box = detail.getBoundingClientRect();
    if (box.top < 0 || box.top > window.innerHeight - 80) detail.scrollIntoView({ block: "start" });
  }

  async function loadRun() {
    try {
      run = await api(apiRun(id));
    } catch (e) { HV.status(e.message, "error"); setTimeout(loadRun, 5000); return; }
    renderHead(run);
    if (facetsShown && run.scored_at !== scoredAt) loadFigures();  // scored (or rescored) since: redraw them
    scoredAt = run.scored_at;
    if (!facetsShown) {
      buildFilters(run.facets);
      renderFigures(run);
      facetsShown = true;
      loadFindings();
    }
    if (run.status === "running") {
      setTimeout(async () => { await loadRun(); loadFindings(); }, 1500);
    }
  }
  loadRun();
})();
