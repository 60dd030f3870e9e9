// Codegen and the kernel template: the source generated for a Config compiles under NVRTC (no
// GPU) to an sm_90a cubin, for the planner's picks on the suite and a deterministic sample of every
// other candidate it ranks -- the proof that the candidate space is the set of Configs the
// template instantiates. Launch-only fields do not change the source.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "jit/codegen.hpp"
#include "jit/cubin_elf.hpp"
#include "jit_test_util.hpp"
#include "plan/config_spec.hpp"
#include "plan/planner.hpp"

namespace tilegemm::jit {
namespace {

plan::Problem nt(int64_t m, int64_t n, int64_t k) {
  plan::Problem p;
  p.m = m;
  p.n = n;
  p.k = k;
  return p;
}

void expect_compiles(test::TestRuntime& rt, const sm90::Config& c, std::set<std::string>* seen) {
  const GeneratedSource g = gemm_kernel_source(c);
  if (!seen->insert(g.code).second) return;
  SCOPED_TRACE(plan::describe(c));
  CubinInfo info;
  const Status s = rt->get_cubin(KernelSource{g.code, g.kernel_name, g.label}, &info);
  ASSERT_TRUE(s.ok()) << s.message;
  ASSERT_TRUE(info.cubin && !info.cubin->empty());
  EXPECT_EQ(check_cubin_elf(*info.cubin, 90), "");
  std::printf("  compiled %-60s %.3f s\n", g.label.c_str(), info.compile_seconds);
}

TEST(Codegen, LaunchOnlyFieldsDoNotChangeTheSource) {
  const auto d = *plan::find_builtin_profile("h200");
  sm90::Config a = plan::evaluate_config(nt(4096, 4096, 4096), d, plan::parse_config_spec("128x256").spec.config,
                                         false)
                       .config;
  sm90::Config b = a;
  b.persistent = false;
  EXPECT_EQ(gemm_kernel_source(a).code, gemm_kernel_source(b).code);
  sm90::Config s3 = plan::evaluate_config(nt(1, 576, 7168), d, plan::parse_config_spec("64x128,splitk=3").spec.config,
                                          false)
                        .config;
  sm90::Config s7 = s3;
  s7.split_k = 7;
  EXPECT_EQ(gemm_kernel_source(s3).code, gemm_kernel_source(s7).code);
  b = a;
  b.stages = 3;
  EXPECT_NE(gemm_kernel_source(a).code, gemm_kernel_source(b).code);
  EXPECT_NE(config_initializer(a).find(".bm = 128, .bn = 256"), std::string::npos) << config_initializer(a);
}

TEST(Codegen, PlannerPicksAndASampleOfCandidatesCompile) {
  test::TempDir dir;
  test::TestRuntime rt(dir.path.string());
  const auto d = *plan::find_builtin_profile("h200");
  std::set<std::string> seen;
  // The reduce kernel of split-K.
  {
    const GeneratedSource g = splitk_reduce_source();
    CubinInfo info;
    const Status s = rt->get_cubin(KernelSource{g.code, g.kernel_name, g.label}, &info);
    ASSERT_TRUE(s.ok()) << s.message;
  }
  const plan::Problem problems[] = {nt(4096, 4096, 4096), nt(1, 576, 7168), nt(128, 7168, 2048), nt(4096, 576, 7168),
                                    nt(777, 1234, 336)};
  std::vector<sm90::Config> pool;
  for (const plan::Problem& p : problems) {
    const plan::Plan pl = plan::make_plan(p, d);
    ASSERT_FALSE(pl.ranked.empty());
    expect_compiles(rt, pl.chosen().config, &seen);
    for (const plan::Candidate& c : pl.ranked) pool.push_back(c.config);
  }
  // 30 more, drawn with a fixed seed from everything the planner ranked for those problems.
  std::mt19937 rng(20261201);
  std::shuffle(pool.begin(), pool.end(), rng);
  int sampled = 0;
  for (const sm90::Config& c : pool) {
    if (sampled >= 30) break;
    const size_t before = seen.size();
    expect_compiles(rt, c, &seen);
    if (seen.size() > before) ++sampled;
  }
  EXPECT_EQ(sampled, 30);
}

}  // namespace
}  // namespace tilegemm::jit
