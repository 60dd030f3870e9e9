// Codegen: launch-only fields do not change the source; fields that change the code do. (That the
// generated sources compile, and what their SASS holds: test_cubin_audit.cpp.)
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "jit/codegen.hpp"
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

}  // namespace
}  // namespace tilegemm::jit
