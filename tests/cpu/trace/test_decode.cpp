// decode_trace on buffers made like the kernel makes them (synthetic_trace.hpp): every lane and
// event read back, overflow counted and never mistaken for a layout error, and each way a buffer
// can be wrong reported (magic, version, size, a lane that never finished, an event of another
// lane, a write past a lane's count).
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstring>

#include "synthetic_trace.hpp"
#include "trace/decode.hpp"

namespace tilegemm::trace {
namespace {

using test::events_per_lane;
using test::make_synthetic_trace;
using test::SyntheticSpec;

LaneHeader read_lane_header(const std::vector<uint8_t>& buf, uint32_t lanes, uint32_t cta, uint32_t lane) {
  LaneHeader h;
  std::memcpy(&h, buf.data() + lane_header_offset(lanes, cta, lane), sizeof(h));
  return h;
}
void write_lane_header(std::vector<uint8_t>& buf, uint32_t lanes, uint32_t cta, uint32_t lane, const LaneHeader& h) {
  std::memcpy(buf.data() + lane_header_offset(lanes, cta, lane), &h, sizeof(h));
}

TEST(TraceDecode, ReadsEveryLaneAndEvent) {
  const SyntheticSpec s;
  const std::vector<uint8_t> buf = make_synthetic_trace(s);
  DecodedTrace t;
  std::string error;
  ASSERT_TRUE(decode_trace(buf.data(), buf.size(), &t, &error)) << error;
  EXPECT_TRUE(t.problems.empty()) << t.problems.front();
  ASSERT_EQ(t.lanes.size(), s.ctas * (1 + s.consumers));
  EXPECT_EQ(t.consumers(), s.consumers);
  EXPECT_EQ(t.header.stages, s.stages);
  uint64_t total = 0;
  for (const LaneTrace& l : t.lanes) {
    EXPECT_TRUE(l.finished);
    EXPECT_EQ(l.smid, 2 * l.cta + 1);
    EXPECT_EQ(l.events.size(), events_per_lane(s, l.lane)) << lane_role(l.lane);
    EXPECT_EQ(l.dropped(), 0u);
    EXPECT_NEAR(l.clock_ghz(), 2.0, 1e-9);
    for (const Event& e : l.events) EXPECT_EQ(e.lane, l.lane);
    total += l.events.size();
  }
  EXPECT_EQ(t.events, total);
  EXPECT_EQ(t.dropped, 0u);
  EXPECT_EQ(lane_role(0), "producer");
  EXPECT_EQ(lane_role(2), "consumer 1");
}

TEST(TraceDecode, ReadsTheCtaEntryStampAndAnEntryAfterTheBeginIsReported) {
  SyntheticSpec s;
  s.entry_lead_ns = 500;
  std::vector<uint8_t> buf = make_synthetic_trace(s);
  DecodedTrace t;
  std::string error;
  ASSERT_TRUE(decode_trace(buf.data(), buf.size(), &t, &error)) << error;
  EXPECT_TRUE(t.problems.empty()) << t.problems.front();
  for (const LaneTrace& l : t.lanes) EXPECT_EQ(l.entry_ns, s.t0 + 900 - 500 + 11 * l.cta) << l.cta << " " << l.lane;
  // Without the stamp (0) the lanes read 0 and nothing is reported.
  const std::vector<uint8_t> plain = make_synthetic_trace(SyntheticSpec{});
  DecodedTrace u;
  ASSERT_TRUE(decode_trace(plain.data(), plain.size(), &u, &error)) << error;
  EXPECT_TRUE(u.problems.empty());
  for (const LaneTrace& l : u.lanes) EXPECT_EQ(l.entry_ns, 0u);
  // An entry stamped after its role began cannot be: reported, naming the lane.
  const uint32_t lanes = 1 + s.consumers;
  LaneHeader h = read_lane_header(buf, lanes, 1, 2);
  h.entry_ns = h.begin_ns + 1;
  write_lane_header(buf, lanes, 1, 2, h);
  DecodedTrace bad;
  ASSERT_TRUE(decode_trace(buf.data(), buf.size(), &bad, &error)) << error;
  ASSERT_EQ(bad.problems.size(), 1u);
  EXPECT_NE(bad.problems[0].find("CTA 1"), std::string::npos) << bad.problems[0];
  EXPECT_NE(bad.problems[0].find("after its role began"), std::string::npos) << bad.problems[0];
}

TEST(TraceDecode, OverflowIsCountedNotAnError) {
  SyntheticSpec s;
  s.capacity = 10;
  const std::vector<uint8_t> buf = make_synthetic_trace(s);
  DecodedTrace t;
  std::string error;
  ASSERT_TRUE(decode_trace(buf.data(), buf.size(), &t, &error)) << error;
  EXPECT_TRUE(t.problems.empty()) << t.problems.front();
  uint64_t dropped = 0;
  for (const LaneTrace& l : t.lanes) {
    EXPECT_EQ(l.events.size(), 10u);
    EXPECT_EQ(l.attempted, events_per_lane(s, l.lane));
    EXPECT_EQ(l.dropped(), events_per_lane(s, l.lane) - 10);
    dropped += l.dropped();
  }
  EXPECT_EQ(t.dropped, dropped);
  EXPECT_GT(dropped, 0u);
}

TEST(TraceDecode, AWritePastTheCountIsReported) {
  const SyntheticSpec s;
  std::vector<uint8_t> buf = make_synthetic_trace(s);
  const uint32_t lanes = 1 + s.consumers;
  LaneHeader h = read_lane_header(buf, lanes, 1, 2);
  h.attempted = 5;  // the lane says 5, but its slice holds more
  write_lane_header(buf, lanes, 1, 2, h);
  DecodedTrace t;
  std::string error;
  ASSERT_TRUE(decode_trace(buf.data(), buf.size(), &t, &error)) << error;
  ASSERT_EQ(t.problems.size(), 1u);
  EXPECT_NE(t.problems[0].find("CTA 1 consumer 1"), std::string::npos) << t.problems[0];
  EXPECT_NE(t.problems[0].find("written past"), std::string::npos) << t.problems[0];
  EXPECT_EQ(t.lane(1, 2).events.size(), 5u);
}

TEST(TraceDecode, UnfinishedLaneAndForeignEventAreReported) {
  const SyntheticSpec s;
  std::vector<uint8_t> buf = make_synthetic_trace(s);
  const uint32_t lanes = 1 + s.consumers;
  LaneHeader h = read_lane_header(buf, lanes, 0, 1);
  h.magic = 0;
  write_lane_header(buf, lanes, 0, 1, h);
  test::lane_events(buf, 1, 0)[3].lane = 2;
  DecodedTrace t;
  std::string error;
  ASSERT_TRUE(decode_trace(buf.data(), buf.size(), &t, &error)) << error;
  ASSERT_GE(t.problems.size(), 2u);
  bool unfinished = false, foreign = false;
  for (const std::string& p : t.problems) {
    unfinished = unfinished || p.find("CTA 0 consumer 0: no lane header") != std::string::npos;
    foreign = foreign || p.find("CTA 1 producer: event 3 has kind") != std::string::npos;
  }
  EXPECT_TRUE(unfinished);
  EXPECT_TRUE(foreign);
  EXPECT_FALSE(t.lane(0, 1).finished);
  EXPECT_EQ(t.lane(1, 0).events.size(), 3u);  // cut at the bad event
}

TEST(TraceDecode, RefusesWhatIsNotATraceBuffer) {
  const std::vector<uint8_t> good = make_synthetic_trace(SyntheticSpec{});
  DecodedTrace t;
  std::string error;
  EXPECT_FALSE(decode_trace(good.data(), 10, &t, &error));
  EXPECT_NE(error.find("shorter than its 64-byte header"), std::string::npos) << error;
  std::vector<uint8_t> bad = good;
  bad[0] ^= 1;
  EXPECT_FALSE(decode_trace(bad.data(), bad.size(), &t, &error));
  EXPECT_NE(error.find("magic"), std::string::npos) << error;
  bad = good;
  bad[4] = 9;  // version
  EXPECT_FALSE(decode_trace(bad.data(), bad.size(), &t, &error));
  EXPECT_NE(error.find("layout version 9"), std::string::npos) << error;
  EXPECT_FALSE(decode_trace(good.data(), good.size() - 32, &t, &error));
  EXPECT_NE(error.find("needs " + std::to_string(good.size())), std::string::npos) << error;
  EXPECT_TRUE(decode_trace(good.data(), good.size(), &t, &error)) << error;
}

// A trace whose every event has fine %globaltimer readings keeps them; one with a coarse timer, or
// with steps timed by the SM clock alone (the kernel's), is placed by the SM clock through the
// CTA's anchors: the true times come back within the timer's step, the lengths within 0.2%.
TEST(TraceDecode, StepsArePlacedByTheSmClock) {
  SyntheticSpec fine, coarse, kernel;
  coarse.tick_ns = 64;
  kernel.tick_ns = 32;
  kernel.clock_only_steps = true;
  const std::vector<uint8_t> a = make_synthetic_trace(fine), b = make_synthetic_trace(coarse),
                             c = make_synthetic_trace(kernel);
  DecodedTrace ta, tb, tc, td;
  std::string error;
  ASSERT_TRUE(decode_trace(a.data(), a.size(), &ta, &error)) << error;
  ASSERT_TRUE(decode_trace(b.data(), b.size(), &tb, &error)) << error;
  ASSERT_TRUE(decode_trace(c.data(), c.size(), &tc, &error)) << error;
  ASSERT_TRUE(decode_trace(a.data(), a.size(), &td, &error, TimeBase::sm_clock)) << error;
  EXPECT_EQ(ta.time_base, TimeBase::global_timer);
  EXPECT_EQ(tb.time_base, TimeBase::sm_clock);
  EXPECT_EQ(tc.time_base, TimeBase::sm_clock);
  EXPECT_LE(ta.timer_tick_ns, kFineTickNs);
  EXPECT_EQ(tb.timer_tick_ns, 64.0);
  EXPECT_EQ(tc.timer_tick_ns, 32.0);
  EXPECT_STREQ(time_base_name(tb.time_base), "sm_clock");
  for (size_t l = 0; l < ta.lanes.size(); ++l)
    for (size_t i = 0; i < ta.lanes[l].events.size(); ++i) {
      const Event& x = ta.lanes[l].events[i];
      for (const DecodedTrace* t : {&tb, &tc, &td}) {
        const Event& y = t->lanes[l].events[i];
        EXPECT_LE(std::abs(double(int64_t(y.start_ns - x.start_ns))), t->timer_tick_ns) << l << " " << i;
        EXPECT_NEAR(double(y.dur_ns), double(x.dur_ns), 1.0 + 0.002 * x.dur_ns);  // the fitted rate
      }
    }
}

TEST(TraceDecode, SliceKeepsTheFirstCtas) {
  SyntheticSpec s;
  s.ctas = 5;
  const std::vector<uint8_t> full = make_synthetic_trace(s);
  std::string error;
  const std::vector<uint8_t> cut = slice_buffer(full, 2, &error);
  ASSERT_FALSE(cut.empty()) << error;
  DecodedTrace a, b;
  ASSERT_TRUE(decode_trace(full.data(), full.size(), &a, &error)) << error;
  ASSERT_TRUE(decode_trace(cut.data(), cut.size(), &b, &error)) << error;
  EXPECT_TRUE(b.problems.empty()) << b.problems.front();
  ASSERT_EQ(b.header.ctas, 2u);
  ASSERT_EQ(b.lanes.size(), 2u * b.header.lanes);
  for (size_t i = 0; i < b.lanes.size(); ++i) {
    ASSERT_EQ(b.lanes[i].events.size(), a.lanes[i].events.size());
    EXPECT_EQ(std::memcmp(b.lanes[i].events.data(), a.lanes[i].events.data(), b.lanes[i].events.size() * sizeof(Event)), 0);
  }
  EXPECT_TRUE(slice_buffer(std::vector<uint8_t>(10), 1, &error).empty());
}

TEST(TraceLayout, TheEntryStampIsTheHeadersLastEightBytes) {
  EXPECT_EQ(offsetof(LaneHeader, entry_ns), size_t(kLaneEntryOffset));
  EXPECT_EQ(kLaneEntryOffset + sizeof(uint64_t), sizeof(LaneHeader));
}

TEST(TraceLayout, OffsetsTileTheBuffer) {
  // Headers, then lane slices back to back: the last slice ends exactly at buffer_bytes.
  EXPECT_EQ(lane_header_offset(3, 0, 0), sizeof(BufferHeader));
  EXPECT_EQ(lane_header_offset(3, 1, 2), sizeof(BufferHeader) + 5 * sizeof(LaneHeader));
  EXPECT_EQ(lane_events_offset(4, 3, 10, 0, 0), sizeof(BufferHeader) + 12 * sizeof(LaneHeader));
  EXPECT_EQ(lane_events_offset(4, 3, 10, 3, 2) + 10 * sizeof(Event), buffer_bytes(4, 3, 10));
  for (int k = 0; k < kEventKinds; ++k) {
    EXPECT_STRNE(event_kind_id(EventKind(k)), "unknown");
    EXPECT_STRNE(event_kind_label(EventKind(k)), "unknown");
  }
}

}  // namespace
}  // namespace tilegemm::trace
