// Timelines of a tilegemm kernel trace (the Chrome-trace JSON `tilegemm trace` writes, docs/TRACE.md),
// drawn as SVG without any library. Used by the self-contained viewer (src/trace/viewer.html) and
// by the explorer's Timelines panel (web/panel_timeline.js).
//   TGStage.model(doc)                  -> {ctas, stages, consumers, hostTracks, t0, t1, info}
//   TGStage.renderStages(model, cta, view, onSelect)
//       the seed's stage-local timeline of one CTA: per smem stage s a TMA row (WAIT EMPTY, then
//       the load from its issue until the first consumer's WAIT FULL on it ends: an upper bound on
//       the load's time in flight) and one WGMMA row per consumer (WAIT FULL, then the k-block's
//       wgmma from issue until the wait_group that retired it); then the tiles and each
//       consumer's epilogue (stmatrix, TMA store issue / wait)
//   TGStage.renderOverview(model, view, onSelect)
//       the host/device view: host spans, CUDA API calls and GPU work from CUPTI, and one row per
//       traced CTA with its tiles
// view = [t0, t1] in trace microseconds; onSelect(bar) gets {name, row, ts, dur, args}.
"use strict";

const TGStage = (() => {
  const NS = "http://www.w3.org/2000/svg";
  const KB_KINDS = new Set(["wait_empty", "tma_issue", "wait_full", "wgmma_issue", "wgmma_wait", "stage_release"]);

  function node(tag, attrs, ...children) {
    const n = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) n.setAttribute(k, v);
    for (const c of children) n.append(c);
    return n;
  }

  function model(doc) {
    const raw = Array.isArray(doc) ? doc : doc && Array.isArray(doc.traceEvents) ? doc.traceEvents : null;
    if (!raw) throw new Error("not a Chrome trace: expected {\"traceEvents\": [...]}");
    const info = (doc && doc.otherData) || {};
    const ctas = new Map(), procs = new Map(), threads = new Map(), host = new Map();
    let stages = Number(info.stages) || 0, consumers = 0, t0 = Infinity, t1 = -Infinity;
    for (const e of raw) {
      if (!e || typeof e !== "object") continue;
      if (e.ph === "M") {
        if (e.name === "process_name") procs.set(e.pid, e.args && e.args.name);
        if (e.name === "thread_name") threads.set(`${e.pid}:${e.tid}`, e.args && e.args.name);
        continue;
      }
      if (e.ph !== "X") continue;
      const ts = Number(e.ts), dur = Math.max(0, Number(e.dur) || 0);
      if (!Number.isFinite(ts)) continue;
      t0 = Math.min(t0, ts);
      t1 = Math.max(t1, ts + dur);
      const a = e.args || {};
      if (a.cta === undefined || a.kind === undefined) {  // a host-side span
        const key = `${e.pid}:${e.tid}`;
        if (!host.has(key)) host.set(key, { key, pid: e.pid, tid: e.tid, spans: [] });
        host.get(key).spans.push({ name: String(e.name), ts, dur, args: a });
        continue;
      }
      if (!ctas.has(a.cta)) ctas.set(a.cta, { cta: a.cta, sm: a.sm, lanes: new Map() });
      const c = ctas.get(a.cta);
      if (!c.lanes.has(a.lane)) c.lanes.set(a.lane, []);
      c.lanes.get(a.lane).push({ kind: a.kind, name: String(e.name), ts, dur, stage: a.stage, kb: a.k_block,
        tile: [a.tile_m, a.tile_n], lane: a.lane, args: a });
      if (KB_KINDS.has(a.kind)) stages = Math.max(stages, Number(a.stage) + 1);
      if (a.lane > 0) consumers = Math.max(consumers, a.lane);
    }
    const hostTracks = [...host.values()].sort((x, y) => x.pid - y.pid || x.tid - y.tid);
    for (const t of hostTracks) t.name = `${procs.get(t.pid) || `pid ${t.pid}`} / ${threads.get(t.key) || `tid ${t.tid}`}`;
    return { ctas, stages, consumers, hostTracks, t0: Number.isFinite(t0) ? t0 : 0, t1: t1 > t0 ? t1 : t0 + 1, info };
  }

  // The rows of one CTA's stage-local timeline, each {name, bars: [{cls, label, ts, dur, args}]}.
  function stageRows(m, cta) {
    const c = m.ctas.get(cta);
    if (!c) return [];
    const lane = (l) => c.lanes.get(l) || [];
    // First WAIT FULL end per k-block over the consumers: the load has landed by then.
    const landed = new Map();
    for (let l = 1; l <= m.consumers; ++l)
      for (const e of lane(l))
        if (e.kind === "wait_full") {
          const key = `${e.tile}|${e.kb}`, end = e.ts + e.dur;
          landed.set(key, Math.min(landed.has(key) ? landed.get(key) : Infinity, end));
        }
    const rows = [];
    const bar = (cls, label, e, ts, end) => ({ cls, label, ts, dur: Math.max(0, end - ts), args: e.args, name: e.name });
    for (let s = 0; s < m.stages; ++s) {
      const tma = { name: `stage ${s} · TMA`, bars: [], kind: "tma" };
      for (const e of lane(0)) {
        if (e.stage !== s) continue;
        if (e.kind === "wait_empty") tma.bars.push(bar("k-wait-empty", "WAIT EMPTY", e, e.ts, e.ts + e.dur));
        if (e.kind === "tma_issue") {
          const key = `${e.tile}|${e.kb}`;
          const end = landed.has(key) ? Math.max(landed.get(key), e.ts + e.dur) : e.ts + e.dur;
          tma.bars.push(bar("k-tma", `TMA kb ${e.kb}`, e, e.ts, end));
        }
      }
      rows.push(tma);
      for (let l = 1; l <= m.consumers; ++l) {
        const row = { name: `stage ${s} · WGMMA c${l - 1}`, bars: [], kind: "wgmma" };
        const retired = new Map();
        for (const e of lane(l)) if (e.kind === "wgmma_wait") retired.set(`${e.tile}|${e.kb}`, e.ts + e.dur);
        for (const e of lane(l)) {
          if (e.stage !== s) continue;
          if (e.kind === "wait_full") row.bars.push(bar("k-wait-full", "WAIT FULL", e, e.ts, e.ts + e.dur));
          if (e.kind === "wgmma_issue") {
            const key = `${e.tile}|${e.kb}`;
            row.bars.push(bar("k-mma", `WGMMA kb ${e.kb}`, e, e.ts, retired.has(key) ? retired.get(key) : e.ts + e.dur));
          }
          if (e.kind === "stage_release") row.bars.push(bar("k-release", "", e, e.ts, e.ts + e.dur));
        }
        rows.push(row);
      }
    }
    rows.push({ name: "tiles", kind: "tiles",
      bars: lane(0).filter((e) => e.kind === "tile").map((e) => bar("k-tile", e.name, e, e.ts, e.ts + e.dur)) });
    for (let l = 1; l <= m.consumers; ++l) {
      const epi = { name: `c${l - 1} · epilogue`, bars: [], kind: "epilogue" };
      for (const e of lane(l)) {
        if (e.kind === "stmatrix") epi.bars.push(bar("k-epi", "stmatrix", e, e.ts, e.ts + e.dur));
        else if (e.kind === "tma_store_issue") epi.bars.push(bar("k-store", "TMA store", e, e.ts, e.ts + e.dur));
        else if (e.kind === "tma_store_wait") epi.bars.push(bar("k-wait-store", "store wait", e, e.ts, e.ts + e.dur));
        else if (e.kind === "direct_store" || e.kind === "splitk_partial" || e.kind === "splitk_fixup") epi.bars.push(bar("k-epi", e.name, e, e.ts, e.ts + e.dur));
      }
      rows.push(epi);
    }
    return rows;
  }

  function overviewRows(m) {
    const rows = m.hostTracks.map((t) => ({ name: t.name, kind: "host",
      bars: t.spans.map((s) => ({ cls: "k-host", label: s.name, ts: s.ts, dur: s.dur, args: s.args, name: s.name })) }));
    for (const c of [...m.ctas.values()].sort((a, b) => a.cta - b.cta)) {
      const tiles = (c.lanes.get(1) || c.lanes.get(0) || []).filter((e) => e.kind === "tile");
      rows.push({ name: `SM ${c.sm} · CTA ${c.cta}`, kind: "cta",
        bars: tiles.map((e, i) => ({ cls: i % 2 ? "k-tile-b" : "k-tile", label: e.name, ts: e.ts, dur: e.dur, args: e.args, name: e.name })) });
    }
    return rows;
  }

  function render(rows, view, onSelect, attrs) {
    const LABEL = 170, W = 1200, ROW = 16, AXIS = 24;
    const [v0, v1] = view;
    const x = (t) => LABEL + ((t - v0) / (v1 - v0)) * (W - LABEL - 8);
    const H = AXIS + rows.length * ROW + 6;
    const root = node("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, class: "tg-stages", ...attrs });
    root.append(node("defs", {}, node("clipPath", { id: `clip-${attrs["data-view"]}` },
      node("rect", { x: LABEL, y: 0, width: W - LABEL, height: H }))));
    const span = v1 - v0, raw = span / 8, mag = 10 ** Math.floor(Math.log10(raw));
    const step = [1, 2, 5, 10].map((k) => k * mag).find((s) => s >= raw);
    for (let t = Math.ceil(v0 / step) * step; t <= v1; t += step)
      root.append(node("line", { x1: x(t), x2: x(t), y1: AXIS - 4, y2: H, class: "tick" }),
        node("text", { x: x(t) + 2, y: AXIS - 8, class: "tick-label" }, `${+t.toFixed(3)} µs`));
    const body = node("g", { "clip-path": `url(#clip-${attrs["data-view"]})` });
    rows.forEach((r, i) => {
      const y = AXIS + i * ROW;
      root.append(node("text", { x: 4, y: y + 12, class: `row-label row-${r.kind}` }, r.name));
      for (const b of r.bars) {
        if (b.ts + b.dur < v0 || b.ts > v1) continue;
        const x0 = x(b.ts), w = Math.max(1, x(b.ts + b.dur) - x0);
        const wait = b.cls.startsWith("k-wait");  // waits drawn lower and thinner: a wait may overlap a load in flight
        const rect = node("rect", { x: x0, y: wait ? y + 7 : y + 1, width: w, height: wait ? ROW - 9 : ROW - 3,
          class: `bar ${b.cls}`, "data-row": r.kind },
          node("title", {}, `${b.name} · ${r.name} · ${b.dur.toFixed(3)} µs`));
        if (onSelect) rect.addEventListener("click", () => onSelect({ ...b, row: r.name }));
        body.append(rect);
        if (b.label && !wait && w > 7 * b.label.length) body.append(node("text", { x: x0 + 2, y: y + 11, class: "bar-label" }, b.label));
      }
    });
    root.append(body);
    return root;
  }

  function count(rows, cls) { return rows.reduce((n, r) => n + r.bars.filter((b) => b.cls === cls).length, 0); }

  function renderStages(m, cta, view, onSelect) {
    const rows = stageRows(m, cta);
    return render(rows, view, onSelect, { "data-view": "stages", "data-cta": cta, "data-stages": m.stages,
      "data-rows": rows.length, "data-tma": count(rows, "k-tma"), "data-wgmma": count(rows, "k-mma"),
      "data-wait-full": count(rows, "k-wait-full"), "data-wait-empty": count(rows, "k-wait-empty") });
  }

  function renderOverview(m, view, onSelect) {
    const rows = overviewRows(m);
    return render(rows, view, onSelect, { "data-view": "overview", "data-rows": rows.length,
      "data-ctas": m.ctas.size, "data-host-rows": m.hostTracks.length });
  }

  // The time range of one CTA's events (the default view of its stage timeline).
  function ctaRange(m, cta) {
    const c = m.ctas.get(cta);
    let a = Infinity, b = -Infinity;
    if (c) for (const evs of c.lanes.values()) for (const e of evs) { a = Math.min(a, e.ts); b = Math.max(b, e.ts + e.dur); }
    return Number.isFinite(a) ? [a, b > a ? b : a + 1] : [m.t0, m.t1];
  }

  return { model, stageRows, renderStages, renderOverview, ctaRange };
})();
