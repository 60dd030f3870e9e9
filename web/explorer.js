// tilegemm explorer: the shared pieces of the page. Each panel_*.js registers one panel with
// TG.panel(id, init); when the document is ready every panel's init(section, state) runs.
//
// Page state lives in the URL so a test (or a bookmark) can open any panel in a known state:
//   ?panel=map              show only that panel (hardware | map | plan | timeline)
//   ?map.m=1024&map.sms=8   a form field of a panel, named <panel>.<field>
//   ?map.wave=3             the wave the map panel shows
//   #trace=<base64url JSON> a Chrome trace for the timeline panel (the hash never reaches the server)
// Each panel section carries data-state = loading | ready | empty | error, for people and tests.
"use strict";

const TG = (() => {
  const panels = [];
  const SVG_NS = "http://www.w3.org/2000/svg";

  // --- DOM helpers ----------------------------------------------------------------------------
  // el("td", {class: "num", "data-key": "x"}, "text", child, ...)
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    return fill(e, attrs, children);
  }
  function svg(tag, attrs, ...children) {
    const e = document.createElementNS(SVG_NS, tag);
    return fill(e, attrs, children);
  }
  function fill(e, attrs, children) {
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      e.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children.flat()) {
      if (c === undefined || c === null || c === false) continue;
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  }
  function role(section, name) { return section.querySelector(`[data-role="${name}"]`); }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }
  // A table from a header row and rows of cells (a cell is a value or an element).
  function table(head, rows, attrs) {
    return el("table", attrs || {},
      el("thead", {}, el("tr", {}, head.map((h) => el("th", {}, h)))),
      el("tbody", {}, rows.map((r) => r instanceof Node ? r : el("tr", {}, r.map(cell)))));
  }
  function cell(c) { return c instanceof Node && c.nodeName === "TD" ? c : el("td", {}, c); }

  // --- numbers --------------------------------------------------------------------------------
  function bytes(b) {
    if (b === null || b === undefined) return "—";
    const units = [["GiB", 2 ** 30], ["MiB", 2 ** 20], ["KiB", 2 ** 10]];
    for (const [u, s] of units) if (Math.abs(b) >= s) return `${(b / s).toFixed(2)} ${u}`;
    return `${b} B`;
  }
  function si(x, unit, digits = 2) {
    if (x === null || x === undefined) return "—";
    const units = [["T", 1e12], ["G", 1e9], ["M", 1e6], ["k", 1e3]];
    for (const [u, s] of units) if (Math.abs(x) >= s) return `${(x / s).toFixed(digits)} ${u}${unit}`;
    return `${x.toFixed(digits)} ${unit}`;
  }
  function num(x, digits) {
    if (x === null || x === undefined) return "—";
    if (digits === undefined) return Number.isInteger(x) ? x.toLocaleString("en-US") : x.toPrecision(4);
    return x.toFixed(digits);
  }

  // --- state, fetch, status -------------------------------------------------------------------
  const query = new URLSearchParams(window.location.search);
  function param(panel, name) { return query.get(`${panel}.${name}`); }

  // Copies ?<panel>.<field> values into the form, and the form back into the URL on submit.
  function bindForm(section, onSubmit) {
    const form = role(section, "form");
    for (const input of form.elements) {
      if (!input.name) continue;
      const v = param(section.id, input.name);
      if (v !== null) input.value = v;
    }
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const values = formValues(form);
      for (const [k, v] of Object.entries(values)) query.set(`${section.id}.${k}`, v);
      history.replaceState(null, "", `?${query.toString()}${window.location.hash}`);
      onSubmit(values);
    });
    return formValues(form);
  }
  function formValues(form) {
    const out = {};
    for (const input of form.elements) if (input.name) out[input.name] = input.value.trim();
    return out;
  }

  // GET a JSON endpoint: resolves to {ok, status, body}; body is the parsed JSON (or null).
  async function getJson(path, params) {
    const qs = params ? new URLSearchParams(Object.entries(params).filter(([, v]) => v !== "")).toString() : "";
    let res;
    try {
      res = await fetch(qs ? `${path}?${qs}` : path, { cache: "no-store" });
    } catch (err) {
      return { ok: false, status: 0, body: { error: `cannot reach the server: ${err.message}` } };
    }
    let body = null;
    try { body = await res.json(); } catch (err) { body = { error: `reply is not JSON (${err.message})` }; }
    return { ok: res.ok, status: res.status, body };
  }

  function setState(section, state, message) {
    section.dataset.state = state;
    const status = role(section, "status");
    if (!status) return;
    status.className = `status ${state}`;
    status.textContent = message || "";
    status.hidden = !message;
  }

  function panel(id, init) { panels.push({ id, init }); }

  function boot() {
    const only = query.get("panel");
    for (const { id, init } of panels) {
      const section = document.getElementById(id);
      if (only && only !== id) { section.hidden = true; section.dataset.state = "hidden"; continue; }
      try {
        init(section);
      } catch (err) {
        setState(section, "error", `this panel failed: ${err.message}`);
      }
    }
  }
  document.addEventListener("DOMContentLoaded", boot);

  return { el, svg, role, clear, table, bytes, si, num, param, bindForm, getJson, setState, panel };
})();
