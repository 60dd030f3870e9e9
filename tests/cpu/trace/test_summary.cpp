// summarize on the synthetic trace: counts per role, waits and busy shares in range, the median
// k-block step, a slowed load showing up as a bubble (and none without it), the epilogue overlap
// with the next tile's loads, and the text and JSON forms.
#include <gtest/gtest.h>

#include "decoded_synthetic.hpp"
#include "trace/decode.hpp"
#include "trace/summary.hpp"

namespace tilegemm::trace {
namespace {

TraceSummary summary_of(const test::SyntheticSpec& s) { return summarize(test::decoded_synthetic(s)); }

TEST(TraceSummary, RolesWaitsAndOverlap) {
  const test::SyntheticSpec s;
  const TraceSummary r = summary_of(s);
  EXPECT_EQ(r.producer.lanes, int(s.ctas));
  EXPECT_EQ(r.consumer.lanes, int(s.ctas * s.consumers));
  EXPECT_EQ(r.tiles, s.ctas * s.tiles_per_cta);
  EXPECT_EQ(r.producer.of(EventKind::wait_empty).count, s.ctas * s.tiles_per_cta * s.kblocks);
  EXPECT_EQ(r.consumer.of(EventKind::wait_full).count, s.ctas * s.consumers * s.tiles_per_cta * s.kblocks);
  EXPECT_EQ(r.consumer.of(EventKind::epilogue).count, s.ctas * s.consumers * s.tiles_per_cta);
  for (const RoleSummary* role : {&r.producer, &r.consumer}) {
    EXPECT_GT(role->busy_pct, 0.0);
    EXPECT_LT(role->busy_pct, 100.0);
  }
  EXPECT_GT(r.producer.of(EventKind::wait_empty).mean_ns(), 0.0);
  EXPECT_GT(r.consumer.of(EventKind::wait_full).mean_ns(), 0.0);
  EXPECT_NEAR(r.clock_ghz, 2.0, 1e-9);
  EXPECT_GT(r.timer_tick_ns, 0.0);
  EXPECT_GT(r.kblock_step_ns, 0.0);
  EXPECT_EQ(r.bubbles, 0u);
  EXPECT_EQ(r.epilogues_followed, s.ctas * s.consumers * (s.tiles_per_cta - 1));
  EXPECT_GE(r.next_kblocks_in_epilogue, 1.0);  // the producer refills freed stages meanwhile
  EXPECT_LE(r.next_kblocks_in_epilogue, double(s.stages));
  EXPECT_GT(r.epilogue_overlap_pct, 0.0);
  EXPECT_LE(r.epilogue_overlap_pct, 100.0);
}

TEST(TraceSummary, ASlowLoadIsABubble) {
  test::SyntheticSpec s;
  s.slow_kblock = 9;  // inside the second tile
  const TraceSummary r = summary_of(s);
  EXPECT_EQ(r.bubbles, s.ctas * s.consumers);  // every consumer of every CTA waited for it
  EXPECT_GT(r.bubble_ns, 0.0);
  EXPECT_GT(r.consumer.of(EventKind::wait_full).mean_ns(), summary_of(test::SyntheticSpec{}).consumer.of(EventKind::wait_full).mean_ns());
}

TEST(TraceSummary, TextAndJson) {
  const TraceSummary r = summary_of(test::SyntheticSpec{});
  const std::string text = summary_text(r, 12345.0);
  for (const char* line : {"producer", "consumers", "WAIT FULL", "steady k-block", "epilogue overlap",
                           "host call -> first kernel instruction: 12.345 us"})
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  EXPECT_EQ(summary_text(r, -1).find("host call"), std::string::npos);
  const nlohmann::json j = summary_json(r);
  EXPECT_EQ(j["tiles"], r.tiles);
  EXPECT_EQ(j["producer"]["steps"]["wait_empty"]["count"], r.producer.of(EventKind::wait_empty).count);
  EXPECT_FALSE(j["consumers_role"]["steps"].contains("wait_empty"));
}

TEST(TraceSummary, PrologueFromTheCtasEntryStamps) {
  // Every lane of CTA i carries its entry 800 - 11 i ns before the lanes begin (synthetic_trace.hpp).
  test::SyntheticSpec s;
  s.ctas = 3;
  s.entry_lead_ns = 800;
  const TraceSummary r = summary_of(s);
  EXPECT_EQ(r.entry_ctas, 3u);
  EXPECT_NEAR(r.prologue_max_ns, 800.0, 1e-9);
  EXPECT_NEAR(r.prologue_mean_ns, (800.0 + 789.0 + 778.0) / 3.0, 1e-9);
  EXPECT_EQ(r.last_entry_ns - r.first_entry_ns, 22u);
  const std::string text = summary_text(r, -1);
  EXPECT_NE(text.find("prologue (a CTA's first instruction -> its first role's begin): mean 0.789 us, max 0.800 us "
                      "over 3 CTAs; the CTAs entered within 0.022 us of each other"),
            std::string::npos)
      << text;
  const nlohmann::json j = summary_json(r);
  EXPECT_EQ(j["entry"]["ctas"], 3u);
  EXPECT_EQ(j["entry"]["entry_spread_ns"], 22u);
  // A buffer without the stamps (written before them): no prologue, no line.
  const TraceSummary old = summary_of(test::SyntheticSpec{});
  EXPECT_EQ(old.entry_ctas, 0u);
  EXPECT_EQ(summary_text(old, -1).find("prologue"), std::string::npos);
}

}  // namespace
}  // namespace tilegemm::trace
