// `tilegemm bench`: tilegemm::gemm against cuBLASLt on a suite or on given shapes, each case
// checked against the CPU reference before it is timed (src/bench/runner.hpp), and the demo (the
// default action with no subcommand): the LLM suite on a Hopper GPU, or without one, what it would
// run and the plan the planner would pick for each shape.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "bench/device_info.hpp"
#include "bench/runner.hpp"
#include "bench/suite.hpp"
#include "call_flags.hpp"
#include "commands.hpp"
#include "cuda_holders.hpp"
#include "api/route.hpp"
#include "api/tuning.hpp"
#include "plan/config_spec.hpp"
#include "plan/planner.hpp"
#include "reference/cublaslt.hpp"
#include "schedule/mapping_names.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm::cli {
namespace {

constexpr int kExitCheckFailed = 1, kExitUsage = 2, kExitNoHopper = 3;

struct BenchOptions {
  std::string suite;                // file or builtin name; default "llm" when no --shape
  std::vector<std::string> shapes;  // MxNxK
  CallFlags call;  // --out, --d-major, --alpha, --beta, --c-dtype, --in-place (call_flags.hpp)
  std::string layout = "nt";
  int iters = 30, warmup = 5;
  uint64_t seed = 20261129;
  bool no_flush = false, no_cublas = false, json = false;
  std::string flush = "write";  // --flush: how L2 is emptied before each timed call (bench/timer.hpp)
  bool no_tuning = false;  // gemm() without the tuning cache: the model's picks
  ModelFlags copies;  // gemm()'s model copies turned off (--no-row-repacks, --no-narrow-transposes), --narrow-mn-chunks
  bool neighbours = false;  // also time each unaligned shape's aligned neighbour (bench::aligned_neighbour)
  std::string json_out;
  std::string mapping;  // --mapping NAME: tile order of the sm90 kernel (empty: the planner's)
  std::string config;   // --config SPEC: the sm90 kernel configuration (empty: the planner's)
  std::string timer;  // "events", "cupti" or empty: cupti when available, else events
};

// The problems to run, from --shape or the suite (default llm).
std::optional<std::vector<bench::Shape>> resolve_shapes(const BenchOptions& o, std::string* suite_name,
                                                        std::string* error) {
  return bench::resolve_shapes(o.shapes, o.suite, "llm", suite_name, error);
}

nlohmann::json side_json(const bench::SideResult& s) {
  nlohmann::json j = {{"verdict", s.verdict()},
                      {"passed", s.passed()},
                      {"calc_diff", s.check.calc_diff},
                      {"max_rel_error", s.check.max_rel},
                      {"mismatches", s.check.mismatches},
                      {"non_finite", s.check.non_finite}};
  // NOTES: a side that failed its check has no time at all (null), never a number.
  if (s.timed)
    j.update({{"median_us", s.timing.median_us}, {"min_us", s.timing.min_us}, {"max_us", s.timing.max_us},
              {"mean_us", s.timing.mean_us}, {"iters", s.timing.iters}, {"tflops", s.tflops}, {"gbps", s.gbps},
              {"timer", s.timing.method}, {"kernels", s.timing.kernels},
              {"timer_fallback", s.timing.fallback_reason.empty() ? nlohmann::json(nullptr)
                                                                   : nlohmann::json(s.timing.fallback_reason)}});
  else
    j.update({{"median_us", nullptr}, {"tflops", nullptr}});
  return j;
}

std::string time_cell(const bench::SideResult& s) { return s.timed ? fmt::format("{:.1f}", s.timing.median_us) : "-"; }
std::string tflops_cell(const bench::SideResult& s) { return s.timed ? fmt::format("{:.1f}", s.tflops) : "-"; }

std::string check_cell(const bench::CaseResult& r, bool with_cublas) {
  if (!r.setup.ok()) return "ERROR: " + r.setup.message;
  std::string cell = r.candidate.verdict();
  if (with_cublas && !r.cublas.passed()) cell += "; cuBLASLt " + r.cublas.verdict();
  return cell;
}

int run_bench(const BenchOptions& o, const std::string& title) {
  std::string suite_name, error;
  const auto shapes = resolve_shapes(o, &suite_name, &error);
  if (!shapes) {
    std::fprintf(stderr, "tilegemm bench: %s\n", error.c_str());
    return kExitUsage;
  }
  bench::Case proto;
  if (!bench::parse_layout(o.layout, &proto.a_major, &proto.b_major)) {
    std::fprintf(stderr, "tilegemm bench: --layout '%s': must be nt, nn, tn or tt\n", o.layout.c_str());
    return kExitUsage;
  }
  if (const auto bad = apply_call_flags(o.call, &proto)) {
    std::fprintf(stderr, "tilegemm bench: %s\n", bad->c_str());
    return kExitUsage;
  }
  const std::string call_label = cli::call_label(o.call, proto);
  // With --neighbours, each unaligned shape is followed by its aligned neighbour (unless that runs
  // anyway), and a table of the odd shapes' TFLOPS as a fraction of their neighbours' ends the run.
  std::vector<bench::Shape> runs;
  for (const bench::Shape& s : *shapes) {
    runs.push_back(s);
    const bench::Shape nb = bench::aligned_neighbour(s);
    const auto listed = [&](const std::vector<bench::Shape>& v) { return std::find(v.begin(), v.end(), nb) != v.end(); };
    if (o.neighbours && !(nb == s) && !listed(*shapes) && !listed(runs)) runs.push_back(nb);
  }
  // --mapping and --config reach the sm90 path through detail::gemm_with_options; shapes that run
  // on the fallback ignore them.
  detail::GemmOptions gemm_options;
  if (!o.config.empty()) {
    const plan::ParsedConfigSpec spec = plan::parse_config_spec(o.config, "--config");
    if (!spec.ok()) {
      std::fprintf(stderr, "tilegemm bench: %s\n", spec.error.c_str());
      return kExitUsage;
    }
    gemm_options.config = spec.spec.config;
    gemm_options.config_stages_given = spec.spec.stages_given;
  }
  if (!o.mapping.empty()) {
    const sched::Parsed<sched::Mapping> parsed = sched::parse_mapping(o.mapping, "--mapping");
    if (!parsed.ok()) {
      std::fprintf(stderr, "tilegemm bench: %s\n", parsed.error.c_str());
      return kExitUsage;
    }
    gemm_options.mapping = parsed.value;
  }
  const std::string mapping_label =
      gemm_options.mapping ? sched::mapping_name(*gemm_options.mapping) : std::string("the planner's");
  // Whether gemm() may run tuned configs (api/tuning.hpp): model-only and tuned runs say which they are.
  gemm_options.use_tuning_cache = !o.no_tuning;
  gemm_options.row_repacks = !o.copies.no_row_repacks;
  gemm_options.narrow_transposes = !o.copies.no_narrow_transposes;
  gemm_options.narrow_mn_chunks = o.copies.narrow_mn_chunks;
  if (o.copies.no_pdl) gemm_options.pdl = false;  // (else the default: on unless TILEGEMM_PDL=off)
  const std::shared_ptr<const detail::TuningState> tuning = detail::process_tuning();
  const std::string tuning_label = o.no_tuning || tuning->off()
                                       ? "off (" + (o.no_tuning ? std::string("--no-tuning") : tuning->why_off()) + ")"
                                       : tuning->path();
  // Usage errors first (they need no GPU), then the device.
  const bench::DeviceInfo dev = bench::probe_device();
  if (!dev.is_sm90()) {
    std::fprintf(stderr, "tilegemm bench: no Hopper (sm_90) GPU found: %s\n", dev.not_sm90_reason().c_str());
    return kExitNoHopper;
  }

  const auto timer = bench::choose_timer(o.timer, &error);
  if (!timer) {
    std::fprintf(stderr, "tilegemm bench: %s\n", error.c_str());
    return kExitUsage;
  }

  ref::CublasLt cublas;
  bench::RunOptions run;
  run.timing.iters = o.iters;
  run.timing.warmup = o.warmup;
  run.timing.flush_l2 = !o.no_flush;
  bench::parse_flush_kind(o.flush, &run.timing.flush);  // CLI::IsMember admits only its two names
  run.timing.method = timer->method;
  run.seed = o.seed;
  run.with_cublas = !o.no_cublas;
  run.cublas = &cublas;
  // With --own-stream both sides run on a stream of their own (non-blocking), not the legacy
  // default stream, whose implicit synchronization with other streams is no place to measure
  // overlap.
  OwnedStream own;
  if (o.copies.own_stream) {
    if (cudaError_t e = own.create(); e != cudaSuccess) {
      std::fprintf(stderr, "tilegemm bench: cudaStreamCreateWithFlags failed: %s\n", cudaGetErrorString(e));
      return kExitCheckFailed;
    }
    run.stream = own.get();
  }
  const bench::Launcher candidate = [gemm_options](const GemmArgs& args) {
    return detail::gemm_with_options(args, gemm_options);
  };

  if (!o.json) {
    fmt::print("{}: {} ({} SMs), suite {} ({} shapes), layout {}, {} out, {}, mapping {}, {} timed runs (median){}, "
               "timer: {}, tuning cache: {}\n",
               title, dev.name, dev.sm_count, suite_name, runs.size(), o.layout, o.call.out, call_label, mapping_label, o.iters,
               o.no_flush ? ", L2 NOT flushed"
                          : o.flush == "read" ? ", L2 flushed before each (read)" : ", L2 flushed before each",
               timer->description, tuning_label);
    fmt::print("{:>6} {:>6} {:>6} {:>12} {:>8} {:>12} {:>8} {:>7} {:>10}  {:<8} {}\n", "M", "N", "K", "tilegemm us",
               "TFLOPS", "cuBLAS us", "TFLOPS", "ratio", "calc_diff", "check", "kernel");
    std::fflush(stdout);
  }
  nlohmann::json results = nlohmann::json::array();
  double log_ratio_sum = 0, min_ratio = 0;
  int ratios = 0, failed = 0, fell_back = 0;
  std::string first_fallback;
  bool any_sampled = false;
  std::vector<std::pair<bench::Shape, double>> tflops_of;  // tilegemm's TFLOPS per timed shape
  for (const bench::Shape& s : runs) {
    bench::Case c = proto;
    c.m = s.m;
    c.n = s.n;
    c.k = s.k;
    const bench::CaseResult r = bench::run_case(c, candidate, run);
    // What ran: the sm90 Config of the last call on this thread, or the fallback.
    const std::optional<plan::Config> ran = detail::last_sm90_config();
    const std::string kernel = ran ? plan::describe(*ran) : std::string("fallback");
    if (!r.passed()) ++failed;
    if (r.candidate.timed) tflops_of.emplace_back(s, r.candidate.tflops);
    if (r.ratio > 0) {
      log_ratio_sum += std::log(r.ratio);
      min_ratio = ratios == 0 ? r.ratio : std::min(min_ratio, r.ratio);
      ++ratios;
    }
    any_sampled = any_sampled || r.sampled;
    for (const bench::SideResult* side : {&r.candidate, &r.cublas})
      if (side->timed && !side->timing.fallback_reason.empty()) {
        if (fell_back++ == 0) first_fallback = side->timing.fallback_reason;
      }
    if (!o.json) {
      fmt::print("{:>6} {:>6} {:>6} {:>12} {:>8} {:>12} {:>8} {:>7} {:>10.2e}  {:<8} {}\n", s.m, s.n, s.k,
                 time_cell(r.candidate), tflops_cell(r.candidate), time_cell(r.cublas), tflops_cell(r.cublas),
                 r.ratio > 0 ? fmt::format("{:.3f}", r.ratio) : "-", r.candidate.check.calc_diff,
                 check_cell(r, run.with_cublas) + (r.sampled ? "*" : ""), kernel);
      std::fflush(stdout);
    }
    results.push_back({{"m", s.m}, {"n", s.n}, {"k", s.k}, {"layout", o.layout}, {"out", o.call.out}, {"call", call_label},
                       {"passed", r.passed()}, {"setup_error", r.setup.ok() ? "" : r.setup.message},
                       {"checked_rows", r.checked_rows}, {"sampled", r.sampled}, {"kernel", kernel},
                       {"tilegemm", side_json(r.candidate)},
                       {"cublaslt", run.with_cublas ? side_json(r.cublas) : nlohmann::json(nullptr)},
                       {"ratio_vs_cublas", r.ratio > 0 ? nlohmann::json(r.ratio) : nlohmann::json(nullptr)}});
  }
  const double geomean = ratios ? std::exp(log_ratio_sum / ratios) : 0.0;
  if (!o.json) {
    if (any_sampled)
      fmt::print("* checked on {} rows spread over M (first and last included), all N columns; every element "
                 "of D scanned for NaN\n",
                 run.sample_rows);
    if (ratios)
      fmt::print("geomean speed vs cuBLASLt over {} shape(s): {:.3f}x (lowest {:.3f}x)\n", ratios, geomean, min_ratio);
    if (fell_back)
      fmt::print("{} timing(s) measured with CUDA events instead of CUPTI, first because: {}\n", fell_back,
                 first_fallback);
    if (failed) fmt::print("{} of {} shape(s) FAILED their check: no time is reported for them\n", failed, runs.size());
  }
  // --neighbours: each unaligned shape's TFLOPS against its aligned neighbour's.
  nlohmann::json neighbour_rows = nlohmann::json::array();
  double log_fraction_sum = 0, min_fraction = 0;
  int fractions = 0;
  if (o.neighbours) {
    const auto tflops = [&](const bench::Shape& s) -> std::optional<double> {
      for (const auto& [shape, t] : tflops_of)
        if (shape == s) return t;
      return std::nullopt;
    };
    if (!o.json)
      fmt::print("odd shapes against their aligned neighbours (M, N, K rounded to the nearest multiple of 8), tilegemm "
                 "TFLOPS:\n{:>20} {:>8} {:>20} {:>8} {:>9}\n",
                 "shape", "TFLOPS", "neighbour", "TFLOPS", "fraction");
    for (const bench::Shape& s : *shapes) {
      const bench::Shape nb = bench::aligned_neighbour(s);
      if (nb == s) continue;
      const std::optional<double> a = tflops(s), b = tflops(nb);
      const std::optional<double> f = a && b && *b > 0 ? std::optional<double>(*a / *b) : std::nullopt;
      if (f) {
        log_fraction_sum += std::log(*f);
        min_fraction = fractions == 0 ? *f : std::min(min_fraction, *f);
        ++fractions;
      }
      const auto cell = [](const std::optional<double>& v) { return v ? fmt::format("{:.1f}", *v) : std::string("-"); };
      if (!o.json)
        fmt::print("{:>20} {:>8} {:>20} {:>8} {:>9}\n", fmt::format("{}x{}x{}", s.m, s.n, s.k), cell(a),
                   fmt::format("{}x{}x{}", nb.m, nb.n, nb.k), cell(b),
                   f ? fmt::format("{:.1f} %", 100.0 * *f) : "-");
      const auto num = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
      neighbour_rows.push_back({{"m", s.m}, {"n", s.n}, {"k", s.k}, {"tflops", num(a)},
                                {"neighbour", {{"m", nb.m}, {"n", nb.n}, {"k", nb.k}}}, {"neighbour_tflops", num(b)},
                                {"fraction", num(f)}});
    }
    if (!o.json && fractions)
      fmt::print("geomean fraction over {} odd shape(s): {:.1f} % (lowest {:.1f} %)\n", fractions,
                 100.0 * std::exp(log_fraction_sum / fractions), 100.0 * min_fraction);
  }
  const nlohmann::json doc = {
      {"schema", "tilegemm.bench/1"},
      {"device", {{"name", dev.name}, {"sms", dev.sm_count}, {"cublaslt", dev.cublaslt_version}}},
      {"options",
       {{"suite", suite_name}, {"layout", o.layout}, {"out", o.call.out}, {"d_major", o.call.d_major},
        {"alpha", proto.alpha}, {"beta", proto.with_c ? nlohmann::json(proto.beta) : nlohmann::json(nullptr)},
        {"c_dtype", proto.with_c ? nlohmann::json(to_string(proto.c_type())) : nlohmann::json(nullptr)},
        {"in_place", proto.in_place}, {"mapping", mapping_label},
        {"config", o.config.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.config)},
        {"tuning_cache", tuning_label},
        {"iters", o.iters}, {"warmup", o.warmup},
        {"flush_l2", !o.no_flush}, {"flush", o.no_flush ? nlohmann::json(nullptr) : nlohmann::json(o.flush)},
        {"seed", o.seed}, {"timer", bench::timing_method_name(timer->method)},
        {"narrow_mn_chunks", o.copies.narrow_mn_chunks}, {"pdl", gemm_options.pdl},
        {"own_stream", o.copies.own_stream},
        {"timer_fallback", timer->fallback_reason.empty() ? nlohmann::json(nullptr)
                                                          : nlohmann::json(timer->fallback_reason)},
        {"time", "median of " + timer->description}}},
      {"results", results},
      {"summary",
       {{"shapes", runs.size()}, {"failed", failed},
        {"geomean_ratio_vs_cublas", ratios ? nlohmann::json(geomean) : nlohmann::json(nullptr)},
        {"min_ratio_vs_cublas", ratios ? nlohmann::json(min_ratio) : nlohmann::json(nullptr)},
        {"neighbours", o.neighbours ? neighbour_rows : nlohmann::json(nullptr)},
        {"geomean_fraction_of_neighbours",
         fractions ? nlohmann::json(std::exp(log_fraction_sum / fractions)) : nlohmann::json(nullptr)},
        {"min_fraction_of_neighbours", fractions ? nlohmann::json(min_fraction) : nlohmann::json(nullptr)}}}};
  if (o.json) fmt::print("{}\n", doc.dump(2));
  if (!o.json_out.empty()) {
    std::ofstream f(o.json_out);
    f << doc.dump(2) << "\n";
    if (!f) {
      std::fprintf(stderr, "tilegemm bench: --json-out '%s': cannot write the file\n", o.json_out.c_str());
      return kExitUsage;
    }
  }
  return failed ? kExitCheckFailed : 0;
}

// Without a GPU: the suite, and the configuration gemm() would run for each shape on the built-in
// H200 profile (the planner's choice: the same select_config gemm() calls), with its predicted time.
void print_dry_run(const bench::Suite& suite) {
  const auto profile = plan::find_builtin_profile("h200");
  fmt::print("The demo would run the '{}' suite ({} shapes, NT, bf16 out) against cuBLASLt.\n"
             "kernel: the configuration tilegemm::gemm() would compile and run on an H200 (the planner's choice on\n"
             "the built-in {} profile; times are the cost model's prediction, not a measurement).\n",
             suite.name, suite.shapes.size(), profile ? profile->name : "?");
  std::vector<std::string> labels;
  size_t width = 6;
  std::vector<plan::Selection> picks;
  for (const bench::Shape& s : suite.shapes) {
    plan::Problem p;
    p.m = s.m;
    p.n = s.n;
    p.k = s.k;
    plan::Selection sel;
    if (profile && plan::validate_problem(p).ok()) sel = plan::select_config(p, *profile);
    picks.push_back(sel);
    labels.push_back(sel.found ? plan::describe(sel.config) : std::string("(no plan)"));
    width = std::max(width, labels.back().size());
  }
  fmt::print("{:>6} {:>6} {:>6}  {:<{}} {:>10} {:>8}\n", "M", "N", "K", "kernel", width, "pred. us", "TFLOPS");
  for (size_t i = 0; i < suite.shapes.size(); ++i) {
    const bench::Shape& s = suite.shapes[i];
    const double us = picks[i].predicted_us;
    fmt::print("{:>6} {:>6} {:>6}  {:<{}} {:>10.1f} {:>8.1f}\n", s.m, s.n, s.k, labels[i], width, us,
               us > 0 ? 2.0 * double(s.m) * s.n * s.k / (us * 1e-6) / 1e12 : 0.0);
  }
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto o = std::make_shared<BenchOptions>();
  CLI::App* cmd = app.add_subcommand(
      "bench", "Benchmark tilegemm::gemm against cuBLASLt (each case checked before it is timed; exit 1 if any fails)");
  CLI::Option* suite = cmd->add_option("--suite", o->suite,
                                       suite_option_help("llm"));
  CLI::Option* shape = cmd->add_option("--shape", o->shapes, "Shape(s) MxNxK instead of a suite (repeatable)");
  suite->excludes(shape);
  cmd->add_option("--layout", o->layout,
                  "DeepGEMM letters, A then B: A n=[M][K] t=[K][M], B t=[N][K] n=[K][N]; nt = both K-major, "
                  "nn = B MN-major, tt = A MN-major, tn = both MN-major")
      ->check(CLI::IsMember({"nt", "nn", "tn", "tt"}));
  add_call_flags(cmd, &o->call);
  cmd->add_option("--iters", o->iters, "Timed runs per kernel (median reported)")->check(CLI::Range(1, 100000));
  cmd->add_option("--warmup", o->warmup, "Untimed runs first")->check(CLI::Range(0, 100000));
  cmd->add_option("--seed", o->seed, "Seed of the random normal inputs");
  cmd->add_option("--mapping", o->mapping,
                  "Tile order of the sm90 kernel: linear-n, linear-m, grouped-m:G, grouped-n:G, box:BMxBN, "
                  "morton, hilbert (default: the planner's; shapes on the fallback ignore it)");
  cmd->add_option("--config", o->config,
                  "Run this sm90 configuration instead of the planner's, e.g. 128x256,cluster=2x1 (grammar: "
                  "tilegemm explain --help); a config that cannot run a shape fails that shape");
  cmd->add_flag("--no-flush", o->no_flush, "Do not flush L2 before each timed run");
  cmd->add_option("--flush", o->flush,
                  "How L2 is flushed before each timed run: write = memset of a 2x-L2 buffer (default; leaves L2 "
                  "dirty, so the timed call also pays for writing it back), read = a kernel reading that buffer "
                  "(leaves L2 clean)")
      ->check(CLI::IsMember({"write", "read"}));
  cmd->add_option("--timer", o->timer,
                  "How a call is timed: cupti = sum of its kernels' times from CUPTI activity records (the "
                  "profiler's number; default when CUPTI loads), events = CUDA events around the call")
      ->check(CLI::IsMember({"events", "cupti"}));
  cmd->add_flag("--no-cublas", o->no_cublas, "Do not run the cuBLASLt baseline");
  cmd->add_flag("--no-tuning", o->no_tuning,
                "Run the model's picks: gemm() does not read the tuning cache (tilegemm tune; default: it does)");
  add_model_flags(cmd, &o->copies);
  cmd->add_flag("--no-pdl", o->copies.no_pdl,
                "Launch the operand copies and the GEMM in plain stream order, without programmatic dependent "
                "launch (gemm()'s default unless TILEGEMM_PDL=off: each kernel's prologue overlaps the end of "
                "the one before it)");
  cmd->add_flag("--own-stream", o->copies.own_stream,
                "Run both sides on a non-blocking stream of their own instead of the default stream");
  cmd->add_flag("--neighbours", o->neighbours,
                 "Also time each shape whose M, N or K is not a multiple of 8 beside its aligned neighbour (each "
                 "rounded to the nearest multiple of 8), and report its TFLOPS as a fraction of the neighbour's");
  cmd->add_flag("--json", o->json, "JSON on stdout instead of the table");
  cmd->add_option("--json-out", o->json_out, "Also write the JSON to this file");
  cmd->callback([o] {
    if (const int rc = run_bench(*o, "tilegemm bench"); rc != 0) throw CLI::RuntimeError(rc);
  });
}

int run_demo() {
  const bench::DeviceInfo dev = bench::probe_device();
  if (dev.is_sm90()) return run_bench(BenchOptions{}, "tilegemm demo (LLM suite)");
  std::string error;
  const auto suite = bench::load_suite("llm", &error);
  fmt::print("no Hopper (sm_90) GPU found: {}\n", dev.not_sm90_reason());
  if (!suite) {
    std::fprintf(stderr, "tilegemm: %s\n", error.c_str());
    return kExitUsage;
  }
  print_dry_run(*suite);
  fmt::print("Run `tilegemm --help` for the commands; `tilegemm info` shows the device.\n");
  return 0;
}

}  // namespace tilegemm::cli
