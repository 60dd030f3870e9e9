// The trace buffer a traced kernel filled (trace/event.hpp), read back on the host: checked byte
// for byte against the layout, split into lanes (one per warp role of a CTA), with overflow and
// anything the kernel should not have written reported. Host only, no CUDA.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "trace/event.hpp"

namespace tilegemm::trace {

struct LaneTrace {
  uint32_t cta = 0, lane = 0;  // position in the buffer
  bool finished = false;       // the kernel wrote this lane's header (the role ran to its end)
  uint32_t smid = 0;           // the SM the CTA ran on (finished lanes only)
  uint32_t attempted = 0;      // events the lane tried to append
  uint32_t capacity = 0;       // events its slice holds (the buffer's lane_capacity)
  uint32_t units = 0;          // work units it walked
  uint64_t begin_ns = 0, end_ns = 0, begin_clk = 0, end_clk = 0;
  uint64_t entry_ns = 0;       // the CTA's first instruction (%globaltimer); 0: not recorded
  std::vector<Event> events;   // the first min(attempted, capacity), in the order appended

  uint32_t dropped() const { return attempted > capacity ? attempted - capacity : 0; }  // overflow
  bool is_producer() const { return lane == 0; }
  int consumer() const { return int(lane) - 1; }  // -1 for the producer
  // SM cycles per ns between the lane's two anchors (0 when they do not allow it).
  double clock_ghz() const;
};

// Where the decoded events' start_ns / dur_ns come from.
//   sm_clock:     each CTA's events placed by its SM's cycle counter, through the least-squares
//                 line of the (cycles, %globaltimer) pairs the CTA recorded (lane begin/end, TILE
//                 start/end): cycle-resolution steps on the global axis. The kernel's steps carry
//                 no %globaltimer reading (trace_lane.cuh says why), so this is its time base.
//   global_timer: as recorded, for buffers whose every event carries %globaltimer readings of a
//                 timer finer than kFineTickNs (the CPU tests' synthetic traces).
enum class TimeBase { automatic, global_timer, sm_clock };
inline constexpr double kFineTickNs = 40.0;

struct DecodedTrace {
  BufferHeader header{};
  TimeBase time_base = TimeBase::global_timer;  // what the events' times are now
  double timer_tick_ns = 0;  // smallest step between any two %globaltimer readings of the buffer
  std::vector<LaneTrace> lanes;  // ctas x lanes, CTA-major
  uint64_t events = 0;           // decoded, all lanes
  uint64_t dropped = 0;          // attempted past capacity, all lanes
  // Layout violations that are not fatal, one sentence each: a lane that never finished, an event
  // of an unknown kind or of another lane, an unused slot that does not hold the host's fill
  // (something was written past a lane's count).
  std::vector<std::string> problems;

  uint32_t consumers() const { return header.lanes > 0 ? header.lanes - 1 : 0; }
  const LaneTrace& lane(uint32_t cta, uint32_t lane_index) const { return lanes[size_t(cta) * header.lanes + lane_index]; }
};

// "producer", "consumer 0", ...
std::string lane_role(uint32_t lane);

// Decodes `size` bytes (exactly buffer_bytes(ctas, lanes, lane_capacity) of the header they start
// with). False, with *error naming the field and the values, when the bytes are not a trace
// buffer of this layout version; true otherwise, with per-lane findings in out->problems.
// `base` automatic: sm_clock when some step carries no %globaltimer reading or the global timer's
// smallest step exceeds kFineTickNs; global_timer otherwise.
bool decode_trace(const uint8_t* data, size_t size, DecodedTrace* out, std::string* error,
                  TimeBase base = TimeBase::automatic);
const char* time_base_name(TimeBase b);

// The first `ctas` CTAs of a raw buffer as a buffer of their own (its header says `ctas`): for
// keeping a small recorded fixture. Empty, with *error, when `raw` is not a trace buffer.
std::vector<uint8_t> slice_buffer(const std::vector<uint8_t>& raw, uint32_t ctas, std::string* error);  // "global_timer", "sm_clock"

}  // namespace tilegemm::trace
