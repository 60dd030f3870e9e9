// What `tilegemm tune` reports and stores (tune_report.hpp).
#include "tune_report.hpp"

#include <algorithm>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "plan/config_spec.hpp"
#include "plan/tuning_candidates.hpp"

namespace tilegemm::cli {
namespace {

using nlohmann::ordered_json;

double measured(const TuneProblem& t, size_t i) { return t.sides[i].timing.median_us; }
// The call's predicted time, as measured: the kernel's and the copies' before it.
double predicted(const TuneProblem& t, size_t i) { return t.candidates[i].time.predicted_us + t.copies_us; }

std::string call_text(const TuneArgs& a) {
  std::string call = a.beta ? fmt::format("{} C, beta {}", a.out, *a.beta) : std::string("no C");
  if (a.ld_pad != 0) call += fmt::format(", leading dimensions padded by {}", a.ld_pad);
  return call;
}

// "ok", the check's verdict, or what ran instead.
std::string verdict(const TuneProblem& t, size_t i) {
  if (!t.errors[i].empty()) return "ERROR: " + t.errors[i];
  return t.sides[i].verdict();
}

ordered_json candidate_json(const TuneProblem& t, size_t i) {
  const bool timed = t.passed(i);
  return ordered_json{{"model_rank", plan::rank_of(t.plan, t.candidates[i])},
                      {"label", plan::describe(t.candidates[i].config)},
                      {"config", plan::config_spec_text(t.candidates[i].config)},
                      {"predicted_us", predicted(t, i)},
                      {"copies_us", t.copies_us},
                      {"measured_us", timed ? ordered_json(measured(t, i)) : ordered_json(nullptr)},
                      {"model_error", timed ? ordered_json(plan::model_error(predicted(t, i), measured(t, i)))
                                            : ordered_json(nullptr)},
                      {"passed", timed},
                      {"verdict", verdict(t, i)},
                      {"calc_diff", t.sides[i].check.calc_diff}};
}

}  // namespace

std::string shape_text(const bench::Case& c) { return fmt::format("{}x{}x{}", c.m, c.n, c.k); }

void summarize(TuneProblem& t) {
  t.best = -1;
  t.failed = 0;
  for (size_t i = 0; i < t.sides.size(); ++i) {
    if (!t.passed(i)) {
      ++t.failed;
      continue;
    }
    if (t.best < 0 || measured(t, i) < measured(t, static_cast<size_t>(t.best))) t.best = static_cast<int>(i);
  }
  t.model_timed = !t.sides.empty() && t.passed(0);  // candidates[0] is the model's pick
  if (t.model_timed && t.best >= 0) {
    t.regret = plan::regret(measured(t, 0), measured(t, static_cast<size_t>(t.best)));
    t.model_error = plan::model_error(predicted(t, 0), measured(t, 0));
  }
}

plan::TuningEntry cache_entry(const TuneProblem& t, const plan::TuningDevice& key) {
  const size_t b = static_cast<size_t>(t.best);
  plan::TuningEntry e;
  e.device = key;
  e.problem = t.route.problem;
  e.best = {plan::config_spec_text(t.candidates[b].config), measured(t, b), predicted(t, b)};
  e.model = {plan::config_spec_text(t.candidates[0].config), t.model_timed ? measured(t, 0) : 0.0, predicted(t, 0)};
  e.label = plan::describe(t.candidates[b].config);
  e.date = plan::utc_now_iso8601();
  return e;
}

TuneSummary summary_of(const std::vector<TuneProblem>& problems) {
  TuneSummary s;
  s.problems = static_cast<int>(problems.size());
  for (const TuneProblem& t : problems) {
    s.failed += t.failed + (t.setup.ok() ? 0 : 1);
    if (t.best >= 0) ++s.tuned;
    if (t.best >= 0 && !t.stored) ++s.store_failures;
    if (t.model_timed) {
      s.regrets.push_back(t.regret);
      s.errors_model.push_back(t.model_error);
      if (t.best > 0) ++s.model_beaten;
    }
    for (size_t i = 0; i < t.sides.size(); ++i)
      if (t.passed(i)) s.errors_all.push_back(plan::model_error(predicted(t, i), measured(t, i)));
  }
  s.regret_geomean = plan::geomean_regret(s.regrets);
  s.regret_max = s.regrets.empty() ? 0 : *std::max_element(s.regrets.begin(), s.regrets.end());
  s.median_error_model = plan::median(s.errors_model);
  s.median_error_all = plan::median(s.errors_all);
  return s;
}

void print_header(const TuneHeader& h, size_t problems) {
  const TuneArgs& a = h.args;
  fmt::print("tilegemm tune: {} ({} SMs), suite {} ({} problems), layout {}, {} out, {}, top {} configs per "
             "problem, {} timed runs (median), L2 flushed before each ({}), timer: {}\n",
             h.gpu, h.sm_count, h.suite, problems, a.layout, a.out, call_text(a), a.top, a.iters, a.flush, h.timer);
  fmt::print("tuning cache: {} (entries keyed by {})\n", h.file, h.key.label());
  fmt::print("{:>22} {:>10} {:>10} {:>6}  {:>10} {:>7}  model pick / best\n", "problem", "model us", "predicted",
             "error", "best us", "regret");
  std::fflush(stdout);
}

void print_problem(const TuneProblem& t) {
  const std::string what = shape_text(t.c) + " " + t.layout;
  if (t.route.path != detail::Path::sm90) {
    fmt::print("{:>22} not tuned: gemm() runs the fallback ({})\n", what, t.route.reason);
  } else if (t.candidates.empty()) {
    fmt::print("{:>22} not tuned: no configuration fits the device\n", what);
  } else if (!t.setup.ok()) {
    fmt::print("{:>22} ERROR: {}\n", what, t.setup.message);
  } else {
    const std::string model_us = t.model_timed ? fmt::format("{:.1f}", measured(t, 0)) : "-";
    const std::string error = t.model_timed ? fmt::format("{:.0f}%", 100 * t.model_error) : "-";
    const std::string best_us = t.best >= 0 ? fmt::format("{:.1f}", measured(t, static_cast<size_t>(t.best))) : "-";
    const std::string regret = t.model_timed && t.best >= 0 ? fmt::format("{:.1f}%", 100 * t.regret) : "-";
    fmt::print("{:>22} {:>10} {:>10.1f} {:>6}  {:>10} {:>7}  {}\n", what, model_us, predicted(t, 0), error, best_us,
               regret, plan::describe(t.candidates[0].config));
    if (t.best > 0)
      fmt::print("{:>73}{}\n", "best: ", plan::describe(t.candidates[static_cast<size_t>(t.best)].config));
    for (size_t i = 0; i < t.sides.size(); ++i)
      if (!t.passed(i)) fmt::print("  FAILED {}: {}\n", plan::describe(t.candidates[i].config), verdict(t, i));
    if (t.best >= 0 && !t.stored) fmt::print("  NOT STORED: {}\n", t.store_error);
  }
  std::fflush(stdout);
}

void print_summary(const TuneHeader& h, const TuneSummary& s) {
  fmt::print("\n{} of {} problem(s) tuned and stored in {}", s.tuned - s.store_failures, s.problems, h.file);
  fmt::print("; the model's pick was the fastest in {} of {}\n", s.regrets.size() - s.model_beaten, s.regrets.size());
  if (!s.regrets.empty())
    fmt::print("regret of the model's pick t(model)/t(best) - 1: geomean {:.2f}%, max {:.1f}%\n",
               100 * s.regret_geomean, 100 * s.regret_max);
  if (!s.errors_all.empty())
    fmt::print("time model |predicted - measured| / measured: median {:.1f}% over the model's picks, {:.1f}% over "
               "all {} measured configs\n",
               100 * s.median_error_model, 100 * s.median_error_all, s.errors_all.size());
  if (s.failed) fmt::print("{} configuration(s) FAILED their check or did not run: never stored\n", s.failed);
}

void print_json(const TuneHeader& h, const std::vector<TuneProblem>& problems, const TuneSummary& s) {
  const TuneArgs& a = h.args;
  ordered_json results = ordered_json::array();
  for (const TuneProblem& t : problems) {
    ordered_json r{{"m", t.c.m}, {"n", t.c.n}, {"k", t.c.k}, {"layout", t.layout}, {"out", a.out},
                   {"beta", a.beta ? ordered_json(*a.beta) : ordered_json(nullptr)},
                   {"path", detail::path_name(t.route.path)}, {"route_reason", t.route.reason},
                   {"problem_key", t.route.path == detail::Path::sm90 ? plan::tuning_problem_key(t.route.problem) : ""},
                   {"setup_error", t.setup.ok() ? "" : t.setup.message}, {"checked_rows", t.checked_rows}};
    ordered_json cands = ordered_json::array();
    for (size_t i = 0; i < t.sides.size(); ++i) cands.push_back(candidate_json(t, i));
    r["candidates"] = cands;
    r["model"] = t.sides.empty() ? ordered_json(nullptr) : candidate_json(t, 0);
    r["best"] = t.best >= 0 ? candidate_json(t, static_cast<size_t>(t.best)) : ordered_json(nullptr);
    r["regret"] = t.model_timed && t.best >= 0 ? ordered_json(t.regret) : ordered_json(nullptr);
    r["model_error"] = t.model_timed ? ordered_json(t.model_error) : ordered_json(nullptr);
    r["stored"] = t.stored;
    r["store_error"] = t.store_error;
    r["unfit_configs"] = t.unfit;
    results.push_back(std::move(r));
  }
  const ordered_json doc{
      {"schema", "tilegemm.tune/1"},
      {"device", {{"name", h.gpu}, {"sms", h.sm_count}}},
      {"cache", {{"file", h.file}, {"key", h.key.label()}}},
      {"options", {{"suite", h.suite}, {"layout", a.layout}, {"out", a.out},
                   {"beta", a.beta ? ordered_json(*a.beta) : ordered_json(nullptr)}, {"top", a.top},
                   {"configs", a.configs}, {"iters", a.iters}, {"warmup", a.warmup}, {"seed", a.seed},
                   {"timer", h.timer}, {"flush", a.flush}, {"narrow_mn_chunks", a.narrow_mn_chunks},
                   {"ld_pad", a.ld_pad}}},
      {"results", results},
      {"summary", {{"problems", s.problems}, {"tuned", s.tuned}, {"failed", s.failed},
                   {"store_failures", s.store_failures}, {"model_fastest", s.regrets.size() - s.model_beaten},
                   {"regret_geomean", s.regret_geomean}, {"regret_max", s.regret_max},
                   {"median_model_error", s.median_error_model}, {"median_model_error_all", s.median_error_all},
                   {"measured_configs", s.errors_all.size()}}}};
  fmt::print("{}\n", doc.dump(2));
}

}  // namespace tilegemm::cli
