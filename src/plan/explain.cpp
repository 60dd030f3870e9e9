// Text and JSON rendering of a Plan (explain.hpp). The JSON keys are a contract: docs/PLANNER.md
// lists them and tests/cpu/plan/test_explain.cpp checks they are present.
#include "plan/explain.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>

#include "plan/config_spec.hpp"
#include "plan/device_profile_json.hpp"
#include "plan/tuning_candidates.hpp"

namespace tilegemm::plan {

namespace {

using nlohmann::ordered_json;

// ------------------------------------------------------------------------------------------ JSON

// Every field of the Config (the kernel's template argument), then what follows from it.
ordered_json config_json(const Config& c) {
  return ordered_json{
      {"bm", c.bm}, {"bn", c.bn}, {"bk", c.bk}, {"stages", c.stages},
      {"cluster_m", c.cluster_m}, {"cluster_n", c.cluster_n}, {"multicast", multicast_name(multicast_of(c))},
      {"consumers", c.consumers()}, {"threads", c.threads()},
      {"registers", {{"producer", c.producer_regs}, {"consumer", c.consumer_regs}, {"accumulators", c.accumulators()}}},
      {"mapping", {{"kind", mapping_kind_name(c.mapping.kind)}, {"group", c.mapping.group},
                   {"box_m", c.mapping.box_m}, {"box_n", c.mapping.box_n}}},
      {"epilogue", sm90::epilogue_id(c.epilogue)}, {"stage_cols", c.stage_cols},
      {"a_major", to_string(c.a_major)}, {"b_major", to_string(c.b_major)}, {"out_dtype", to_string(c.out_dtype)},
      {"with_c", c.with_c}, {"cd_pairs", c.cd_pairs},
      {"fixed_n", c.fixed_n}, {"fixed_k", c.fixed_k},
      {"persistent", c.persistent}, {"stream_k", c.stream_k}, {"split_k", c.split_k}, {"sk_runs", c.sk_runs}, {"swap_ab", c.d_col_major}, {"cluster_k", c.cluster_k},
      {"pingpong", c.pingpong}, {"acc_sets", c.acc_sets}};
}

ordered_json candidate_json(const Candidate& c) {
  const SeedTerms& s = c.seed;
  const TimeTerms& t = c.time;
  return ordered_json{
      {"label", describe(c.config)},
      {"feasible", c.feasible()},
      {"rule", c.feasible() ? ordered_json(nullptr) : ordered_json(rule_id(c.rule))},
      {"reason", c.reason},
      {"config", config_json(c.config)},
      {"grid", c.grid},
      {"smem_bytes", c.smem_bytes},
      {"seed", {{"num_blocks", s.num_blocks}, {"num_waves", s.num_waves}, {"wave_eff", s.wave_eff},
                {"sizeof_c", s.sizeof_c}, {"bytes_L2_AB", s.bytes_L2_AB}, {"bytes_local_AB", s.bytes_local_AB},
                {"bytes_TC", s.bytes_TC}, {"bytes_CD", s.bytes_CD}, {"cycles_L2", s.cycles_L2},
                {"cycles_local", s.cycles_local}, {"score", s.score}}},
      {"time", {{"efficiency", t.efficiency}, {"l2_us", t.l2_us}, {"local_us", t.local_us}, {"hbm_us", t.hbm_us}, {"tc_us", t.tc_us},
                {"tiles_us", t.tiles_us}, {"limits_us", t.limits_us}, {"norm_p", t.norm_p}, {"short_k", t.short_k},
                {"epilogue_us", t.epilogue_us}, {"c_us", t.c_us}, {"fixed_us", t.fixed_us}, {"fixup_us", t.fixup_us},
                {"predicted_us", t.predicted_us}, {"tflops", t.tflops}, {"bound", t.bound},
                {"hbm_bytes", t.hbm_bytes}, {"bytes_L2_AB_eff", t.bytes_L2_AB_eff},
                {"stream_reread", t.b_reread}}},
      {"flags", c.flags}};
}

ordered_json device_json(const DeviceProfile& d, const std::string& note) {
  ordered_json j = device_profile_json(d);
  ordered_json out;  // "note" after "source", as explain has always printed it
  for (auto it = j.begin(); it != j.end(); ++it) {
    out[it.key()] = it.value();
    if (it.key() == "source") out["note"] = note;
  }
  return out;
}

// Rejected candidates grouped by rule id (std::map: alphabetical, deterministic).
std::map<std::string, std::vector<const Candidate*>> by_rule(const Plan& plan) {
  std::map<std::string, std::vector<const Candidate*>> groups;
  for (const auto& r : plan.rejected) groups[rule_id(r.rule)].push_back(&r);
  return groups;
}

// Up to `limit` (< 0: all) of one rule's rejections: distinct reasons first (variants that differ
// only in G or cluster usually share a reason), then the rest, each in enumeration order.
std::vector<const Candidate*> examples(const std::vector<const Candidate*>& list, int limit) {
  if (limit < 0) return list;
  std::vector<const Candidate*> picked, repeats;
  std::vector<std::string> seen;
  for (const Candidate* c : list) {
    const bool repeat = std::find(seen.begin(), seen.end(), c->reason) != seen.end();
    (repeat ? repeats : picked).push_back(c);
    if (!repeat) seen.push_back(c->reason);
  }
  picked.insert(picked.end(), repeats.begin(), repeats.end());
  picked.resize(std::min(picked.size(), static_cast<size_t>(limit)));
  return picked;
}

// The tuning cache's word on the call: null when none was consulted (a built-in --device profile).
ordered_json tuning_json(const ExplainOptions& o) {
  if (!o.tuning) return nullptr;
  const ExplainOptions::Tuning& t = *o.tuning;
  if (t.file.empty()) return {{"file", nullptr}, {"state", "off"}, {"reason", t.why_off}, {"entry", nullptr}};
  ordered_json entry = nullptr;
  if (const auto& e = t.lookup.entry) {
    const auto times = [](const TunedTime& x) {
      return ordered_json{{"config", x.config}, {"measured_us", x.measured_us}, {"predicted_us", x.predicted_us}};
    };
    entry = {{"device", e->device.label()}, {"label", e->label}, {"best", times(e->best)},
             {"model", times(e->model)}, {"date", e->date}};
  }
  return {{"file", t.file}, {"state", tuned_kind_name(t.lookup.kind)}, {"reason", t.lookup.reason}, {"entry", entry}};
}

// ------------------------------------------------------------------------------------------ text

// "tuning cache FILE: ..." -- what the cache said and what gemm() does about it; "" when none was read.
std::string tuning_text(const ExplainOptions& o) {
  if (!o.tuning) return "";
  const ExplainOptions::Tuning& t = *o.tuning;
  if (t.file.empty()) return "tuning cache: off (" + t.why_off + "): gemm() runs the model's pick\n";
  switch (t.lookup.kind) {
    case TunedLookup::Kind::hit: return "tuning cache " + t.file + ": entry for " + t.lookup.entry->device.label() + "\n";
    case TunedLookup::Kind::none: return "tuning cache " + t.file + ": no entry for this call: gemm() runs the model's pick\n";
    default: return "tuning cache " + t.file + ": entry ignored (" + t.lookup.reason + "): gemm() runs the model's pick\n";
  }
}

std::string si_bytes(double b) {
  if (b >= 1e9) return fmt::format("{:.2f} GB", b / 1e9);
  if (b >= 1e6) return fmt::format("{:.2f} MB", b / 1e6);
  if (b >= 1e3) return fmt::format("{:.1f} KB", b / 1e3);
  return fmt::format("{:.0f} B", b);
}

void append_summary(std::string& out, const Candidate& c, const char* indent) {
  const Config& k = c.config;
  const SeedTerms& s = c.seed;
  const TimeTerms& t = c.time;
  auto o = std::back_inserter(out);
  fmt::format_to(o, "{}{}\n", indent, describe(k));
  fmt::format_to(o, "{}predicted {:.1f} us, {:.0f} TFLOPS, {}-bound: limits {:.2f} ({}norm of l2 {:.2f}, local {:.2f}, "
                 "hbm {:.2f}, tensor {:.2f}{}) + epilogue {:.2f}{} + fixed {:.2f}{} us\n",
                 indent, t.predicted_us, t.tflops, t.bound, t.limits_us,
                 t.short_k ? fmt::format("a short K's {:.3g}-", t.norm_p) : std::string(), t.l2_us, t.local_us, t.hbm_us,
                 t.tc_us, t.short_k ? fmt::format(", tiles {:.2f}", t.tiles_us) : std::string(), t.epilogue_us,
                 t.c_us > 0 ? fmt::format(" + reading C {:.2f}", t.c_us) : "", t.fixed_us,
                 t.fixup_us > 0 ? fmt::format(" + k-split fix-up {:.2f}", t.fixup_us) : "");
  fmt::format_to(o, "{}seed: score {:.0f} = max(cycles_local {:.0f}, cycles_L2 {:.0f}) / wave_eff {:.3f} "
                 "({} blocks, {} waves)\n",
                 indent, s.score, s.cycles_local, s.cycles_L2, s.wave_eff, s.num_blocks, s.num_waves);
  const std::string regs = k.producer_regs ? fmt::format("registers {} producer / {} consumer (setmaxnreg)",
                                                         k.producer_regs, k.consumer_regs)
                                           : std::string("registers as compiled (no setmaxnreg)");
  fmt::format_to(o, "{}kernel: {} threads (1 producer + {} consumer warpgroup{}{}), {}, {} fp32 accumulators per "
                 "consumer thread, {} epilogue, smem {} B, grid {}, mainloop efficiency {:.2f}, HBM {}\n",
                 indent, k.threads(), k.consumers(), k.consumers() > 1 ? "s" : "",
                 k.pingpong ? ", ping-pong: each computes whole tiles, taking turns" : "", regs, k.accumulators(),
                 sm90::epilogue_id(k.epilogue), c.smem_bytes, c.grid, t.efficiency,
                 si_bytes(static_cast<double>(t.hbm_bytes)));
  for (const auto& f : c.flags) fmt::format_to(o, "{}note: {}\n", indent, f);
}

}  // namespace

ordered_json problem_json(const Problem& p) {
  return ordered_json{{"m", p.m}, {"n", p.n}, {"k", p.k}, {"layout", layout_name(p.a_major, p.b_major)},
                      {"a_major", to_string(p.a_major)}, {"b_major", to_string(p.b_major)},
                      {"out", to_string(p.out)}, {"accumulate", p.accumulate},
                      {"lda", p.lda}, {"ldb", p.ldb}, {"ldd", p.ldd}};
}

ordered_json call_json(const CallDescription& c) {
  if (!c.given) return nullptr;
  ordered_json j{{"d_major", c.d_major}, {"c", c.c}};
  j["c_major"] = c.c == "none" ? ordered_json(nullptr) : ordered_json(c.c_major);
  j["c_dtype"] = c.c == "none" ? ordered_json(nullptr) : ordered_json(c.c_dtype);
  j["alpha"] = c.alpha;
  j["beta"] = c.beta;
  j["lda"] = c.lda;
  j["ldb"] = c.ldb;
  j["ldc"] = c.ldc;
  j["ldd"] = c.ldd;
  j["offsets"] = {{"a", c.offset_a}, {"b", c.offset_b}, {"c", c.offset_c}, {"d", c.offset_d}};
  return j;
}

// "call: D row-major ldd 4096, no C, alpha 1, lda 4096 ldb 4096, pointers at element offsets a 0 b 0 d 0"
void append_call(std::string& out, const CallDescription& c) {
  if (!c.given) return;
  auto w = std::back_inserter(out);
  fmt::format_to(w, "call: D {}-major ldd {}, ", c.d_major, c.ldd);
  if (c.c == "none") {
    fmt::format_to(w, "no C");
  } else if (c.c == "in_place") {
    fmt::format_to(w, "C is D (in place)");
  } else {
    fmt::format_to(w, "C {} {}-major ldc {}", c.c_dtype, c.c_major, c.ldc);
  }
  fmt::format_to(w, ", alpha {} beta {}, lda {} ldb {}, pointers at element offsets a {} b {}", c.alpha, c.beta, c.lda,
                 c.ldb, c.offset_a, c.offset_b);
  if (c.c == "separate") fmt::format_to(w, " c {}", c.offset_c);
  fmt::format_to(w, " d {} (from 256-B aligned addresses)\n", c.offset_d);
}

std::vector<std::string> all_notes(const std::vector<std::string>& plan_notes, const ExplainOptions& o) {
  std::vector<std::string> notes = plan_notes;
  notes.insert(notes.end(), o.notes.begin(), o.notes.end());
  return notes;
}

std::string explain_json(const Plan& plan, const std::optional<Candidate>& user, const ExplainOptions& o) {
  const Problem& p = plan.problem;
  ordered_json j;
  j["schema"] = kPlanJsonSchema;
  j["problem"] = problem_json(p);
  j["path"] = o.path;
  j["route_reason"] = o.route_reason;
  j["call"] = call_json(o.call);
  j["route_steps"] = o.route_steps;
  j["device"] = device_json(plan.device, o.device_note);
  j["ranking"] = plan.options.ranking == Ranking::time ? "time" : "seed";
  j["ksplit_margin"] = plan.options.ranking == Ranking::time ? kKSplitMargin : 0.0;
  j["runs_margin"] = plan.options.ranking == Ranking::time ? kRunsMargin : 0.0;
  j["wide_m_margin"] = plan.options.ranking == Ranking::time ? kWideMMargin : 0.0;
  ordered_json rules = ordered_json::object();
  const auto groups = by_rule(plan);
  for (const auto& [rule, list] : groups) rules[rule] = list.size();
  j["counts"] = {{"considered", plan.num_considered}, {"feasible", plan.ranked.size()},
                 {"rejected", plan.rejected.size()}, {"rejected_by_rule", rules}};
  // "chosen" is what gemm() runs: the tuning cache's config on a hit, else the model's pick.
  const TunedLookup* hit = o.tuning && o.tuning->lookup.hit() ? &o.tuning->lookup : nullptr;
  if (plan.ranked.empty()) {
    j["chosen"] = nullptr;
    j["chosen_by"] = nullptr;
    j["model_choice"] = nullptr;
    j["seed_choice"] = nullptr;
  } else {
    j["chosen"] = candidate_json(hit ? hit->candidate : plan.chosen());
    j["chosen_by"] = hit ? "tuning_cache" : "model";
    j["model_choice"] = candidate_json(plan.chosen());
    j["seed_choice"] = {{"rank", plan.seed_choice + 1}, {"same_as_chosen", plan.seed_choice == 0},
                        {"candidate", candidate_json(plan.ranked[plan.seed_choice])}};
  }
  j["seed_unfiltered_choice"] =
      plan.seed_unfiltered_choice ? candidate_json(*plan.seed_unfiltered_choice) : ordered_json(nullptr);
  if (user) {
    j["user_config"] = {{"spec", o.user_spec}, {"rank", rank_of(plan, *user)}, {"candidate", candidate_json(*user)}};
  } else {
    j["user_config"] = nullptr;
  }
  ordered_json top = ordered_json::array();
  const size_t n_top = std::min(plan.ranked.size(), static_cast<size_t>(std::max(1, o.top)));
  for (size_t i = 0; i < n_top; ++i) {
    ordered_json c = candidate_json(plan.ranked[i]);
    c["rank"] = i + 1;
    top.push_back(std::move(c));
  }
  j["top"] = std::move(top);
  ordered_json rejected = ordered_json::array();
  bool all_listed = true;
  for (const auto& [rule, list] : groups) {
    const auto shown = examples(list, o.rejected_per_rule);
    all_listed = all_listed && shown.size() == list.size();
    for (const Candidate* c : shown) rejected.push_back(candidate_json(*c));
  }
  j["rejected"] = std::move(rejected);
  j["rejected_all_listed"] = all_listed;
  j["tuning"] = tuning_json(o);
  j["notes"] = all_notes(plan.notes, o);
  return j.dump(2);
}

std::string explain_text(const Plan& plan, const std::optional<Candidate>& user, const ExplainOptions& o) {
  const Problem& p = plan.problem;
  const DeviceProfile& d = plan.device;
  std::string out;
  auto w = std::back_inserter(out);
  fmt::format_to(w, "tilegemm explain: M={} N={} K={}, layout {} (A {}, B {}), out {}, accumulate {}\n", p.m, p.n,
                 p.k, layout_name(p.a_major, p.b_major), to_string(p.a_major), to_string(p.b_major),
                 to_string(p.out), p.accumulate ? "yes" : "no");
  fmt::format_to(w, "device: {} - {} [{}{}]\n", d.name, d.description, d.source,
                 o.device_note.empty() ? "" : "; " + o.device_note);
  fmt::format_to(w, "  {} SMs @ {:.2f} GHz | BW_L2 {:.0f} B/clk | BW_local {:.0f} B/clk | HBM {:.2f} TB/s "
                 "(datasheet {:.2f}) | tensor {:.0f} TFLOPS | smem {} B/block | L2 {} MiB\n\n",
                 d.sm_count, d.clock_ghz, d.l2_bytes_per_cycle, d.local_bytes_per_cycle, d.hbm_bytes_per_s / 1e12,
                 d.hbm_datasheet_bytes_per_s / 1e12, d.tc_peak_flops / 1e12, d.smem_per_block_optin,
                 d.l2_bytes >> 20);
  append_call(out, o.call);
  fmt::format_to(w, "path: sm90 kernel, JIT-compiled for the chosen configuration (src/sm90/gemm/)\n");
  for (const auto& step : o.route_steps) fmt::format_to(w, "  {}\n", step);

  if (plan.ranked.empty()) {
    fmt::format_to(w, "no candidate passes the resource filter on this device profile.\n");
    for (const auto& r : plan.rejected) fmt::format_to(w, "  {}: {}: {}\n", describe(r.config), rule_id(r.rule), r.reason);
    return out;
  }
  const bool by_time = plan.options.ranking == Ranking::time;
  if (o.tuning && o.tuning->lookup.hit()) {
    const TunedLookup& t = o.tuning->lookup;
    const TuningEntry& e = *t.entry;
    fmt::format_to(w, "chosen (tuning cache: measured fastest by tilegemm tune on {}; gemm() runs it):\n", e.date);
    append_summary(out, t.candidate, "  ");
    fmt::format_to(w, "  measured {:.1f} us; predicted {:.1f} us (model error {:.0f}%)\n", e.best.measured_us,
                   t.candidate.time.predicted_us, 100 * model_error(t.candidate.time.predicted_us, e.best.measured_us));
    fmt::format_to(w, "the model alone picks {}: predicted {:.1f} us, measured {:.1f} us in the same tuning run\n",
                   describe(plan.chosen().config), plan.chosen().time.predicted_us, e.model.measured_us);
  } else {
    fmt::format_to(w, "chosen (lowest {}):\n",
                   by_time ? fmt::format("predicted time, a k-split's counted {:g} % higher, stream-K over runs {:g} %, "
                                         "a 256-row tile {:g} %",
                                         100 * kKSplitMargin, 100 * (kKSplitMargin + kRunsMargin), 100 * kWideMMargin)
                           : std::string("seed score"));
    append_summary(out, plan.chosen(), "  ");
  }
  out += tuning_text(o);
  const Candidate& seed_pick = plan.ranked[plan.seed_choice];
  if (plan.seed_choice == 0) {
    fmt::format_to(w, "the seed's score alone picks the same configuration.\n");
  } else {
    fmt::format_to(w, "the seed's score alone picks {} (score {:.0f} vs {:.0f}); it ranks #{} by predicted time: "
                   "{:.2f} us ({}-bound) vs {:.2f} us\n",
                   describe(seed_pick.config), seed_pick.seed.score, plan.chosen().seed.score,
                   plan.seed_choice + 1, seed_pick.time.predicted_us, seed_pick.time.bound,
                   plan.chosen().time.predicted_us);
  }
  if (plan.seed_unfiltered_choice) {
    const Candidate& u = *plan.seed_unfiltered_choice;
    fmt::format_to(w, "seed blind spot: without tilegemm's extra rules the seed would pick {} (score {:.0f}); "
                   "rejected by {}: {}\n",
                   describe(u.config), u.seed.score, rule_id(u.rule), u.reason);
  }
  if (user) {
    fmt::format_to(w, "\nyour config ({}):\n", o.user_spec);
    if (user->feasible()) {
      fmt::format_to(w, "  rank #{} of {} feasible\n", rank_of(plan, *user), plan.ranked.size());
    } else {
      fmt::format_to(w, "  REJECTED by {}: {}\n  (terms below computed anyway, for comparison)\n",
                     rule_id(user->rule), user->reason);
    }
    append_summary(out, *user, "  ");
  }

  const size_t n_top = std::min(plan.ranked.size(), static_cast<size_t>(std::max(1, o.top)));
  size_t lw = 6;  // label column width: the longest label listed
  for (size_t i = 0; i < n_top; ++i) lw = std::max(lw, describe(plan.ranked[i].config).size());
  fmt::format_to(w, "\ntop {} of {} feasible candidates: seed terms (bytes per block, cycles for the GPU)\n", n_top,
                 plan.ranked.size());
  fmt::format_to(w, "{:>3}  {:<{}} {:>6} {:>5} {:>6} {:>10} {:>10} {:>10} {:>7} {:>10} {:>10} {:>10}\n", "#",
                 "config", lw, "blocks", "waves", "w_eff", "L2_AB", "local_AB", "TC", "CD", "cyc_L2", "cyc_local",
                 "score");
  for (size_t i = 0; i < n_top; ++i) {
    const Candidate& c = plan.ranked[i];
    const SeedTerms& s = c.seed;
    fmt::format_to(w, "{:>3}  {:<{}} {:>6} {:>5} {:>6.3f} {:>10} {:>10} {:>10} {:>7} {:>10.0f} {:>10.0f} {:>10.0f}\n",
                   i + 1, describe(c.config), lw, s.num_blocks, s.num_waves, s.wave_eff, s.bytes_L2_AB,
                   s.bytes_local_AB, s.bytes_TC, s.bytes_CD, s.cycles_L2, s.cycles_local, s.score);
  }
  const bool short_k = !plan.ranked.empty() && plan.ranked[0].time.short_k;
  fmt::format_to(w, "\ntop {}: predicted time (us) = limits + epi (+ reading C) + fixed + fixup, limits = {}\n", n_top,
                 short_k ? fmt::format("a short K's {:.3g}-norm of (l2, local, hbm, tensor, tiles)",
                                       plan.ranked[0].time.norm_p)
                         : fmt::format("the {:g}-norm of (l2, local, hbm, tensor)", plan.device.limit_norm_p));
  fmt::format_to(w, "{:>3}  {:<{}} {:>8} {:>8} {:>8} {:>8} {:>8} {:>5} {:>5} {:>5} {:>9} {:>6} {:>6}\n", "#", "config",
                 lw, "l2", "local", "hbm", "tensor", "limits", "epi", "fixed", "fixup", "predicted", "TFLOPS", "bound");
  for (size_t i = 0; i < n_top; ++i) {
    const Candidate& c = plan.ranked[i];
    const TimeTerms& t = c.time;
    fmt::format_to(w, "{:>3}  {:<{}} {:>8.2f} {:>8.2f} {:>8.2f} {:>8.2f} {:>8.2f} {:>5.2f} {:>5.2f} {:>5.2f} {:>9.2f} {:>6.0f} {:>6}\n",
                   i + 1, describe(c.config), lw, t.l2_us, t.local_us, t.hbm_us, t.tc_us, t.limits_us, t.epilogue_us + t.c_us,
                   t.fixed_us, t.fixup_us, t.predicted_us, t.tflops, t.bound);
  }

  const auto groups = by_rule(plan);
  fmt::format_to(w, "\nrejected: {} of {} candidates considered", plan.rejected.size(), plan.num_considered);
  if (o.rejected_per_rule < 0) {
    fmt::format_to(w, " (all listed)\n");
  } else {
    fmt::format_to(w, " (up to {} per rule; --rejected N for more, -1 for all)\n", o.rejected_per_rule);
  }
  for (const auto& [rule, list] : groups) {
    fmt::format_to(w, "  {} ({}):\n", rule, list.size());
    for (const Candidate* c : examples(list, o.rejected_per_rule))
      fmt::format_to(w, "    {}: {}\n", describe(c->config), c->reason);
  }
  if (const auto notes = all_notes(plan.notes, o); !notes.empty()) {
    fmt::format_to(w, "\nnotes:\n");
    for (const auto& note : notes) fmt::format_to(w, "  {}\n", note);
  }
  return out;
}

std::string explain_fallback_text(const Problem& p, const ExplainOptions& o) {
  std::string out;
  auto w = std::back_inserter(out);
  fmt::format_to(w, "tilegemm explain: M={} N={} K={}, layout {} (A {}, B {}), out {}, accumulate {}\n", p.m, p.n,
                 p.k, layout_name(p.a_major, p.b_major), to_string(p.a_major), to_string(p.b_major),
                 to_string(p.out), p.accumulate ? "yes" : "no");
  append_call(out, o.call);
  fmt::format_to(w, "path: fallback (the SIMT kernel, src/api/fallback_gemm.cu): {}\n", o.route_reason);
  fmt::format_to(w, "no plan: the planner enumerates only configurations of the sm90 kernel template, which "
                    "cannot take this call\n");
  for (const auto& note : o.notes) fmt::format_to(w, "note: {}\n", note);
  return out;
}

std::string explain_fallback_json(const Problem& p, const ExplainOptions& o) {
  ordered_json j;
  j["schema"] = kPlanJsonSchema;
  j["problem"] = problem_json(p);
  j["path"] = o.path;
  j["route_reason"] = o.route_reason;
  j["call"] = call_json(o.call);
  j["chosen"] = nullptr;
  j["notes"] = o.notes;
  return j.dump(2);
}

}  // namespace tilegemm::plan
