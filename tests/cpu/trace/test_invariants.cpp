// check_invariants: a trace made like the kernel makes it passes, and each kind of broken
// pipeline order is caught (a WGMMA before its WAIT FULL, a wrong ring stage, a missing epilogue,
// a load that landed before it was issued, a stage reused before it was released).
#include <gtest/gtest.h>

#include <cstring>
#include <utility>

#include "synthetic_trace.hpp"
#include "trace/decode.hpp"
#include "trace/invariants.hpp"

namespace tilegemm::trace {
namespace {

using test::make_synthetic_trace;
using test::SyntheticSpec;

InvariantReport check(const std::vector<uint8_t>& buf) {
  DecodedTrace t;
  std::string error;
  EXPECT_TRUE(decode_trace(buf.data(), buf.size(), &t, &error)) << error;
  return check_invariants(t);
}

// Index of the n-th event of `kind` in a lane.
int find(Event* events, uint32_t count, EventKind kind, int n = 0) {
  for (uint32_t i = 0; i < count; ++i)
    if (events[i].kind == uint8_t(kind) && n-- == 0) return int(i);
  return -1;
}

bool mentions(const InvariantReport& r, const std::string& what) {
  for (const std::string& v : r.violations)
    if (v.find(what) != std::string::npos) return true;
  return false;
}

TEST(TraceInvariants, KernelShapedTracePasses) {
  for (uint32_t consumers : {1u, 2u}) {
    SyntheticSpec s;
    s.consumers = consumers;
    s.stages = 3;
    const InvariantReport r = check(make_synthetic_trace(s));
    EXPECT_TRUE(r.ok()) << r.violations.front();
    EXPECT_EQ(r.tiles_checked, s.ctas * s.tiles_per_cta);
    EXPECT_EQ(r.kblocks_checked, s.ctas * s.tiles_per_cta * s.kblocks);
  }
}

// Ping-pong consumers (BufferHeader::flags): each records every other tile and passes over the
// other's k-blocks, so its k-blocks sit on the stages the producer's ring puts them on, not on its
// own count of them. (Before the flag, every ping-pong trace of the H200 reported thousands of
// violations: docs/PERF.md, twenty-second session.)
TEST(TraceInvariants, PingpongTracePassesAndNeedsItsFlag) {
  for (uint32_t tiles : {3u, 4u}) {
    SyntheticSpec s;
    s.pingpong = true;
    s.tiles_per_cta = tiles;
    s.stages = 4;
    s.kblocks = 3;  // not a multiple of the stages: the consumers' own counts drift off the ring
    std::vector<uint8_t> buf = make_synthetic_trace(s);
    const InvariantReport r = check(buf);
    EXPECT_TRUE(r.ok()) << r.violations.front();
    EXPECT_EQ(r.tiles_checked, s.ctas * tiles);
    BufferHeader h;
    std::memcpy(&h, buf.data(), sizeof(h));
    h.flags = 0;  // read as cooperative consumers: each should then have every tile
    std::memcpy(buf.data(), &h, sizeof(h));
    const InvariantReport wrong = check(buf);
    EXPECT_FALSE(wrong.ok());
    EXPECT_TRUE(mentions(wrong, "tiles, the producer " + std::to_string(tiles))) << wrong.violations.front();
  }
}

TEST(TraceInvariants, PingpongConsumerOnTheWrongStageIsCaught) {
  SyntheticSpec s;
  s.pingpong = true;
  s.kblocks = 3;
  std::vector<uint8_t> buf = make_synthetic_trace(s);
  Event* e = test::lane_events(buf, 0, 2);  // consumer 1: tile 1 only, ring positions 3, 4, 5
  const int w = find(e, 200, EventKind::wait_full, 1);
  ASSERT_GE(w, 0);
  EXPECT_EQ(e[w].stage, 4 % s.stages);
  e[w].stage = 1;  // where its own count of k-blocks (1) would put it
  const InvariantReport r = check(buf);
  EXPECT_TRUE(mentions(r, "CTA 0 consumer 1: k-block 1 of tile")) << (r.ok() ? "ok" : r.violations.front());
  EXPECT_TRUE(mentions(r, "the ring says 0"));
}

TEST(TraceInvariants, WgmmaBeforeWaitFullIsCaught) {
  const SyntheticSpec s;
  std::vector<uint8_t> buf = make_synthetic_trace(s);
  Event* e = test::lane_events(buf, 1, 2);
  const int w = find(e, 200, EventKind::wait_full, 4), i = find(e, 200, EventKind::wgmma_issue, 4);
  ASSERT_EQ(i, w + 1);
  std::swap(e[w].kind, e[i].kind);  // the same times, the steps in the wrong order
  const InvariantReport r = check(buf);
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(mentions(r, "CTA 1 consumer 1: k-block 4")) << r.violations.front();
}

TEST(TraceInvariants, WrongRingStageIsCaught) {
  const SyntheticSpec s;
  std::vector<uint8_t> buf = make_synthetic_trace(s);
  Event* e = test::lane_events(buf, 0, 0);
  e[find(e, 100, EventKind::tma_issue, 7)].stage ^= 1;  // ring slot 7: k-block 1 of the second tile
  const InvariantReport r = check(buf);
  EXPECT_TRUE(mentions(r, "CTA 0 producer: k-block 1 of tile")) << (r.ok() ? "ok" : r.violations.front());
  EXPECT_TRUE(mentions(r, "the ring says 3"));
}

TEST(TraceInvariants, MissingEpilogueIsCaught) {
  const SyntheticSpec s;
  std::vector<uint8_t> buf = make_synthetic_trace(s);
  Event* e = test::lane_events(buf, 0, 1);
  e[find(e, 200, EventKind::epilogue, 1)].kind = uint8_t(EventKind::stmatrix);
  const InvariantReport r = check(buf);
  EXPECT_TRUE(mentions(r, "has 0 epilogues")) << (r.ok() ? "ok" : r.violations.front());
}

TEST(TraceInvariants, LoadLandingBeforeItsIssueIsCaught) {
  const SyntheticSpec s;
  std::vector<uint8_t> buf = make_synthetic_trace(s);
  Event* p = test::lane_events(buf, 1, 0);
  Event* c = test::lane_events(buf, 1, 1);
  const int tma = find(p, 100, EventKind::tma_issue, 2), full = find(c, 200, EventKind::wait_full, 2);
  p[tma].start_ns = c[full].start_ns + c[full].dur_ns + 1;  // issued after the consumer saw it full
  p[tma].dur_ns = 1;
  const InvariantReport r = check(buf);
  EXPECT_TRUE(mentions(r, "WAIT FULL ended before the TMA issue began")) << (r.ok() ? "ok" : r.violations.front());
}

TEST(TraceInvariants, StageReusedBeforeReleaseIsCaught) {
  const SyntheticSpec s;
  std::vector<uint8_t> buf = make_synthetic_trace(s);
  Event* p = test::lane_events(buf, 0, 0);
  Event* c = test::lane_events(buf, 0, 2);
  // Ring slot 9 reuses slot 5's stage: make its WAIT EMPTY end before consumer 1 released slot 5.
  const int wait = find(p, 100, EventKind::wait_empty, 9), rel = find(c, 200, EventKind::stage_release, 5);
  p[wait].dur_ns = 0;
  p[wait].start_ns = c[rel].start_ns - 1;
  const InvariantReport r = check(buf);
  EXPECT_TRUE(mentions(r, "ring slot 5")) << (r.ok() ? "ok" : r.violations.front());
}

TEST(TraceInvariants, OverflowedLanesAreSkippedNotFailed) {
  SyntheticSpec s;
  s.capacity = 12;
  const InvariantReport r = check(make_synthetic_trace(s));
  EXPECT_TRUE(r.ok()) << r.violations.front();
  EXPECT_EQ(r.tiles_checked, 0u);
}

}  // namespace
}  // namespace tilegemm::trace
