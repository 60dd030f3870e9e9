// /api/plan with the call options of `tilegemm explain` (D's major, C and beta, in place, C's major
// and dtype, leading dimensions, pointer offsets, alpha): the same document as the library builds
// for the same options (what cmd_explain.cpp runs), and every bad option a 400 naming it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/explain_call.hpp"
#include "explorer/api.hpp"
#include "explorer_test_helpers.hpp"
#include "plan/device_profile.hpp"

namespace tilegemm::explorer {
namespace {

using nlohmann::json;

// What `tilegemm explain M N K <options> --device h200 --json` prints, built as cmd_explain.cpp
// builds it (the device note aside, which says how the device was chosen).
json explain_json(int64_t m, int64_t n, int64_t k, const detail::CallOptions& o, DType out = DType::bf16) {
  plan::Problem p;
  p.m = m, p.n = n, p.k = k, p.out = out;
  detail::ExplainRequest rq;
  const auto spell = [](std::string_view key) { return "--" + std::string(key); };
  EXPECT_TRUE(detail::call_storage_of(o, spell, &p, &rq.call).ok());
  rq.problem = p;
  rq.device = *plan::find_builtin_profile("h200");
  rq.json = true;
  rq.explain.device_note = "device=h200";
  std::string text;
  EXPECT_TRUE(detail::explain_call(rq, &text).ok());
  return json::parse(text);
}

json plan_json(QueryParams q) {
  q.push_back({"device", "h200"});
  const Reply r = api_plan(q, no_gpu());
  EXPECT_EQ(r.status, 200) << r.body;
  return r.status == 200 ? json::parse(r.body) : json();
}

TEST(ExplorerPlanCall, InPlaceWithBetaIsTheCliDocument) {
  detail::CallOptions o;
  o.beta = 0.5f;
  o.in_place = true;
  const json got = plan_json({{"m", "4096"}, {"n", "7168"}, {"k", "2048"}, {"beta", "0.5"}, {"in_place", "1"}});
  EXPECT_EQ(got, explain_json(4096, 7168, 2048, o));
  EXPECT_EQ(got["call"]["c"], "in_place");
  EXPECT_EQ(got["call"]["beta"], 0.5);
  EXPECT_EQ(got["problem"]["accumulate"], true);
}

TEST(ExplorerPlanCall, ColumnMajorDIsTransposedAsTheCliSaysIt) {
  detail::CallOptions o;
  o.d_major = "col";
  o.ldd = 1024;
  o.offset_d = 1;
  const json got = plan_json({{"m", "1000"}, {"n", "999"}, {"k", "256"}, {"d_major", "col"}, {"ldd", "1024"},
                              {"offset_d", "1"}});
  EXPECT_EQ(got, explain_json(1000, 999, 256, o));
  EXPECT_EQ(got["call"]["d_major"], "col");
  EXPECT_EQ(got["call"]["offsets"]["d"], 1);
  EXPECT_FALSE(got["route_steps"].empty());  // Dᵀ = B·Aᵀ, and a D that TMA cannot describe
}

TEST(ExplorerPlanCall, SeparateCWithItsOwnStorageAlphaAndLeadingDimensions) {
  detail::CallOptions o;
  o.beta = 1.0f;
  o.alpha = 2.0f;
  o.c_major = "col";
  o.ldc = 520;
  o.c_dtype = "fp32";
  o.lda = 520;
  o.offset_b = 3;
  const json got = plan_json({{"m", "512"}, {"n", "512"}, {"k", "512"}, {"out", "fp32"}, {"beta", "1"},
                              {"alpha", "2"}, {"c_major", "col"}, {"ldc", "520"}, {"c_dtype", "fp32"},
                              {"lda", "520"}, {"offset_b", "3"}});
  EXPECT_EQ(got, explain_json(512, 512, 512, o, DType::fp32));
  EXPECT_EQ(got["call"]["c"], "separate");
  EXPECT_EQ(got["call"]["c_major"], "col");
  EXPECT_EQ(got["call"]["ldc"], 520);
  EXPECT_EQ(got["call"]["lda"], 520);
  EXPECT_EQ(got["call"]["alpha"], 2.0);
  // accumulate is beta 1, as --accumulate is --beta 1.
  o = {};
  o.accumulate = true;
  EXPECT_EQ(plan_json({{"m", "64"}, {"n", "64"}, {"k", "64"}, {"accumulate", "1"}}), explain_json(64, 64, 64, o));
}

TEST(ExplorerPlanCall, BadCallOptionsAre400sNamingThem) {
  const ApiContext ctx = no_gpu();
  auto plan_with = [&](QueryParams extra) {
    QueryParams q = {{"m", "64"}, {"n", "64"}, {"k", "64"}};
    q.insert(q.end(), extra.begin(), extra.end());
    return api_plan(q, ctx);
  };
  // The reader's rules: names, ranges.
  expect_error(plan_with({{"d_major", "diag"}}), 400, "d_major");
  expect_error(plan_with({{"c_major", "diag"}, {"beta", "1"}}), 400, "c_major");
  expect_error(plan_with({{"c_dtype", "fp16"}, {"beta", "1"}}), 400, "c_dtype");
  expect_error(plan_with({{"beta", "x"}}), 400, "beta");
  expect_error(plan_with({{"alpha", "1e5"}}), 400, "alpha");  // decimal only, as every number here
  expect_error(plan_with({{"in_place", "2"}}), 400, "in_place");
  expect_error(plan_with({{"lda", "-1"}}), 400, "lda");
  expect_error(plan_with({{"offset_a", "1073741825"}}), 400, "offset_a");  // > 2^30
  // explain's rules about C (api/explain_call.hpp call_storage_of).
  expect_error(plan_with({{"in_place", "1"}}), 400, "in_place");
  expect_error(plan_with({{"ldc", "80"}}), 400, "ldc");
  expect_error(plan_with({{"offset_c", "2"}}), 400, "offset_c");
  expect_error(plan_with({{"beta", "1"}, {"in_place", "1"}, {"c_major", "col"}}), 400, "in_place");
  expect_error(plan_with({{"accumulate", "1"}, {"beta", "2"}}), 400, "accumulate");
  // validate()'s, named by the parameter that set the field.
  expect_error(plan_with({{"ldd", "60"}}), 400, "ldd");
  expect_error(plan_with({{"lda", "32"}}), 400, "lda");
  expect_error(plan_with({{"beta", "1"}, {"ldc", "8"}}), 400, "ldc");
  expect_error(plan_with({{"beta", "1"}, {"c_dtype", "fp32"}}), 400, "c_dtype");  // C has D's dtype
  expect_error(plan_with({{"beta", "1"}, {"in_place", "1"}, {"ldd", "8"}}), 400, "ldd");
}

}  // namespace
}  // namespace tilegemm::explorer
