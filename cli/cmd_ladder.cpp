// `tilegemm ladder`: runs the teaching kernels (src/ladder) through the bench runner: each step on
// its shapes, checked against the CPU reference, then timed beside cuBLASLt (L2 flushed, median).
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "bench/device_info.hpp"
#include "bench/runner.hpp"
#include "bench/suite.hpp"
#include "commands.hpp"
#include "ladder/ladder.hpp"

namespace tilegemm::cli {
namespace {

struct LadderOptions {
  std::vector<int> steps;            // empty: all
  std::vector<std::string> shapes;   // empty: each step's default shapes
  int iters = 30, warmup = 5;
  bool no_cublas = false, check_only = false, json = false;
  std::string json_out;
  std::string timer;  // "events", "cupti" or empty: cupti when available, else events
};

// Default shapes: the largest each early step can run, and the 4096^3 / 8192^3 for the
// steps that tile the whole output.
std::vector<bench::Shape> default_shapes(const ladder::Step& step) {
  const std::vector<bench::Shape> candidates = {{128, 128, 64}, {128, 128, 4096}, {4096, 4096, 4096},
                                                {8192, 8192, 8192}};
  std::vector<bench::Shape> out;
  for (const bench::Shape& s : candidates)
    if (step.check_shape(int(s.m), int(s.n), int(s.k)).empty()) out.push_back(s);
  if (out.size() > 2) out.erase(out.begin(), out.end() - 2);  // the two largest
  return out;
}

int run_ladder(const LadderOptions& o) {
  // Usage errors first (exit 2): they need no GPU, and a bad argument is the thing to fix first.
  std::vector<bench::Shape> user_shapes;
  for (const std::string& text : o.shapes) {
    std::string err;
    auto s = bench::parse_shape(text, &err);
    if (!s) {
      std::fprintf(stderr, "tilegemm ladder: --shape '%s': %s\n", text.c_str(), err.c_str());
      return 2;
    }
    user_shapes.push_back(*s);
  }
  std::vector<const ladder::Step*> chosen;
  for (int n : o.steps) {
    const ladder::Step* s = ladder::find_step(n);
    if (!s) {
      std::fprintf(stderr, "tilegemm ladder: --step %d: no such step (steps are 1..%zu)\n", n,
                   ladder::steps().size());
      return 2;
    }
    chosen.push_back(s);
  }
  if (chosen.empty())
    for (const ladder::Step& s : ladder::steps()) chosen.push_back(&s);

  const bench::DeviceInfo dev = bench::probe_device();
  if (!dev.is_sm90()) {
    std::fprintf(stderr, "tilegemm ladder: needs a Hopper (sm_90) GPU: %s\n", dev.not_sm90_reason().c_str());
    return 3;
  }

  std::string timer_error;
  const auto timer = bench::choose_timer(o.timer, &timer_error);
  if (!timer) {
    std::fprintf(stderr, "tilegemm ladder: %s\n", timer_error.c_str());
    return 2;
  }

  bench::RunOptions run;
  run.timing.method = timer->method;
  run.timing.iters = o.iters;
  run.timing.warmup = o.warmup;
  run.with_cublas = !o.no_cublas;
  run.measure = !o.check_only;

  nlohmann::json rows = nlohmann::json::array();
  bool all_ok = true;
  if (!o.json)
    fmt::print("{} ({} SMs), timer: {}\n{:>4} {:<12} {:>18} {:>10} {:>8} {:>10} {:>8} {:>7}  {}\n", dev.name,
               dev.sm_count, o.check_only ? "none (--check-only)" : timer->description, "step", "name", "shape",
               "us", "TFLOPS", "cuBLAS us", "TFLOPS", "ratio", "check");
  for (const ladder::Step* step : chosen) {
    const std::vector<bench::Shape> shapes = user_shapes.empty() ? default_shapes(*step) : user_shapes;
    for (const bench::Shape& s : shapes) {
      const std::string shape = fmt::format("{}x{}x{}", s.m, s.n, s.k);
      const std::string rule = step->check_shape(int(s.m), int(s.n), int(s.k));
      if (!rule.empty()) {
        if (!o.json) fmt::print("{:>4} {:<12} {:>18}  skipped: {}\n", step->number, step->name, shape, rule);
        continue;
      }
      auto launch = [step](const GemmArgs& a) {
        ladder::Problem p{static_cast<const __nv_bfloat16*>(a.a.ptr), static_cast<const __nv_bfloat16*>(a.b.ptr),
                          static_cast<__nv_bfloat16*>(a.d.ptr), int(a.a.rows), int(a.b.rows),
                          int(a.a.cols)};
        return step->launch(p, a.stream);
      };
      const bench::Case c{s.m, s.n, s.k};
      const bench::CaseResult r =
          bench::run_case(c, bench::launcher_from_cuda(launch, step->name), run);
      all_ok = all_ok && r.passed();
      const auto& t = r.candidate;
      const auto& b = r.cublas;
      if (!o.json)
        fmt::print("{:>4} {:<12} {:>18} {:>10.1f} {:>8.1f} {:>10.1f} {:>8.1f} {:>7.3f}  {}{}\n", step->number,
                   step->name, shape, t.timing.median_us, t.tflops, b.timing.median_us, b.tflops, r.ratio,
                   r.setup.ok() ? t.verdict() : "ERROR: " + r.setup.message,
                   r.sampled ? fmt::format(" ({} rows sampled)", r.checked_rows) : "");
      rows.push_back({{"step", step->number},
                      {"name", step->name},
                      {"m", s.m}, {"n", s.n}, {"k", s.k},
                      {"passed", r.passed()},
                      {"verdict", r.setup.ok() ? t.verdict() : r.setup.message},
                      {"calc_diff", t.check.calc_diff},
                      {"checked_rows", r.checked_rows},
                      {"median_us", t.timing.median_us}, {"min_us", t.timing.min_us}, {"tflops", t.tflops},
                      {"cublas_median_us", b.timing.median_us}, {"cublas_tflops", b.tflops},
                      {"ratio_vs_cublas", r.ratio},
                      {"timer", t.timing.method}, {"cublas_timer", b.timing.method},
                      {"timer_fallback", t.timing.fallback_reason.empty() ? nlohmann::json(nullptr)
                                                                           : nlohmann::json(t.timing.fallback_reason)}});
    }
  }
  const nlohmann::json doc = {{"device", dev.name},
                              {"sms", dev.sm_count},
                              {"timer", bench::timing_method_name(timer->method)},
                              {"timer_description", timer->description},
                              {"timer_fallback", timer->fallback_reason.empty() ? nlohmann::json(nullptr)
                                                                                : nlohmann::json(timer->fallback_reason)},
                              {"results", rows}};
  if (o.json) fmt::print("{}\n", doc.dump(2));
  if (!o.json_out.empty()) {
    std::ofstream f(o.json_out);
    f << doc.dump(2) << "\n";
    if (!f) {
      std::fprintf(stderr, "tilegemm ladder: --json-out '%s': cannot write the file\n", o.json_out.c_str());
      return 2;
    }
  }
  return all_ok ? 0 : 1;
}

}  // namespace

void add_ladder_command(CLI::App& app) {
  auto opts = std::make_shared<LadderOptions>();
  CLI::App* cmd = app.add_subcommand("ladder", "Run the teaching kernels: check each step, time it beside cuBLASLt");
  // The registry's own range ("not in range 1 to 9"), not CLI::PositiveNumber's up-to-DBL_MAX one.
  cmd->add_option("--step", opts->steps, "Step number(s) to run (default: all)")
      ->check(CLI::Range(1, static_cast<int>(ladder::steps().size())));
  cmd->add_option("--shape", opts->shapes, "Shape(s) MxNxK (default: each step's own)");
  cmd->add_option("--iters", opts->iters, "Timed runs per kernel")->check(CLI::Range(1, 100000));
  cmd->add_option("--warmup", opts->warmup, "Untimed runs first")->check(CLI::Range(0, 100000));
  cmd->add_option("--timer", opts->timer,
                  "How a call is timed: cupti = sum of its kernels' times from CUPTI activity records (default "
                  "when CUPTI loads), events = CUDA events around the call")
      ->check(CLI::IsMember({"events", "cupti"}));
  cmd->add_flag("--no-cublas", opts->no_cublas, "Do not run the cuBLASLt baseline");
  cmd->add_flag("--check-only", opts->check_only, "Check correctness, time nothing");
  cmd->add_flag("--json", opts->json, "JSON on stdout instead of the table");
  cmd->add_option("--json-out", opts->json_out, "Also write the JSON to this file");
  cmd->callback([opts] {
    const int rc = run_ladder(*opts);
    if (rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace tilegemm::cli
