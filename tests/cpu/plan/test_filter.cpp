// The resource filter: nothing that cannot run is ever ranked, and every rejection keeps its rule.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "plan/config_spec.hpp"
#include "plan/planner.hpp"
#include "plan/smem_layout.hpp"
#include "plan_test_util.hpp"

namespace tilegemm::plan {
namespace {

using test::kSuite;
using test::nt_problem;
using test::tile_config;

TEST(Filter, NoRankedConfigBreaksAResourceRuleOnAnyProfile) {
  for (const DeviceProfile& d : builtin_profiles()) {
    for (const auto& s : kSuite) {
      for (DType out : {DType::bf16, DType::fp32}) {
        const Plan pl = make_plan(nt_problem(s.m, s.n, s.k, out), d);
        SCOPED_TRACE(testing::Message() << d.name << " " << s.m << "x" << s.n << "x" << s.k);
        ASSERT_FALSE(pl.ranked.empty());
        for (const Candidate& c : pl.ranked) {
          const Config& k = c.config;
          ASSERT_TRUE(c.feasible());
          ASSERT_LE(k.smem_bytes, d.smem_per_block_optin);
          ASSERT_LE(k.smem_bytes, kSmemLimitPerBlock);
          ASSERT_EQ(k.smem_bytes,
                    compute_smem_layout(k.bm, k.bn, k.bk, k.stages, k.epilogue_elem_bytes()).total_bytes);
          ASSERT_GE(k.stages, kMinStages);
          ASSERT_LE(k.stages, kMaxStages);
          // As many stages as fit: one more would not (unless capped at 16).
          if (k.stages < kMaxStages)
            ASSERT_FALSE(compute_smem_layout(k.bm, k.bn, k.bk, k.stages + 1, k.epilogue_elem_bytes())
                             .fits(d.smem_per_block_optin));
          ASSERT_LE(k.regs.accumulators, k.regs.consumer - kConsumerRegOverhead);
          ASSERT_LE(128 * k.regs.producer + 128 * k.consumer_wgs * k.regs.consumer, d.regs_per_sm);
          ASSERT_GE(k.swizzle_a, 64);
          ASSERT_GE(k.swizzle_b, 64);
          ASSERT_EQ(k.bk, 64);
          ASSERT_TRUE(k.bn % 16 == 0 && k.bn >= 16 && k.bn <= 256);
          ASSERT_TRUE(k.bm == 16 || k.bm == 32 || k.bm == 64 || k.bm == 128 || k.bm == 256);
          // Cluster legality: SM count divisible, and a peer tile exists along the cluster axis.
          ASSERT_EQ(d.sm_count % k.cluster_size(), 0);
          const KernelShape ks = kernel_shape(pl.problem, k);
          if (k.cluster_m == 2) ASSERT_GE(ks.m_blocks, 2);
          if (k.cluster_n == 2) ASSERT_GE(ks.n_blocks, 2);
          ASSERT_EQ(k.grid % k.cluster_size(), 0);
          ASSERT_LE(k.grid, d.sm_count);
          if (k.split_k > 1) ASSERT_GE((s.k + 63) / 64, int64_t{kMinKBlocksPerSplit} * k.split_k);
        }
        for (const Candidate& r : pl.rejected) {
          ASSERT_NE(r.rule, Rule::none);
          ASSERT_FALSE(r.reason.empty());
        }
      }
    }
  }
}

TEST(Filter, TwoCtaClusterWithoutPeerIsRejectedForDecode) {
  // M = 1: one m-block, so a 2x1 cluster (B multicast between M-neighbours) has no peer.
  const Plan pl = make_plan(nt_problem(1, 24576, 1536), *find_builtin_profile("h100"));
  for (const Candidate& c : pl.ranked)
    if (!c.config.swap_ab) EXPECT_NE(c.config.cluster_m, 2) << describe(c.config);
  bool saw_no_peer = false;
  for (const Candidate& r : pl.rejected) saw_no_peer = saw_no_peer || r.rule == Rule::cluster_no_peer;
  EXPECT_TRUE(saw_no_peer);
  // The seed's score alone prefers such a cluster (its bytes_L2_AB halves a band that is never
  // shared): the plan reports it.
  ASSERT_TRUE(pl.seed_unfiltered_choice.has_value());
  EXPECT_EQ(pl.seed_unfiltered_choice->rule, Rule::cluster_no_peer);
  EXPECT_TRUE(is_blind_spot_rule(Rule::cluster_no_peer));
  // In the seed's own space (no swap-AB, no split-K) it is DeepGEMM's known artefact: a 2x1
  // cluster (B multicast between M-neighbours) for M = 1 (research/deepgemm.md §4.4).
  PlanOptions seed_space;
  seed_space.allow_swap_ab = false;
  seed_space.allow_split_k = false;
  const Plan ps = make_plan(nt_problem(1, 24576, 1536), *find_builtin_profile("h100"), seed_space);
  ASSERT_TRUE(ps.seed_unfiltered_choice.has_value());
  EXPECT_EQ(ps.seed_unfiltered_choice->config.cluster_m, 2) << describe(ps.seed_unfiltered_choice->config);
  EXPECT_EQ(ps.seed_unfiltered_choice->config.bm, 16);
}

TEST(Filter, ClustersNeedAnSmCountDivisibleByTheClusterSize) {
  DeviceProfile odd = *find_builtin_profile("h200");
  odd.sm_count = 131;
  const Plan pl = make_plan(nt_problem(4096, 4096, 4096), odd);
  for (const Candidate& c : pl.ranked) EXPECT_EQ(c.config.cluster_size(), 1);
  int n = 0;
  for (const Candidate& r : pl.rejected) n += r.rule == Rule::cluster_sm_count;
  EXPECT_GT(n, 0);
}

TEST(Filter, MnMajorTilesNeedA64Or128ByteSwizzle) {
  const DeviceProfile d = *find_builtin_profile("h200");
  Problem nn = nt_problem(4096, 4096, 4096);
  nn.b_major = Major::mn_major;  // "nn": B stored [K][N]
  // BN = 48: 96 B inner extent -> 32-B swizzle -> rejected. BN = 64: 128 B -> fine.
  const Candidate bad = evaluate_config(nn, d, tile_config(128, 48), false);
  EXPECT_EQ(bad.rule, Rule::swizzle_operand);
  EXPECT_NE(bad.reason.find("32-B swizzle"), std::string::npos) << bad.reason;
  EXPECT_TRUE(evaluate_config(nn, d, tile_config(128, 64), false).feasible());
  // The same BN is fine when B is K-major (128-B rows of K).
  EXPECT_TRUE(evaluate_config(nt_problem(4096, 4096, 4096), d, tile_config(128, 48), false).feasible());
  // "tn": A MN-major; BM = 16 is 32 B wide.
  Problem tn = nt_problem(8, 4096, 4096);
  tn.a_major = Major::mn_major;
  tn.b_major = Major::mn_major;
  EXPECT_EQ(evaluate_config(tn, d, tile_config(16, 64), false).rule, Rule::swizzle_operand);
  // Every ranked config of an MN-major plan has a >= 64-B swizzle; the planner still finds one.
  const Plan pl = make_plan(tn, d);
  ASSERT_FALSE(pl.ranked.empty());
  for (const Candidate& c : pl.ranked) EXPECT_GE(std::min(c.config.swizzle_a, c.config.swizzle_b), 64);
}

TEST(Filter, AccumulatorRegistersMustFitTheSetmaxnregBudget) {
  const DeviceProfile d = *find_builtin_profile("h200");
  // 256x256 over 2 math warpgroups = 256 fp32 accumulators per thread > 232 - 64.
  const Candidate c = evaluate_config(nt_problem(4096, 4096, 4096), d, tile_config(256, 256), false);
  EXPECT_EQ(c.rule, Rule::registers_accumulators);
  EXPECT_EQ(c.config.regs.accumulators, 256);
  EXPECT_EQ(c.config.regs.consumer, 232);
  // 128x256: 128 accumulators; fits.
  EXPECT_TRUE(evaluate_config(nt_problem(4096, 4096, 4096), d, tile_config(128, 256), false).feasible());
}

TEST(Filter, SmemLimitIncludesTheEpilogueTile) {
  const DeviceProfile d = *find_builtin_profile("h200");
  // FP32 output 128x256: the D tile is 128 KiB; 3 stages of 48 KiB do not fit beside it.
  const Candidate c = evaluate_config(nt_problem(4096, 4096, 4096, DType::fp32), d, tile_config(128, 256), false);
  EXPECT_EQ(c.rule, Rule::smem_fit);
  EXPECT_NE(c.reason.find("232448"), std::string::npos) << c.reason;
  // A user-fixed stage count is checked too.
  Config deep = tile_config(128, 128);
  deep.stages = 16;
  EXPECT_EQ(evaluate_config(nt_problem(4096, 4096, 4096), d, deep, true).rule, Rule::smem_fit);
  deep.stages = 2;
  EXPECT_EQ(evaluate_config(nt_problem(4096, 4096, 4096), d, deep, true).rule, Rule::stages_range);
}

TEST(Filter, SplitKSlicesMustKeepThePipelineBusy) {
  const DeviceProfile d = *find_builtin_profile("h200");
  Config c = tile_config(16, 64);
  c.split_k = 3;  // K = 512: 8 k-blocks, 3 slices of <= 3 -> rejected
  EXPECT_EQ(evaluate_config(nt_problem(1, 32768, 512), d, c, false).rule, Rule::split_k_depth);
  c.split_k = 2;  // 2 slices of 4
  EXPECT_TRUE(evaluate_config(nt_problem(1, 32768, 512), d, c, false).feasible());
}

TEST(Filter, SwapAbAndSplitKOnlyForSmallProblems) {
  const DeviceProfile d = *find_builtin_profile("h200");
  for (const Candidate& c : make_plan(nt_problem(4096, 4096, 4096), d).ranked) {
    EXPECT_FALSE(c.config.swap_ab);  // M > 128
    EXPECT_EQ(c.config.split_k, 1);  // the tiles already fill the SMs
  }
  bool swap = false, split = false;
  for (const Candidate& c : make_plan(nt_problem(1, 576, 7168), d).ranked) {
    swap = swap || c.config.swap_ab;
    split = split || c.config.split_k > 1;
  }
  EXPECT_TRUE(swap);
  EXPECT_TRUE(split);
}

TEST(Problem, ValidationNamesTheArgumentValueAndRule) {
  Status s = validate_problem(nt_problem(0, 4096, 4096));
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.argument, "M");
  EXPECT_NE(s.message.find("M=0"), std::string::npos);
  EXPECT_NE(s.message.find(">= 1"), std::string::npos);
  Problem p = nt_problem(16, 16, 16);
  p.lda = 8;
  s = validate_problem(p);
  EXPECT_EQ(s.argument, "lda");
  EXPECT_TRUE(validate_problem(nt_problem(1, 1, 1)).ok());
}

TEST(Problem, StridesThatBreakTmaAreNoted) {
  const Plan pl = make_plan(nt_problem(4096, 4096, 4095), *find_builtin_profile("h200"));
  ASSERT_FALSE(pl.notes.empty());
  EXPECT_NE(pl.notes[0].find("lda=4095"), std::string::npos) << pl.notes[0];
  EXPECT_NE(pl.notes[0].find("fallback"), std::string::npos);
}

}  // namespace
}  // namespace tilegemm::plan
