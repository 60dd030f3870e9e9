// Panel 4, Timelines: asks /api/trace (the trace `tilegemm serve --trace FILE` was given), shows
// "no trace yet" on its 404, records one on the spot (POST /api/trace/record; without a Hopper GPU
// the server's 503 message is shown and the rest of the panel stays as it was), and draws any
// Chrome-trace JSON the user loads (or #trace=<base64url> in the URL): one lane per (process,
// thread), complete events ("X"), begin/end pairs ("B"/"E") and instants ("i"), nested events
// stacked; zoom and click an event to see it. A trace written by `tilegemm trace` also gets the
// stage-local view of one CTA (web/stage_timeline.js) and the replay of its dataflow
// (web/cta_replay.js). URL state: ?timeline.<field> fills the record form, ?timeline.record=1
// records on load, ?timeline.cta=N picks the CTA, ?timeline.step=N the replay's step (1-based).
"use strict";

TG.panel("timeline", (section) => {
  const { el, svg, role, clear } = TG;
  const MAX_FILE_BYTES = 64 * 2 ** 20;
  const MAX_EVENTS = 200000;
  let trace = null;    // {lanes: [...], events: [...], t0, t1, name, notes}
  let view = null;     // [start, end] in trace microseconds

  // Chrome trace -> lanes and drawable events. Throws with a readable message on bad input.
  function parseTrace(text) {
    const doc = JSON.parse(text);
    const raw = Array.isArray(doc) ? doc : doc && Array.isArray(doc.traceEvents) ? doc.traceEvents : null;
    if (!raw) throw new Error("not a Chrome trace: expected an array of events or {\"traceEvents\": [...]}");
    const procNames = new Map(), threadNames = new Map(), sortIndex = new Map();
    const lanes = new Map(), events = [], open = new Map(), notes = [];
    let ignored = 0;
    const laneOf = (e) => {
      const key = `${e.pid}:${e.tid}`;
      if (!lanes.has(key)) lanes.set(key, { key, pid: e.pid, tid: e.tid, depth: 1 });
      return lanes.get(key);
    };
    for (const e of raw) {
      if (!e || typeof e !== "object") { ignored++; continue; }
      const key = `${e.pid}:${e.tid}`;
      if (e.ph === "M") {
        const name = e.args && e.args.name;
        if (e.name === "process_name") procNames.set(String(e.pid), name);
        else if (e.name === "thread_name") threadNames.set(key, name);
        else if (e.name === "thread_sort_index") sortIndex.set(key, e.args && e.args.sort_index);
        continue;
      }
      const ts = Number(e.ts);
      if (!Number.isFinite(ts)) { ignored++; continue; }
      if (e.ph === "X") {
        events.push({ lane: laneOf(e), name: String(e.name), cat: e.cat, ts, dur: Math.max(0, Number(e.dur) || 0), args: e.args, kind: "X" });
      } else if (e.ph === "B") {
        if (!open.has(key)) open.set(key, []);
        open.get(key).push(e);
        laneOf(e);
      } else if (e.ph === "E") {
        const stack = open.get(key);
        const b = stack && stack.pop();
        if (!b) { ignored++; continue; }
        events.push({ lane: laneOf(e), name: String(b.name), cat: b.cat, ts: Number(b.ts), dur: Math.max(0, ts - Number(b.ts)),
          args: { ...(b.args || {}), ...(e.args || {}) }, kind: "B/E" });
      } else if (e.ph === "i" || e.ph === "I") {
        events.push({ lane: laneOf(e), name: String(e.name), cat: e.cat, ts, dur: 0, args: e.args, kind: "instant" });
      } else {
        ignored++;  // counters, async, flow: not drawn by this shell
      }
      if (events.length > MAX_EVENTS) throw new Error(`more than ${MAX_EVENTS} events: too many to draw here (open it in Perfetto)`);
    }
    const unclosed = [...open.values()].reduce((n, s) => n + s.length, 0);
    if (unclosed) notes.push(`${unclosed} "B" event(s) without an "E" were left out`);
    if (ignored) notes.push(`${ignored} event(s) of other kinds (counters, async, flow, malformed) were not drawn`);
    if (!events.length) throw new Error("the trace has no drawable events (X, B/E or i)");
    const list = [...lanes.values()];
    for (const l of list) {
      l.name = `${procNames.get(String(l.pid)) || `pid ${l.pid}`} / ${threadNames.get(l.key) || `tid ${l.tid}`}`;
      l.sort = sortIndex.has(l.key) ? Number(sortIndex.get(l.key)) : Number(l.tid) || 0;
    }
    list.sort((a, b) => (Number(a.pid) - Number(b.pid)) || String(a.pid).localeCompare(String(b.pid)) || a.sort - b.sort);
    // Nesting: an event that starts before the enclosing one ends goes one row down.
    for (const lane of list) {
      const mine = events.filter((e) => e.lane === lane).sort((a, b) => a.ts - b.ts || b.dur - a.dur);
      const ends = [];
      for (const e of mine) {
        while (ends.length && ends[ends.length - 1] <= e.ts) ends.pop();
        e.depth = ends.length;
        ends.push(e.ts + e.dur);
        lane.depth = Math.max(lane.depth, e.depth + 1);
      }
    }
    const t0 = Math.min(...events.map((e) => e.ts)), t1 = Math.max(...events.map((e) => e.ts + e.dur));
    return { lanes: list, events, t0, t1: t1 > t0 ? t1 : t0 + 1, notes };
  }

  function kindClass(name) {
    const n = name.toLowerCase();
    if (n.includes("wait full")) return "k-wait-full";
    if (n.includes("wait empty")) return "k-wait-empty";
    if (n.includes("order")) return "k-order";
    if (n.includes("tma")) return "k-tma";
    if (n.includes("wgmma") || n.includes("mma")) return "k-mma";
    if (n.includes("epilogue") || n.includes("store")) return "k-epi";
    return "k-other";
  }

  function draw() {
    const LABEL = 220, W = 1100, ROW = 18, AXIS = 28;
    const [v0, v1] = view;
    const x = (t) => LABEL + ((t - v0) / (v1 - v0)) * (W - LABEL - 10);
    let y = AXIS;
    const laneY = new Map();
    for (const l of trace.lanes) { laneY.set(l, y); y += l.depth * ROW + 8; }
    const root = svg("svg", { viewBox: `0 0 ${W} ${y + 4}`, width: W, height: y + 4, class: "timeline",
      "data-lanes": trace.lanes.length, "data-events": trace.events.length });
    root.append(svg("defs", {}, svg("clipPath", { id: "tl-clip" }, svg("rect", { x: LABEL, y: 0, width: W - LABEL, height: y + 4 }))));
    // Time axis: about 8 ticks at a 1-2-5 step.
    const span = v1 - v0, raw = span / 8, mag = 10 ** Math.floor(Math.log10(raw));
    const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw);
    for (let t = Math.ceil(v0 / step) * step; t <= v1; t += step) {
      root.append(svg("line", { x1: x(t), x2: x(t), y1: AXIS - 6, y2: y, class: "tick" }),
        svg("text", { x: x(t) + 2, y: AXIS - 10, class: "tick-label" }, `${+(t - trace.t0).toFixed(3)} µs`));
    }
    const body = svg("g", { "clip-path": "url(#tl-clip)" });
    for (const l of trace.lanes) {
      const ly = laneY.get(l);
      root.append(svg("text", { x: 4, y: ly + 13, class: "lane-label", "data-lane": l.key }, l.name),
        svg("line", { x1: 0, x2: W, y1: ly + l.depth * ROW + 4, y2: ly + l.depth * ROW + 4, class: "lane-sep" }));
    }
    for (const e of trace.events) {
      const ly = laneY.get(e.lane) + e.depth * ROW;
      const x0 = x(e.ts), w = Math.max(e.kind === "instant" ? 3 : 1.5, x(e.ts + e.dur) - x0);
      const r = svg("rect", { x: e.kind === "instant" ? x0 - 1.5 : x0, y: ly, width: w, height: ROW - 3,
        class: `ev ${kindClass(e.name)}${e.kind === "instant" ? " instant" : ""}`, "data-lane": e.lane.key, "data-name": e.name },
        svg("title", {}, `${e.name} (${e.lane.name})`));
      r.addEventListener("click", () => show(e));
      body.append(r);
      const fits = Math.floor((w - 6) / 6);  // characters of ~6 px that fit inside the bar
      if (fits >= 4) body.append(svg("text", { x: x0 + 3, y: ly + 11, class: "ev-label" },
        e.name.length <= fits ? e.name : `${e.name.slice(0, fits - 1)}…`));
    }
    root.append(body);
    root.addEventListener("wheel", (ev) => {
      ev.preventDefault();
      const box = root.getBoundingClientRect();
      const px = ((ev.clientX - box.left) / box.width) * W;
      const at = v0 + ((px - LABEL) / (W - LABEL - 10)) * (v1 - v0);
      zoom(ev.deltaY < 0 ? 0.5 : 2, Math.min(v1, Math.max(v0, at)));
    }, { passive: false });
    return root;
  }

  function show(e) {
    const rows = [["name", e.name], ["lane", e.lane.name], ["kind", e.kind], ["category", e.cat || "—"],
      ["start", `${+(e.ts - trace.t0).toFixed(3)} µs after the first event`], ["duration", `${+e.dur.toFixed(3)} µs`],
      ["args", e.args ? JSON.stringify(e.args) : "—"]];
    clear(role(section, "event")).append(el("h3", {}, "Selected event"), TG.table(["", ""], rows, { class: "event" }));
  }

  function zoom(factor, center) {
    if (!trace) return;
    const [v0, v1] = view;
    const c = center === undefined ? (v0 + v1) / 2 : center;
    const span = Math.min(trace.t1 - trace.t0, Math.max(1e-3, (v1 - v0) * factor));
    const start = Math.max(trace.t0, Math.min(trace.t1 - span, c - (c - v0) * (span / (v1 - v0))));
    view = [start, start + span];
    clear(role(section, "lanes")).append(draw());
  }

  // The stage-local view of a tilegemm trace (TGStage): hidden for other traces.
  let stageModel = null, stageCta = 0;
  function stageView(which) {
    const [a, b] = TGStage.ctaRange(stageModel, stageCta);
    if (which !== "tile") return [a, b];
    // The first tile boundary: the last ~8% of the first tile through the first ~12% of the next.
    const tiles = TGStage.stageRows(stageModel, stageCta).find((r) => r.kind === "tiles");
    if (!tiles || tiles.bars.length < 2) return [a, b];
    const t = tiles.bars[1].ts, span = tiles.bars[0].dur;
    return [Math.max(a, t - 0.08 * span), Math.min(b, t + 0.12 * span)];
  }
  function drawStages(which) {
    clear(role(section, "stages")).append(TGStage.renderStages(stageModel, stageCta, stageView(which), (bar) => {
      show({ name: bar.name, lane: { name: bar.row }, kind: "X", cat: bar.args && bar.args.kind, ts: bar.ts, dur: bar.dur, args: bar.args });
      if (replay) {  // the replay jumps to the bar's own step (else the last one started by then)
        const i = replay.steps.findIndex((e) => e.ts === bar.ts && e.kind === (bar.args && bar.args.kind));
        showStep(i >= 0 ? i : TGReplay.stepAt(replay, bar.ts));
      }
    }));
  }

  // The dataflow replay of the CTA shown (TGReplay): one step per recorded step, played or stepped.
  let replay = null, step = 0, timer = null;
  function stopPlaying() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    section.querySelector('[data-replay="play"]').textContent = "play";
  }
  function showStep(i) {
    if (!replay) return;
    step = Math.max(0, Math.min(replay.steps.length - 1, i));
    clear(role(section, "replay")).append(TGReplay.render(replay, step));
    role(section, "replay-text").textContent = TGReplay.stepText(replay, step);
    role(section, "replay-range").value = step;
    const list = role(section, "replay-steps");
    for (const li of list.querySelectorAll("li.current")) li.classList.remove("current");
    const li = list.querySelector(`li[data-step="${step}"]`);
    if (li) {
      li.classList.add("current");
      list.scrollTop = Math.max(0, li.offsetTop - list.clientHeight / 2);  // this list only, not the page
    }
  }
  function buildReplay(first) {
    stopPlaying();
    replay = TGReplay.build(stageModel, stageCta);
    if (!replay) { clear(role(section, "replay")); clear(role(section, "replay-steps")); return; }
    role(section, "replay-range").max = replay.steps.length - 1;
    const list = clear(role(section, "replay-steps"));
    list.append(TGReplay.stepList(replay));
    list.querySelector("ol").addEventListener("click", (ev) => {
      const li = ev.target.closest("li");
      if (li) { stopPlaying(); showStep(Number(li.dataset.step)); }
    });
    showStep(first);
  }
  for (const b of section.querySelectorAll("[data-replay]"))
    b.addEventListener("click", () => {
      if (!replay) return;
      const go = { first: 0, prev: step - 1, next: step + 1, last: replay.steps.length - 1 }[b.dataset.replay];
      if (go !== undefined) { stopPlaying(); showStep(go); return; }
      if (timer !== null) { stopPlaying(); return; }  // play / pause
      if (step >= replay.steps.length - 1) showStep(0);
      b.textContent = "pause";
      timer = setInterval(() => {
        if (step >= replay.steps.length - 1) stopPlaying(); else showStep(step + 1);
      }, Number(role(section, "replay-speed").value));
    });
  role(section, "replay-range").addEventListener("input", (ev) => { stopPlaying(); showStep(Number(ev.target.value)); });
  function loadStages(text) {
    const box = role(section, "stage-box");
    stopPlaying();
    stageModel = null;
    replay = null;
    try { stageModel = TGStage.model(JSON.parse(text)); } catch (err) { stageModel = null; }
    if (!stageModel || !stageModel.ctas.size) { box.hidden = true; return; }
    box.hidden = false;
    const select = clear(role(section, "cta"));
    const ctas = [...stageModel.ctas.values()].sort((x, y) => x.cta - y.cta);
    for (const c of ctas) select.append(el("option", { value: c.cta, "data-cta": c.cta }, `CTA ${c.cta} (SM ${c.sm})`));
    const asked = Number(TG.param("timeline", "cta"));
    stageCta = stageModel.ctas.has(asked) ? asked : ctas[0].cta;
    select.value = stageCta;
    drawStages("tile");
    buildReplay((Number(TG.param("timeline", "step")) || 1) - 1);
  }
  role(section, "cta").addEventListener("change", (ev) => {
    stageCta = Number(ev.target.value);
    drawStages("tile");
    buildReplay(0);
  });
  for (const b of section.querySelectorAll("[data-stage-view]"))
    b.addEventListener("click", () => stageModel && drawStages(b.dataset.stageView));

  function load(text, source) {
    try {
      trace = parseTrace(text);
    } catch (err) {
      TG.setState(section, "error", `${source}: ${err.message}`);
      return false;
    }
    loadStages(text);
    view = [trace.t0, trace.t1];
    clear(role(section, "event"));
    clear(role(section, "lanes")).append(draw());
    TG.setState(section, "ready", `${source}: ${trace.lanes.length} lanes, ${trace.events.length} events` +
      (trace.notes.length ? ` (${trace.notes.join("; ")})` : ""));
    return true;
  }

  // POST /api/trace/record with the form's values; the answer is drawn like a loaded file. Errors
  // (no Hopper GPU: 503, a bad parameter: 400, a recording in progress: 429) go to the record
  // status line; the panel keeps what it showed, and the file input stays the other way in.
  const recordStatus = role(section, "record-status");
  function setRecordStatus(state, message) {
    recordStatus.hidden = false;
    recordStatus.dataset.state = state;
    recordStatus.className = `status ${state}`;
    recordStatus.textContent = message;
  }
  let recording = false;
  async function record(values) {
    if (recording) return;
    recording = true;
    const params = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== ""));
    setRecordStatus("loading", `recording ${values.m} × ${values.n} × ${values.k} on the server's GPU …`);
    let res, text;
    try {
      res = await fetch("/api/trace/record", { method: "POST", cache: "no-store",
        headers: { "Content-Type": "application/json" }, body: JSON.stringify(params) });
      text = await res.text();
    } catch (err) {
      setRecordStatus("error", `cannot reach the server: ${err.message}`);
      recording = false;
      return;
    }
    recording = false;
    if (!res.ok) {
      let message = text;
      try { message = JSON.parse(text).error; } catch (err) { /* not JSON: show the text */ }
      setRecordStatus("error", `/api/trace/record ${res.status}: ${message}`);
      return;
    }
    const what = `recorded ${values.m} × ${values.n} × ${values.k}`;
    if (!load(text, what)) { setRecordStatus("error", `${what}: the reply is not a trace the panel can draw`); return; }
    const info = JSON.parse(text).otherData || {};
    setRecordStatus(/^ok/.test(info.check || "") ? "ready" : "error",
      `${what} on ${info.device || "the GPU"}: ${info.config || ""}; check ${info.check || "?"}; ` +
      `${info.ctas_in_document} of ${info.grid} CTAs kept` + (info.ctas_note ? ` (${info.ctas_note})` : ""));
  }
  const recordValues = TG.bindForm(section, record);

  role(section, "file").addEventListener("change", (ev) => {
    const file = ev.target.files[0];
    if (!file) return;
    if (file.size > MAX_FILE_BYTES) { TG.setState(section, "error", `${file.name}: ${file.size} bytes, over the ${MAX_FILE_BYTES}-byte limit`); return; }
    file.text().then((text) => load(text, file.name));
  });
  for (const b of section.querySelectorAll("[data-zoom]"))
    b.addEventListener("click", () => (b.dataset.zoom === "reset" ? trace && zoom(Infinity) : zoom(b.dataset.zoom === "in" ? 0.5 : 2)));

  async function start() {
    const hash = new URLSearchParams(window.location.hash.slice(1));
    if (hash.get("trace")) {
      let text;
      try {
        const b64 = hash.get("trace").replace(/-/g, "+").replace(/_/g, "/");
        text = new TextDecoder().decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
      } catch (err) {
        TG.setState(section, "error", `#trace: not base64url (${err.message})`);
        return;
      }
      load(text, "#trace in the URL");
      return;
    }
    const r = await TG.getJson("/api/trace");
    if (r.ok) { load(JSON.stringify(r.body), "/api/trace"); return; }
    clear(role(section, "lanes")).append(el("div", { class: "empty-trace", "data-empty": "no-trace" },
      el("strong", {}, "No trace yet. "), r.body && r.body.error ? r.body.error : `/api/trace answered ${r.status}.`,
      " Pick a Chrome-trace JSON file above to draw it."));
    TG.setState(section, "empty", "");
  }
  start().then(() => { if (TG.param("timeline", "record") === "1") record(recordValues); });
});
