// The measured autotuner end to end: `tilegemm tune` measures two small shapes into a temp tuning
// cache; with that cache loaded, gemm() runs the cached configuration (detail::choose_launch says so
// before the call, detail::last_sm90_config after it) and its result passes the reference check. An
// entry naming a configuration other than the model's pick is run as well (so "runs the cache" is
// not the model's pick by coincidence), GemmOptions::use_tuning_cache = false runs the model's pick,
// and an entry that cannot run its problem is ignored: the model's pick runs, still correct.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/explain_call.hpp"
#include "api/route.hpp"
#include "api/tuning.hpp"
#include "bench/runner.hpp"
#include "jit/codegen.hpp"
#include "plan/config_spec.hpp"
#include "plan/device_profile.hpp"
#include "plan/planner.hpp"
#include "plan/tuning_cache.hpp"

namespace tilegemm {
namespace {

namespace fs = std::filesystem;

struct Shape {
  int64_t m, n, k;
};
constexpr Shape kShapes[] = {{256, 512, 1024}, {384, 640, 512}};

// The problem gemm() plans for the runner's NT call of `s` (row-major D, no C, cudaMalloc'ed pointers).
detail::Route route_of(const Shape& s) {
  plan::Problem p;
  p.m = s.m;
  p.n = s.n;
  p.k = s.k;
  MatrixRef c;
  return detail::route(detail::explain_args(p, {}, &c));
}

// Runs the command, returns its exit status and stdout.
int run_command(const std::string& command, std::string* out) {
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return -1;
  char buf[4096];
  for (size_t got; (got = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out->append(buf, got);
  return pclose(pipe);
}

// gemm() on the shape: what choose_launch says it will run, then the call, checked against the CPU
// reference, and what it ran; both must be `expect`.
void expect_gemm_runs(const Shape& s, const plan::Config& expect, const detail::GemmOptions& options = {}) {
  const std::string want = jit::config_initializer(expect);
  plan::Problem p;
  p.m = s.m;
  p.n = s.n;
  p.k = s.k;
  MatrixRef c;
  detail::LaunchChoice choice;
  ASSERT_TRUE(detail::choose_launch(detail::explain_args(p, {}, &c), options, &choice).ok());
  EXPECT_EQ(jit::config_initializer(choice.config), want) << "chooses " << plan::describe(choice.config)
                                                          << ", expected " << plan::describe(expect);
  bench::Case cs;
  cs.m = s.m;
  cs.n = s.n;
  cs.k = s.k;
  bench::RunOptions run;
  run.with_cublas = false;
  run.measure = false;
  const bench::CaseResult r =
      bench::run_case(cs, [&](const GemmArgs& args) { return detail::gemm_with_options(args, options); }, run);
  EXPECT_TRUE(r.passed()) << r.setup.message << " " << r.candidate.verdict();
  const std::optional<plan::Config> ran = detail::last_sm90_config();
  ASSERT_TRUE(ran.has_value());
  EXPECT_EQ(jit::config_initializer(*ran), want) << "ran " << plan::describe(*ran) << ", expected "
                                                 << plan::describe(expect);
}

plan::Config completed(const plan::TuningEntry& e, const plan::DeviceProfile& profile) {
  const plan::ParsedConfigSpec spec = plan::parse_config_spec(e.best.config);
  EXPECT_TRUE(spec.ok()) << spec.error;
  return plan::evaluate_config(e.problem, profile, spec.spec.config, spec.spec.stages_given).config;
}

// The CLI this test runs: $TILEGEMM_CLI, else cli/tilegemm beside this binary's folder (a build
// tree copied elsewhere, e.g. onto a GPU machine, keeps that layout), else the build tree's.
std::string tilegemm_cli() {
  if (const char* env = std::getenv("TILEGEMM_CLI"); env != nullptr && *env != '\0') return env;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path beside = self.parent_path().parent_path() / "cli" / "tilegemm";
    if (fs::exists(beside, ec)) return beside.string();
  }
  return std::string(TILEGEMM_BINARY_DIR) + "/cli/tilegemm";
}

TEST(TuningGpu, TuneThenGemmRunsTheCachedConfig) {
  const std::string cli = tilegemm_cli();
  ASSERT_TRUE(fs::exists(cli)) << cli << " is not built (target tilegemm_cli; or name one in TILEGEMM_CLI)";
  const fs::path dir = fs::temp_directory_path() / ("tilegemm-tuning-gpu-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string file = (dir / "tuning.json").string();
  std::string out;
  std::string command = cli + " tune --top 3 --iters 3 --warmup 1 --json --cache " + file;
  for (const Shape& s : kShapes) command += " --shape " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
  ASSERT_EQ(run_command(command + " 2>" + (dir / "stderr.txt").string(), &out), 0) << command << "\n" << out;
  const nlohmann::json report = nlohmann::json::parse(out);
  ASSERT_EQ(report["results"].size(), 2u);
  for (const auto& r : report["results"]) {
    EXPECT_TRUE(r["stored"].get<bool>()) << r.dump(2);
    EXPECT_GE(r["candidates"].size(), 2u) << r.dump(2);
    EXPECT_GE(r["regret"].get<double>(), 0.0);
  }

  int device = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  std::string why;
  const auto profile = plan::query_live_profile(device, &why);
  ASSERT_TRUE(profile.has_value()) << why;
  plan::TuningDevice key;
  ASSERT_TRUE(detail::tuning_device(device, &key).ok());
  std::vector<std::string> warnings;
  plan::TuningCache cache = plan::TuningCache::load(file, &warnings);
  ASSERT_TRUE(warnings.empty()) << warnings.front();
  ASSERT_EQ(cache.entries().size(), 2u);

  // 1. The measured winners, as stored.
  detail::reload_process_tuning(file);
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(testing::Message() << s.m << "x" << s.n << "x" << s.k);
    const plan::TuningEntry* e = cache.find(key, route_of(s).problem);
    ASSERT_NE(e, nullptr) << "no entry under " << key.label();
    expect_gemm_runs(s, completed(*e, *profile));
  }

  // 2. An entry that is not the model's pick: gemm() runs it; with the option off, the model's pick.
  const Shape& s0 = kShapes[0];
  const plan::Plan plan0 = plan::make_plan(route_of(s0).problem, *profile);
  ASSERT_GE(plan0.ranked.size(), 3u);
  plan::TuningEntry other = *cache.find(key, route_of(s0).problem);
  other.best.config = plan::config_spec_text(plan0.ranked.back().config);  // the model's last choice
  cache.put(other);
  ASSERT_TRUE(cache.save(file).ok());
  detail::reload_process_tuning(file);
  {
    SCOPED_TRACE("an entry other than the model's pick");
    EXPECT_NE(plan::describe(plan0.ranked.back().config), plan::describe(plan0.chosen().config));
    expect_gemm_runs(s0, plan0.ranked.back().config);
    detail::GemmOptions untuned;
    untuned.use_tuning_cache = false;
    expect_gemm_runs(s0, plan0.chosen().config, untuned);
  }

  // 3. An entry that cannot run its problem (three m-blocks of 128 rows: a 2x1 cluster lacks a peer)
  //    is ignored, with a warning on stderr, and the model's pick runs.
  const Shape& s1 = kShapes[1];
  plan::TuningEntry bad = *cache.find(key, route_of(s1).problem);
  bad.best.config = "128x128,stages=4,cluster=2x1,mapping=grouped-m:8,persistent";
  cache.put(bad);
  ASSERT_TRUE(cache.save(file).ok());
  detail::reload_process_tuning(file);
  {
    SCOPED_TRACE("an infeasible entry");
    expect_gemm_runs(s1, plan::make_plan(route_of(s1).problem, *profile).chosen().config);
  }

  detail::reload_process_tuning("");  // the other GPU tests run the model's picks (gpu_main.cpp)
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tilegemm
