// The traced kernel on the GPU (docs/TRACE.md), through gemm_with_options with a TraceCapture:
// the result is correct (the case runner's check against the CPU reference), the buffer decodes
// with no layout problem and nothing dropped, every lane finished on a real SM, and the pipeline
// has its structure (trace/invariants.hpp: per stage TMA -> WAIT FULL -> WGMMA -> release in
// order, one epilogue per tile, the same tiles on every role), for every epilogue, one and two
// consumers, a cluster, split-K, an MN-major layout and persistent CTAs with several tiles. A
// small capacity overflows without a write past the buffer; CUPTI (when it loads) sees the kernel.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/route.hpp"
#include "api/trace_capture.hpp"
#include "bench/cupti_activity.hpp"
#include "bench/runner.hpp"
#include "core/layout_names.hpp"
#include "forced_config.hpp"
#include "plan/config_spec.hpp"
#include "trace/decode.hpp"
#include "trace/invariants.hpp"
#include "trace/summary.hpp"

namespace tilegemm {
namespace {

struct TraceCase {
  int64_t m, n, k;
  std::string config;  // "" = the planner's
  const char* layout = "nt";
};

// Runs `c` traced through run_case (checked against the reference) and decodes its buffer.
void traced_run(const TraceCase& c, detail::TraceCapture& capture, trace::DecodedTrace* out) {
  bench::Case bc;
  bc.m = c.m, bc.n = c.n, bc.k = c.k;
  ASSERT_TRUE(parse_layout(c.layout, &bc.a_major, &bc.b_major));
  detail::GemmOptions options;
  ASSERT_TRUE(test::forced_config(c.config, &options));
  options.trace = &capture;
  bench::RunOptions run;
  run.with_cublas = false;
  run.measure = false;
  const bench::CaseResult r =
      bench::run_case(bc, [&](const GemmArgs& args) { return detail::gemm_with_options(args, options); }, run);
  ASSERT_TRUE(r.passed()) << r.candidate.verdict() << " " << r.setup.message;
  ASSERT_TRUE(capture.config.trace);
  std::vector<uint8_t> raw;
  const Status s = capture.download(&raw);
  ASSERT_TRUE(s.ok()) << s.message;
  std::string error;
  ASSERT_TRUE(trace::decode_trace(raw.data(), raw.size(), out, &error)) << error;
}

TEST(TraceGpu, PipelineStructureForEveryKindOfConfig) {
  int sms = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  const TraceCase cases[] = {
      {256, 512, 1024, ""},                        // the planner's pick
      {2048, 2048, 512, "128x128"},                // 256 tiles on <= 132 CTAs: several tiles per CTA
      {300, 520, 640, "128x208"},                  // direct epilogue, ragged M and N
      {512, 1024, 768, "64x256,stages=4"},         // one consumer
      {1024, 1024, 512, "128x256,cluster=2x1"},    // B multicast
      {64, 2048, 4096, "64x128,splitk=4"},         // split-K partials
      {512, 512, 512, "", "tn"},                   // MN-major A and B
      {1024, 768, 1024, "128x192,static"},         // one CTA per tile
      {2048, 2048, 512, "128x128,pingpong"},       // consumers taking turns (BufferHeader::flags)
  };
  for (const TraceCase& c : cases) {
    SCOPED_TRACE(std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k) + " '" + c.config +
                 "' " + c.layout);
    detail::TraceCapture capture;
    trace::DecodedTrace t;
    traced_run(c, capture, &t);
    if (HasFatalFailure()) return;
    SCOPED_TRACE(plan::describe(capture.config));
    EXPECT_TRUE(t.problems.empty()) << t.problems.front();
    EXPECT_EQ(t.dropped, 0u);
    EXPECT_EQ(t.header.ctas, uint32_t(capture.grid));
    EXPECT_EQ(t.header.lanes, uint32_t(1 + capture.config.consumers()));
    const int64_t num_kb = (c.k + 63) / 64;
    uint32_t max_units = 0;
    for (const trace::LaneTrace& l : t.lanes) {
      ASSERT_TRUE(l.finished);
      EXPECT_LT(l.smid, uint32_t(sms));
      EXPECT_LE(l.attempted, l.capacity);
      EXPECT_GT(l.clock_ghz(), 0.5);
      max_units = std::max(max_units, l.units);
      if (l.is_producer() && capture.config.split_k == 1)
        EXPECT_EQ(l.attempted, l.units * (1 + 2 * num_kb)) << "CTA " << l.cta;
      for (const trace::Event& e : l.events) {  // inside the lane's cycle anchors
        EXPECT_GE(int32_t(e.start_clk - uint32_t(l.begin_clk)), 0);
        EXPECT_LE(int32_t(e.start_clk + e.dur_clk - uint32_t(l.end_clk)), 0);
        EXPECT_EQ(e.start_ns == 0, false) << "a decoded event without a time";
      }
    }
    if (c.config == "128x128") EXPECT_GE(max_units, 2u) << "no CTA ran a second tile";
    const trace::InvariantReport r = trace::check_invariants(t);
    EXPECT_TRUE(r.ok()) << r.count << " violations, first: " << r.violations.front();
    EXPECT_GT(r.tiles_checked, 0u);
    const trace::TraceSummary s = trace::summarize(t);
    // (Every consumer issues every k-block's wgmma; ping-pong consumers only their own tiles'.)
    const uint32_t issuers = capture.config.pingpong ? 1u : std::max<uint32_t>(t.consumers(), 1);
    EXPECT_EQ(s.producer.of(trace::EventKind::tma_issue).count, s.consumer.of(trace::EventKind::wgmma_issue).count / issuers);
    EXPECT_EQ((t.header.flags & trace::kBufferPingpong) != 0, capture.config.pingpong);
    EXPECT_EQ(t.time_base, trace::TimeBase::sm_clock);
    std::printf("  %-58s %6llu events, %3u CTAs, timer step %.0f ns, busy producer %.0f%% consumers %.0f%%\n",
                plan::describe(capture.config).c_str(), static_cast<unsigned long long>(t.events), t.header.ctas,
                s.timer_tick_ns, s.producer.busy_pct, s.consumer.busy_pct);
  }
}

TEST(TraceGpu, OverflowIsCountedAndNeverWrittenPast) {
  detail::TraceCapture capture(/*lane_capacity=*/7);
  trace::DecodedTrace t;
  traced_run({512, 512, 1024, "128x128"}, capture, &t);  // download() checked the guard behind the buffer
  if (HasFatalFailure()) return;
  EXPECT_TRUE(t.problems.empty()) << t.problems.front();
  EXPECT_GT(t.dropped, 0u);
  for (const trace::LaneTrace& l : t.lanes) {
    EXPECT_EQ(l.events.size(), 7u);
    EXPECT_GT(l.attempted, 7u);
    EXPECT_EQ(l.dropped(), l.attempted - 7u);
  }
}

TEST(TraceGpu, HostSpansAndCuptiSeeTheCall) {
  detail::TraceCapture capture;
  bench::ActivityRecording recording;
  trace::DecodedTrace t;
  traced_run({256, 256, 256, ""}, capture, &t);
  if (HasFatalFailure()) return;
  std::vector<std::string> names;
  for (const detail::HostSpanRecord& s : capture.spans) {
    names.push_back(s.name);
    EXPECT_LE(s.start_ns, s.end_ns) << s.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"validate", "device", "route", "plan", "JIT kernel", "trace buffer",
                                             "launch"}));
  // Every CTA stamped its entry into all its lane headers, before its roles began.
  for (const trace::LaneTrace& l : t.lanes) {
    ASSERT_TRUE(l.finished);
    EXPECT_NE(l.entry_ns, 0u) << "CTA " << l.cta << " lane " << l.lane;
    EXPECT_LE(l.entry_ns, l.begin_ns) << "CTA " << l.cta << " lane " << l.lane;
    EXPECT_EQ(l.entry_ns, t.lane(l.cta, 0).entry_ns) << "CTA " << l.cta << " lane " << l.lane;
  }
  // %globaltimer against the host's clock: the first instruction lies after the launch began.
  uint64_t first = ~0ull;
  for (const trace::LaneTrace& l : t.lanes) first = std::min(first, l.entry_ns);
  std::printf("  launch span start -> first instruction: %.3f us (%%globaltimer - CLOCK_REALTIME)\n",
              (double(first) - double(capture.spans.back().start_ns)) * 1e-3);
  if (!recording.ok()) GTEST_SKIP() << "CUPTI: " << recording.reason();
  std::vector<bench::ActivityRecord> records;
  std::string error;
  ASSERT_TRUE(recording.finish(&records, &error)) << error;
  const bench::ActivityRecord* kernel = nullptr;
  for (const bench::ActivityRecord& r : records)
    if (r.kind == bench::ActivityKind::kernel && r.name == "tilegemm_gemm") kernel = &r;
  ASSERT_NE(kernel, nullptr) << records.size() << " records, no tilegemm_gemm kernel";
  bool launch = false;
  for (const bench::ActivityRecord& r : records)
    launch = launch || (r.kind == bench::ActivityKind::driver_api && r.correlation_id == kernel->correlation_id);
  EXPECT_TRUE(launch) << "no driver API record shares the kernel's correlation id";
  EXPECT_EQ(kernel->grid[0], uint32_t(capture.grid));
  std::printf("  CUPTI kernel start - first instruction: %.3f us\n", (double(kernel->start_ns) - double(first)) * 1e-3);
}

}  // namespace
}  // namespace tilegemm
