// Panel 1, Hardware: /api/hardware = {live, live_reason, profiles[], sm_limits}.
// The live GPU (or why there is none), the planner's built-in profiles side by side, a sketch of
// the memory path for one profile, and the per-SM limits.
"use strict";

TG.panel("hardware", (section) => {
  const { el, svg, role, clear, table, bytes, si, num } = TG;

  // Rows of the profile table: label, key in the profile JSON, formatter.
  const PROFILE_ROWS = [
    ["SMs", "sm_count", (v) => num(v)],
    ["SM clock (model)", "clock_ghz", (v) => `${v.toFixed(3)} GHz`],
    ["tensor peak, dense BF16", "tc_peak_flops", (v) => si(v, "FLOP/s", 0)],
    ["tensor cores (SMs × 4)", "derived.tensor_cores", (v) => num(v)],
    ["FP32 lanes (SMs × 128)", "derived.fp32_lanes", (v) => num(v)],
    ["HBM, datasheet", "hbm_datasheet_bytes_per_s", (v) => si(v, "B/s")],
    ["HBM, achievable (time model)", "hbm_bytes_per_s", (v) => si(v, "B/s")],
    ["L2", "l2_bytes", (v) => bytes(v)],
    ["BW_L2 (seed model)", "l2_bytes_per_cycle", (v) => `${num(v)} B/clk`],
    ["BW_local (seed model)", "local_bytes_per_cycle", (v) => `${num(v)} B/clk`],
    ["smem per SM", "smem_per_sm", (v) => bytes(v)],
    ["smem per CTA (opt-in)", "smem_per_block_optin", (v) => bytes(v)],
    ["registers per SM", "regs_per_sm", (v) => num(v)],
  ];
  const LIMIT_ROWS = [
    ["warp size", "warp_size", (v) => num(v)],
    ["threads per SM", "max_threads_per_sm", (v) => num(v)],
    ["warps per SM", "max_warps_per_sm", (v) => num(v)],
    ["CTAs per SM", "max_ctas_per_sm", (v) => num(v)],
    ["threads per CTA", "max_threads_per_cta", (v) => num(v)],
    ["32-bit registers per SM", "regs_per_sm", (v) => num(v)],
    ["registers per CTA", "regs_per_cta", (v) => num(v)],
    ["registers per thread (max)", "max_regs_per_thread", (v) => num(v)],
    ["shared memory per SM", "smem_per_sm", (v) => `${bytes(v)} (${num(v)} B)`],
    ["shared memory per CTA (opt-in)", "smem_per_cta_optin", (v) => `${bytes(v)} (${num(v)} B)`],
    ["tensor cores per SM", "tensor_cores_per_sm", (v) => num(v)],
    ["FP32 lanes per SM", "fp32_lanes_per_sm", (v) => num(v)],
  ];
  const get = (obj, path) => path.split(".").reduce((o, k) => (o == null ? undefined : o[k]), obj);

  function liveCard(hw) {
    if (!hw.live) {
      return el("div", { class: "live-none", "data-live": "none" },
        el("strong", {}, "No live GPU here. "), `The CUDA runtime says: ${hw.live_reason}. `,
        "The built-in profiles below are what the planner and the explain panel use.");
    }
    const l = hw.live;
    const rows = [
      ["device", `${l.index}: ${l.name}`], ["compute capability", l.compute_capability],
      ["SMs", num(l.sm_count)], ["global memory", bytes(l.global_mem_bytes)], ["L2", bytes(l.l2_bytes)],
      ["SM clock (peak)", `${num(l.sm_clock_mhz)} MHz`], ["memory clock (peak)", `${num(l.mem_clock_mhz)} MHz`],
      ["memory bus", `${l.mem_bus_bits} bit`], ["HBM from clock × bus × 2", si(l.hbm_from_clock_bytes_per_s, "B/s")],
      ["HBM measured", l.measured_hbm_bytes_per_s ? si(l.measured_hbm_bytes_per_s, "B/s") : "not measured yet"],
      ["planner profile", l.profile ? l.profile.source : `none: ${l.profile_reason}`],
    ];
    return el("div", { class: "live", "data-live": "present" }, el("h3", {}, "Live GPU"),
      table(["", "value"], rows.map(([k, v]) => [k, v])));
  }

  function profileTable(columns) {
    const head = ["", ...columns.map((c) => el("span", { "data-profile": c.key }, c.title))];
    const rows = PROFILE_ROWS.map(([label, key, fmt]) => el("tr", {}, el("th", {}, label),
      columns.map((c) => {
        const v = get(c.profile, key);
        return el("td", { class: "num", "data-profile": c.key, "data-key": key, "data-value": v }, v == null ? "—" : fmt(v));
      })));
    rows.push(el("tr", {}, el("th", {}, "description / source"),
      columns.map((c) => el("td", { class: "small" }, `${c.profile.description} — ${c.profile.source}`))));
    return el("div", {}, el("h3", {}, "Whole GPU: built-in profiles", columns[0].key === "live" ? " and the live one" : ""),
      table(head, rows, { class: "profiles", "data-columns": columns.length }));
  }

  function limitsTable(hw) {
    const cols = [{ key: "cc90", title: "CC 9.0 table", limits: hw.sm_limits }];
    if (hw.live) cols.push({ key: "live", title: `live: ${hw.live.name}`, limits: hw.live.sm_limits });
    const rows = LIMIT_ROWS.map(([label, key, fmt]) => el("tr", {}, el("th", {}, label),
      cols.map((c) => el("td", { class: "num", "data-limits": c.key, "data-key": key, "data-value": c.limits[key] },
        fmt(c.limits[key])))));
    return el("div", {}, el("h3", {}, "One SM: per-SM and per-CTA limits (the same GH100 SM in every SKU)"),
      table(["", ...cols.map((c) => c.title)], rows, { class: "limits" }),
      el("p", { class: "small" }, cols.map((c) => `${c.title}: ${c.limits.source}. `)));
  }

  // The memory path of one profile: HBM -> L2 -> the SMs, one SM opened up.
  function diagram(p, limits) {
    const box = (x, y, w, h, cls, title, sub) => svg("g", { class: `hw ${cls}` },
      svg("rect", { x, y, width: w, height: h, rx: 6 }),
      svg("text", { x: x + 10, y: y + 20, class: "t" }, title),
      sub ? svg("text", { x: x + 10, y: y + 38, class: "s" }, sub) : null);
    const W = 540, L = 24, LW = 236, R = 272, RW = 254;
    return svg("svg", { viewBox: `0 0 ${W} 420`, width: W, height: 420, class: "hw-diagram", role: "img", "aria-label": `memory path of ${p.name}` },
      box(10, 10, W - 20, 48, "hbm", "HBM / global memory: A, B, C, D",
        `${si(p.hbm_datasheet_bytes_per_s, "B/s")} datasheet, ${si(p.hbm_bytes_per_s, "B/s")} in the time model`),
      box(10, 70, W - 20, 48, "l2", `L2 cache ${bytes(p.l2_bytes)}, shared by all SMs`,
        `BW_L2 ${num(p.l2_bytes_per_cycle)} B/clk (seed model): tiles of one wave reuse bands here`),
      box(10, 130, W - 20, 280, "sm", `${p.sm_count} SMs; one of them:`, null),
      box(L, 170, LW, 56, "tma", "TMA", "async tensor copies GMEM ↔ SMEM"),
      box(R, 170, RW, 56, "smem", `shared memory ${bytes(limits.smem_per_sm)}`,
        `per CTA ≤ ${bytes(limits.smem_per_cta_optin)}: the stages`),
      box(L, 238, LW, 56, "regs", `registers ${num(limits.regs_per_sm)} × 32 bit`,
        `≤ ${limits.max_regs_per_thread}/thread: accumulators`),
      box(R, 238, RW, 56, "tc", `${limits.tensor_cores_per_sm} tensor cores`,
        `wgmma 64×N×16, ${num(p.derived.tc_flops_per_cycle_per_sm)} FLOP/clk/SM`),
      box(L, 306, R + RW - L, 48, "sched", `4 warp schedulers: ≤ ${limits.max_warps_per_sm} warps, ≤ ${limits.max_ctas_per_sm} CTAs`,
        `${limits.fp32_lanes_per_sm} FP32 lanes: scaling, conversion, the epilogue`),
      svg("text", { x: L, y: 386, class: "s" }, `BW_local ${num(p.local_bytes_per_cycle)} B/clk for all SMs (seed model)`));
  }

  async function load() {
    const r = await TG.getJson("/api/hardware");
    if (!r.ok) { TG.setState(section, "error", `/api/hardware: ${r.status} ${r.body && r.body.error}`); return; }
    const hw = r.body;
    const columns = hw.profiles.map((p) => ({ key: p.name, title: p.name.toUpperCase(), profile: p }));
    if (hw.live && hw.live.profile) columns.unshift({ key: "live", title: `live: ${hw.live.name}`, profile: hw.live.profile });
    clear(role(section, "live")).append(liveCard(hw));
    clear(role(section, "profiles")).append(profileTable(columns));
    const limits = hw.live ? hw.live.sm_limits : hw.sm_limits;
    const pick = el("select", { "aria-label": "profile drawn" }, columns.map((c) => el("option", { value: c.key }, c.title)));
    const draw = () => {
      const c = columns.find((x) => x.key === pick.value) || columns[0];
      const holder = role(section, "diagram");
      clear(holder).append(el("h3", {}, "Memory path of ", pick), diagram(c.profile, limits));
    };
    pick.addEventListener("change", draw);
    draw();
    clear(role(section, "limits")).append(limitsTable(hw));
    TG.setState(section, "ready", "");
  }
  load();
});
