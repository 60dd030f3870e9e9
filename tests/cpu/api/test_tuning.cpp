// The process's tuning cache (api/tuning.hpp) without a GPU: which file gemm() reads and when it
// reads none, each kind of problem warned about once while every lookup still falls back to the
// model, the tuned-or-model choice gemm() makes, and `tilegemm explain` showing the measured time
// and the tuned config as what gemm() runs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/explain_call.hpp"
#include "api/tuning.hpp"
#include "plan/config_spec.hpp"
#include "plan/device_profile.hpp"
#include "plan/planner.hpp"

namespace tilegemm::detail {
namespace {

namespace fs = std::filesystem;

using Env = std::map<std::string, std::string>;
std::string path_for(const Env& env, std::string* why = nullptr) {
  return tuning_cache_path(
      [&](const char* name) -> const char* {
        const auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
      },
      why);
}

const plan::DeviceProfile& h200() {
  static const plan::DeviceProfile p = *plan::find_builtin_profile("h200");
  return p;
}
plan::TuningDevice device() { return plan::TuningDevice{"NVIDIA H200", 132, 13000, tuning_library_version()}; }

plan::Problem problem(int64_t m, int64_t n, int64_t k) {
  plan::Problem p;
  p.m = m;
  p.n = n;
  p.k = k;
  return p;
}

// A cache file in a fresh temp directory holding, for each problem, the plan's `rank`-th
// candidate (or `spec` when given) as the measured best.
struct CacheFile {
  fs::path dir;
  std::string file;
  explicit CacheFile(const std::string& tag) {
    dir = fs::temp_directory_path() / ("tilegemm-api-tuning-" + std::to_string(::getpid()) + "-" + tag);
    fs::remove_all(dir);
    fs::create_directories(dir);
    file = (dir / "tuning.json").string();
  }
  ~CacheFile() { fs::remove_all(dir); }
  void put(const plan::Problem& p, size_t rank, const std::string& spec = "", const plan::TuningDevice& d = device()) {
    const plan::Plan plan = plan::make_plan(p, h200());
    plan::TuningEntry e;
    e.device = d;
    e.problem = p;
    e.best = {spec.empty() ? plan::config_spec_text(plan.ranked[rank].config) : spec, 42.5, 40.0};
    e.model = {plan::config_spec_text(plan.chosen().config), 47.0, plan.chosen().time.predicted_us};
    e.label = plan::describe(plan.ranked[rank].config);
    e.date = "2026-12-05T10:11:12Z";
    cache.put(e);
    ASSERT_TRUE(cache.save(file).ok());
  }
  plan::TuningCache cache;
};

TEST(TuningPath, EnvironmentDecidesTheFile) {
  std::string why;
  EXPECT_EQ(path_for({{"TILEGEMM_TUNING", "off"}, {"HOME", "/home/u"}}, &why), "");
  EXPECT_EQ(why, "TILEGEMM_TUNING=off");
  EXPECT_EQ(path_for({{"TILEGEMM_TUNING", "/data/t.json"}, {"TILEGEMM_CACHE_DIR", "off"}}), "/data/t.json");
  EXPECT_EQ(path_for({{"HOME", "/home/u"}}), "/home/u/.cache/tilegemm/tuning.json");  // beside the JIT cache
  EXPECT_EQ(path_for({{"TILEGEMM_CACHE_DIR", "/c"}, {"HOME", "/home/u"}}), "/c/tuning.json");
  EXPECT_EQ(path_for({{"TILEGEMM_CACHE_DIR", "off"}, {"HOME", "/home/u"}}, &why), "");  // memory only: no file
  EXPECT_NE(why.find("TILEGEMM_CACHE_DIR=off"), std::string::npos) << why;
}

TEST(TuningPath, LibraryVersionNamesTheProjectAndTheKernelCode) {
  const std::string v = tuning_library_version();
  EXPECT_EQ(v.rfind(std::string(TILEGEMM_PROJECT_VERSION) + "+kernel.", 0), 0u) << v;
  EXPECT_EQ(v.size(), std::string(TILEGEMM_PROJECT_VERSION).size() + 8 + 12) << v;
}

TEST(TuningState, OffReadsNothing) {
  CacheFile f("off");
  const plan::Problem p = problem(4096, 4096, 4096);
  f.put(p, 2);
  const TuningState off("", "TILEGEMM_TUNING=off", [](const std::string& w) { ADD_FAILURE() << w; });
  EXPECT_TRUE(off.off());
  EXPECT_EQ(off.lookup(device(), p, h200()).kind, plan::TunedLookup::Kind::none);
  const TuningState on(f.file, "", [](const std::string& w) { ADD_FAILURE() << w; });
  EXPECT_TRUE(on.lookup(device(), p, h200()).hit());
}

TEST(TuningState, ACorruptFileWarnsOnceAndTheModelDecides) {
  CacheFile f("corrupt");
  std::ofstream(f.file) << "{\"schema\": \"tilegemm.tuning/1\", \"entries\": [{\"device\": ";
  std::vector<std::string> warnings;
  const TuningState s(f.file, "", [&](const std::string& w) { warnings.push_back(w); });
  const plan::Problem p = problem(4096, 4096, 4096);
  for (int i = 0; i < 3; ++i) {
    const plan::TunedLookup l = s.lookup(device(), p, h200());
    EXPECT_EQ(l.kind, plan::TunedLookup::Kind::none);
    EXPECT_EQ(plan::describe(model_or_tuned(p, h200(), l).config), plan::describe(plan::select_config(p, h200()).config));
  }
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find(f.file), std::string::npos) << warnings[0];
}

TEST(TuningState, BadEntriesWarnOncePerKindAndTheModelDecides) {
  CacheFile f("bad");
  const plan::Problem stale = problem(4096, 4096, 4096), infeasible = problem(64, 4096, 4096),
                      infeasible2 = problem(64, 2048, 4096), unparsable = problem(128, 7168, 2048);
  plan::TuningDevice other = device();
  other.driver_version = 12080;
  f.put(stale, 1, "", other);
  f.put(infeasible, 0, "128x256,stages=4,cluster=2x1,mapping=grouped-m:8,persistent");
  f.put(infeasible2, 0, "128x256,stages=4,cluster=2x1,mapping=grouped-m:8,persistent");
  f.put(unparsable, 0, "128x250");
  std::vector<std::string> warnings;
  const TuningState s(f.file, "", [&](const std::string& w) { warnings.push_back(w); });
  const std::pair<plan::Problem, plan::TunedLookup::Kind> cases[] = {
      {stale, plan::TunedLookup::Kind::stale},           {infeasible, plan::TunedLookup::Kind::infeasible},
      {infeasible2, plan::TunedLookup::Kind::infeasible}, {unparsable, plan::TunedLookup::Kind::unparsable},
      {stale, plan::TunedLookup::Kind::stale}};
  for (const auto& [p, kind] : cases) {
    const plan::TunedLookup l = s.lookup(device(), p, h200());
    EXPECT_EQ(l.kind, kind) << plan::tuning_problem_key(p);
    const ConfigChoice c = model_or_tuned(p, h200(), l);
    EXPECT_FALSE(c.tuned);
    EXPECT_EQ(plan::describe(c.config), plan::describe(plan::select_config(p, h200()).config));
  }
  ASSERT_EQ(warnings.size(), 3u);  // stale, infeasible, unparsable: once each
  EXPECT_NE(warnings[0].find("driver 12080"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[1].find("cluster.pairs"), std::string::npos) << warnings[1];
  EXPECT_NE(warnings[2].find("BN=250"), std::string::npos) << warnings[2];
}

TEST(TuningState, AHitIsWhatGemmRuns) {
  CacheFile f("hit");
  const plan::Problem p = problem(128, 7168, 2048);
  f.put(p, 3);
  const TuningState s(f.file, "", [](const std::string& w) { ADD_FAILURE() << w; });
  const plan::TunedLookup l = s.lookup(device(), p, h200());
  ASSERT_TRUE(l.hit()) << l.reason;
  const ConfigChoice c = model_or_tuned(p, h200(), l);
  EXPECT_TRUE(c.tuned);
  const plan::Plan plan = plan::make_plan(p, h200());
  EXPECT_EQ(plan::describe(c.config), plan::describe(plan.ranked[3].config));
  EXPECT_NE(plan::describe(c.config), plan::describe(plan.chosen().config));
}

ExplainRequest request(const plan::Problem& p, bool json, std::shared_ptr<const TuningState> tuning) {
  ExplainRequest rq;
  rq.problem = p;
  rq.device = h200();
  rq.json = json;
  rq.tuning = std::move(tuning);
  rq.tuning_device = device();
  return rq;
}

TEST(ExplainTuned, ShowsMeasuredTimeAndTheTunedConfigAsChosen) {
  CacheFile f("explain");
  const plan::Problem p = problem(128, 7168, 2048);
  f.put(p, 2);
  const auto s = std::make_shared<const TuningState>(f.file, "", [](const std::string& w) { ADD_FAILURE() << w; });
  const plan::Plan plan = plan::make_plan(p, h200());
  const std::string tuned = plan::describe(plan.ranked[2].config), model = plan::describe(plan.chosen().config);
  std::string text, json;
  ASSERT_TRUE(explain_call(request(p, false, s), &text).ok());
  ASSERT_TRUE(explain_call(request(p, true, s), &json).ok());
  EXPECT_NE(text.find("chosen (tuning cache: measured fastest by tilegemm tune on 2026-12-05T10:11:12Z; gemm() runs "
                      "it):\n  " + tuned + "\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("measured 42.5 us; predicted"), std::string::npos) << text;
  EXPECT_NE(text.find("the model alone picks " + model), std::string::npos) << text;
  EXPECT_NE(text.find("measured 47.0 us in the same tuning run"), std::string::npos) << text;
  EXPECT_NE(text.find("tuning cache " + f.file + ": entry for NVIDIA H200"), std::string::npos) << text;
  const nlohmann::json j = nlohmann::json::parse(json);
  EXPECT_EQ(j["chosen"]["label"], tuned);
  EXPECT_EQ(j["chosen_by"], "tuning_cache");
  EXPECT_EQ(j["model_choice"]["label"], model);
  EXPECT_EQ(j["tuning"]["state"], "hit");
  EXPECT_EQ(j["tuning"]["file"], f.file);
  EXPECT_EQ(j["tuning"]["entry"]["best"]["measured_us"], 42.5);
  EXPECT_EQ(j["tuning"]["entry"]["model"]["measured_us"], 47.0);
  EXPECT_EQ(j["chosen"]["time"]["predicted_us"], plan.ranked[2].time.predicted_us);
}

TEST(ExplainTuned, AnIgnoredEntryOrNoneOrOffLeavesTheModelsPick) {
  CacheFile f("explain-ignored");
  const plan::Problem infeasible = problem(64, 4096, 4096), untuned = problem(4096, 4096, 4096);
  f.put(infeasible, 0, "128x256,stages=4,cluster=2x1,mapping=grouped-m:8,persistent");
  const auto s = std::make_shared<const TuningState>(f.file, "", [](const std::string&) {});
  const auto off = std::make_shared<const TuningState>("", "TILEGEMM_TUNING=off");
  struct Case {
    plan::Problem p;
    std::shared_ptr<const TuningState> state;
    const char* json_state;
    const char* text;
  };
  const Case cases[] = {{infeasible, s, "infeasible", "entry ignored (the entry's config"},
                        {untuned, s, "none", "no entry for this call: gemm() runs the model's pick"},
                        {untuned, off, "off", "tuning cache: off (TILEGEMM_TUNING=off)"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.json_state);
    std::string text, json;
    ASSERT_TRUE(explain_call(request(c.p, false, c.state), &text).ok());
    ASSERT_TRUE(explain_call(request(c.p, true, c.state), &json).ok());
    const std::string margins = fmt::format(
        "chosen (lowest predicted time, a k-split's counted {:g} % higher, stream-K over runs {:g} %, a 256-row tile {:g} %):",
        100 * plan::kKSplitMargin, 100 * (plan::kKSplitMargin + plan::kRunsMargin), 100 * plan::kWideMMargin);
    EXPECT_NE(text.find(margins), std::string::npos) << text;
    EXPECT_NE(text.find(c.text), std::string::npos) << text;
    const nlohmann::json j = nlohmann::json::parse(json);
    EXPECT_EQ(j["chosen_by"], "model");
    EXPECT_EQ(j["chosen"]["label"], plan::describe(plan::select_config(c.p, h200()).config));
    EXPECT_EQ(j["tuning"]["state"], c.json_state);
  }
  std::string json;  // not consulted (a built-in --device profile): "tuning" is null
  ASSERT_TRUE(explain_call(request(untuned, true, nullptr), &json).ok());
  EXPECT_TRUE(nlohmann::json::parse(json)["tuning"].is_null());
}

}  // namespace
}  // namespace tilegemm::detail
