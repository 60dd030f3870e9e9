// `tilegemm fuzz --count N --seed S [--first I] [--max-dim D] [--max-macs X] [--layouts L,...]
// [--json] [--list] [--jobs J]`: random problems through tilegemm::gemm on the GPU, each checked
// against the GPU FP32 reference, for writes outside D, and for bitwise-identical reruns
// (src/bench/fuzz_run.hpp). Problem i of seed S is the same on every machine (fuzz_problem.hpp), so
// each failure prints the command that reruns exactly it. --list prints the problems and the route
// gemm() takes for each, without a GPU.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "api/route.hpp"
#include "api/warmup.hpp"
#include "bench/device_info.hpp"
#include "bench/fuzz_problem.hpp"
#include "bench/fuzz_run.hpp"
#include "commands.hpp"
#include "core/layout_names.hpp"
#include "plan/config_spec.hpp"
#include "plan/device_profile.hpp"

namespace tilegemm::cli {
namespace {

constexpr int kExitFailed = 1, kExitNoHopper = 3;

struct FuzzArgs {
  int64_t count = 100, first = 0;
  uint64_t seed = 1;
  int64_t max_dim = bench::FuzzOptions{}.max_dim, max_macs = bench::FuzzOptions{}.max_macs;
  std::vector<std::string> layouts;
  bool json = false, list = false;
  bool narrow_mn_chunks = false;  // GemmOptions::narrow_mn_chunks
  bool no_pdl = false;            // GemmOptions::pdl off
  int jobs = 0;  // 0: one per CPU core
};

// The options every gemm() call of the run takes (and routes and plans with).
detail::GemmOptions gemm_options_of(const FuzzArgs& a) {
  detail::GemmOptions o;
  o.narrow_mn_chunks = a.narrow_mn_chunks;
  if (a.no_pdl) o.pdl = false;  // (else the default: on unless TILEGEMM_PDL=off)
  return o;
}

[[noreturn]] void fail(const std::string& message) { usage_error("fuzz", message); }

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

bench::FuzzOptions options_of(const FuzzArgs& a) {
  if (a.count < 1 || a.count > 10000000) fail("--count " + std::to_string(a.count) + ": must be 1 to 10000000");
  if (a.first < 0) fail("--first " + std::to_string(a.first) + ": must be >= 0");
  if (a.max_dim < 1 || a.max_dim > bench::kFuzzMaxDim)
    fail("--max-dim " + std::to_string(a.max_dim) + ": must be 1 to " + std::to_string(bench::kFuzzMaxDim));
  if (a.max_macs < 1 || a.max_macs > bench::kFuzzMaxMacs)
    fail("--max-macs " + std::to_string(a.max_macs) + ": must be 1 to 2^40 (" + std::to_string(bench::kFuzzMaxMacs) + ")");
  if (a.jobs < 0 || a.jobs > 256) fail("--jobs " + std::to_string(a.jobs) + ": must be 0 (one per core) to 256");
  bench::FuzzOptions o;
  o.max_dim = a.max_dim;
  o.max_macs = a.max_macs;
  for (const std::string& l : a.layouts) {
    Major am, bm;
    if (!parse_layout(l, &am, &bm)) fail("--layouts \"" + l + "\": each must be nt, nn, tn or tt");
    o.layouts.emplace_back(am, bm);
  }
  return o;
}

// The options that change which problems are drawn, as they must be typed to draw them again.
std::string draw_flags(const FuzzArgs& a) {
  std::string s = fmt::format("--seed {}", a.seed);
  if (a.max_dim != bench::FuzzOptions{}.max_dim) s += fmt::format(" --max-dim {}", a.max_dim);
  if (a.max_macs != bench::FuzzOptions{}.max_macs) s += fmt::format(" --max-macs {}", a.max_macs);
  if (!a.layouts.empty()) {
    s += " --layouts ";
    for (size_t i = 0; i < a.layouts.size(); ++i) s += (i ? "," : "") + a.layouts[i];
  }
  if (a.narrow_mn_chunks) s += " --narrow-mn-chunks";
  if (a.no_pdl) s += " --no-pdl";
  return s;
}

// Fake allocation bases, 256-B aligned like cudaMalloc's and far apart (each span is < 2^40 B), so
// route() decides exactly as it will for the real allocations.
struct FakeBases {
  void* a = reinterpret_cast<void*>(uintptr_t{1} << 41);
  void* b = reinterpret_cast<void*>(uintptr_t{2} << 41);
  void* c = reinterpret_cast<void*>(uintptr_t{3} << 41);
  void* d = reinterpret_cast<void*>(uintptr_t{4} << 41);
};

// The device profile gemm() routes with (its model's copies: row repacks, narrow transposes): the
// live GPU's, else the H200's, as explain's default.
const plan::DeviceProfile& route_profile() {
  static const plan::DeviceProfile profile = [] {
    std::string why;
    if (auto live = plan::query_live_profile(0, &why)) return *live;
    return *plan::find_builtin_profile("h200");
  }();
  return profile;
}

nlohmann::json problem_json(const bench::FuzzProblem& p, const FuzzArgs& a) {
  return {{"index", p.index}, {"data_seed", p.data_seed}, {"m", p.m}, {"n", p.n}, {"k", p.k},
          {"layout", layout_name(p.a_major, p.b_major)}, {"a_major", to_string(p.a_major)},
          {"b_major", to_string(p.b_major)}, {"d_major", p.d_major == row_major ? "row" : "col"},
          {"out", to_string(p.out)}, {"c_mode", bench::c_mode_name(p.c_mode)},
          {"c_major", p.c_mode == bench::CMode::none ? nlohmann::json(nullptr)
                                                     : nlohmann::json(p.c_major == row_major ? "row" : "col")},
          {"alpha", p.alpha}, {"beta", p.beta}, {"lda", p.lda}, {"ldb", p.ldb}, {"ldc", p.ldc}, {"ldd", p.ldd},
          {"offsets", {{"a", p.off_a}, {"b", p.off_b}, {"c", p.off_c}, {"d", p.off_d}}},
          {"describe", bench::describe(p)},
          {"rerun", fmt::format("tilegemm fuzz {} --first {} --count 1", draw_flags(a), p.index)},
          {"explain", bench::explain_command(p)}};
}

void run_list(const FuzzArgs& a, const bench::FuzzOptions& o) {
  nlohmann::json problems = nlohmann::json::array();
  const FakeBases fake;
  for (int64_t i = a.first; i < a.first + a.count; ++i) {
    const bench::FuzzProblem p = bench::draw_problem(a.seed, i, o);
    MatrixRef c;
    const GemmArgs args = bench::fuzz_args(p, fake.a, fake.b, fake.c, fake.d, &c);
    const Status valid = validate(args);
    const detail::Route r =
        valid.ok() ? detail::route(args, &route_profile(), detail::model_copies(gemm_options_of(a))) : detail::Route{};
    const std::string path = valid.ok() ? detail::path_name(r.path) : "invalid";
    const std::string reason = valid.ok() ? r.reason : valid.message;
    if (a.json) {
      nlohmann::json j = problem_json(p, a);
      j["route"] = {{"path", path}, {"reason", reason}, {"steps", valid.ok() ? r.notes : std::vector<std::string>{}}};
      problems.push_back(std::move(j));
    } else {
      std::string steps;
      for (const std::string& n : valid.ok() ? r.notes : std::vector<std::string>{}) steps += "; " + n;
      fmt::print("#{} {} | route {}{}{}\n", p.index, bench::describe(p), path, reason.empty() ? "" : ": " + reason, steps);
    }
  }
  if (a.json)
    fmt::print("{}\n", nlohmann::json{{"schema", "tilegemm.fuzz-problems/1"}, {"seed", a.seed}, {"problems", problems}}.dump(2));
}

// Compiles (or loads from the disk cache) the kernel of every distinct sm90 configuration the
// problems will run, `jobs` at a time, so the loop below never waits for NVRTC one kernel at a time.
// Returns the number of configurations; *error is the first failure (the loop reports it again).
size_t precompile(const std::vector<bench::FuzzProblem>& problems, const detail::GemmOptions& options, int jobs,
                  std::string* error) {
  // One launch choice per distinct kernel set: the config, and the pack kernels its route needs.
  std::map<std::string, detail::LaunchChoice> choices;
  const FakeBases fake;
  for (const bench::FuzzProblem& p : problems) {
    MatrixRef c;
    const GemmArgs args = bench::fuzz_args(p, fake.a, fake.b, fake.c, fake.d, &c);
    detail::LaunchChoice choice;
    if (!detail::choose_launch(args, options, &choice).ok() || choice.route.path != detail::Path::sm90) continue;
    const plan::Config& k = choice.config;  // describe() leaves out fields the kernel source depends on
    std::string key = fmt::format("{} {} {} {} c{} p{}", plan::describe(k), to_string(k.a_major), to_string(k.b_major),
                                  to_string(k.out_dtype), k.with_c, k.cd_pairs);
    for (const detail::Pack& pk : choice.route.packs) key += fmt::format(" pack{}{}", pk.elem_bytes, pk.transposes() ? "t" : "");
    choices.emplace(key, choice);
  }
  std::vector<detail::LaunchChoice> list;
  for (const auto& [key, choice] : choices) list.push_back(choice);
  std::atomic<size_t> next{0};
  std::vector<std::string> errors(list.size());
  const auto worker = [&] {
    for (size_t i = next++; i < list.size(); i = next++) {
      std::vector<detail::WarmedKernel> kernels;
      if (Status s = detail::warmup_route(list[i].route, list[i].config, /*load=*/true, &kernels); !s.ok())
        errors[i] = s.message;
    }
  };
  const unsigned n = jobs > 0 ? static_cast<unsigned>(jobs) : std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < std::min<size_t>(n, list.size()); ++t) threads.emplace_back(worker);
  for (std::thread& t : threads) t.join();
  for (const std::string& e : errors)
    if (!e.empty() && error->empty()) *error = e;
  return list.size();
}

// The argument a route reason names ("a.ld = 65: ..." -> "a.ld").
std::string reason_key(const std::string& reason) {
  const size_t at = reason.find(" = ");
  return at == std::string::npos ? reason : reason.substr(0, at);
}

int run_fuzz(const FuzzArgs& a) {
  const bench::FuzzOptions o = options_of(a);  // usage errors first: they need no GPU
  if (a.list) {
    run_list(a, o);
    return 0;
  }
  const bench::DeviceInfo dev = bench::probe_device();
  if (!dev.is_sm90()) {
    std::fprintf(stderr, "tilegemm fuzz: no Hopper (sm_90) GPU found: %s\n", dev.not_sm90_reason().c_str());
    return kExitNoHopper;
  }
  const Clock::time_point t0 = Clock::now();
  std::vector<bench::FuzzProblem> problems;
  for (int64_t i = a.first; i < a.first + a.count; ++i) problems.push_back(bench::draw_problem(a.seed, i, o));
  if (!a.json)
    fmt::print("tilegemm fuzz: {} ({} SMs), {} problem(s) #{}..#{} of {}: M, N, K in [1, {}] (edges favoured), "
               "M*N*K <= {}; each checked against the GPU FP32 reference (every element), guards and inputs "
               "unchanged, two runs bitwise equal\n",
               dev.name, dev.sm_count, a.count, a.first, a.first + a.count - 1, draw_flags(a), a.max_dim, a.max_macs);
  std::string warm_error;
  const size_t kernels = precompile(problems, gemm_options_of(a), a.jobs, &warm_error);
  if (!a.json) {
    fmt::print("precompiled the kernels of {} distinct sm90 launch(es) in {:.1f} s{}\n", kernels, since(t0),
               warm_error.empty() ? "" : " (first failure: " + warm_error + ")");
    std::fflush(stdout);
  }

  bench::FuzzRunner runner;
  if (cudaError_t e = runner.init(); e != cudaSuccess) {
    std::fprintf(stderr, "tilegemm fuzz: cudaStreamCreate failed: %s\n", cudaGetErrorString(e));
    return kExitFailed;
  }
  bench::FuzzHooks hooks;
  const detail::GemmOptions options = gemm_options_of(a);
  hooks.launch = [options](const GemmArgs& args) { return detail::gemm_with_options(args, options); };
  hooks.what_ran = [] {
    const std::optional<plan::Config> c = detail::last_sm90_config();
    return c ? "sm90 " + plan::describe(*c) : std::string("fallback");
  };
  // Fallback: the rule that sends the call there; sm90: how the kernel takes it (transposed, repacked...).
  hooks.route_reason = [options](const GemmArgs& args) {
    const detail::Route r = detail::route(args, &route_profile(), detail::model_copies(options));
    if (r.path == detail::Path::fallback) return r.reason;
    std::string steps;
    for (const std::string& n : r.notes) steps += (steps.empty() ? "" : "; ") + n;
    return steps;
  };

  const bool progress = isatty(fileno(stderr)) != 0;
  std::map<std::string, int64_t> paths, configs, reasons;
  nlohmann::json failures = nlohmann::json::array();
  int64_t done = 0, failed = 0;
  bool fatal = false;
  Clock::time_point last_progress = Clock::now();
  for (const bench::FuzzProblem& p : problems) {
    const bench::FuzzCheck r = runner.run(p, hooks);
    ++done;
    const bool sm90 = r.ran.rfind("sm90", 0) == 0;
    ++paths[r.ran.empty() ? "not run" : sm90 ? "sm90" : "fallback"];
    if (sm90) ++configs[r.ran.substr(5)];
    if (!sm90 && !r.route_reason.empty()) ++reasons[reason_key(r.route_reason)];
    if (!r.passed) {
      ++failed;
      nlohmann::json j = problem_json(p, a);
      j["ran"] = r.ran;
      j["route"] = r.route_reason;
      j["errors"] = r.errors;
      if (!a.json) {
        if (progress) std::fprintf(stderr, "\r\033[K");
        fmt::print("FAIL #{} {} | data seed {:#x} | ran {}\n", p.index, bench::describe(p), p.data_seed,
                   r.ran.empty() ? "nothing" : r.ran);
        if (!r.route_reason.empty()) fmt::print("  route: {}\n", r.route_reason);
        for (const std::string& e : r.errors) fmt::print("  {}\n", e);
        fmt::print("  rerun:   {}\n  explain: {}\n", j["rerun"].get<std::string>(), j["explain"].get<std::string>());
        std::fflush(stdout);
      }
      failures.push_back(std::move(j));
    }
    if (r.fatal) {
      fatal = true;
      break;
    }
    if (!progress && !a.json && a.count >= 100 && done % (a.count / 10) == 0 && done < a.count) {
      fmt::print("  {}/{} done, {} failed, {:.1f} s\n", done, a.count, failed, since(t0));  // a log's progress
      std::fflush(stdout);
    }
    if (progress && (since(last_progress) > 0.25 || done == a.count)) {
      last_progress = Clock::now();
      std::fprintf(stderr, "\r  fuzz [%lld/%lld] %lld failed | sm90 %lld, fallback %lld | %.1f s", (long long)done,
                   (long long)a.count, (long long)failed, (long long)paths["sm90"], (long long)paths["fallback"],
                   since(t0));
    }
  }
  if (progress) std::fprintf(stderr, "\r\033[K");
  const double seconds = since(t0);
  if (a.json) {
    const nlohmann::json doc = {
        {"schema", "tilegemm.fuzz/1"},
        {"device", {{"name", dev.name}, {"sms", dev.sm_count}}},
        {"options", {{"seed", a.seed}, {"first", a.first}, {"count", a.count}, {"max_dim", a.max_dim},
                     {"max_macs", a.max_macs}, {"layouts", a.layouts.empty() ? std::vector<std::string>{"nt", "nn", "tn", "tt"} : a.layouts}}},
        {"summary", {{"problems", done}, {"passed", done - failed}, {"failed", failed}, {"stopped_by_cuda_error", fatal},
                     {"seconds", seconds}, {"precompiled_launches", kernels}, {"paths", paths}, {"sm90_configs", configs},
                     {"fallback_reasons", reasons}}},
        {"failures", failures}};
    fmt::print("{}\n", doc.dump(2));
  } else {
    // The verdict comes last, so that a log's tail (`| tail -1`) holds it.
    fmt::print("\npaths: ");
    for (const auto& [path, n] : paths) fmt::print("{} {}  ", path, n);
    fmt::print("\nsm90 configurations ({}):", configs.size());
    for (const auto& [label, n] : configs) fmt::print(" {} x{};", label, n);
    fmt::print("\nfallback, by the first sm90 rule broken:{}", reasons.empty() ? " none" : "");
    for (const auto& [key, n] : reasons) fmt::print(" {} {};", key, n);
    fmt::print("\n{} problem(s) in {:.1f} s: {} passed, {} FAILED{}\n", done, seconds, done - failed, failed,
               fatal ? " (stopped: a CUDA error left the context unusable)" : "");
  }
  return failed || fatal ? kExitFailed : 0;
}

}  // namespace

void add_fuzz_command(CLI::App& app) {
  auto a = std::make_shared<FuzzArgs>();
  CLI::App* cmd = app.add_subcommand(
      "fuzz", "Random problems through tilegemm::gemm on the GPU, each checked against an FP32 reference, for "
              "writes outside D and for bitwise-identical reruns (exit 1 if any fails, 3 without a Hopper GPU)");
  cmd->add_option("--count", a->count, "Problems to run")->check(whole_int64())->capture_default_str();
  cmd->add_option("--seed", a->seed, "Seed: the same seed (and options) draws the same problems")->capture_default_str();
  cmd->add_option("--first", a->first, "Index of the first problem (a failure's rerun line sets it)")
      ->check(whole_int64());
  cmd->add_option("--max-dim", a->max_dim, "M, N, K drawn in [1, D]")->check(whole_int64())->capture_default_str();
  cmd->add_option("--max-macs", a->max_macs, "Largest M*N*K of a problem (bounds the work; default 2^27 = 134217728)")
      ->check(whole_int64());
  cmd->add_option("--layouts", a->layouts, "Layouts to draw from, e.g. nt,nn (default: nt, nn, tn, tt)")->delimiter(',');
  cmd->add_option("--jobs", a->jobs, "Threads compiling the kernels first (0: one per CPU core)");
  cmd->add_flag("--list", a->list, "Print the problems and the route gemm() takes for each; run nothing (no GPU needed)");
  cmd->add_flag("--json", a->json, "JSON on stdout (schema tilegemm.fuzz/1; with --list tilegemm.fuzz-problems/1)");
  cmd->add_flag("--narrow-mn-chunks", a->narrow_mn_chunks,
                "Let the planner give MN-major operands tiles in chunks of 16 or 32 elements (32-B / 64-B "
                "swizzled; off by default: measured 1.3x slower on some shapes)");
  cmd->add_flag("--no-pdl", a->no_pdl,
                "Launch the operand copies and the GEMM in plain stream order (GemmOptions::pdl off; default: "
                "programmatic dependent launch)");
  cmd->callback([a] {
    if (const int rc = run_fuzz(*a); rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace tilegemm::cli
