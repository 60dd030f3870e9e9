// Buffers recorded by the traced kernel on the H200 (tests/cpu/trace/fixtures/, the first 4 CTAs
// of `tilegemm trace ... --raw`, docs/TRACE.md): they decode with no problem and nothing dropped,
// every lane appended exactly the events the kernel's code appends for its tiles, the pipeline
// invariants hold, the Chrome-trace JSON nests, and a broken copy is caught.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "json_checks.hpp"
#include "trace/chrome_trace.hpp"
#include "trace/decode.hpp"
#include "trace/invariants.hpp"
#include "trace/summary.hpp"

namespace tilegemm::trace {
namespace {

struct Fixture {
  const char* file;
  uint32_t consumers, stages, kblocks_per_tile;
  uint32_t epilogue_parts;  // events inside each epilogue: 1 direct, 3 per staged box (TMA store)
  bool drain;               // the TMA-store epilogue's final wait
};

// 256x512x1024, 64x16 direct (one consumer, 16 k-blocks); 4096x2048x128, 128x256 TMA store in
// two 128-column slots (4 boxes, 2 k-blocks per tile, 2 tiles per CTA).
const Fixture kFixtures[] = {
    {"h200_256x512x1024_direct.tgtrace", 1, 16, 16, 1, false},
    {"h200_4096x2048x128_tma_store.tgtrace", 2, 4, 2, 12, true},
};

std::vector<uint8_t> read(const char* name) {
  std::ifstream f(std::string(TILEGEMM_SOURCE_DIR) + "/tests/cpu/trace/fixtures/" + name, std::ios::binary);
  EXPECT_TRUE(f) << name;
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

TEST(TraceFixture, RecordedBuffersDecodeWithTheKernelsEventCounts) {
  for (const Fixture& fx : kFixtures) {
    SCOPED_TRACE(fx.file);
    const std::vector<uint8_t> raw = read(fx.file);
    DecodedTrace t;
    std::string error;
    ASSERT_TRUE(decode_trace(raw.data(), raw.size(), &t, &error)) << error;
    EXPECT_TRUE(t.problems.empty()) << t.problems.front();
    EXPECT_EQ(t.dropped, 0u);
    EXPECT_EQ(t.time_base, TimeBase::sm_clock);  // the kernel's steps carry no %globaltimer reading
    EXPECT_EQ(t.timer_tick_ns, 32.0);            // the H200's global timer step
    EXPECT_EQ(t.header.ctas, 4u);
    EXPECT_EQ(t.consumers(), fx.consumers);
    EXPECT_EQ(t.header.stages, fx.stages);
    for (const LaneTrace& l : t.lanes) {
      ASSERT_TRUE(l.finished);
      EXPECT_GT(l.clock_ghz(), 1.0);
      EXPECT_LT(l.clock_ghz(), 2.1);
      const uint32_t per_tile = l.is_producer() ? 1 + 2 * fx.kblocks_per_tile
                                                : 1 + 4 * fx.kblocks_per_tile + 1 + fx.epilogue_parts;
      EXPECT_EQ(l.attempted, l.units * per_tile + (!l.is_producer() && fx.drain ? 1 : 0)) << "CTA " << l.cta;
      EXPECT_EQ(l.events.size(), l.attempted);
    }
    const InvariantReport r = check_invariants(t);
    EXPECT_TRUE(r.ok()) << r.violations.front();
    EXPECT_EQ(r.kblocks_checked, r.tiles_checked * fx.kblocks_per_tile);
    const TraceSummary s = summarize(t);
    EXPECT_GT(s.consumer.busy_pct, 50.0);
    EXPECT_GT(s.kblock_step_ns, 100.0);
    EXPECT_LT(s.kblock_step_ns, 2000.0);
    if (fx.drain) EXPECT_EQ(s.epilogues_followed, 4u * fx.consumers);  // 2 tiles per CTA: one follows
    TraceDocument doc;
    doc.device = &t;
    const nlohmann::json j = chrome_trace(doc);
    EXPECT_EQ(test::expect_nested_lanes(j), t.events);
  }
}

TEST(TraceFixture, ABrokenRecordingIsCaught) {
  std::vector<uint8_t> raw = read(kFixtures[1].file);
  DecodedTrace t;
  std::string error;
  ASSERT_TRUE(decode_trace(raw.data(), raw.size(), &t, &error)) << error;
  // Swap the k-blocks of CTA 2's consumer 1: its steps no longer follow the ring.
  BufferHeader h;
  std::memcpy(&h, raw.data(), sizeof(h));
  Event* e = reinterpret_cast<Event*>(raw.data() + lane_events_offset(h.ctas, h.lanes, h.lane_capacity, 2, 2));
  for (uint32_t i = 0; i < 10; ++i)
    if (e[i].kind == uint8_t(EventKind::wait_full)) e[i].k_block ^= 1;
  ASSERT_TRUE(decode_trace(raw.data(), raw.size(), &t, &error)) << error;
  const InvariantReport r = check_invariants(t);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.violations.front().find("CTA 2 consumer 1"), std::string::npos) << r.violations.front();
}

}  // namespace
}  // namespace tilegemm::trace
