// The dataflow of one CTA, replayed from a tilegemm trace (the Chrome-trace JSON `tilegemm trace`
// writes, read by TGStage.model in web/stage_timeline.js). Every recorded step of the CTA, in time
// order, is one step of the replay; each moves a tile along seed 1's path
//   global / L2 --TMA--> smem stage --WGMMA--> tensor cores --> registers --stmatrix--> smem_c
//   --TMA store--> global D            (direct epilogue: registers --> global D)
// or waits for the ring. At a step's end the drawing shows where everything is: each stage of the
// ring (empty, loading, full, read by the WGMMA, retired but not yet released), each consumer's
// accumulators (tile and k-blocks retired), each staging box (free, staged, being stored), and the
// k-blocks loaded and boxes stored so far. The stage states come from the recorded events alone:
// a stage is loading from its TMA issue until the first consumer's WAIT FULL on it ends (an upper
// bound, as in the stage timeline), full until the first WGMMA issue, read until the last
// consumer's wgmma.wait_group retired it, held until the last consumer released it.
//   TGReplay.build(model, cta)  -> replay ({steps, stages, consumers, boxes, t0, t1}) or null
//   TGReplay.render(replay, i)  -> SVG of the state after step i, with the step's move drawn
//   TGReplay.stepText(replay, i), TGReplay.stepList(replay), TGReplay.stepAt(replay, time)
//   TGReplay.stageStates(replay, time) -> ["empty" | "loading" | "full" | "mma" | "held", ...]
"use strict";

const TGReplay = (() => {
  const NS = "http://www.w3.org/2000/svg";
  // What each recorded step moves: from where to where (null: it waits), and what it says.
  const STEPS = {
    wait_empty: { from: null, to: "stage", what: "producer waits until every consumer has released stage {s}" },
    tma_issue: { from: "l2", to: "stage", what: "TMA loads A and B of k-block {kb} (tile {tile}) from global memory / L2 into smem stage {s}" },
    wait_full: { from: null, to: "stage", what: "consumer {c} waits until stage {s}'s bytes have landed (k-block {kb})" },
    wgmma_issue: { from: "stage", to: "tc", what: "consumer {c} issues WGMMA: stage {s}'s A and B tiles into the tensor cores (k-block {kb})" },
    wgmma_wait: { from: "tc", to: "regs", what: "consumer {c}: wgmma.wait_group retired k-block {kb}, its products are in the accumulator registers" },
    stage_release: { from: null, to: "stage", what: "consumer {c} releases stage {s} (k-block {kb}) to the producer" },
    stmatrix: { from: "regs", to: "box", what: "consumer {c}: alpha·acc → output dtype → stmatrix into staging box {s} of smem_c" },
    tma_store_issue: { from: "box", to: "gmem", what: "consumer {c}: TMA store of staging box {s} to D in global memory" },
    tma_store_wait: { from: null, to: "box", what: "consumer {c} waits until earlier TMA stores have read staging box {s}" },
    direct_store: { from: "regs", to: "gmem", what: "consumer {c} stores its accumulators straight from registers to D (bounds-checked)" },
    splitk_partial: { from: "regs", to: "gmem", what: "consumer {c} writes its FP32 partial tile to the split-K workspace" },
  };
  const STATE_TEXT = { empty: "empty", loading: "loading (TMA)", full: "full", mma: "read by WGMMA", held: "retired, not yet released" };

  function node(tag, attrs, ...children) {
    const n = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) n.setAttribute(k, v);
    for (const c of children) n.append(c);
    return n;
  }

  const key = (e) => `${e.tile}|${e.kb}`;

  function build(m, cta) {
    const c = m.ctas.get(cta);
    if (!c) return null;
    const lane = (l) => c.lanes.get(l) || [];
    const steps = [];
    for (const evs of c.lanes.values()) for (const e of evs) if (STEPS[e.kind]) steps.push(e);
    if (!steps.length) return null;
    steps.sort((a, b) => a.ts - b.ts || a.lane - b.lane);
    const consumers = Math.max(1, m.consumers);
    // The ring's uses, one per k-block the producer loaded, with the times its state changes.
    const uses = new Map();
    for (const e of lane(0))
      if (e.kind === "tma_issue")
        uses.set(key(e), { stage: e.stage, kb: e.kb, tile: e.tile, issue: e.ts, landed: Infinity, mma: Infinity,
          retired: e.ts + e.dur, released: -Infinity, releases: 0, issueEnd: e.ts + e.dur });
    for (let l = 1; l <= consumers; ++l)
      for (const e of lane(l)) {
        const u = uses.get(key(e));
        if (!u) continue;
        const end = e.ts + e.dur;
        if (e.kind === "wait_full") u.landed = Math.min(u.landed, end);
        if (e.kind === "wgmma_issue") u.mma = Math.min(u.mma, e.ts);
        if (e.kind === "wgmma_wait") u.retired = Math.max(u.retired, end);
        if (e.kind === "stage_release") { u.released = Math.max(u.released, end); u.releases += 1; }
      }
    for (const u of uses.values()) {
      if (!Number.isFinite(u.landed)) u.landed = u.issueEnd;  // no consumer waited on it (dropped events)
      if (u.releases < consumers) u.released = Infinity;      // not released within the trace
    }
    const byStage = [];
    for (let s = 0; s < m.stages; ++s)
      byStage.push([...uses.values()].filter((u) => u.stage === s).sort((a, b) => a.issue - b.issue));
    // Staging boxes per consumer (TMA-store epilogue), and each consumer's tiles and k-blocks.
    const boxes = [], tiles = [];
    for (let l = 1; l <= consumers; ++l) {
      const mine = lane(l);
      const n = mine.filter((e) => e.kind === "stmatrix" || e.kind === "tma_store_issue")
        .reduce((x, e) => Math.max(x, Number(e.stage) + 1), 0);
      boxes.push(n);
      tiles.push(mine.filter((e) => e.kind === "tile").sort((a, b) => a.ts - b.ts));
    }
    let t0 = Infinity, t1 = -Infinity;
    for (const evs of c.lanes.values()) for (const e of evs) { t0 = Math.min(t0, e.ts); t1 = Math.max(t1, e.ts + e.dur); }
    return { m, cta, sm: c.sm, lane, steps, stages: m.stages, consumers, byStage, boxes, tiles, t0, t1 };
  }

  // The time the drawing of step i shows: the step's end (what it did has happened).
  function timeOf(r, i) { const e = r.steps[i]; return e.ts + e.dur; }

  function stepAt(r, time) {
    let i = 0;
    while (i + 1 < r.steps.length && r.steps[i + 1].ts <= time) ++i;
    return i;
  }

  function stageStates(r, t) {
    return r.byStage.map((list) => {
      let u = null;
      for (const x of list) if (x.issue <= t) u = x;
      if (!u || t >= u.released) return { state: "empty", use: null };
      const state = t < u.landed ? "loading" : t < u.mma ? "full" : t < u.retired ? "mma" : "held";
      return { state, use: u };
    });
  }

  // Consumer c (0-based) at time t: its tile, k-blocks retired of how many, and whether it is in
  // its epilogue.
  function consumerState(r, c, t) {
    const mine = r.lane(c + 1);
    let tile = null;
    for (const e of r.tiles[c]) if (e.ts <= t) tile = e;
    if (!tile) return { tile: null, retired: 0, total: 0, epilogue: false };
    const of = (kind) => mine.filter((e) => e.kind === kind && `${e.tile}` === `${tile.tile}`);
    const retired = of("wgmma_wait").filter((e) => e.ts + e.dur <= t).length;
    const epilogue = of("epilogue").some((e) => e.ts <= t && t < e.ts + e.dur);
    return { tile: tile.tile, retired, total: of("wgmma_issue").length, epilogue };
  }

  // Staging box b of consumer c at time t: the last of its events to end by then decides.
  function boxState(r, c, b, t) {
    let state = "free", at = -Infinity;
    for (const e of r.lane(c + 1)) {
      if (Number(e.stage) !== b || e.ts + e.dur > t || e.ts + e.dur < at) continue;
      const s = e.kind === "stmatrix" ? "staged" : e.kind === "tma_store_issue" ? "storing" : e.kind === "tma_store_wait" ? "free" : null;
      if (s) { state = s; at = e.ts + e.dur; }
    }
    return state;
  }

  function stepText(r, i) {
    const e = r.steps[i];
    const what = STEPS[e.kind].what.replace("{s}", e.stage).replace("{kb}", e.kb).replace("{c}", e.lane - 1)
      .replace("{tile}", `(${e.tile})`);
    const who = e.lane === 0 ? "producer" : `consumer ${e.lane - 1}`;
    return `step ${i + 1} of ${r.steps.length} · ${(e.ts - r.t0).toFixed(3)}–${(e.ts + e.dur - r.t0).toFixed(3)} µs into CTA ` +
      `${r.cta} · ${who} · ${e.name}: ${what}`;
  }

  function stepList(r) {
    const ol = document.createElement("ol");
    ol.className = "replay-steps";
    r.steps.forEach((e, i) => {
      const li = document.createElement("li");
      li.dataset.kind = e.kind;
      li.dataset.step = i;
      li.textContent = `${(e.ts - r.t0).toFixed(3)} µs  ${e.lane === 0 ? "P" : `C${e.lane - 1}`}  ${e.name}` +
        (e.kind === "stmatrix" || e.kind.startsWith("tma_store") ? ` box ${e.stage}` : e.kb >= 0 ? ` kb ${e.kb} · stage ${e.stage}` : "");
      ol.append(li);
    });
    return ol;
  }

  // ---- the drawing ----------------------------------------------------------------------------
  const W = 1120, TOP = 34, SLOT = 26;
  const COL = { l2: [8, 150], stage: [200, 180], tc: [432, 120], regs: [604, 170], box: [826, 120], gmem: [998, 114] };

  function render(r, i) {
    const t = timeOf(r, i), e = r.steps[i];
    const ring = stageStates(r, t);
    const maxBoxes = Math.max(0, ...r.boxes);
    const H = TOP + Math.max(r.stages * (SLOT + 6), r.consumers * 92, 200) + 26;
    const occupied = ring.filter((x) => x.state !== "empty").length;
    const root = node("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, class: "tg-replay",
      "data-steps": r.steps.length, "data-step": i, "data-time": t, "data-stages": r.stages, "data-occupied": occupied,
      "data-kind": e.kind, "data-cta": r.cta });
    const box = (col, y, h, cls, title, sub) => {
      const [x, w] = COL[col];
      root.append(node("rect", { x, y, width: w, height: h, rx: 6, class: `unit ${cls}` }),
        node("text", { x: x + 8, y: y + 16, class: "unit-title" }, title));
      if (sub) root.append(node("text", { x: x + 8, y: y + 31, class: "unit-sub" }, sub));
    };
    const bottom = H - 20;
    // Columns: what holds the data at each point of the path.
    const loaded = r.steps.filter((s) => s.kind === "tma_issue" && s.ts + s.dur <= t).length;
    const stored = r.steps.filter((s) => (s.kind === "tma_store_issue" || s.kind === "direct_store" || s.kind === "splitk_partial") && s.ts + s.dur <= t).length;
    box("l2", TOP, bottom - TOP, "u-l2", "global / L2: A, B", `${loaded} k-block loads issued`);
    root.append(node("text", { x: COL.stage[0], y: TOP - 8, class: "unit-title" },
      `smem stage ring: ${occupied} of ${r.stages} hold data`));
    const anchors = { l2: [COL.l2[0] + COL.l2[1], TOP + (bottom - TOP) / 2], gmem: [COL.gmem[0], TOP + (bottom - TOP) / 2] };
    ring.forEach((x, s) => {
      const y = TOP + s * (SLOT + 6), [sx, sw] = COL.stage;
      const label = x.use ? `s${s} · kb ${x.use.kb} · ${STATE_TEXT[x.state]}` : `s${s} · empty`;
      root.append(node("rect", { x: sx, y, width: sw, height: SLOT, rx: 4, class: `slot s-${x.state}`, "data-stage": s,
        "data-state": x.state, "data-kb": x.use ? x.use.kb : "" }, node("title", {}, label)),
      node("text", { x: sx + 6, y: y + 17, class: "slot-label" }, label));
      anchors[`stage${s}`] = [sx, y + SLOT / 2];
      anchors[`stage${s}out`] = [sx + sw, y + SLOT / 2];
    });
    box("tc", TOP, bottom - TOP, "u-tc", "tensor cores", "WGMMA 64×N×16");
    anchors.tc = [COL.tc[0], TOP + (bottom - TOP) / 2];
    anchors.tcout = [COL.tc[0] + COL.tc[1], TOP + (bottom - TOP) / 2];
    root.append(node("text", { x: COL.regs[0], y: TOP - 8, class: "unit-title" }, "registers (accumulators)"));
    root.append(node("text", { x: COL.box[0], y: TOP - 8, class: "unit-title" }, maxBoxes ? "smem_c staging" : "smem_c: not used"));
    for (let c = 0; c < r.consumers; ++c) {
      const y = TOP + c * 92, cs = consumerState(r, c, t), [rx, rw] = COL.regs;
      const text = cs.tile ? `tile (${cs.tile}) · ${cs.retired}/${cs.total} k-blocks` : "no tile yet";
      root.append(node("rect", { x: rx, y, width: rw, height: 80, rx: 6, class: `unit u-regs${cs.epilogue ? " in-epilogue" : ""}`,
        "data-consumer": c, "data-retired": cs.retired, "data-total": cs.total }),
      node("text", { x: rx + 8, y: y + 16, class: "unit-title" }, `consumer ${c}`),
      node("text", { x: rx + 8, y: y + 32, class: "unit-sub" }, text),
      node("text", { x: rx + 8, y: y + 48, class: "unit-sub" }, cs.epilogue ? "in its epilogue" : "mainloop"));
      // The accumulator fill: k-blocks retired of the tile's total.
      const fill = cs.total ? (rw - 16) * (cs.retired / cs.total) : 0;
      root.append(node("rect", { x: rx + 8, y: y + 58, width: rw - 16, height: 10, class: "acc-bg" }),
        node("rect", { x: rx + 8, y: y + 58, width: fill, height: 10, class: "acc-fill" }));
      anchors[`regs${c}`] = [rx, y + 40];
      anchors[`regs${c}out`] = [rx + rw, y + 40];
      const n = r.boxes[c], [bx, bw] = COL.box, side = Math.min(26, (bw - 8) / Math.max(1, Math.min(n, 4)) - 4);
      for (let b = 0; b < n; ++b) {
        const x = bx + (b % 4) * (side + 4), yy = y + Math.floor(b / 4) * (side + 4);
        const st = boxState(r, c, b, t);
        root.append(node("rect", { x, y: yy, width: side, height: side, rx: 3, class: `smemc b-${st}`, "data-consumer": c,
          "data-box": b, "data-state": st }, node("title", {}, `consumer ${c} staging box ${b}: ${st}`)),
        node("text", { x: x + 4, y: yy + side / 2 + 4, class: "box-label" }, b));
        anchors[`box${c}.${b}`] = [x, yy + side / 2];
        anchors[`box${c}.${b}out`] = [x + side, yy + side / 2];
      }
    }
    box("gmem", TOP, bottom - TOP, "u-gmem", "global: D", `${stored} stores issued`);
    root.append(node("text", { x: 8, y: H - 6, class: "unit-sub" },
      `t = ${(t - r.t0).toFixed(3)} µs into CTA ${r.cta} (SM ${r.sm}); state after step ${i + 1}`));

    // The step's move: an arrow, and a token that travels along it.
    const spec = STEPS[e.kind], c = e.lane - 1;
    const at = (where, out) => {
      if (where === "l2" || where === "gmem" || where === "tc") return anchors[where === "tc" && out ? "tcout" : where];
      if (where === "stage") return anchors[`stage${e.stage}${out ? "out" : ""}`];
      if (where === "regs") return anchors[`regs${c}${out ? "out" : ""}`];
      if (where === "box") return anchors[`box${c}.${e.stage}${out ? "out" : ""}`];
      return null;
    };
    const to = at(spec.to, false);
    if (spec.from && to) {
      const from = at(spec.from, true);
      if (from) {
        root.append(node("defs", {}, node("marker", { id: "replay-head", viewBox: "0 0 10 10", refX: 9, refY: 5,
          markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" }, node("path", { d: "M0,0 L10,5 L0,10 z", class: "flow-head" }))));
        root.append(node("line", { x1: from[0], y1: from[1], x2: to[0], y2: to[1], class: `flow k-${e.kind}`,
          "marker-end": "url(#replay-head)", "data-from": spec.from, "data-to": spec.to }));
        const token = node("g", { class: "token", "data-from": spec.from, "data-to": spec.to },
          node("rect", { x: -15, y: -9, width: 30, height: 18, rx: 4 }),
          node("text", { x: 0, y: 4 }, e.kind === "tma_issue" ? "A|B" : e.kind === "wgmma_issue" ? "A·B" : e.kind === "wgmma_wait" ? "acc" : "D"));
        token.style.transform = `translate(${from[0]}px, ${from[1]}px)`;
        root.append(token);
        // Travel once the drawing is in the page (a transition from the source to the target).
        requestAnimationFrame(() => requestAnimationFrame(() => { token.style.transform = `translate(${to[0]}px, ${to[1]}px)`; }));
      }
    } else if (to) {  // a wait or a release: mark where it waits
      root.append(node("circle", { cx: to[0] - 8, cy: to[1], r: 6, class: `wait-mark k-${e.kind}` }));
    }
    return root;
  }

  return { build, render, stepText, stepList, stepAt, timeOf, stageStates, STEPS };
})();
