// Panel 2, CTA <-> tile mapping: /api/map (the JSON of `tilegemm map --json`, see
// src/schedule/map_render.hpp). Draws the C tile grid with the A row bands on its left and the B
// column bands above it; steps through waves; a click on a tile shows its CTA's whole path.
"use strict";

TG.panel("map", (section) => {
  const { el, svg, role, clear, table, bytes, num } = TG;
  let data = null;      // the /api/map reply
  let wave = 0;         // the wave shown
  let selected = null;  // the tile clicked, or null

  const hue = (cta) => (cta * 137.508) % 360;  // golden angle: neighbouring CTAs get distant hues

  function tilesOfWave(w) { return data.tiles.filter((t) => t.wave === w); }

  function drawGrid() {
    const g = data.grid;
    const side = Math.max(g.num_m_blocks, g.num_n_blocks);
    const s = Math.max(3, Math.min(40, Math.floor(560 / side)));  // cell size in px
    const band = Math.max(10, Math.min(24, s));                   // width of the A / B band strips
    const ox = band + 24, oy = band + 24;
    const W = ox + g.num_n_blocks * s + 8, H = oy + g.num_m_blocks * s + 8;
    const cur = tilesOfWave(wave);
    const aOn = new Set(cur.map((t) => t.m_block)), bOn = new Set(cur.map((t) => t.n_block));
    const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, class: "map-grid",
      "data-tiles": data.tiles.length, "data-wave": wave, role: "img",
      "aria-label": `${g.num_m_blocks} by ${g.num_n_blocks} tiles, wave ${wave}` });
    root.append(svg("text", { x: 2, y: oy - 6, class: "axis" }, "A"), svg("text", { x: ox, y: 12, class: "axis" }, "B  →  n"));
    for (let m = 0; m < g.num_m_blocks; ++m)
      root.append(svg("rect", { x: 4, y: oy + m * s, width: band, height: s, "data-m": m,
        class: `a-band${aOn.has(m) ? " on" : ""}` }, svg("title", {}, `A[${m}, :]`)));
    for (let n = 0; n < g.num_n_blocks; ++n)
      root.append(svg("rect", { x: ox + n * s, y: 18, width: s, height: band, "data-n": n,
        class: `b-band${bOn.has(n) ? " on" : ""}` }, svg("title", {}, `B[${n}, :]`)));
    const labels = s >= 18;
    for (const t of data.tiles) {
      const state = t.wave === wave ? "cur" : t.wave < wave ? "done" : "todo";
      const x = ox + t.n_block * s, y = oy + t.m_block * s;
      const attrs = { x, y, width: s, height: s, class: `tile ${state}`, "data-m": t.m_block, "data-n": t.n_block,
        "data-cta": t.cta, "data-slot": t.slot, "data-wave": t.wave };
      if (selected && selected.cta === t.cta) attrs.class += " same-cta";
      if (selected && selected.slot === t.slot) attrs.class += " selected";
      const r = svg("rect", attrs, svg("title", {}, `C[${t.m_block}, ${t.n_block}]: task ${t.slot}, CTA ${t.cta}, wave ${t.wave}`));
      // Through CSSOM, not a style attribute: the page's Content-Security-Policy forbids inline styles.
      if (state === "cur") r.style.setProperty("fill", `hsl(${hue(t.cta)} 70% 72%)`);
      r.addEventListener("click", () => { selected = t; render(); });
      root.append(r);
      if (labels) root.append(svg("text", { x: x + s / 2, y: y + s / 2 + 4, class: "cta-label" }, t.cta));
    }
    if (selected) {  // the selected CTA's tiles in task order: its path across waves
      const path = data.tiles.filter((t) => t.cta === selected.cta).sort((a, b) => a.slot - b.slot);
      if (path.length > 1)
        root.append(svg("polyline", { class: "cta-path", points: path.map((t) =>
          `${ox + t.n_block * s + s / 2},${oy + t.m_block * s + s / 2}`).join(" ") }));
    }
    return root;
  }

  // A sharers' gap: "-" when no band of that operand is read twice in the wave.
  const gap = (g) => (g > 0 ? g.toFixed(1) : "-");

  function waveStats() {
    const w = data.waves[wave];
    const rows = [
      ["tiles (CTAs with work)", "tiles", num(w.tiles)],
      ["unique A bands A[m, :]", "unique_a_bands", num(w.unique_a_bands)],
      ["unique B bands B[n, :]", "unique_b_bands", num(w.unique_b_bands)],
      ["A bytes", "a_bytes", bytes(w.a_bytes)],
      ["B bytes", "b_bytes", bytes(w.b_bytes)],
      ["working set A + B", "working_set_bytes", `${bytes(w.working_set_bytes)} (${num(w.working_set_bytes)} B)`],
      ["HBM reads (L2 model)", "hbm_bytes", bytes(w.hbm_bytes)],
      ["of which re-reads", "reread_bytes", bytes(w.reread_bytes)],
      ["A sharers' gap (slots)", "a_sharer_gap", gap(w.a_sharer_gap)],
      ["B sharers' gap (slots)", "b_sharer_gap", gap(w.b_sharer_gap)],
    ];
    return el("div", {}, el("h3", {}, `Wave ${wave}: tasks ${w.first_slot} … ${w.first_slot + data.resident_ctas - 1}`),
      table(["", "value"], rows.map(([label, key, shown]) =>
        el("tr", {}, el("th", {}, label), el("td", { class: "num", "data-key": key, "data-value": w[key] }, shown))),
        { class: "wave-stats" }),
      el("p", { class: "small" }, `The working set counts each band once per wave (K = ${num(data.shape.k)}, ` +
        `${data.element_bytes} B/element); it is the model's logical footprint, not a measured L2 occupancy. ` +
        `The sharers' gap is the mean task distance between the tiles of this wave that read the same band ` +
        `(1 = side by side): tiles streaming the same weight rows ran 13-48 % faster side by side on the H200 ` +
        `(docs/MAPPING.md).`));
  }

  function ctaList() {
    const cur = tilesOfWave(wave).sort((a, b) => a.cta - b.cta);
    const shown = cur.slice(0, 64);
    const head = data.assignment === "persistent" ? "persistent: CTA p takes task p + iter × P" : "static: CTA i takes task i";
    return el("div", {}, el("h3", {}, `Which CTA takes which tile (${head})`),
      table(["CTA", "task i", "C tile", "cluster rank", "multicast"], shown.map((t) =>
        [t.cta, t.slot, `C[${t.m_block}, ${t.n_block}]`, t.cluster_rank, t.multicast ? "yes" : "no"]), { class: "cta-list" }),
      cur.length > shown.length ? el("p", { class: "small" }, `… and ${cur.length - shown.length} more`) : null);
  }

  function selection() {
    if (!selected) return el("p", { class: "small" }, "Click a tile to follow its CTA across waves.");
    const t = selected, mine = data.tiles.filter((x) => x.cta === t.cta).length;
    return el("p", { class: "selection" }, `C[${t.m_block}, ${t.n_block}] is task ${t.slot}, computed by CTA ${t.cta} ` +
      `in wave ${t.wave}; it reads A[${t.m_block}, :] and B[${t.n_block}, :]. CTA ${t.cta} computes ${mine} tile${mine === 1 ? "" : "s"}.`);
  }

  function totals() {
    const t = data.totals;
    const rows = [
      ["GEMM", `M=${num(data.shape.m)} N=${num(data.shape.n)} K=${num(data.shape.k)}, tile ${data.tile.block_m}×${data.tile.block_n}`],
      ["grid", `${data.grid.num_m_blocks} × ${data.grid.num_n_blocks} = ${num(data.grid.num_tiles)} tiles`],
      ["mapping / cluster / assignment", `${data.mapping} / ${data.cluster} / ${data.assignment}`],
      ["CTAs", `${num(data.resident_ctas)} resident (wave size), ${num(data.launch_ctas)} launched, ${data.waves.length} waves`],
      ["A + B read once", bytes(t.compulsory_bytes)],
      ["sum of wave working sets", bytes(t.touched_bytes)],
      ["HBM reads, L2 model", `${bytes(t.hbm_bytes)} = ${t.reread_factor.toFixed(3)}× the minimum (L2 ${bytes(data.l2_bytes)})`],
      ["L2 → SM operand reads", bytes(t.cta_read_bytes)],
    ];
    return el("div", {}, el("h3", {}, "Whole GEMM"), table(["", ""], rows, { class: "totals" }));
  }

  function render() {
    const n = data.waves.length;
    role(section, "wave-label").textContent = `wave ${wave} of ${n} (0 … ${n - 1})`;
    role(section, "wave-label").dataset.wave = wave;
    const range = role(section, "wave-range");
    range.max = n - 1;
    range.value = wave;
    clear(role(section, "grid")).append(drawGrid());
    clear(role(section, "wave-stats")).append(waveStats());
    clear(role(section, "selection")).append(selection());
    clear(role(section, "cta-list")).append(ctaList());
  }

  function goTo(w) {
    if (!data) return;
    wave = Math.max(0, Math.min(data.waves.length - 1, w));
    render();
  }

  async function load(values, wantedWave) {
    TG.setState(section, "loading", "loading /api/map …");
    const params = { ...values };
    const r = await TG.getJson("/api/map", params);
    if (!r.ok) {
      data = null;
      role(section, "stepper").hidden = true;
      clear(role(section, "grid"));
      TG.setState(section, "error", `/api/map ${r.status}: ${r.body && r.body.error}`);
      return;
    }
    data = r.body;
    selected = null;
    role(section, "stepper").hidden = false;
    clear(role(section, "totals")).append(totals());
    goTo(wantedWave);
    TG.setState(section, "ready", "");
  }

  for (const b of section.querySelectorAll("[data-step]"))
    b.addEventListener("click", () => goTo(wave + Number(b.dataset.step)));
  role(section, "wave-range").addEventListener("input", (ev) => goTo(Number(ev.target.value)));
  const initial = TG.bindForm(section, (values) => load(values, 0));
  load(initial, Number(TG.param("map", "wave") || 0));
});
