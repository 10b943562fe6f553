// Shared helpers of the harness view pages. Every piece of data reaches the DOM as text (textContent or
// a text node), never as markup: replies, questions and group names are untrusted.
"use strict";

const HV = (() => {
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else if (k === "dataset") Object.assign(node.dataset, v);
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    return appendAll(node, children);
  }

  // Append `children` (nested arrays flattened) as nodes or text, skipping null / undefined / false.
  function appendAll(node, children) {
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
    return node;
  }

  // Empty `node` and put `children` in it, skipping null / undefined / false: the DOM's own append writes a
  // null child as the text "null" (issue 36: "nullnull" where the two confidence boxes of a run without
  // confidences were left out). Every page fills its containers through this.
  function fill(node, ...children) {
    return appendAll(clear(node), children);
  }

  async function api(path, options) {
    const opts = Object.assign({ headers: {} }, options || {});
    if (opts.body !== undefined && typeof opts.body !== "string") {
      opts.body = JSON.stringify(opts.body);
      opts.headers["content-type"] = "application/json";
    }
    if (opts.method && opts.method !== "GET") opts.headers["x-harness-view"] = "1";
    opts.credentials = "same-origin";
    const res = await fetch(path, opts);
    let data = null;
    try { data = await res.json(); } catch (e) { data = { error: res.statusText }; }
    if (!res.ok) throw new Error((data && data.error) || ("HTTP " + res.status));
    return data;
  }

  function runUrl(id, rest) {
    return "/runs/" + encodeURIComponent(id) + (rest || "");
  }
  function apiRun(id, rest) {
    return "/api/runs/" + encodeURIComponent(id) + (rest || "");
  }
  // the run id from /runs/{id}[/...]
  function runFromPath() {
    const parts = location.pathname.split("/");
    return decodeURIComponent(parts[2] || "");
  }

  function nav(active) {
    const header = document.getElementById("top");
    if (!header) return;
    fill(header, 
      el("a", { href: "/", class: "brand", text: "harness view" }),
      el("a", { href: "/", class: active === "runs" ? "on" : "", text: "Runs" }),
      el("a", { href: "/compare", class: active === "compare" ? "on" : "", text: "Compare" }),
    );
  }

  function status(text, kind) {
    const box = document.getElementById("status");
    if (!box) return;
    box.textContent = text || "";
    box.className = "status " + (kind || "");
  }

  function badge(statusText) {
    return el("span", { class: "badge s-" + String(statusText || "unknown").replace(/[^a-z]/g, ""),
                        text: statusText || "?" });
  }

  function metricCell(m) {
    if (!m) return el("span", { class: "muted", text: "" });
    return el("span", { class: "metric", title: m.n ? "k / n = " + m.n : "" },
      el("b", { text: m.text }), m.interval ? el("small", { text: " " + m.interval }) : null);
  }

  // The figures' markup (GET /api/runs/{id}/figures: the report's own heatmaps and bars, built and escaped
  // on the server by harness.core.html_figures) as nodes. The one place markup from the server reaches the
  // DOM, so it goes through an allowlist: only the tags and attributes those figures use are copied (a
  // script, a link, an event handler could not pass, as the policy would refuse them anyway), and the cells'
  // inline colours are set through the CSSOM, which the page's policy (no inline style) allows.
  const FIG_TAGS = new Set(["div", "span", "small", "table", "caption", "tbody", "thead", "tr", "th", "td",
                            "svg", "text", "rect", "path", "g"]);
  const FIG_ATTRS = new Set(["class", "x", "y", "width", "height", "viewbox", "font-size", "text-anchor", "fill",
                             "stroke", "stroke-dasharray", "d", "colspan", "rowspan"]);
  const SVG_NS = "http://www.w3.org/2000/svg";
  function copyFigure(src, inSvg) {
    if (src.nodeType === Node.TEXT_NODE) return document.createTextNode(src.data);
    if (src.nodeType !== Node.ELEMENT_NODE) return null;
    const tag = src.localName;
    if (!FIG_TAGS.has(tag)) return null;
    const svg = inSvg || tag === "svg";
    const node = svg ? document.createElementNS(SVG_NS, tag) : document.createElement(tag);
    for (const a of Array.from(src.attributes)) {
      if (a.name === "data-fig-style") node.style.cssText = a.value;
      else if (FIG_ATTRS.has(a.name.toLowerCase())) node.setAttribute(a.name, a.value);
    }
    for (const c of Array.from(src.childNodes)) {
      const copy = copyFigure(c, svg);
      if (copy) node.append(copy);
    }
    return node;
  }
  function figureNodes(html) {
    // the styles are renamed before parsing, or the parser itself would apply them and the policy refuse each
    // one; the markup is escaped (a quote in a text or an attribute value is &#34;), so the name is found only
    // where it is an attribute
    const doc = new DOMParser().parseFromString("<body>" + html.replace(/ style="/g, ' data-fig-style="') +
                                                "</body>", "text/html");
    return Array.from(doc.body.childNodes).map((c) => copyFigure(c, false)).filter((c) => c);
  }
  // the figures' own styles (harness.core.html_figures.CSS), once per page
  function figureStyles() {
    if (document.getElementById("figure-css")) return;
    document.head.append(el("link", { rel: "stylesheet", href: "/api/figures.css", id: "figure-css" }));
  }

  function fmtCount(n) {
    return n === undefined || n === null ? "" : Number(n).toLocaleString("en");
  }

  return { el, clear, fill, api, runUrl, apiRun, runFromPath, nav, status, badge, metricCell, fmtCount,
           figureNodes, figureStyles };
})();
