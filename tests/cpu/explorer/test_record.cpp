// POST /api/trace/record without a GPU: every parameter checked before anything runs (400 naming
// it), no Hopper GPU is a 503 that says why, one recording at a time (429), the recorder's request
// is the call the parameters describe, and its recording comes back as the Chrome-trace document
// (a stand-in recorder here: it decodes the H200 fixture of tests/cpu/trace/fixtures).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "explorer/api.hpp"
#include "explorer_test_helpers.hpp"
#include "trace/record.hpp"

namespace tilegemm::explorer {
namespace {

using nlohmann::json;

const QueryParams kSmall = {{"m", "256"}, {"n", "512"}, {"k", "1024"}};

QueryParams with(QueryParams extra) {
  QueryParams q = kSmall;
  q.insert(q.end(), extra.begin(), extra.end());
  return q;
}

// A recorder that "records" the 4096x2048x128 fixture (4 CTAs, TMA-store epilogue) and keeps the
// request it was given.
struct FixtureRecorder {
  std::shared_ptr<trace::RecordRequest> seen = std::make_shared<trace::RecordRequest>();
  Status operator()(const trace::RecordRequest& rq, trace::Recording* out) const {
    *seen = rq;
    const std::filesystem::path raw =
        std::filesystem::path(TILEGEMM_SOURCE_DIR) / "tests/cpu/trace/fixtures/h200_4096x2048x128_tma_store.tgtrace";
    std::ifstream f(raw, std::ios::binary);
    out->raw.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
    std::string error;
    if (!trace::decode_trace(out->raw.data(), out->raw.size(), &out->decoded, &error))
      return Status{ErrorCode::cuda_error, "trace", error};
    out->summary = trace::summarize(out->decoded);
    out->invariants = trace::check_invariants(out->decoded);
    out->info = {{"schema", trace::kTraceInfoSchema}, {"problem", "fixture"}, {"check", "ok"}, {"grid", 4}};
    trace::add_findings(out->decoded, out->summary, out->invariants, -1.0, &out->info);
    return Status::success();
  }
};

ApiContext recording_gpu(FixtureRecorder rec = {}) {
  ApiContext ctx = fake_gpu();
  ctx.recorder = rec;
  return ctx;
}

TEST(ExplorerRecord, BadParametersAre400sBeforeAnythingRuns) {
  const ApiContext ctx = recording_gpu();
  expect_error(api_trace_record({{"m", "256"}, {"n", "512"}}, ctx), 400, "k");
  expect_error(api_trace_record({{"m", "0"}, {"n", "512"}, {"k", "1024"}}, ctx), 400, "m");
  expect_error(api_trace_record({{"m", "256"}, {"n", "16385"}, {"k", "1024"}}, ctx), 400, "n");
  // M·N·K over 2^36: no single parameter is at fault.
  const Reply big = api_trace_record({{"m", "8192"}, {"n", "8192"}, {"k", "2048"}}, ctx);
  expect_error(big, 400, "");
  EXPECT_NE(big.body.find("2^36"), std::string::npos) << big.body;
  EXPECT_EQ(api_trace_record({{"m", "4096"}, {"n", "4096"}, {"k", "4096"}}, ctx).status, 200);  // exactly 2^36
  expect_error(api_trace_record(with({{"layout", "xy"}}), ctx), 400, "layout");
  expect_error(api_trace_record(with({{"out", "fp8"}}), ctx), 400, "out");
  expect_error(api_trace_record(with({{"config", "100x100"}}), ctx), 400, "config");
  expect_error(api_trace_record(with({{"ctas", "0"}}), ctx), 400, "ctas");
  expect_error(api_trace_record(with({{"ctas", "65"}}), ctx), 400, "ctas");
  expect_error(api_trace_record(with({{"in_place", "1"}}), ctx), 400, "in_place");
  expect_error(api_trace_record(with({{"beta", "1"}, {"c_dtype", "fp32"}}), ctx), 400, "c_dtype");
  expect_error(api_trace_record(with({{"d_major", "diag"}}), ctx), 400, "d_major");
  // Storage options a traced call cannot take (its matrices are cudaMalloc'ed and packed).
  expect_error(api_trace_record(with({{"lda", "1024"}}), ctx), 400, "lda");
  expect_error(api_trace_record(with({{"offset_a", "1"}}), ctx), 400, "offset_a");
}

TEST(ExplorerRecord, WithoutAHopperGpuIsA503ThatSaysWhy) {
  ApiContext none = no_gpu();
  none.recorder = FixtureRecorder{};
  const Reply r = api_trace_record(kSmall, none);
  expect_error(r, 503, "");
  EXPECT_NE(r.body.find("no Hopper GPU here: no CUDA device (test)"), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("tilegemm trace"), std::string::npos) << r.body;  // and what to do instead
  ApiContext ampere = recording_gpu();
  ampere.live.name = "NVIDIA A100 (fake)";
  ampere.live.cc_major = 8;
  const Reply a = api_trace_record(kSmall, ampere);
  expect_error(a, 503, "");
  EXPECT_NE(a.body.find("compute capability 8.0"), std::string::npos) << a.body;
  ApiContext no_recorder = fake_gpu();
  expect_error(api_trace_record(kSmall, no_recorder), 503, "");
  // Parameters are still checked first: a 400, not a 503.
  expect_error(api_trace_record({{"m", "x"}, {"n", "1"}, {"k", "1"}}, none), 400, "m");
}

TEST(ExplorerRecord, TheRecorderGetsTheCallAndItsDocumentComesBack) {
  FixtureRecorder rec;
  const ApiContext ctx = recording_gpu(rec);
  const Reply r = api_trace_record(with({{"layout", "tt"}, {"out", "fp32"}, {"d_major", "col"}, {"beta", "0.5"},
                                         {"alpha", "2"}, {"in_place", "true"}, {"config", "128x256,stages=4"},
                                         {"ctas", "3"}}),
                                   ctx);
  ASSERT_EQ(r.status, 200) << r.body.substr(0, 300);
  const trace::RecordRequest& rq = *rec.seen;
  EXPECT_EQ(rq.problem.m, 256);
  EXPECT_EQ(rq.problem.n, 512);
  EXPECT_EQ(rq.problem.k, 1024);
  EXPECT_EQ(rq.problem.a_major, Major::mn_major);  // tt: A M-major ("t"), B K-major ("t")
  EXPECT_EQ(rq.problem.b_major, Major::k_major);
  EXPECT_EQ(rq.problem.out, DType::fp32);
  EXPECT_EQ(rq.problem.d_major, col_major);
  EXPECT_TRUE(rq.problem.with_c);
  EXPECT_TRUE(rq.problem.in_place);
  EXPECT_EQ(rq.problem.beta, 0.5f);
  EXPECT_EQ(rq.problem.alpha, 2.0f);
  ASSERT_TRUE(rq.config.has_value());
  EXPECT_EQ(rq.config->bm, 128);
  EXPECT_EQ(rq.config->bn, 256);
  EXPECT_TRUE(rq.config_stages_given);
  EXPECT_TRUE(rq.warm);

  // The reply is the recording's document with the CTAs asked for (3 of the fixture's 4).
  trace::Recording again;
  ASSERT_TRUE(FixtureRecorder{}(rq, &again).ok());
  again.info["ctas_in_document"] = 3;
  const json got = json::parse(r.body);
  EXPECT_EQ(got, trace::recording_document(again, 3));
  EXPECT_EQ(got["otherData"]["ctas_in_document"], 3);
  std::set<int> ctas;
  for (const auto& e : got["traceEvents"])
    if (e.contains("args") && e["args"].contains("cta")) ctas.insert(e["args"]["cta"].get<int>());
  EXPECT_EQ(ctas, (std::set<int>{0, 1, 2}));
  // Default: 8 CTAs asked, the fixture has 4.
  const json all = json::parse(api_trace_record(kSmall, ctx).body);
  EXPECT_EQ(all["otherData"]["ctas_in_document"], 4);
  EXPECT_FALSE(all["otherData"].contains("ctas_note"));
}

TEST(ExplorerRecord, OneRecordingAtATime) {
  const ApiContext ctx = recording_gpu();
  {
    std::lock_guard<std::mutex> busy(*ctx.recording);  // a recording in progress
    expect_error(api_trace_record(kSmall, ctx), 429, "");
  }
  EXPECT_EQ(api_trace_record(kSmall, ctx).status, 200);
}

TEST(ExplorerRecord, TheRecordersErrorsKeepTheirMeaning) {
  ApiContext ctx = fake_gpu();
  auto failing = [&](Status s) {
    ctx.recorder = [s](const trace::RecordRequest&, trace::Recording*) { return s; };
    return api_trace_record(kSmall, ctx);
  };
  expect_error(failing({ErrorCode::no_device, "device", "no Hopper (sm_90) GPU found: gone"}), 503, "");
  expect_error(failing({ErrorCode::invalid_argument, "config", "config 64x16: the problem cannot take it"}), 400, "config");
  expect_error(failing({ErrorCode::cuda_error, "trace", "the traced kernel: an illegal address"}), 500, "");
}

TEST(ExplorerRecord, CtasWithinTheEventBudget) {
  trace::Recording rec;
  ASSERT_TRUE(FixtureRecorder{}({}, &rec).ok());
  const trace::DecodedTrace& t = rec.decoded;
  uint64_t cta0 = 0;
  for (uint32_t l = 0; l < t.header.lanes; ++l) cta0 += t.lane(0, l).events.size();
  EXPECT_EQ(trace::ctas_within(t, 8, 1000000), 4u);
  EXPECT_EQ(trace::ctas_within(t, 2, 1000000), 2u);
  EXPECT_EQ(trace::ctas_within(t, 8, cta0), 1u);      // exactly one CTA's events
  EXPECT_EQ(trace::ctas_within(t, 8, 2 * cta0), 2u);  // the fixture's CTAs have as many events each
  EXPECT_EQ(trace::ctas_within(t, 8, 1), 1u);         // at least one, whatever its count
}

// ------------------------------------------------------------------------------- the POST layer

TEST(ExplorerPost, AJsonObjectBodyIsTheParameters) {
  QueryParams q;
  ASSERT_FALSE(params_from_json(R"({"m": 256, "layout": "tn", "in_place": true, "beta": 0.5, "x": false})", &q));
  EXPECT_EQ(q, (QueryParams{{"m", "256"}, {"layout", "tn"}, {"in_place", "1"}, {"beta", "0.5"}, {"x", "0"}}));
  q.clear();
  EXPECT_FALSE(params_from_json("", &q));  // no body: no parameters
  EXPECT_TRUE(q.empty());
  auto e = params_from_json(R"({"m": [256]})", &q);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->parameter, "m");
  e = params_from_json("[1, 2]", &q);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->parameter, "");
  EXPECT_TRUE(params_from_json("{\"m\": ", &q));  // not JSON
}

TEST(ExplorerPost, OnlyTheRecordEndpointTakesAPost) {
  const ApiContext ctx = no_gpu();
  const std::string body = R"({"m": 256, "n": 512, "k": 1024})";
  expect_error(handle_api_post("/api/trace/record", "application/json", body, ctx), 503, "");
  expect_error(handle_api_post("/api/trace/record", "application/json; charset=utf-8", body, ctx), 503, "");
  expect_error(handle_api_post("/api/trace/record", "text/plain", body, ctx), 415, "");
  expect_error(handle_api_post("/api/trace/record", "application/x-www-form-urlencoded", "m=1", ctx), 415, "");
  expect_error(handle_api_post("/api/trace/record", "application/json", R"({"m": {}})", ctx), 400, "m");
  expect_error(handle_api_post("/api/trace/record", "application/json", R"({"m": 1, "n": 1, "k": 1, "q": 1})", ctx),
               400, "q");
  const Reply other = handle_api_post("/api/map", "application/json", body, ctx);
  expect_error(other, 405, "");
  EXPECT_EQ(other.allow, "GET, HEAD");
  const Reply get = handle_api("/api/trace/record", {}, ctx);
  expect_error(get, 405, "");
  EXPECT_EQ(get.allow, "POST");
}

}  // namespace
}  // namespace tilegemm::explorer
