// What a decoded trace says about the kernel, per warp role (`tilegemm trace` prints it; docs/TRACE.md
// defines every number). Host only.
//   busy %         share of a lane's time (its header's begin to end) not spent blocked: WAIT FULL,
//                  WAIT EMPTY and TMA store waits count as blocked; issuing, wgmma waits (the
//                  tensor core working), releases and epilogue work count as busy
//   mean waits     mean WAIT FULL (consumers) and WAIT EMPTY (producer) per k-block, in ns
//   bubbles        on a consumer, the step from one k-block's WGMMA issue to the next inside a tile
//                  should be the steady k-block time (the median step); a step longer than
//                  kBubbleFactor x that median is a bubble, and its excess over the median is
//                  bubble time (the tensor core waited for data or for the warp)
//   fill           mean time from a tile's start on a consumer to its first WGMMA issue
//   prologue       per CTA, from its first instruction (the lane headers' entry stamp) to the first
//                  of its roles beginning: the barrier set-up, the cluster's sync, the register
//                  hand-over; and how far apart the CTAs entered (the launch's spread)
//   epilogue overlap  for every epilogue followed by another tile on its CTA: the share of the
//                  epilogue after the producer issued the next tile's first TMA load, and how many
//                  of the next tile's k-blocks it issued before the epilogue ended (of `stages`)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "trace/decode.hpp"

namespace tilegemm::trace {

inline constexpr double kBubbleFactor = 1.5;

// Statistics of one kind of step: count, total and mean duration (ns).
struct StepStats {
  uint64_t count = 0;
  double total_ns = 0;
  double mean_ns() const { return count ? total_ns / double(count) : 0.0; }
  void add(double ns) {
    ++count;
    total_ns += ns;
  }
};

struct RoleSummary {
  std::string role;     // "producer", "consumers"
  int lanes = 0;
  double busy_pct = 0;  // mean over the role's lanes
  double active_ns = 0; // mean lane time (header begin to end)
  StepStats steps[kEventKinds];  // by EventKind
  const StepStats& of(EventKind k) const { return steps[static_cast<int>(k)]; }
};

struct TraceSummary {
  uint32_t ctas = 0, consumers = 0, stages = 0;
  uint64_t events = 0, dropped = 0;
  size_t problems = 0;
  uint64_t first_ns = 0, last_ns = 0;  // earliest lane begin, latest lane end (%globaltimer)
  double timer_tick_ns = 0;            // smallest step of %globaltimer seen between events of a lane
  const char* time_base = "";          // decode.hpp: "global_timer" or "sm_clock"
  double clock_ghz = 0;                // mean SM clock over the lanes
  RoleSummary producer, consumer;
  double kblock_step_ns = 0;           // median WGMMA-issue-to-issue step (steady k-block time)
  uint64_t bubbles = 0;
  double bubble_ns = 0;                // sum of the bubbles' excess over the median step
  double mainloop_ns = 0;              // consumer time from each tile's first to last WGMMA issue, summed
  double fill_ns = 0;                  // mean tile start -> first WGMMA issue (consumers)
  uint64_t epilogues_followed = 0;     // epilogues with a next tile on the same CTA
  double epilogue_overlap_pct = 0;     // see the file comment
  double next_kblocks_in_epilogue = 0; // mean
  uint64_t tiles = 0;                  // producer tile events
  uint32_t entry_ctas = 0;             // CTAs whose lanes carry an entry stamp (0: an older buffer)
  uint64_t first_entry_ns = 0, last_entry_ns = 0;  // earliest and latest CTA entry (%globaltimer)
  double prologue_mean_ns = 0, prologue_max_ns = 0;  // a CTA's entry -> its first role's begin
};

TraceSummary summarize(const DecodedTrace& t);

// Lines for a terminal; host_to_first_ns < 0 leaves that line out.
std::string summary_text(const TraceSummary& s, double host_to_first_ns);
nlohmann::json summary_json(const TraceSummary& s);

}  // namespace tilegemm::trace
