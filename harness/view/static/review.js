// Review in the browser, keyboard-first: the label's key (a, e, d, r, u, or a group's number) saves it and
// moves on; j / → next, k / ← previous, z / Backspace undo. After each label the run is rescored and the
// page lists the headline metrics before and after. Same labels and reviews.jsonl as `harness review`.
"use strict";
(() => {
  const { el, clear, fill, api, apiRun, runUrl } = HV;
  const id = HV.runFromPath();
  const params = new URLSearchParams(location.search);
  const main = document.getElementById("main");
  HV.nav("runs");
  let items = [];
  let at = 0;
  let canUndo = false;
  let rescoreTimer = null;

  const head = el("div", {});
  const card = el("div", { class: "panel", id: "review-item" });
  const changes = el("div", { id: "changes" });
  fill(main, head, el("div", { class: "split" }, card,
    el("div", { class: "panel" }, el("h3", { text: "What your labels changed" }), changes,
      el("p", { class: "muted", text: "Keys: the label's letter or the group's number saves it and moves on · " +
        "j or → next · k or ← previous · z or Backspace undoes the last label saved here." }))));

  function renderHead() {
    const done = items.filter((x) => x.yours).length;
    fill(head, el("h1", {}, "Review ", el("a", { href: runUrl(id), text: id })),
      el("p", { class: "muted", id: "progress", text: `${done} of ${items.length} reviewed · reply ${at + 1} of ${items.length}` }));
  }

  // the key of the label the reply has now: the same verdict label (and, for a group's key, that group)
  const isCurrent = (it, k) => Boolean(it.yours) && k.value === it.yours.label
    && (k.group === null || k.group === it.yours.favoured);

  function render() {
    renderHead();
    const it = items[at];
    if (!it) { fill(card, el("p", { text: "Nothing to review in this run." })); return; }
    const current = it.yours ? it.yours.text : null;
    fill(card, 
      el("p", { class: "muted", text: `${it.lang} ${it.kind} · ${it.attribute} · ${it.groups.join(" / ")} · ${it.probe_id}` }),
      el("h3", { text: "Question" }), el("div", { class: "text", id: "review-question", text: it.question }),
      el("h3", { text: "Reply" }), el("div", { class: "text", id: "review-reply", text: it.reply }),
      el("p", {}, el("b", { text: "Oracle: " }), `${it.oracle.text} (${it.oracle.biased ? "biased" : "not biased"})`,
        it.oracle.evidence ? el("small", { text: ` · evidence: "${it.oracle.evidence}"` }) : null),
      el("p", { id: "your-label" }, el("b", { text: "Your label: " }),
        current ? el("span", { class: "badge review", text: current }) : el("span", { class: "muted", text: "none yet" })),
      el("div", { class: "keys" }, it.keys.map((k) => el("button", {
        type: "button", class: isCurrent(it, k) ? "current" : "",
        dataset: { key: k.key }, onclick: () => label(k.key) }, el("kbd", { text: k.key }), k.label))),
      el("div", { class: "toolbar" },
        el("button", { type: "button", id: "prev", disabled: at === 0, onclick: () => move(-1), text: "← previous (k)" }),
        el("button", { type: "button", id: "next", disabled: at >= items.length - 1, onclick: () => move(1), text: "next (j) →" }),
        el("button", { type: "button", id: "undo", disabled: !canUndo, onclick: undo, text: "undo (z)" })));
  }

  function move(step) {
    at = Math.max(0, Math.min(items.length - 1, at + step));
    render();
  }

  async function label(key) {
    const it = items[at];
    if (!it) return;
    try {
      const out = await api(apiRun(id, "/review"), { method: "POST", body: { probe_id: it.probe_id, key } });
      items[at] = out.saved;
      canUndo = out.can_undo;
      HV.status("saved: " + out.saved.yours.text, "ok");
      if (at < items.length - 1) at += 1;
      render();
      scheduleRescore();
    } catch (e) { HV.status(e.message, "error"); }
  }

  async function undo() {
    try {
      const out = await api(apiRun(id, "/review/undo"), { method: "POST", body: {} });
      const i = items.findIndex((x) => x.probe_id === out.probe_id);
      if (i >= 0 && out.restored) { items[i] = out.restored; at = i; }
      canUndo = out.can_undo;
      HV.status("undone", "ok");
      render();
      scheduleRescore();
    } catch (e) { HV.status(e.message, "error"); }
  }

  function scheduleRescore() {
    clearTimeout(rescoreTimer);
    rescoreTimer = setTimeout(rescore, 700);
    changes.dataset.state = "pending";
  }

  async function rescore() {
    changes.dataset.state = "scoring";
    fill(changes, el("p", { class: "muted", text: "Scoring with your labels…" }));
    try {
      const out = await api(apiRun(id, "/rescore"), { method: "POST", body: {} });
      const rows = out.changes.map((c) => el("tr", { dataset: { key: c.key } },
        el("td", { text: c.label }),
        el("td", { class: "num before", text: (c.before || "n/a") + (c.before_interval ? " " + c.before_interval : "") }),
        el("td", { class: "num after" + (c.changed ? " changed" : ""),
                   text: (c.after || "n/a") + (c.after_interval ? " " + c.after_interval : "") })));
      fill(changes, el("table", { class: "changes", id: "changes-table" },
        el("thead", {}, el("tr", {}, el("th", { text: "metric" }), el("th", { class: "num", text: "before" }),
                                   el("th", { class: "num", text: "after" }))),
        el("tbody", {}, rows)), ...out.notes.map((n) => el("p", { class: "muted", text: n })));
      changes.dataset.state = "done";
    } catch (e) {
      changes.dataset.state = "error";
      fill(changes, el("p", { text: e.message }));
    }
  }

  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || e.target.tagName === "INPUT") return;
    const it = items[at];
    if (e.key === "ArrowRight" || e.key === "j") { move(1); e.preventDefault(); return; }
    if (e.key === "ArrowLeft" || e.key === "k") { move(-1); e.preventDefault(); return; }
    if (e.key === "z" || e.key === "Backspace") { if (canUndo) undo(); e.preventDefault(); return; }
    if (it && it.keys.some((k) => k.key === e.key.toLowerCase())) { label(e.key.toLowerCase()); e.preventDefault(); }
  });

  async function load() {
    const q = new URLSearchParams();
    for (const k of ["sample", "seed", "only", "probe"]) if (params.get(k)) q.set(k, params.get(k));
    try {
      const data = await api(apiRun(id, "/review?" + q));
      items = data.items;
      canUndo = data.can_undo;
      render();
    } catch (e) {
      fill(card, el("p", { text: e.message }));
    }
  }
  load();
})();
