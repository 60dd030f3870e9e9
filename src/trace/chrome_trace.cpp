// chrome_trace (chrome_trace.hpp).
#include "trace/chrome_trace.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace tilegemm::trace {
namespace {

using nlohmann::json;

// Microseconds from the origin. NOTES: the conversion is monotonic, so two timestamps in order
// stay in order (a child that ends with its parent still ends inside it).
double to_us(int64_t ns_from_origin) { return double(ns_from_origin) / 1000.0; }

json meta(const char* name, int pid, int tid, const json& args) {
  json e = {{"ph", "M"}, {"name", name}, {"pid", pid}, {"args", args}};
  if (tid >= 0) e["tid"] = tid;
  return e;
}

}  // namespace

std::string event_label(const Event& e) {
  const EventKind k = static_cast<EventKind>(e.kind);
  if (k == EventKind::tile) return "TILE (" + std::to_string(e.tile_m) + ", " + std::to_string(e.tile_n) + ")";
  return event_kind_label(k);
}

json chrome_trace(const TraceDocument& doc) {
  // The origin: the earliest timestamp anywhere, so every ts is >= 0.
  int64_t origin = std::numeric_limits<int64_t>::max();
  for (const HostTrack& t : doc.tracks)
    for (const HostSpan& s : t.spans) origin = std::min(origin, int64_t(s.start_ns));
  if (doc.device)
    for (const LaneTrace& lane : doc.device->lanes)
      if (lane.finished && lane.cta < doc.max_ctas) {
        origin = std::min(origin, int64_t(lane.begin_ns) + doc.device_offset_ns);
        for (const Event& e : lane.events) origin = std::min(origin, int64_t(e.start_ns) + doc.device_offset_ns);
      }
  if (origin == std::numeric_limits<int64_t>::max()) origin = 0;

  json events = json::array();
  // ---- host tracks ----
  std::map<std::string, int> pids;
  std::map<std::pair<int, std::string>, int> tids;
  for (const HostTrack& t : doc.tracks) {
    auto [pit, new_process] = pids.emplace(t.process, int(pids.size()) + 1);
    const int pid = pit->second;
    if (new_process) {
      events.push_back(meta("process_name", pid, -1, {{"name", t.process}}));
      events.push_back(meta("process_sort_index", pid, -1, {{"sort_index", pid}}));
    }
    auto [tit, new_thread] = tids.emplace(std::make_pair(pid, t.thread), int(tids.size()) + 1);
    const int tid = tit->second;
    if (new_thread) {
      events.push_back(meta("thread_name", pid, tid, {{"name", t.thread}}));
      events.push_back(meta("thread_sort_index", pid, tid, {{"sort_index", tid}}));
    }
    for (const HostSpan& s : t.spans) {
      const uint64_t end = std::max(s.end_ns, s.start_ns);
      events.push_back({{"ph", "X"}, {"name", s.name}, {"cat", "host"}, {"pid", pid}, {"tid", tid},
                        {"ts", to_us(int64_t(s.start_ns) - origin)}, {"dur", to_us(int64_t(end - s.start_ns))},
                        {"args", s.args.is_object() ? s.args : json::object()}});
    }
  }
  // ---- device lanes: a process per SM, a thread per warp role of each CTA ----
  if (doc.device) {
    std::set<uint32_t> sms;
    for (const LaneTrace& lane : doc.device->lanes) {
      if (!lane.finished || lane.cta >= doc.max_ctas) continue;
      const int pid = kSmPidBase + int(lane.smid);
      if (sms.insert(lane.smid).second) {
        events.push_back(meta("process_name", pid, -1, {{"name", "SM " + std::to_string(lane.smid)}}));
        events.push_back(meta("process_sort_index", pid, -1, {{"sort_index", pid}}));
      }
      const int tid = int(4 * lane.cta + lane.lane + 1);
      events.push_back(meta("thread_name", pid, tid, {{"name", "CTA " + std::to_string(lane.cta) + " " + lane_role(lane.lane)}}));
      events.push_back(meta("thread_sort_index", pid, tid, {{"sort_index", tid}}));
      for (const Event& e : lane.events) {
        const EventKind k = static_cast<EventKind>(e.kind);
        json args = {{"kind", event_kind_id(k)}, {"stage", e.stage},   {"k_block", e.k_block},
                     {"tile_m", e.tile_m},       {"tile_n", e.tile_n}, {"cta", lane.cta},
                     {"sm", lane.smid},          {"lane", lane.lane},  {"dur_clk", e.dur_clk}};
        if (e.flags & kFlagDrain) args["drain"] = true;
        events.push_back({{"ph", "X"}, {"name", event_label(e)}, {"cat", event_kind_id(k)}, {"pid", pid}, {"tid", tid},
                          {"ts", to_us(int64_t(e.start_ns) + doc.device_offset_ns - origin)},
                          {"dur", to_us(int64_t(e.dur_ns))}, {"args", std::move(args)}});
      }
    }
  }
  json info = doc.info;
  info["origin_ns"] = origin;
  info["device_offset_ns"] = doc.device_offset_ns;
  return {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}, {"otherData", std::move(info)}};
}

}  // namespace tilegemm::trace
