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

bool decode_trace(const uint8_t* data, size_t size, DecodedTrace* out, std::string* error) {
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
  return true;
}

}  // namespace tilegemm::trace
