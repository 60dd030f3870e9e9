// explain: runs for the whole suite on every built-in profile; the JSON keeps its documented keys;
// the plan is deterministic and its ranking a strict total order.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "plan/config_spec.hpp"
#include "plan/explain.hpp"
#include "plan/planner.hpp"
#include "plan_test_util.hpp"

namespace tilegemm::plan {
namespace {

using nlohmann::json;
using test::kSuite;
using test::nt_problem;
using test::Shape;

// Keys docs/PLANNER.md promises (schema tilegemm.plan/3).
const char* const kTopKeys[] = {"schema", "problem", "path", "route_reason", "device", "ranking", "counts", "chosen", "chosen_by",
                                "model_choice", "seed_choice", "seed_unfiltered_choice", "user_config", "top",
                                "rejected", "rejected_all_listed", "tuning", "notes"};
const char* const kCandidateKeys[] = {"label", "feasible", "rule", "reason", "config", "grid", "smem_bytes", "seed",
                                      "time", "flags"};
const char* const kConfigKeys[] = {"bm", "bn", "bk", "stages", "cluster_m", "cluster_n", "multicast", "consumers",
                                   "threads", "registers", "mapping", "epilogue", "stage_cols", "a_major", "b_major",
                                   "out_dtype", "fixed_n", "fixed_k", "persistent", "stream_k", "split_k", "swap_ab"};
const char* const kSeedKeys[] = {"num_blocks", "num_waves", "wave_eff", "sizeof_c", "bytes_L2_AB",
                                 "bytes_local_AB", "bytes_TC", "bytes_CD", "cycles_L2", "cycles_local", "score"};
const char* const kTimeKeys[] = {"efficiency", "l2_us", "local_us", "hbm_us", "tc_us", "limits_us", "epilogue_us", "c_us", "fixed_us",
                                 "fixup_us", "predicted_us", "tflops", "bound", "hbm_bytes",
                                 "bytes_L2_AB_eff", "stream_reread"};
const char* const kDeviceKeys[] = {"name", "description", "source", "note", "sm_count", "clock_ghz",
                                   "l2_bytes_per_cycle", "local_bytes_per_cycle", "hbm_bytes_per_s",
                                   "hbm_datasheet_bytes_per_s", "tc_peak_flops", "l2_bytes",
                                   "smem_per_block_optin", "smem_per_sm", "regs_per_sm", "fixed_us",
                                   "tma_fill_bytes_per_s", "tma_bytes_per_s_per_sm",
                                   "direct_store_bytes_per_cycle", "cluster_factor",
                                   "one_consumer_cluster_factor_2x1", "one_consumer_cluster_factor_1x2",
                                   "fixup_bytes_per_s_per_sm", "fixup_latency_us",
                                   "cluster_fixup_latency_us", "cluster_fixup_bytes_per_s_per_sm",
                                   "smem_store_bytes_per_cycle", "direct_scalar_store_bytes_per_cycle",
                                   "unsectored_row_factor", "oob_row_factor", "l2_line_touch_bytes_per_s", "tile_floor_us", "tile_floor_row_us", "repack_bytes_per_s",
                                   "repack_launch_us", "limit_norm_p", "short_k_norm_p", "short_k_full_blocks", "short_k_blocks",
                                   "ring_bytes", "ring_hbm_share", "ring_shallow_factor", "partial_grid_clock_limit",
                                   "partial_grid_power_exponent", "c_tile_us",
                                   "c_tile_direct_us", "c_direct_line_us", "c_reload_bytes_per_s_per_sm", "c_slot_round_us",
                                   "c_thread_box_us"};

void expect_candidate(const json& c) {
  for (const char* k : kCandidateKeys) ASSERT_TRUE(c.contains(k)) << "candidate key " << k;
  for (const char* k : kConfigKeys) ASSERT_TRUE(c["config"].contains(k)) << "config key " << k;
  for (const char* k : kSeedKeys) ASSERT_TRUE(c["seed"].contains(k)) << "seed key " << k;
  for (const char* k : kTimeKeys) ASSERT_TRUE(c["time"].contains(k)) << "time key " << k;
  for (const char* k : {"producer", "consumer", "accumulators"})
    ASSERT_TRUE(c["config"]["registers"].contains(k)) << k;
  for (const char* k : {"kind", "group", "box_m", "box_n"}) ASSERT_TRUE(c["config"]["mapping"].contains(k)) << k;
}

TEST(Explain, RunsForEverySuiteShapeOnEveryProfile) {
  for (const DeviceProfile& d : builtin_profiles()) {
    for (const auto& s : kSuite) {
      SCOPED_TRACE(testing::Message() << d.name << " " << s.m << "x" << s.n << "x" << s.k);
      const Plan pl = make_plan(nt_problem(s.m, s.n, s.k), d);
      ASSERT_FALSE(pl.ranked.empty());
      const std::string text = explain_text(pl, std::nullopt, {});
      EXPECT_NE(text.find("chosen"), std::string::npos);
      EXPECT_NE(text.find(describe(pl.chosen().config)), std::string::npos);
      const json j = json::parse(explain_json(pl, std::nullopt, {}));
      for (const char* k : kTopKeys) ASSERT_TRUE(j.contains(k)) << "top-level key " << k;
      EXPECT_EQ(j["schema"], kPlanJsonSchema);
      for (const char* k : kDeviceKeys) ASSERT_TRUE(j["device"].contains(k)) << "device key " << k;
      expect_candidate(j["chosen"]);
      EXPECT_EQ(j["chosen_by"], "model");  // no tuning cache consulted: the model's pick
      EXPECT_EQ(j["model_choice"], j["chosen"]);
      EXPECT_TRUE(j["tuning"].is_null());
      expect_candidate(j["seed_choice"]["candidate"]);
      ASSERT_FALSE(j["top"].empty());
      for (const auto& c : j["top"]) expect_candidate(c);
      for (const auto& c : j["rejected"]) {
        expect_candidate(c);
        EXPECT_FALSE(c["feasible"].get<bool>());
        EXPECT_TRUE(c["rule"].is_string());
      }
      EXPECT_EQ(j["counts"]["considered"].get<size_t>(), pl.ranked.size() + pl.rejected.size());
      EXPECT_GT(j["chosen"]["time"]["predicted_us"].get<double>(), 0.0);
      EXPECT_LE(j["chosen"]["smem_bytes"].get<int>(), d.smem_per_block_optin);
    }
  }
}

TEST(Explain, ThePlannerNeverOffersWhatTheTemplateCannotRun) {
  // Every layout, bf16 or fp32 output, with or without C: a plan exists, MN-major operands get
  // only whole-chunk tiles, and the staged epilogues only tiles of at least one 128-B store box,
  // whole boxes with C in place (an overlapping last box reads C only when C is not D: config.hpp).
  const Shape shapes[] = {{1, 576, 7168}, {128, 24576, 1536}, {4096, 4096, 4096}, {7, 9, 13}};
  for (const DeviceProfile& d : builtin_profiles()) {
    for (const Shape& s : shapes) {
      for (Major a : {Major::k_major, Major::mn_major}) {
        for (Major b : {Major::k_major, Major::mn_major}) {
          for (DType out : {DType::bf16, DType::fp32})
          for (int c_kind = 0; c_kind < 3; ++c_kind) {  // no C, C, C in place
            const bool with_c = c_kind > 0, in_place = c_kind == 2;
            Problem p = nt_problem(s.m, s.n, s.k, out, with_c);
            p.a_major = a;
            p.b_major = b;
            p.c_in_place = in_place;
            SCOPED_TRACE(testing::Message() << d.name << " " << s.m << "x" << s.n << "x" << s.k << " "
                                            << layout_name(a, b) << " " << to_string(out) << " C " << c_kind);
            ASSERT_TRUE(validate_problem(p).ok());
            const Plan pl = make_plan(p, d);
            ASSERT_FALSE(pl.ranked.empty());
            for (const Candidate& c : pl.ranked) {
              if (sm90::staged_epilogue(c.config.epilogue)) {
                const int box = out == DType::fp32 ? 32 : 64;
                ASSERT_GE(c.config.bn, box) << describe(c.config);
                if (in_place && !c.config.d_col_major) ASSERT_EQ(c.config.bn % box, 0) << describe(c.config);
                ASSERT_EQ(sm90::check_kernel_config(c.config), sm90::ConfigRule::ok) << describe(c.config);
              } else if (!c.config.d_col_major) {  // direct: narrower than a box, or partial boxes with C in place
                const int box = out == DType::fp32 ? 32 : 64;
                ASSERT_TRUE(c.config.bn < box || (in_place && c.config.bn % box != 0)) << describe(c.config);
              }
              ASSERT_EQ(c.config.out_dtype, out);
              ASSERT_EQ(c.config.with_c, with_c);
              // The kernel's operands: A and B, or B and A with swap-AB (it computes Dᵀ = B·Aᵀ).
              const Major ka = c.config.d_col_major ? b : a, kb = c.config.d_col_major ? a : b;
              if (kb == Major::mn_major) ASSERT_EQ(c.config.bn % 64, 0) << describe(c.config);
              ASSERT_EQ(c.config.a_major, ka);
              ASSERT_EQ(c.config.b_major, kb);
            }
            const json j = json::parse(explain_json(pl, std::nullopt, {}));
            EXPECT_EQ(j["problem"]["layout"], layout_name(a, b));
            EXPECT_EQ(j["chosen"]["config"]["out_dtype"], to_string(out));
            size_t by_rule = 0;
            for (const auto& [rule, n] : j["counts"]["rejected_by_rule"].items()) by_rule += n.get<size_t>();
            EXPECT_EQ(by_rule, pl.rejected.size());
            for (size_t i = 0; i < j["top"].size(); ++i) EXPECT_EQ(j["top"][i]["rank"].get<size_t>(), i + 1);
          }
        }
      }
    }
  }
}

TEST(Explain, FallbackRendersThePathAndTheReason) {
  ExplainOptions o;
  o.path = "fallback";
  o.route_reason = "b.major = mn_major: the sm90 kernel needs K-major B";
  Problem p = nt_problem(64, 64, 64);
  p.b_major = Major::mn_major;
  const json j = json::parse(explain_fallback_json(p, o));
  EXPECT_EQ(j["schema"], kPlanJsonSchema);
  EXPECT_EQ(j["path"], "fallback");
  EXPECT_EQ(j["route_reason"], o.route_reason);
  EXPECT_TRUE(j["chosen"].is_null());
  EXPECT_NE(explain_fallback_text(p, o).find(o.route_reason), std::string::npos);
}

TEST(Explain, UserConfigIsScoredAndRanked) {
  const DeviceProfile d = *find_builtin_profile("h200");
  const Problem p = nt_problem(4096, 4096, 4096);
  const Plan pl = make_plan(p, d);
  const ParsedConfigSpec spec = parse_config_spec("128x256,cluster=1x2,group=16");
  ASSERT_TRUE(spec.ok()) << spec.error;
  const Candidate user = evaluate_config(p, d, spec.spec.config, spec.spec.stages_given);
  ASSERT_TRUE(user.feasible()) << user.reason;
  ExplainOptions o;
  o.user_spec = "128x256,cluster=1x2,group=16";
  const json j = json::parse(explain_json(pl, user, o));
  expect_candidate(j["user_config"]["candidate"]);
  EXPECT_GE(j["user_config"]["rank"].get<int>(), 1);
  EXPECT_EQ(j["user_config"]["spec"], o.user_spec);
  // The same config as one the planner ranked scores identically.
  for (size_t i = 0; i < pl.ranked.size(); ++i) {
    if (describe(pl.ranked[i].config) != describe(user.config)) continue;
    EXPECT_DOUBLE_EQ(pl.ranked[i].seed.score, user.seed.score);
    EXPECT_DOUBLE_EQ(pl.ranked[i].time.predicted_us, user.time.predicted_us);
    EXPECT_EQ(rank_of(pl, user), i + 1);
  }
  // A rejected user config says so, with its rule.
  const Candidate bad = evaluate_config(p, d, parse_config_spec("256x256").spec.config, false);
  const std::string text = explain_text(pl, bad, o);
  EXPECT_NE(text.find("REJECTED by kernel.template"), std::string::npos) << text;
}

TEST(Determinism, SamePlanTwiceAndStrictOrder) {
  for (const DeviceProfile& d : builtin_profiles()) {
    for (const auto& s : kSuite) {
      const Problem p = nt_problem(s.m, s.n, s.k);
      const Plan a = make_plan(p, d), b = make_plan(p, d);
      ExplainOptions all;
      all.rejected_per_rule = -1;
      all.top = 1000000;
      ASSERT_EQ(explain_json(a, std::nullopt, all), explain_json(b, std::nullopt, all));
      // Strict total order: each ranked candidate goes strictly before the next, and no two
      // candidates share a label (the tie-break key never runs out).
      std::set<std::string> labels;
      for (size_t i = 0; i < a.ranked.size(); ++i) {
        ASSERT_TRUE(labels.insert(describe(a.ranked[i].config)).second) << describe(a.ranked[i].config);
        if (i == 0) continue;
        ASSERT_TRUE(ranks_before(a.ranked[i - 1], a.ranked[i], a.options.ranking));
        ASSERT_FALSE(ranks_before(a.ranked[i], a.ranked[i - 1], a.options.ranking));
      }
      // The seed choice is the lowest seed score.
      for (const Candidate& c : a.ranked) ASSERT_GE(c.seed.score, a.ranked[a.seed_choice].seed.score);
    }
  }
}

TEST(Determinism, SeedRankingOrdersBySeedScore) {
  PlanOptions o;
  o.ranking = Ranking::seed;
  const Plan pl = make_plan(nt_problem(4096, 7168, 16384), *find_builtin_profile("h200"), o);
  EXPECT_EQ(pl.seed_choice, 0u);
  for (size_t i = 1; i < pl.ranked.size(); ++i) ASSERT_LE(pl.ranked[i - 1].seed.score, pl.ranked[i].seed.score);
}

}  // namespace
}  // namespace tilegemm::plan
