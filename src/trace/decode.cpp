// decode_trace (decode.hpp).
#include "trace/decode.hpp"

#include <algorithm>
#include <cmath>
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

// The smallest positive step between any two %globaltimer readings of the buffer (lane anchors,
// TILE starts and ends, steps that carry one): the timer's resolution or a multiple of it.
double smallest_tick(const std::vector<LaneTrace>& lanes) {
  std::vector<uint64_t> t;
  for (const LaneTrace& l : lanes) {
    if (!l.finished) continue;
    t.push_back(l.begin_ns);
    t.push_back(l.end_ns);
    for (const Event& e : l.events)
      if (e.start_ns != 0) {
        t.push_back(e.start_ns);
        t.push_back(e.start_ns + e.dur_ns);
      }
  }
  std::sort(t.begin(), t.end());
  uint64_t tick = 0;
  for (size_t i = 1; i < t.size(); ++i)
    if (t[i] > t[i - 1] && (tick == 0 || t[i] - t[i - 1] < tick)) tick = t[i] - t[i - 1];
  return double(tick);
}

// Places the events of one CTA's lanes on the global axis by their SM's cycle counter (one SM, one
// counter): ns = ns0 + b (clk - clk0), with b and ns0 the least-squares line through every
// (cycles, %globaltimer) pair the CTA recorded (lane begins and ends, TILE starts and ends).
void retime_by_clock(std::vector<LaneTrace>& lanes, size_t first, size_t count) {
  struct Point {
    double clk, ns;
  };
  std::vector<Point> points;
  std::vector<std::vector<uint64_t>> clocks(count);  // each event's start, unwrapped to 64 bits
  uint64_t clk0 = 0, ns0 = 0;
  for (size_t i = 0; i < count; ++i) {
    const LaneTrace& l = lanes[first + i];
    if (!l.finished) continue;
    if (points.empty()) clk0 = l.begin_clk, ns0 = l.begin_ns;
    points.push_back({double(int64_t(l.begin_clk - clk0)), double(int64_t(l.begin_ns - ns0))});
    points.push_back({double(int64_t(l.end_clk - clk0)), double(int64_t(l.end_ns - ns0))});
    uint64_t prev = l.begin_clk;  // consecutive steps of a lane are < 2^31 cycles (about 1 s) apart
    for (const Event& e : l.events) {
      const uint64_t clk = prev + uint64_t(int64_t(int32_t(e.start_clk - uint32_t(prev))));
      clocks[i].push_back(clk);
      prev = clk;
      if (e.start_ns != 0) {
        points.push_back({double(int64_t(clk - clk0)), double(int64_t(e.start_ns - ns0))});
        points.push_back({double(int64_t(clk + e.dur_clk - clk0)), double(int64_t(e.start_ns + e.dur_ns - ns0))});
      }
    }
  }
  if (points.size() < 2) return;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const Point& p : points) sx += p.clk, sy += p.ns, sxx += p.clk * p.clk, sxy += p.clk * p.ns;
  const double n = double(points.size()), det = n * sxx - sx * sx;
  if (det <= 0) return;
  const double b = (n * sxy - sx * sy) / det, a = (sy - b * sx) / n;  // ns per cycle, offset
  if (!(b > 0)) return;
  for (size_t i = 0; i < count; ++i) {
    LaneTrace& l = lanes[first + i];
    for (size_t j = 0; j < l.events.size(); ++j) {
      Event& e = l.events[j];
      e.start_ns = ns0 + uint64_t(int64_t(std::llround(a + b * double(int64_t(clocks[i][j] - clk0)))));
      e.dur_ns = uint32_t(std::llround(b * double(e.dur_clk)));
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
        out->problems.push_back(where(cta, lane) + ": no lane header (the role never finished)");
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
        t.entry_ns = lh.entry_ns;
        if (t.entry_ns != 0 && t.entry_ns > t.begin_ns)
          out->problems.push_back(where(cta, lane) + ": the CTA's entry (" + std::to_string(t.entry_ns) +
                                  " ns) is after its role began (" + std::to_string(t.begin_ns) + " ns)");
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
  // Steps without a %globaltimer reading (the kernel's) can only be placed by the SM clock.
  bool untimed_steps = false;
  for (const LaneTrace& l : out->lanes)
    for (const Event& e : l.events) untimed_steps = untimed_steps || e.start_ns == 0;
  if (base == TimeBase::automatic)
    base = untimed_steps || out->timer_tick_ns > kFineTickNs ? TimeBase::sm_clock : TimeBase::global_timer;
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
