// The explorer's endpoints without sockets: /api/map and /api/plan give exactly the documents the
// CLI prints (built here through the same library calls `tilegemm map --json` / `explain --json`
// make), every bad parameter is a 400 naming it, the map's tile bound holds, /api/hardware shows
// the built-in profiles and the live device (a fake one here), /api/trace is the documented 404.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "api/explain_call.hpp"
#include "explorer/api.hpp"
#include "explorer_test_helpers.hpp"
#include "plan/config_spec.hpp"
#include "plan/explain.hpp"
#include "plan/planner.hpp"
#include "schedule/map_render.hpp"

namespace tilegemm::explorer {
namespace {

using nlohmann::json;

// ------------------------------------------------------------------------------------------ map

TEST(ExplorerMap, SameDocumentAsTheCliForSeedOnesExample) {
  // Seed 1's picture: 8 x 8 tiles of 128 x 128, K = 4096, grouped-M G = 4, 8 CTAs.
  const Reply r = api_map({{"m", "1024"}, {"n", "1024"}, {"k", "4096"}, {"mapping", "grouped-m:4"}, {"sms", "8"}});
  ASSERT_EQ(r.status, 200) << r.body;
  sched::MapRequest req;  // what cmd_map.cpp builds for the same options
  req.m = req.n = 1024;
  req.k = 4096;
  req.tile = {128, 128};
  req.mapping = sched::parse_mapping("grouped-m:4").value;
  req.sms = 8;
  ASSERT_EQ(sched::check_map_request(req), "");
  const json expected = sched::render_json(sched::build_map(req));
  const json got = json::parse(r.body);
  EXPECT_EQ(got, expected);
  // The seed's numbers: wave 0 reads 4 A bands and 2 B bands, 6 MiB.
  EXPECT_EQ(got["tiles"].size(), 64u);
  EXPECT_EQ(got["waves"][0]["unique_a_bands"], 4);
  EXPECT_EQ(got["waves"][0]["unique_b_bands"], 2);
  EXPECT_EQ(got["waves"][0]["working_set_bytes"], 6 << 20);
}

TEST(ExplorerMap, DefaultsAreTheCliDefaults) {
  const Reply r = api_map({{"m", "4096"}, {"n", "4096"}, {"k", "4096"}});
  ASSERT_EQ(r.status, 200) << r.body;
  sched::MapRequest req;  // cmd_map.cpp: --tile 128x128 --mapping grouped-m:8 --cluster none --sms 132 ...
  req.m = req.n = req.k = 4096;
  req.tile = sched::parse_tile_shape("128x128").value;
  req.mapping = sched::parse_mapping("grouped-m:8").value;
  EXPECT_EQ(json::parse(r.body), sched::render_json(sched::build_map(req)));
}

TEST(ExplorerMap, PersistentClusterAndWaveAreForwarded) {
  const Reply r = api_map({{"m", "2048"}, {"n", "2048"}, {"k", "512"}, {"cluster", "n"}, {"sms", "10"},
                           {"persistent", "1"}, {"wave", "2"}, {"l2_mib", "50"}, {"elem_bytes", "1"},
                           {"tile", "128x256"}, {"ctas_per_sm", "2"}, {"mapping", "hilbert"}});
  ASSERT_EQ(r.status, 200) << r.body;
  const json j = json::parse(r.body);
  EXPECT_EQ(j["assignment"], "persistent");
  EXPECT_EQ(j["cluster"], sched::cluster_name(sched::ClusterAxis::along_n));
  EXPECT_EQ(j["resident_ctas"], 20);
  EXPECT_EQ(j["highlight_wave"], 2);
  EXPECT_EQ(j["l2_bytes"], 50 << 20);
  EXPECT_EQ(j["element_bytes"], 1);
  EXPECT_EQ(j["mapping"], "hilbert");
}

TEST(ExplorerMap, BadParametersAre400sNamingThem) {
  const QueryParams ok = {{"m", "1024"}, {"n", "1024"}, {"k", "64"}};
  auto with = [&](const std::string& name, const std::string& value) {
    QueryParams q;
    for (const auto& [n, v] : ok)
      if (n != name) q.push_back({n, v});
    q.push_back({name, value});
    return q;
  };
  expect_error(api_map({{"n", "1"}, {"k", "1"}}), 400, "m");  // missing
  expect_error(api_map(with("m", "0")), 400, "m");
  expect_error(api_map(with("n", "2147483648")), 400, "n");
  expect_error(api_map(with("k", "-4")), 400, "k");
  expect_error(api_map(with("tile", "128")), 400, "tile");
  expect_error(api_map(with("tile", "0x128")), 400, "tile");
  expect_error(api_map(with("mapping", "spiral")), 400, "mapping");
  expect_error(api_map(with("mapping", "grouped-m:0")), 400, "mapping");
  expect_error(api_map(with("cluster", "4x1")), 400, "cluster");
  expect_error(api_map(with("sms", "0")), 400, "sms");
  expect_error(api_map(with("sms", "65537")), 400, "sms");
  expect_error(api_map(with("ctas_per_sm", "65")), 400, "ctas_per_sm");
  expect_error(api_map(with("persistent", "maybe")), 400, "persistent");
  expect_error(api_map(with("l2_mib", "-1")), 400, "l2_mib");
  expect_error(api_map(with("elem_bytes", "3")), 400, "elem_bytes");
  expect_error(api_map(with("wave", "8")), 400, "wave");  // 64 tiles / 132 CTAs: wave 0 only
  expect_error(api_map(with("wave", "1")), 400, "wave");
  expect_error(api_map(with("bogus", "1")), 400, "bogus");
  QueryParams odd = with("cluster", "m");
  odd.push_back({"sms", "7"});
  expect_error(api_map(odd), 400, "sms");
}

TEST(ExplorerMap, TileBoundIsExactlyKMaxExplorerTiles) {
  static_assert(kMaxExplorerTiles == 128 * 128);
  // 128 x 128 tiles of 128 x 128 at the largest K: answered.
  const Reply at = api_map({{"m", "16384"}, {"n", "16384"}, {"k", "2147483647"}});
  ASSERT_EQ(at.status, 200) << at.body.substr(0, 300);
  EXPECT_EQ(json::parse(at.body)["grid"]["num_tiles"], kMaxExplorerTiles);
  // One more tile column: refused, with the bound in the message.
  const Reply over = api_map({{"m", "16384"}, {"n", "16385"}, {"k", "1"}});
  expect_error(over, 400, "tile");
  EXPECT_NE(over.body.find("16384 tiles"), std::string::npos) << over.body;
  // The CLI's own limit (2^22) is far above; a grid the CLI accepts can still be refused here.
  expect_error(api_map({{"m", "2147483647"}, {"n", "2147483647"}, {"k", "1"}, {"tile", "4096x4096"}}), 400, "tile");
}

// ----------------------------------------------------------------------------------------- plan

TEST(ExplorerPlan, SameDocumentAsTheCliGivenTheDevice) {
  const Reply r = api_plan({{"m", "4096"}, {"n", "7168"}, {"k", "2048"}, {"device", "h200"}}, no_gpu());
  ASSERT_EQ(r.status, 200) << r.body;
  plan::Problem p;  // what cmd_explain.cpp builds for `explain 4096 7168 2048 --device h200 --json`
  p.m = 4096;
  p.n = 7168;
  p.k = 2048;
  detail::ExplainRequest rq;  // what cmd_explain.cpp builds (api/explain_call.hpp)
  rq.problem = p;
  rq.device = *plan::find_builtin_profile("h200");
  rq.json = true;
  rq.explain.device_note = "device=h200";  // the CLI writes "--device h200": the one field that differs
  std::string text;
  ASSERT_TRUE(detail::explain_call(rq, &text).ok());
  const json expected = json::parse(text);
  const json got = json::parse(r.body);
  EXPECT_EQ(got, expected);
  EXPECT_EQ(got["schema"], plan::kPlanJsonSchema);
  EXPECT_FALSE(got["chosen"].is_null());
}

// Extents gemm() takes but the sm90 kernel does not (above plan::kMaxKernelExtent = 2^31 - 1024):
// the fallback's plan document, as `tilegemm explain` gives it -- not a 400, and not a crash (the
// planner divided by a zero grid at 1 x 2147483647 x 8 before the bound existed).
TEST(ExplorerPlan, ExtentsPastTheKernelNameTheFallbackAsTheCliDoes) {
  const Reply r = api_plan({{"m", "1"}, {"n", "2147483647"}, {"k", "8"}, {"device", "h200"}}, no_gpu());
  ASSERT_EQ(r.status, 200) << r.body.substr(0, 300);
  const json got = json::parse(r.body);
  EXPECT_EQ(got["path"], "fallback");
  EXPECT_TRUE(got["chosen"].is_null());
  EXPECT_NE(got["route_reason"].get<std::string>().find("2^31 - 1024"), std::string::npos) << got["route_reason"];
  const Reply at = api_plan({{"m", "1"}, {"n", std::to_string(plan::kMaxKernelExtent)}, {"k", "8"}, {"device", "h200"}},
                            no_gpu());
  ASSERT_EQ(at.status, 200) << at.body.substr(0, 300);
  EXPECT_EQ(json::parse(at.body)["path"], "sm90");
}

TEST(ExplorerPlan, EveryOptionOfTheCliIsForwarded) {
  const Reply r = api_plan({{"m", "128"}, {"n", "576"}, {"k", "7168"}, {"device", "H800"}, {"top", "3"},
                            {"rejected", "-1"}, {"rank", "seed"}, {"no_split_k", "true"},
                            {"config", "128x128,stages=4"}},
                           no_gpu());
  ASSERT_EQ(r.status, 200) << r.body;
  const json j = json::parse(r.body);
  EXPECT_EQ(j["path"], "sm90");
  EXPECT_EQ(j["device"]["name"], "h800");
  EXPECT_EQ(j["ranking"], "seed");
  EXPECT_LE(j["top"].size(), 3u);
  EXPECT_EQ(j["rejected_all_listed"], true);
  EXPECT_EQ(j["user_config"]["spec"], "128x128,stages=4");
  for (const auto& c : j["top"]) EXPECT_EQ(c["config"]["split_k"], 1);
  // Any layout, fp32 output and C run on the sm90 kernel: a plan whose chosen config has them.
  const Reply f = api_plan({{"m", "128"}, {"n", "576"}, {"k", "7168"}, {"layout", "tn"}, {"out", "fp32"},
                            {"accumulate", "1"}},
                           no_gpu());
  ASSERT_EQ(f.status, 200) << f.body;
  const json fj = json::parse(f.body);
  EXPECT_EQ(fj["problem"]["layout"], "tn");
  EXPECT_EQ(fj["problem"]["out"], "fp32");
  EXPECT_EQ(fj["problem"]["accumulate"], true);
  EXPECT_EQ(fj["path"], "sm90");
  ASSERT_FALSE(fj["chosen"].is_null());
  EXPECT_EQ(fj["chosen"]["config"]["out_dtype"], "fp32");
  EXPECT_EQ(fj["chosen"]["config"]["with_c"], true);
}

TEST(ExplorerPlan, DeviceDefaultsToTheLiveGpuElseH200) {
  const json none = json::parse(api_plan({{"m", "256"}, {"n", "256"}, {"k", "256"}}, no_gpu()).body);
  EXPECT_EQ(none["device"]["name"], "h200");
  EXPECT_NE(none["device"]["note"].get<std::string>().find("no CUDA device (test)"), std::string::npos);
  const json live = json::parse(api_plan({{"m", "256"}, {"n", "256"}, {"k", "256"}}, fake_gpu()).body);
  EXPECT_EQ(live["device"]["name"], "live");
  const json asked = json::parse(api_plan({{"m", "256"}, {"n", "256"}, {"k", "256"}, {"device", "live"}}, fake_gpu()).body);
  EXPECT_EQ(asked["device"]["name"], "live");
  expect_error(api_plan({{"m", "256"}, {"n", "256"}, {"k", "256"}, {"device", "live"}}, no_gpu()), 400, "device");
}

TEST(ExplorerPlan, BadParametersAre400sNamingThem) {
  const ApiContext ctx = no_gpu();
  auto plan_with = [&](const std::string& name, const std::string& value) {
    QueryParams q = {{"m", "64"}, {"n", "64"}, {"k", "64"}};
    for (auto& [n, v] : q)
      if (n == name) v = value;
    if (name != "m" && name != "n" && name != "k") q.push_back({name, value});
    return api_plan(q, ctx);
  };
  expect_error(api_plan({{"m", "64"}, {"n", "64"}}, ctx), 400, "k");
  expect_error(plan_with("m", "0"), 400, "m");
  expect_error(plan_with("k", "2147483648"), 400, "k");
  expect_error(plan_with("layout", "xt"), 400, "layout");
  expect_error(plan_with("out", "fp8"), 400, "out");
  expect_error(plan_with("accumulate", "2"), 400, "accumulate");
  expect_error(plan_with("device", "a100"), 400, "device");
  expect_error(plan_with("top", "0"), 400, "top");
  expect_error(plan_with("top", "1001"), 400, "top");
  expect_error(plan_with("rejected", "-2"), 400, "rejected");
  expect_error(plan_with("rank", "fast"), 400, "rank");
  expect_error(plan_with("config", "100x100"), 400, "config");
  expect_error(plan_with("config", "128x128,stages=99"), 400, "config");
  expect_error(plan_with("tile", "128x128"), 400, "tile");  // a map parameter, not a plan one
}

// ------------------------------------------------------------------------ hardware, trace, routing

TEST(ExplorerHardware, BuiltInProfilesAndNoLiveGpu) {
  const Reply r = api_hardware({}, no_gpu());
  ASSERT_EQ(r.status, 200);
  const json j = json::parse(r.body);
  EXPECT_EQ(j["schema"], kHardwareJsonSchema);
  EXPECT_TRUE(j["live"].is_null());
  EXPECT_EQ(j["live_reason"], "no CUDA device (test)");
  const auto& table = plan::builtin_profiles();
  ASSERT_EQ(j["profiles"].size(), table.size());
  for (size_t i = 0; i < table.size(); ++i) {
    EXPECT_EQ(j["profiles"][i]["name"], table[i].name);
    EXPECT_EQ(j["profiles"][i]["sm_count"], table[i].sm_count);
    EXPECT_EQ(j["profiles"][i]["l2_bytes"], table[i].l2_bytes);
    EXPECT_EQ(j["profiles"][i]["derived"]["tensor_cores"], table[i].sm_count * 4);
    // The same model constants, key for key and value for value, as explain's "device" object
    // (less its note): one key list (plan/device_profile_json.hpp), not two kept in step by hand.
    json from_explain = json::parse(plan::explain_json(plan::make_plan(plan::Problem{1, 576, 7168}, table[i]),
                                                       std::nullopt, plan::ExplainOptions{}))["device"];
    from_explain.erase("note");
    json profile = j["profiles"][i];
    profile.erase("derived");
    EXPECT_EQ(profile, from_explain) << table[i].name;
  }
  // The per-SM table agrees with what the planner assumes of every built-in profile.
  EXPECT_EQ(j["sm_limits"]["smem_per_sm"], table[0].smem_per_sm);
  EXPECT_EQ(j["sm_limits"]["smem_per_cta_optin"], table[0].smem_per_block_optin);
  EXPECT_EQ(j["sm_limits"]["regs_per_sm"], table[0].regs_per_sm);
  EXPECT_EQ(j["sm_limits"]["max_warps_per_sm"], 64);
  expect_error(api_hardware({{"x", "1"}}, no_gpu()), 400, "x");
}

TEST(ExplorerHardware, LiveGpuWithItsProfile) {
  const json j = json::parse(api_hardware({}, fake_gpu()).body);
  ASSERT_TRUE(j["live"].is_object());
  EXPECT_TRUE(j["live_reason"].is_null());
  EXPECT_EQ(j["live"]["compute_capability"], "9.0");
  EXPECT_EQ(j["live"]["profile"]["name"], "live");
  EXPECT_EQ(j["live"]["sm_limits"]["source"], "fake");
  EXPECT_TRUE(j["live"]["measured_hbm_bytes_per_s"].is_null());
}

TEST(ExplorerTrace, NoTraceYetIsA404WithAMessage) {
  const Reply r = api_trace({}, no_gpu());
  expect_error(r, 404, "");
  EXPECT_NE(r.body.find("no trace yet"), std::string::npos);
  EXPECT_NE(r.body.find("tilegemm serve --trace"), std::string::npos);
}

TEST(ExplorerTrace, ServesTheTraceItWasGiven) {
  ApiContext ctx = no_gpu();
  ctx.trace_json = R"({"traceEvents": [{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 1}]})";
  const Reply r = handle_api("/api/trace", {}, ctx);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(nlohmann::json::parse(r.body)["traceEvents"].size(), 1u);
}

TEST(ExplorerRouting, KnownPathsAndA404ForTheRest) {
  const ApiContext ctx = no_gpu();
  EXPECT_EQ(handle_api("/api/hardware", {}, ctx).status, 200);
  EXPECT_EQ(handle_api("/api/map", {{"m", "1"}, {"n", "1"}, {"k", "1"}}, ctx).status, 200);
  EXPECT_EQ(handle_api("/api/plan", {{"m", "1"}, {"n", "1"}, {"k", "1"}}, ctx).status, 200);
  EXPECT_EQ(handle_api("/api/trace", {}, ctx).status, 404);
  const Reply r = handle_api("/api/maps", {}, ctx);
  expect_error(r, 404, "");
  EXPECT_NE(r.body.find("/api/hardware, /api/map, /api/plan, /api/trace"), std::string::npos);
}

}  // namespace
}  // namespace tilegemm::explorer
