// decode_trace (decode.hpp).
#include "trace/decode.hpp"

#include <algorithm>
#include <cstring>

namespace tilegemm::trace {
namespace {

std::string where(uint32_t cta, uint32_t lane) { return "CTA " + std::to_string(cta) + " " + lane_role(lane); }

}  // namespace

double LaneTrace::clock_ghz() const {
  if (end_ns <= begin_ns || end_clk <= begin_clk) return 0.0;
  return double(end_clk - begin_clk) / double(end_ns - begin_ns);
}

std::string lane_role(uint32_t lane) { return lane == 0 ? "producer" : "consumer " + std::to_string(lane - 1); }

const char* time_base_name(TimeBase b) {
  return b == TimeBase::sm_clock ? "sm_clock" : b == TimeBase::global_timer ? "global_timer" : "automatic";
}

namespace {

// The smallest positive step between consecutive %globaltimer starts of a lane (0: none seen).
double smallest_tick(const std::vector<LaneTrace>& lanes) {
  uint64_t tick = 0;
  for (const LaneTrace& l : lanes)
    for (size_t i = 1; i < l.events.size(); ++i) {
      const uint64_t a = l.events[i - 1].start_ns, b = l.events[i].start_ns;
      if (b > a && (tick == 0 || b - a < tick)) tick = b - a;
    }
  return double(tick);
}

// Re-times the events of the `count` lanes of one CTA from its SM's cycle counter (TimeBase::sm_clock).
void retime_by_clock(std::vector<LaneTrace>& lanes, size_t first, size_t count) {
  const LaneTrace* anchor = nullptr;
  for (size_t i = first; i < first + count; ++i)
    if (lanes[i].finished && lanes[i].clock_ghz() > 0 && (anchor == nullptr || lanes[i].lane == 0)) anchor = &lanes[i];
  if (anchor == nullptr) return;
  const double ghz = anchor->clock_ghz();
  const uint64_t a_ns = anchor->begin_ns, a_clk = anchor->begin_clk;
  for (size_t i = first; i < first + count; ++i) {
    LaneTrace& l = lanes[i];
    uint64_t prev = l.begin_clk;  // unwraps the 32-bit cycle counts: steps of a lane are < 1 s apart
    for (Event& e : l.events) {
      const uint64_t clk = prev + uint64_t(int64_t(int32_t(e.start_clk - uint32_t(prev))));
      prev = clk;
      e.start_ns = uint64_t(int64_t(a_ns) + int64_t(double(int64_t(clk - a_clk)) / ghz));
      e.dur_ns = uint32_t(double(e.dur_clk) / ghz + 0.5);
    }
  }
}

}  // namespace

bool decode_trace(const uint8_t* data, size_t size, DecodedTrace* out, std::string* error, TimeBase base) {
  *out = DecodedTrace{};
  if (size < sizeof(BufferHeader)) {
    *error = "trace buffer of " + std::to_string(size) + " bytes: shorter than its 64-byte header";
    return false;
  }
  BufferHeader h;
  std::memcpy(&h, data, sizeof(h));
  if (h.magic != kBufferMagic) {
    *error = "trace buffer magic " + std::to_string(h.magic) + ": not a tilegemm trace (expected " +
             std::to_string(kBufferMagic) + ")";
    return false;
  }
  if (h.version != kLayoutVersion || h.event_bytes != sizeof(Event)) {
    *error = "trace layout version " + std::to_string(h.version) + " with " + std::to_string(h.event_bytes) +
             "-byte events: this build reads version " + std::to_string(kLayoutVersion) + " with " +
             std::to_string(sizeof(Event)) + "-byte events";
    return false;
  }
  if (h.lanes < 2 || h.lanes > 3 || h.ctas == 0) {
    *error = "trace header: " + std::to_string(h.ctas) + " CTAs of " + std::to_string(h.lanes) +
             " lanes (a kernel has 1 producer + 1 or 2 consumer lanes per CTA)";
    return false;
  }
  const uint64_t expected = buffer_bytes(h.ctas, h.lanes, h.lane_capacity);
  if (size != expected) {
    *error = "trace buffer of " + std::to_string(size) + " bytes: its header (" + std::to_string(h.ctas) + " CTAs, " +
             std::to_string(h.lanes) + " lanes, capacity " + std::to_string(h.lane_capacity) + ") needs " +
             std::to_string(expected);
    return false;
  }
  out->header = h;
  out->lanes.reserve(size_t(h.ctas) * h.lanes);
  for (uint32_t cta = 0; cta < h.ctas; ++cta) {
    for (uint32_t lane = 0; lane < h.lanes; ++lane) {
      LaneHeader lh;
      std::memcpy(&lh, data + lane_header_offset(h.lanes, cta, lane), sizeof(lh));
      LaneTrace t;
      t.cta = cta;
      t.lane = lane;
      t.capacity = h.lane_capacity;
      t.finished = lh.magic == kLaneMagic;
      const uint8_t* slots = data + lane_events_offset(h.ctas, h.lanes, h.lane_capacity, cta, lane);
      uint32_t recorded = 0;
      if (!t.finished) {
        out->problems.push_back(where(cta, lane) + ": no lane header (the role never finished, or the kernel did "
                                                   "not accept the buffer)");
      } else if (lh.cta != cta || lh.lane != lane) {
        out->problems.push_back(where(cta, lane) + ": its header says CTA " + std::to_string(lh.cta) + " lane " +
                                std::to_string(lh.lane));
        t.finished = false;
      } else {
        t.smid = lh.smid;
        t.attempted = lh.attempted;
        t.units = lh.units;
        t.begin_ns = lh.begin_ns;
        t.end_ns = lh.end_ns;
        t.begin_clk = lh.begin_clk;
        t.end_clk = lh.end_clk;
        recorded = std::min(lh.attempted, h.lane_capacity);
        t.events.resize(recorded);
        if (recorded) std::memcpy(t.events.data(), slots, size_t(recorded) * sizeof(Event));
        for (uint32_t i = 0; i < recorded; ++i) {
          const Event& e = t.events[i];
          if (e.kind >= kEventKinds || e.lane != lane) {
            out->problems.push_back(where(cta, lane) + ": event " + std::to_string(i) + " has kind " +
                                    std::to_string(e.kind) + " and lane " + std::to_string(e.lane));
            t.events.resize(i);
            break;
          }
        }
      }
      // NOTES: every slot the lane did not fill must still hold the host's fill: a write past the
      // lane's count (or into a lane that recorded nothing) shows up here.
      const size_t used = size_t(recorded) * sizeof(Event), all = size_t(h.lane_capacity) * sizeof(Event);
      for (size_t b = used; b < all; ++b)
        if (slots[b] != kUnwrittenByte) {
          out->problems.push_back(where(cta, lane) + ": slot " + std::to_string(b / sizeof(Event)) +
                                  " was written past the lane's " + std::to_string(recorded) + " events");
          break;
        }
      out->events += t.events.size();
      out->dropped += t.dropped();
      out->lanes.push_back(std::move(t));
    }
  }
  out->timer_tick_ns = smallest_tick(out->lanes);
  if (base == TimeBase::automatic) base = out->timer_tick_ns > kFineTickNs ? TimeBase::sm_clock : TimeBase::global_timer;
  out->time_base = base;
  if (base == TimeBase::sm_clock)
    for (uint32_t cta = 0; cta < h.ctas; ++cta) retime_by_clock(out->lanes, size_t(cta) * h.lanes, h.lanes);
  return true;
}

std::vector<uint8_t> slice_buffer(const std::vector<uint8_t>& raw, uint32_t ctas, std::string* error) {
  DecodedTrace t;
  if (!decode_trace(raw.data(), raw.size(), &t, error, TimeBase::global_timer)) return {};
  BufferHeader h = t.header;
  const uint32_t keep = std::min(ctas, h.ctas);
  std::vector<uint8_t> out(buffer_bytes(keep, h.lanes, h.lane_capacity));
  const BufferHeader old = h;
  h.ctas = keep;
  std::memcpy(out.data(), &h, sizeof(h));
  for (uint32_t cta = 0; cta < keep; ++cta)
    for (uint32_t lane = 0; lane < h.lanes; ++lane) {
      std::memcpy(out.data() + lane_header_offset(h.lanes, cta, lane), raw.data() + lane_header_offset(h.lanes, cta, lane),
                  sizeof(LaneHeader));
      std::memcpy(out.data() + lane_events_offset(keep, h.lanes, h.lane_capacity, cta, lane),
                  raw.data() + lane_events_offset(old.ctas, h.lanes, h.lane_capacity, cta, lane),
                  size_t(h.lane_capacity) * sizeof(Event));
    }
  return out;
}

}  // namespace tilegemm::trace
