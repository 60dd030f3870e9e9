// Panel 3, Kernel configuration: /api/plan (the JSON of `tilegemm explain --json`, schema
// tilegemm.plan/3, docs/PLANNER.md). The call (D's major, C, alpha/beta, leading dimensions, pointer
// offsets) -> the route gemm() takes -> candidate space -> resource filter -> score -> choice.
"use strict";

TG.panel("plan", (section) => {
  const { el, role, clear, table, bytes, num } = TG;

  const fixed = (x, d) => (x === null || x === undefined ? "—" : x.toFixed(d));

  // The seed's formulas with this candidate's numbers in them.
  function derivation(c, dev, problemK) {
    const f = c.config, s = c.seed, t = c.time;
    const ab = 2;  // bytes per BF16 element of A and B
    const k = Math.ceil(problemK / f.split_k);  // split-K: each block computes one K slice
    const acc = s.bytes_CD / (f.bm * f.bn * s.sizeof_c);  // 2 when C is read in the epilogue
    const lines = [
      ["bytes_L2_AB", `K·(BM/cluster_N + BN/cluster_M)·${ab} = ${k}·(${f.bm}/${f.cluster_n} + ${f.bn}/${f.cluster_m})·${ab}`, num(s.bytes_L2_AB)],
      ["bytes_local_AB", `K·(BM + BN)·${ab} = ${k}·(${f.bm} + ${f.bn})·${ab}`, num(s.bytes_local_AB)],
      ["bytes_TC", `K·(max(64, BM) + BN)·${ab} + BM·BN·sizeof(C) = ${k}·(${Math.max(64, f.bm)} + ${f.bn})·${ab} + ${f.bm}·${f.bn}·${s.sizeof_c}`, num(s.bytes_TC)],
      ["bytes_CD", `BM·BN·sizeof(C)·(accumulate ? 2 : 1) = ${f.bm}·${f.bn}·${s.sizeof_c}·${acc}`, num(s.bytes_CD)],
      ["cycles_L2", `(bytes_L2_AB + bytes_CD)·blocks / BW_L2, BW_L2 = ${num(dev.l2_bytes_per_cycle)} B/clk`, num(s.cycles_L2, 0)],
      ["cycles_local", `(bytes_local_AB + bytes_TC + bytes_CD)·blocks / BW_local, BW_local = ${num(dev.local_bytes_per_cycle)} B/clk`, num(s.cycles_local, 0)],
      ["wave_eff", `blocks / (waves·SMs) = ${s.num_blocks} / (${s.num_waves}·${dev.sm_count})`, fixed(s.wave_eff, 4)],
      ["score", "max(cycles_local, cycles_L2) / wave_eff (lowest wins in the seed)", num(s.score, 0)],
      ["predicted time", `${num(dev.limit_norm_p)}-norm of (l2 ${fixed(t.l2_us, 2)}, local ${fixed(t.local_us, 2)}, hbm ${fixed(t.hbm_us, 2)}, tensor ${fixed(t.tc_us, 2)}) + epilogue ${fixed(t.epilogue_us, 2)} + C ${fixed(t.c_us, 2)} + fixed ${fixed(t.fixed_us, 2)} + fix-up ${fixed(t.fixup_us, 2)} µs${f.cluster_m * f.cluster_n > 1 ? ", over the cluster factor" : ""}`,
        `${fixed(t.predicted_us, 2)} µs, ${num(t.tflops, 0)} TFLOPS, ${t.bound}-bound`],
    ];
    const note = f.split_k > 1 ? el("p", { class: "small" }, `split-K ${f.split_k}: K is the slice, ceil(${problemK} / ${f.split_k}) = ${k}; partials are FP32, so sizeof(C) = 4 (the kernel sums them itself).`) : null;
    return el("div", {}, note, table(["term", "formula", "value"], lines.map(([name, formula, value]) =>
      el("tr", { "data-term": name }, el("th", {}, name), el("td", { class: "formula" }, formula), el("td", { class: "num" }, value))),
      { class: "derivation" }));
  }

  // The seed's "final configuration" strip: what was searched, what was derived.
  function configStrip(c) {
    const f = c.config;
    const mapping = f.mapping.kind.startsWith("grouped") ? `${f.mapping.kind} G=${f.mapping.group}` : f.mapping.kind;
    const items = [
      ["searched", "BM × BN", `${f.bm} × ${f.bn}`], ["searched", "cluster M × N", `${f.cluster_m} × ${f.cluster_n}` + (f.multicast !== "none" ? ` (multicast ${f.multicast.toUpperCase()})` : "")],
      ["derived", "BK", f.bk], ["derived", "stages", f.stages], ["derived", "WGMMA", `64 × ${f.bn} × 16`],
      ["scheduler", "mapping", `${mapping}, ${f.persistent ? "persistent" : "static"}`],
      ["derived", "threads", `${f.threads} (1 producer + ${f.consumers} consumer warpgroups)`],
      ["derived", "registers", f.registers.producer ? `${f.registers.producer} producer / ${f.registers.consumer} consumer` : "no setmaxnreg"],
      ["derived", "epilogue", f.epilogue + (f.epilogue === "tma_store" && f.stage_cols < f.bn ? ` (${f.stage_cols} columns staged)` : "")],
      ["derived", "smem", bytes(c.smem_bytes)], ["derived", "grid", `${num(c.grid)} CTAs`],
      ["transform", "k-split", !f.stream_k ? "none" : f.split_k > 1 ? `split-K ${f.split_k}` : "stream-K"],
      ["transform", "swap-AB", f.swap_ab ? "Dᵀ = B·Aᵀ" : "no"],
    ];
    return el("div", { class: "strip" }, items.map(([kind, label, value]) =>
      el("div", { class: `chip ${kind}` }, el("span", { class: "kind" }, kind), el("span", { class: "label" }, label), el("b", {}, value))));
  }

  function candidateBlock(title, c, plan) {
    return el("div", { class: "candidate" }, el("h3", {}, title),
      el("p", {}, el("code", { class: "config-label", "data-label": c.label }, c.label)),
      configStrip(c), derivation(c, plan.device, plan.problem.k),
      c.flags.length ? el("ul", { class: "small" }, c.flags.map((x) => el("li", {}, x))) : null);
  }

  // The call as gemm() gets it and the route it takes: the path, and how the kernel takes the call
  // (route steps: a transposed problem, repacked operands, element-wise stores), from route().
  function route(plan) {
    const c = plan.call;
    const rows = !c ? [] : [
      ["d_major", "D", `${c.d_major}-major, ldd ${c.ldd}, at element offset ${c.offsets.d}`, c.d_major],
      ["c", "C", c.c === "none" ? "none" : c.c === "in_place" ? "C is D (in place)" :
        `${c.c_dtype}, ${c.c_major}-major, ldc ${c.ldc}, at element offset ${c.offsets.c}`, c.c],
      ["alpha", "alpha", c.alpha, c.alpha], ["beta", "beta", c.beta, c.beta],
      ["lda", "A", `lda ${c.lda}, at element offset ${c.offsets.a}`, c.lda],
      ["ldb", "B", `ldb ${c.ldb}, at element offset ${c.offsets.b}`, c.ldb],
    ];
    const values = !c ? [] : [["c_major", c.c_major], ["c_dtype", c.c_dtype], ["ldc", c.ldc], ["ldd", c.ldd],
      ["offset_a", c.offsets.a], ["offset_b", c.offsets.b], ["offset_c", c.offsets.c], ["offset_d", c.offsets.d]];
    const steps = plan.route_steps || [];
    return el("div", { "data-path": plan.path },
      el("h3", {}, "The call and its route"),
      c ? table(["", "", ""], rows.map(([key, name, text, value]) =>
        el("tr", {}, el("th", {}, name), el("td", { "data-call": key, "data-value": value }, text))), { class: "call" }) : null,
      // Every field of the call's JSON, for tools and tests.
      el("div", { hidden: true }, values.map(([key, value]) => el("span", { "data-call": key, "data-value": value ?? "null" }))),
      el("p", { class: plan.path === "fallback" ? "error" : "" }, plan.path === "fallback"
        ? `Path: the fallback kernel. ${plan.route_reason}` : "Path: the sm90 kernel (TMA, WGMMA)."),
      plan.path === "fallback" ? null : steps.length
        ? el("ol", { class: "route-steps" }, steps.map((x) => el("li", { "data-route-step": "" }, x)))
        : el("p", { class: "small", "data-route-steps": "none" }, "The kernel takes the call as it is: no transposition, no repacked operand."));
  }

  function chosen(plan) {
    const p = plan.problem, d = plan.device;
    const head = el("p", { class: "device" },
      `M=${num(p.m)} N=${num(p.n)} K=${num(p.k)}, layout ${p.layout}, out ${p.out}${p.accumulate ? ", accumulate C" : ""}; `,
      `device ${d.name}: ${d.description} (${d.note}); ranked by ${plan.ranking === "time" ? `predicted time${plan.ksplit_margin ? `, a k-split's counted ${fixed(100 * plan.ksplit_margin, 0)} % higher` : ""}` : "the seed's score"}.`);
    if (!plan.chosen) return el("div", {}, head, el("p", { class: "error" }, "No configuration passes the resource filter on this device."));
    const out = el("div", { "data-chosen": plan.chosen.label }, head, candidateBlock("Chosen configuration", plan.chosen, plan));
    const sc = plan.seed_choice;
    out.append(el("p", {}, sc.same_as_chosen ? "The seed's score alone picks the same configuration."
      : `The seed's score alone picks ${sc.candidate.label} (score ${num(sc.candidate.seed.score, 0)}); by predicted time it ranks #${sc.rank}: ` +
        `${fixed(sc.candidate.time.predicted_us, 2)} µs vs ${fixed(plan.chosen.time.predicted_us, 2)} µs.`));
    if (plan.seed_unfiltered_choice) {
      const u = plan.seed_unfiltered_choice;
      out.append(el("p", { class: "warn" }, `Seed blind spot: without tilegemm's extra rules the seed would pick ${u.label}; rejected by ${u.rule}: ${u.reason}`));
    }
    if (plan.user_config) {
      const u = plan.user_config;
      out.append(candidateBlock(`Your config "${u.spec}": ${u.candidate.feasible ? `rank #${u.rank}` : `REJECTED by ${u.candidate.rule}: ${u.candidate.reason}`}`, u.candidate, plan));
    }
    out.append(el("p", { class: "small" }, tuningLine(plan)));
    return out;
  }

  // What the tuning cache (tilegemm tune, docs/PLANNER.md §10) said about this call: measured beside
  // predicted on a hit, else why only the model's numbers are shown.
  function tuningLine(plan) {
    const t = plan.tuning;
    if (!t) return "Measured beside predicted: no tuning cache is read for a built-in device profile; only the model's numbers are shown.";
    if (t.state === "off") return `Measured beside predicted: the tuning cache is off (${t.reason}); gemm() runs the model's pick.`;
    if (t.entry && plan.chosen_by === "tuning_cache")
      return `Measured beside predicted (tuning cache ${t.file}, ${t.entry.date}): gemm() runs ${t.entry.best.config}, measured ` +
        `${fixed(t.entry.best.measured_us, 1)} µs (predicted ${fixed(t.entry.best.predicted_us, 1)}); the model's pick ${t.entry.model.config} ` +
        `measured ${fixed(t.entry.model.measured_us, 1)} µs (predicted ${fixed(t.entry.model.predicted_us, 1)}).`;
    return `Measured beside predicted: tuning cache ${t.file}: ${t.state}${t.reason ? ` (${t.reason})` : ""}; gemm() runs the model's pick.`;
  }

  function space(plan) {
    const c = plan.counts;
    const rules = Object.entries(c.rejected_by_rule);
    return el("div", {}, el("h3", {}, "Candidate space and resource filter"),
      el("p", { "data-counts": `${c.considered},${c.feasible},${c.rejected}` },
        `${num(c.considered)} candidates considered: ${num(c.feasible)} feasible, ${num(c.rejected)} rejected`,
        rules.length ? ":" : "."),
      el("div", { class: "strip" }, rules.map(([rule, n]) => el("div", { class: "chip rule", "data-rule": rule }, el("b", {}, n), ` ${rule}`))));
  }

  function topTable(plan) {
    const head = ["#", "config", "blocks", "waves", "wave_eff", "L2_AB", "local_AB", "TC", "CD", "cycles_L2", "cycles_local",
      "score", "l2 µs", "local µs", "hbm µs", "tensor µs", "epi µs", "predicted µs", "TFLOPS", "bound"];
    const rows = plan.top.map((c) => {
      const s = c.seed, t = c.time;
      return el("tr", { class: `cand${c.label === (plan.chosen && plan.chosen.label) ? " chosen" : ""}`, "data-rank": c.rank, "data-label": c.label },
        [c.rank, c.label, s.num_blocks, s.num_waves, fixed(s.wave_eff, 3), num(s.bytes_L2_AB), num(s.bytes_local_AB), num(s.bytes_TC),
          num(s.bytes_CD), num(s.cycles_L2, 0), num(s.cycles_local, 0), num(s.score, 0), fixed(t.l2_us, 2), fixed(t.local_us, 2),
          fixed(t.hbm_us, 2), fixed(t.tc_us, 2), fixed(t.epilogue_us, 2), fixed(t.predicted_us, 2), num(t.tflops, 0), t.bound]
          .map((v, i) => el("td", { class: i === 1 ? "" : "num" }, v)));
    });
    return el("div", {}, el("h3", {}, `Top ${plan.top.length} of ${num(plan.counts.feasible)} feasible: every score term`),
      el("div", { class: "scroll" }, table(head, rows, { class: "top" })));
  }

  function rejectedTable(plan) {
    const rows = plan.rejected.map((c) => el("tr", { class: "rejected", "data-rule": c.rule }, el("td", {}, c.rule), el("td", {}, c.label), el("td", { class: "small" }, c.reason)));
    return el("div", {}, el("h3", {}, `Rejected, with their rule (${plan.rejected_all_listed ? "all" : "examples per rule"})`),
      el("div", { class: "scroll" }, table(["rule", "config", "why"], rows, { class: "rejected-list" })));
  }

  async function load(values) {
    TG.setState(section, "loading", "loading /api/plan …");
    const r = await TG.getJson("/api/plan", values);
    for (const name of ["route", "chosen", "space", "top", "rejected", "notes"]) clear(role(section, name));
    if (!r.ok) { TG.setState(section, "error", `/api/plan ${r.status}: ${r.body && r.body.error}`); return; }
    const plan = r.body;
    role(section, "route").append(route(plan));
    if (plan.path === "fallback") {  // gemm() sends this call to the SIMT fallback: no plan to show
      const p = plan.problem;
      role(section, "chosen").append(el("p", { class: "device" },
        `M=${num(p.m)} N=${num(p.n)} K=${num(p.k)}, layout ${p.layout}, out ${p.out}${p.accumulate ? ", accumulate C" : ""}`));
      if (plan.notes.length) role(section, "notes").append(el("h3", {}, "Notes"), el("ul", {}, plan.notes.map((n) => el("li", {}, n))));
      TG.setState(section, "ready", "");
      return;
    }
    role(section, "chosen").append(chosen(plan));
    role(section, "space").append(space(plan));
    role(section, "top").append(topTable(plan));
    role(section, "rejected").append(rejectedTable(plan));
    if (plan.notes.length) role(section, "notes").append(el("h3", {}, "Notes"), el("ul", {}, plan.notes.map((n) => el("li", {}, n))));
    TG.setState(section, "ready", "");
  }

  load(TG.bindForm(section, load));
});
