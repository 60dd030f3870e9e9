// What `tilegemm tune` measures and stores: a config written as spec text completes to exactly the
// config the planner ranked (the tuning cache stores that text), the measured set starts with the
// model's pick and never runs the same launch twice, and the summary arithmetic.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "jit/codegen.hpp"
#include "plan/config_spec.hpp"
#include "plan/device_profile.hpp"
#include "plan/planner.hpp"
#include "plan/tuning_candidates.hpp"
#include "plan_test_util.hpp"

namespace tilegemm::plan {
namespace {

// The problems the round trip covers: every suite shape in every layout, bf16 and fp32 output, with
// and without C, and D/C storage that needs the smem_stores or element-wise epilogues.
std::vector<Problem> problems() {
  std::vector<Problem> out;
  for (const auto& s : test::kSuite)
    for (Major am : {Major::k_major, Major::mn_major})
      for (Major bm : {Major::k_major, Major::mn_major})
        for (int variant = 0; variant < 4; ++variant) {
          Problem p = test::nt_problem(s.m, s.n, s.k, variant % 2 ? DType::fp32 : DType::bf16, variant >= 2);
          p.a_major = am;
          p.b_major = bm;
          if (variant == 3) p.d_tma = p.cd_pairs = p.c_tma = false;
          out.push_back(p);
        }
  return out;
}

TEST(ConfigSpecText, EveryRankedCandidateRoundTrips) {
  const DeviceProfile h200 = *find_builtin_profile("h200");
  size_t checked = 0, split = 0, staticl = 0, staged_narrow = 0;
  for (const Problem& p : problems()) {
    const Plan plan = make_plan(p, h200);
    for (const Candidate& c : plan.ranked) {
      const std::string text = config_spec_text(c.config);
      const ParsedConfigSpec spec = parse_config_spec(text);
      ASSERT_TRUE(spec.ok()) << spec.error;
      ASSERT_TRUE(spec.spec.stages_given) << text;
      const Candidate again = evaluate_config(p, h200, spec.spec.config, spec.spec.stages_given);
      ASSERT_TRUE(again.feasible()) << text << ": " << again.reason;
      // Every field, the launch-only ones too (config_initializer names them all).
      ASSERT_EQ(jit::config_initializer(again.config), jit::config_initializer(c.config)) << text;
      ASSERT_EQ(again.config.persistent, c.config.persistent) << text;
      ASSERT_EQ(again.config.split_k, c.config.split_k) << text;
      ASSERT_EQ(again.time.predicted_us, c.time.predicted_us) << text;
      ++checked;
      split += c.config.split_k > 1;
      staticl += !c.config.persistent;
      staged_narrow += sm90::partly_staged(c.config);
      // A partly staged config names its width (stage=), a whole one leaves it to the planner.
      ASSERT_EQ(text.find(",stage=") != std::string::npos, sm90::partly_staged(c.config)) << text;
    }
  }
  // The variety the text has to carry is really there.
  EXPECT_GT(checked, 10000u);
  EXPECT_GT(split, 100u);
  EXPECT_GT(staticl, 1000u);
  EXPECT_GT(staged_narrow, 10u);
}

TEST(ConfigSpecText, BakedSizesAndOtherMappingsRoundTrip) {
  const DeviceProfile h200 = *find_builtin_profile("h200");
  const Problem p = test::nt_problem(4096, 4096, 4096);
  for (const char* given : {"128x256,bake", "128x128,mapping=hilbert,static", "64x128,mapping=box:2x4,stages=5",
                            "64x64,accsets=1", "64x32"}) {
    const ParsedConfigSpec first = parse_config_spec(given);
    ASSERT_TRUE(first.ok()) << first.error;
    const Candidate c = evaluate_config(p, h200, first.spec.config, first.spec.stages_given);
    const std::string text = config_spec_text(c.config);
    const ParsedConfigSpec spec = parse_config_spec(text);
    ASSERT_TRUE(spec.ok()) << spec.error;
    const Candidate again = evaluate_config(p, h200, spec.spec.config, true);
    EXPECT_EQ(jit::config_initializer(again.config), jit::config_initializer(c.config)) << given << " -> " << text;
    EXPECT_EQ(again.config.acc_sets, c.config.acc_sets) << given << " -> " << text;
  }
}

TEST(ConfigSpecText, NarrowTilesGetTwoAccumulatorSets) {
  // The planner's choice: two sets up to 32 accumulators per thread (sm90::auto_acc_sets) where
  // min(M, N) lies below the ridge point, and the kernel the JIT writes says so; a spec's
  // accsets=1 is kept; a compute-bound problem keeps one set.
  const DeviceProfile h200 = *find_builtin_profile("h200");
  const Problem p = test::nt_problem(128, 4096, 7168);
  struct Want {
    const char* spec;
    int sets;
  };
  for (const Want& w : {Want{"64x64", 2}, Want{"128x64", 2}, Want{"64x16,swapab", 2}, Want{"64x80", 1},
                        Want{"128x128", 1}, Want{"64x64,accsets=1", 1}, Want{"64x64,pingpong", 2}, Want{"128x64,pingpong", 1}}) {
    const ParsedConfigSpec s = parse_config_spec(w.spec);
    ASSERT_TRUE(s.ok()) << s.error;
    const Candidate c = evaluate_config(p, h200, s.spec.config, false);
    ASSERT_TRUE(c.feasible()) << w.spec << ": " << c.reason;
    EXPECT_EQ(c.config.acc_sets, w.sets) << w.spec;
    EXPECT_EQ(jit::config_initializer(c.config).find(".acc_sets = 2") != std::string::npos, w.sets == 2) << w.spec;
  }
  const ParsedConfigSpec wide = parse_config_spec("64x128,accsets=2");
  EXPECT_FALSE(evaluate_config(p, h200, wide.spec.config, false).feasible());  // 64 accumulators
  const Problem square = test::nt_problem(4096, 4096, 4096);
  for (const char* spec : {"64x64", "128x32", "64x32,pingpong"}) {
    const Candidate c = evaluate_config(square, h200, parse_config_spec(spec).spec.config, false);
    ASSERT_TRUE(c.feasible()) << spec;
    EXPECT_EQ(c.config.acc_sets, 1) << spec;
    const ParsedConfigSpec forced = parse_config_spec(std::string(spec) + ",accsets=2");
    EXPECT_EQ(evaluate_config(square, h200, forced.spec.config, false).config.acc_sets, 2) << spec;
  }
}

TEST(TuningCandidates, ModelPickFirstNoLaunchTwiceAtMostTop) {
  const DeviceProfile h200 = *find_builtin_profile("h200");
  size_t deduped_problems = 0;
  for (const auto& s : test::kSuite) {
    const Plan plan = make_plan(test::nt_problem(s.m, s.n, s.k), h200);
    for (int top : {1, 3, 6, 12}) {
      const std::vector<Candidate> picked = tuning_candidates(plan, top);
      ASSERT_FALSE(picked.empty());
      EXPECT_LE(picked.size(), static_cast<size_t>(top));
      EXPECT_EQ(describe(picked[0].config), describe(plan.chosen().config));
      for (size_t i = 0; i < picked.size(); ++i)
        for (size_t j = i + 1; j < picked.size(); ++j) EXPECT_FALSE(same_launch(picked[i], picked[j]));
      // In rank order: each one ranks after the one before.
      for (size_t i = 1; i < picked.size(); ++i)
        EXPECT_TRUE(ranks_before(picked[i - 1], picked[i], Ranking::time));
    }
    // Where the first six ranked hold a repeated launch, the measured six skip it.
    bool repeat = false;
    for (size_t i = 0; i < 6 && i < plan.ranked.size(); ++i)
      for (size_t j = 0; j < i; ++j) repeat = repeat || same_launch(plan.ranked[i], plan.ranked[j]);
    deduped_problems += repeat;
  }
  EXPECT_GT(deduped_problems, 0u) << "no suite shape has two equal launches among its top 6: dedupe untested";
}

// Every other family the model puts within the window gets its best-ranked candidate measured, as
// many as top / 2 places allow, best first; with top = 1 only the pick.
TEST(TuningCandidates, NearFamiliesGetTheirBestMeasured) {
  const DeviceProfile h200 = *find_builtin_profile("h200");
  size_t families_added = 0;
  for (const auto& s : test::kSuite) {
    const Plan plan = make_plan(test::nt_problem(s.m, s.n, s.k), h200);
    ASSERT_EQ(tuning_candidates(plan, 1).size(), 1u);
    for (int top : {2, 6, 12}) {
      const std::vector<Candidate> picked = tuning_candidates(plan, top);
      // The families other than the pick's, each with its best-ranked candidate, in rank order.
      std::vector<TuningFamily> near;
      const TuningFamily pick = tuning_family(plan.chosen().config);
      for (const Candidate& c : plan.ranked) {
        const TuningFamily f = tuning_family(c.config);
        if (f == pick || std::find(near.begin(), near.end(), f) != near.end()) continue;
        if (c.time.predicted_us <= plan.chosen().time.predicted_us * kTuningFamilyWindow) near.push_back(f);
      }
      const size_t places = std::min(near.size(), static_cast<size_t>(top / 2));
      for (size_t i = 0; i < places; ++i) {
        const bool measured = std::any_of(picked.begin(), picked.end(),
                                          [&](const Candidate& c) { return tuning_family(c.config) == near[i]; });
        EXPECT_TRUE(measured) << s.m << "x" << s.n << "x" << s.k << " top " << top << ": family " << i;
      }
      if (top == 6) families_added += places;
    }
  }
  EXPECT_GT(families_added, 10u) << "the suite should have shapes where other families come near the pick";
  // 128x4096x7168: the model picks a split one-consumer tile; the unsplit one-consumer 64x64 (23.0 us
  // on the H200, the fastest measured, docs/PERF.md) is another family and is measured in the top 6.
  const Plan plan = make_plan(test::nt_problem(128, 4096, 7168), h200);
  const std::vector<Candidate> six = tuning_candidates(plan, 6);
  EXPECT_TRUE(std::any_of(six.begin(), six.end(), [](const Candidate& c) {
    return c.config.bm == 64 && c.config.bn == 64 && !c.config.stream_k;
  }));
}

// The persistent and the static launch of a tile whose units fit one wave are the same launch; with
// more units than resident CTAs they are not.
TEST(TuningCandidates, SameLaunchMeansSameKernelGridAndSplits) {
  const DeviceProfile h200 = *find_builtin_profile("h200");
  auto cand = [&](const Problem& p, const char* spec) {
    const ParsedConfigSpec s = parse_config_spec(spec);
    return evaluate_config(p, h200, s.spec.config, s.spec.stages_given);
  };
  const Problem one_wave = test::nt_problem(128, 2048, 4096);  // 16 tiles of 128x128
  EXPECT_TRUE(same_launch(cand(one_wave, "128x128,persistent"), cand(one_wave, "128x128,static")));
  EXPECT_FALSE(same_launch(cand(one_wave, "128x128"), cand(one_wave, "128x128,mapping=grouped-m:16")));
  EXPECT_FALSE(same_launch(cand(one_wave, "128x128"), cand(one_wave, "128x128,stages=4")));
  EXPECT_FALSE(same_launch(cand(one_wave, "128x128,splitk=2"), cand(one_wave, "128x128,splitk=4")));
  const Problem waves = test::nt_problem(4096, 4096, 4096);  // 1024 tiles
  EXPECT_FALSE(same_launch(cand(waves, "128x128,persistent"), cand(waves, "128x128,static")));
}

TEST(TuningSummary, RegretErrorGeomeanMedian) {
  EXPECT_NEAR(regret(110, 100), 0.1, 1e-12);
  EXPECT_EQ(regret(100, 100), 0.0);
  EXPECT_NEAR(model_error(80, 100), 0.2, 1e-12);
  EXPECT_NEAR(model_error(125, 100), 0.25, 1e-12);
  EXPECT_NEAR(geomean_regret({0.0, 0.21}), 0.1, 1e-12);  // sqrt(1 * 1.21) - 1
  EXPECT_DOUBLE_EQ(geomean_regret({}), 0.0);
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({}), 0);
}

}  // namespace
}  // namespace tilegemm::plan
