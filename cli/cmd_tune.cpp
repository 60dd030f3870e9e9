// `tilegemm tune`: the measured autotuner. For each problem of a suite (or --shape), the planner's
// top-K configurations on the live device (the model's pick first, the same launch never twice:
// plan/tuning_candidates.hpp) each run through gemm() with that configuration forced, checked against
// the CPU reference first and then timed exactly as `tilegemm bench` does (src/bench/runner.hpp:
// poisoned output, L2 flushed, CUPTI median); the fastest goes into the tuning cache
// (plan/tuning_cache.hpp), which gemm() then consults (api/tuning.hpp). Reports per problem the
// model's pick and the best with their times, the regret t(model)/t(best) - 1 and the time model's
// error, and a summary. Output and JSON: tune_report.cpp.
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fmt/core.h>

#include "api/explain_call.hpp"
#include "api/route.hpp"
#include "api/tuning.hpp"
#include "api/warmup.hpp"
#include "bench/device_info.hpp"
#include "bench/runner.hpp"
#include "bench/suite.hpp"
#include "commands.hpp"
#include "plan/config_spec.hpp"
#include "plan/tuning_candidates.hpp"
#include "tune_report.hpp"

namespace tilegemm::cli {
namespace {

constexpr int kExitFailed = 1, kExitUsage = 2, kExitNoHopper = 3;

[[noreturn]] void fail(const std::string& message) { usage_error("tune", message); }

// The problems: shapes x layouts, each with the call's output dtype and C.
std::vector<TuneProblem> problems_of(const TuneArgs& a, std::string* suite_name) {
  std::string error;
  const auto resolved = bench::resolve_shapes(a.shapes, a.suite, "llm", suite_name, &error);
  if (!resolved) fail(error);
  const std::vector<bench::Shape>& shapes = *resolved;
  std::vector<std::string> layouts = {a.layout};
  if (a.layout == "all") layouts = {"nt", "nn", "tn", "tt"};
  std::vector<TuneProblem> out;
  for (const std::string& layout : layouts)
    for (const bench::Shape& s : shapes) {
      TuneProblem t;
      t.layout = layout;
      bench::Case& c = t.c;
      if (!parse_layout(layout, &c.a_major, &c.b_major))
        fail("--layout \"" + layout + "\": must be nt, nn, tn, tt or all");
      c.m = s.m;
      c.n = s.n;
      c.k = s.k;
      c.out = a.out == "fp32" ? DType::fp32 : DType::bf16;
      c.with_c = a.beta.has_value();
      c.beta = a.beta.value_or(0.0f);
      c.ld_pad = a.ld_pad;
      out.push_back(t);
    }
  return out;
}

// The file tune writes: --cache, else the one gemm() reads (TILEGEMM_TUNING=PATH, else
// <cache dir>/tuning.json; TILEGEMM_TUNING=off only stops gemm() reading it).
std::string cache_file(const TuneArgs& a) {
  if (!a.cache.empty()) return a.cache;
  std::string why;
  const std::string path = detail::tuning_cache_path(
      [](const char* name) -> const char* {
        const char* v = std::getenv(name);
        return std::string(name) == detail::kTuningEnv && v != nullptr && std::string(v) == "off" ? nullptr : v;
      },
      &why);
  if (path.empty()) fail("no tuning cache file: give --cache PATH (" + why + ")");
  return path;
}

// Routes the problem as gemm() will see the runner's call (row-major D, C in D's layout, pointers
// from cudaMalloc) and plans it on the live profile; the candidates to measure: the planner's top
// list, then each --config spec the problem can run (unless it is the same launch as one already
// listed; the others go to t.unfit with the planner's reason).
void plan_problem(TuneProblem& t, const plan::DeviceProfile& profile, int top, const std::vector<plan::ConfigSpec>& extra,
                  const detail::GemmOptions& options) {
  plan::Problem p;
  p.m = t.c.m;
  p.n = t.c.n;
  p.k = t.c.k;
  p.a_major = t.c.a_major;
  p.b_major = t.c.b_major;
  p.out = t.c.out;
  detail::CallStorage call;
  if (t.c.with_c) {
    call.c = detail::CallStorage::C::separate;
    call.beta = t.c.beta;
  }
  MatrixRef c_storage;
  const GemmArgs args = detail::explain_args(p, call, &c_storage);
  // The copies gemm() makes on this device (row repacks, narrow transposes) with these options.
  t.route = detail::route(args, &profile, detail::model_copies(options));
  if (t.route.path != detail::Path::sm90) return;
  t.copies_us = detail::packs_us(t.route.packs, profile);
  t.plan = plan::make_plan(t.route.problem, profile, detail::plan_options(options));
  t.candidates = plan::tuning_candidates(t.plan, top);
  for (const plan::ConfigSpec& spec : extra) {
    const plan::Candidate c = plan::evaluate_config(t.route.problem, profile, spec.config, spec.stages_given);
    if (!c.feasible()) {
      t.unfit.push_back(plan::config_spec_text(c.config) + ": " + c.reason);
      continue;
    }
    bool listed = false;
    for (const plan::Candidate& have : t.candidates) listed = listed || plan::same_launch(have, c);
    if (!listed) t.candidates.push_back(c);
  }
}

// Every candidate's kernels compiled (or read from the JIT disk cache) and loaded, `jobs` at a time.
void precompile(const std::vector<TuneProblem>& problems, int jobs, bool progress) {
  std::vector<std::pair<const detail::Route*, plan::Config>> work;
  for (const TuneProblem& t : problems)
    for (const plan::Candidate& c : t.candidates) work.emplace_back(&t.route, c.config);
  std::atomic<size_t> next{0}, finished{0};
  const auto worker = [&] {
    for (size_t i = next++; i < work.size(); i = next++) {
      std::vector<detail::WarmedKernel> kernels;
      (void)detail::warmup_route(*work[i].first, work[i].second, /*load=*/true, &kernels);  // errors: at the run
      const size_t n = ++finished;
      if (progress) std::fprintf(stderr, "\r\033[K  tune: compiling kernels %zu/%zu", n, work.size());
    }
  };
  const unsigned n = jobs > 0 ? static_cast<unsigned>(jobs) : std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < std::min<size_t>(n, work.size()); ++i) threads.emplace_back(worker);
  for (std::thread& t : threads) t.join();
  if (progress) std::fprintf(stderr, "\r\033[K");
}

// gemm() with candidate `c` forced through its spec text: the text the cache stores is exactly what
// was measured. *error when the text does not complete to the same Config (it must: config_spec.hpp).
bench::Launcher forced_launcher(const TuneProblem& t, const plan::Candidate& c, const plan::DeviceProfile& profile,
                                const detail::GemmOptions& routing, std::string* error) {
  const plan::ParsedConfigSpec spec = plan::parse_config_spec(plan::config_spec_text(c.config));
  detail::GemmOptions options = routing;  // (routed as the candidates were planned)
  options.config = spec.spec.config;
  options.config_stages_given = spec.spec.stages_given;
  const plan::Candidate again =
      plan::evaluate_config(t.route.problem, profile, spec.spec.config, spec.spec.stages_given);
  if (!spec.ok() || plan::describe(again.config) != plan::describe(c.config))
    *error = "the spec " + plan::config_spec_text(c.config) + " does not give back " + plan::describe(c.config);
  return [options](const GemmArgs& args) { return detail::gemm_with_options(args, options); };
}

// The progress bar on stderr (a terminal), over every configuration of the run.
struct Progress {
  bool bar = false;
  size_t done = 0, total = 0;
  void show(const std::string& what) const {
    constexpr int kWidth = 30;
    const int filled = total ? static_cast<int>(kWidth * done / total) : kWidth;
    std::fprintf(stderr, "\r\033[K  tune [%s%s] %zu/%zu configs  %s", std::string(filled, '#').c_str(),
                 std::string(kWidth - filled, '.').c_str(), done, total, what.c_str());
  }
};

void measure(TuneProblem& t, size_t index, size_t total, const bench::RunOptions& run,
             const plan::DeviceProfile& profile, const detail::GemmOptions& routing, Progress& progress) {
  std::vector<bench::Launcher> launchers;
  std::vector<std::string> spec_errors(t.candidates.size());
  for (size_t i = 0; i < t.candidates.size(); ++i)
    launchers.push_back(forced_launcher(t, t.candidates[i], profile, routing, &spec_errors[i]));
  const std::string what = fmt::format("[{}/{}] {} {}", index + 1, total, shape_text(t.c), t.layout);
  const auto done = [&](size_t i, const bench::SideResult&) {
    // What ran: the Config of the last sm90 launch on this thread is the candidate's.
    const std::optional<plan::Config> ran = detail::last_sm90_config();
    std::string& err = spec_errors[i];
    if (err.empty() && (!ran || plan::describe(*ran) != plan::describe(t.candidates[i].config)))
      err = "ran " + (ran ? plan::describe(*ran) : std::string("the fallback")) + ", not the candidate";
    ++progress.done;
    if (progress.bar) progress.show(what);
  };
  if (progress.bar) progress.show(what);
  t.setup = bench::run_candidates(t.c, launchers, run, done, &t.sides, &t.checked_rows);
  t.errors = spec_errors;
  progress.done += t.candidates.size() - t.sides.size();  // a setup failure runs none of them
  if (progress.bar) std::fprintf(stderr, "\r\033[K");
  if (!progress.bar) std::fprintf(stderr, "tune %s: %zu config(s) measured\n", what.c_str(), t.sides.size());
}

int run_tune(const TuneArgs& a) {
  if (a.top < 1 || a.top > 64) fail("--top " + std::to_string(a.top) + ": must be 1 to 64");
  if (a.jobs < 0 || a.jobs > 256) fail("--jobs " + std::to_string(a.jobs) + ": must be 0 (one per core) to 256");
  std::vector<plan::ConfigSpec> extra;
  for (const std::string& text : a.configs) {
    const plan::ParsedConfigSpec spec = plan::parse_config_spec(text, "--config");
    if (!spec.ok()) fail(spec.error);
    extra.push_back(spec.spec);
  }
  std::string suite_name;
  std::vector<TuneProblem> problems = problems_of(a, &suite_name);
  const std::string file = cache_file(a);
  const bench::DeviceInfo dev = bench::probe_device();  // usage errors first: they need no GPU
  if (!dev.is_sm90()) {
    std::fprintf(stderr, "tilegemm tune: no Hopper (sm_90) GPU found: %s\n", dev.not_sm90_reason().c_str());
    return kExitNoHopper;
  }
  std::string error;
  const auto timer = bench::choose_timer("", &error);
  const auto profile = plan::query_live_profile(dev.index, &error);
  plan::TuningDevice key;
  if (!timer || !profile || !detail::tuning_device(dev.index, &key).ok()) {
    std::fprintf(stderr, "tilegemm tune: %s\n", error.empty() ? "cannot read the device" : error.c_str());
    return kExitNoHopper;
  }
  std::vector<std::string> warnings;
  plan::TuningCache cache = plan::TuningCache::load(file, &warnings);
  for (const std::string& w : warnings)
    std::fprintf(stderr, "tilegemm tune: %s (the file is rewritten without it)\n", w.c_str());

  TuneHeader header{dev.name, dev.sm_count, suite_name, a, file, key, timer->description};
  detail::GemmOptions routing;  // how gemm() routes and plans the problems tuned here
  routing.narrow_mn_chunks = a.narrow_mn_chunks;
  for (TuneProblem& t : problems) {
    plan_problem(t, *profile, a.top, extra, routing);
    for (const std::string& why : t.unfit)
      std::fprintf(stderr, "tilegemm tune: %s %s: --config %s\n", shape_text(t.c).c_str(), t.layout.c_str(), why.c_str());
  }
  Progress progress;
  progress.bar = isatty(fileno(stderr)) != 0;
  for (const TuneProblem& t : problems) progress.total += t.candidates.size();
  precompile(problems, a.jobs, progress.bar);
  if (!a.json) print_header(header, problems.size());

  bench::RunOptions run;
  run.timing.iters = a.iters;
  run.timing.warmup = a.warmup;
  run.timing.method = timer->method;
  bench::parse_flush_kind(a.flush, &run.timing.flush);  // CLI::IsMember admits only its two names
  run.seed = a.seed;
  run.with_cublas = false;
  for (size_t i = 0; i < problems.size(); ++i) {
    TuneProblem& t = problems[i];
    if (t.route.path == detail::Path::sm90) measure(t, i, problems.size(), run, *profile, routing, progress);
    summarize(t);
    if (t.best >= 0) {
      cache.put(cache_entry(t, key));
      const Status saved = cache.save(file);  // after every problem: an interrupted run keeps what it measured
      t.stored = saved.ok();
      if (!saved.ok()) t.store_error = saved.message;
    }
    if (!a.json) print_problem(t);
  }
  const TuneSummary summary = summary_of(problems);
  if (a.json) {
    print_json(header, problems, summary);
  } else {
    print_summary(header, summary);
  }
  return summary.failed > 0 || summary.store_failures > 0 ? kExitFailed : 0;
}

}  // namespace

void add_tune_command(CLI::App& app) {
  auto a = std::make_shared<TuneArgs>();
  CLI::App* cmd = app.add_subcommand(
      "tune", "Measure the planner's top configurations per problem on the GPU (each checked first) and store the "
              "fastest in the tuning cache gemm() reads (exit 1 if a check fails, 3 without a Hopper GPU)");
  CLI::Option* suite = cmd->add_option("--suite", a->suite,
                                       suite_option_help("llm"));
  CLI::Option* shape = cmd->add_option("--shape", a->shapes, "Shape(s) MxNxK instead of a suite (repeatable)");
  suite->excludes(shape);
  cmd->add_option("--top", a->top, "Configurations measured per problem: the model's pick, the best of each other tile family near it (up to half), then the next ones by rank")
      ->capture_default_str();
  cmd->add_option("--layout", a->layout, "nt | nn | tn | tt | all (DeepGEMM names; nt = A and B K-major)")
      ->check(CLI::IsMember({"nt", "nn", "tn", "tt", "all"}))
      ->capture_default_str();
  cmd->add_option("--out", a->out, "Output dtype")->check(CLI::IsMember({"bf16", "fp32"}))->capture_default_str();
  cmd->add_option("--beta", a->beta, "Add beta*C: a random normal C in D's layout and dtype (0: C given but not read)");
  cmd->add_option("--ld-pad", a->ld_pad,
                  "Elements added to every leading dimension (A, B, C and D stored with ld = contiguous extent + PAD)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 20));
  cmd->add_option("--config", a->configs,
                  "Also measure this configuration (repeatable; grammar: tilegemm explain --help) on every problem "
                  "it fits, after the --top list; one that a problem cannot run is named on stderr with the reason");
  cmd->add_option("--iters", a->iters, "Timed runs per configuration (median)")->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--warmup", a->warmup, "Untimed runs first")->check(CLI::Range(0, 100000))->capture_default_str();
  cmd->add_option("--seed", a->seed, "Seed of the random normal inputs");
  cmd->add_option("--cache", a->cache,
                  "Tuning cache file to update (default: $TILEGEMM_TUNING, else <cache dir>/tuning.json)");
  cmd->add_option("--jobs", a->jobs, "Threads compiling the kernels first (0: one per CPU core)");
  cmd->add_flag("--json", a->json, "JSON on stdout (schema tilegemm.tune/1) instead of the table");
  cmd->add_flag("--narrow-mn-chunks", a->narrow_mn_chunks,
                "Route, plan and measure with narrow MN-major chunks allowed (GemmOptions::narrow_mn_chunks; the "
                "winner is stored like any other and gemm() runs it wherever it routes the same problem)");
  cmd->add_option("--flush", a->flush,
                  "How L2 is flushed before each timed run: write = memset (default, as bench), read = a kernel "
                  "reading the buffer (leaves L2 clean: the winners for a workload whose L2 holds few dirty lines)")
      ->check(CLI::IsMember({"write", "read"}))
      ->capture_default_str();
  cmd->callback([a] {
    if (const int rc = run_tune(*a); rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace tilegemm::cli
