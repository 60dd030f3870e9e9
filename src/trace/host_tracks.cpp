// Host tracks and clock alignment of a recorded trace (host_tracks.hpp).
#include "trace/host_tracks.hpp"

#include <algorithm>
#include <map>

namespace tilegemm::trace {

std::vector<bench::ActivityRecord> records_of_call(const std::vector<bench::ActivityRecord>& all,
                                                   const CallWindow& w) {
  std::vector<bench::ActivityRecord> out;
  for (const bench::ActivityRecord& r : all)
    if (r.start_ns >= w.call_start_ns && r.start_ns <= w.sync_end_ns) out.push_back(r);
  return out;
}

const bench::ActivityRecord* traced_kernel_record(const std::vector<bench::ActivityRecord>& records) {
  const bench::ActivityRecord* found = nullptr;
  for (const bench::ActivityRecord& r : records)
    if (r.kind == bench::ActivityKind::kernel && r.name == "tilegemm_gemm") found = &r;
  return found;
}

ClockAlignment align_clocks(const DecodedTrace& t, const CallWindow& w, const bench::ActivityRecord* kernel) {
  ClockAlignment a;
  // The first in-kernel timestamp: the earliest CTA entry where the lanes carry one (trace/event.hpp),
  // else the earliest role's begin (buffers written before the entry stamp).
  uint64_t first = 0, last = 0;
  for (const LaneTrace& lane : t.lanes) {
    if (!lane.finished) continue;
    const uint64_t start = lane.entry_ns != 0 ? lane.entry_ns : lane.begin_ns;
    if (first == 0 || start < first) first = start;
    last = std::max(last, lane.end_ns);
  }
  // NOTES: %globaltimer is set from the host's system clock when the device is attached (libcu++'s
  // system_clock notes) and drifts from it after: on the H200 it read 150-220 us ahead of CUPTI's
  // kernel start, which CUPTI maps onto CLOCK_REALTIME itself (docs/TRACE.md). So CUPTI's kernel
  // start places the device when there is one: the first instruction at the kernel's start.
  if (kernel != nullptr) {
    a.offset_ns = int64_t(kernel->start_ns) - int64_t(first);
    a.method = "aligned to CUPTI's kernel start (raw %globaltimer - CUPTI: " + std::to_string(-a.offset_ns) + " ns)";
    a.has_cupti_kernel = true;
    a.raw_globaltimer_minus_cupti_ns = -a.offset_ns;
    a.last_role_to_kernel_end_ns = int64_t(kernel->end_ns) - (int64_t(last) + a.offset_ns);
  } else if (first >= w.call_start_ns && first <= w.sync_end_ns) {
    a.method = "direct (%globaltimer read as CLOCK_REALTIME; it fell inside the call's window)";
  } else {
    a.offset_ns = int64_t(w.call_end_ns) - int64_t(first);
    a.method = "aligned to the call's return (%globaltimer was " + std::to_string(-a.offset_ns) +
               " ns off CLOCK_REALTIME and CUPTI did not record the kernel)";
  }
  a.host_call_to_first_ns = int64_t(first) + a.offset_ns - int64_t(w.call_start_ns);
  return a;
}

std::vector<HostTrack> host_tracks(const detail::TraceCapture& capture, const CallWindow& w,
                                          const std::vector<bench::ActivityRecord>& records) {
  std::vector<HostTrack> tracks;
  HostTrack spans{"host", "tilegemm (host spans)", {}};
  spans.spans.push_back({"tilegemm::gemm (traced call)", w.call_start_ns, w.call_end_ns, nlohmann::json::object()});
  for (const detail::HostSpanRecord& s : capture.spans) {
    nlohmann::json args = nlohmann::json::object();
    if (!s.detail.empty()) args["detail"] = s.detail;
    spans.spans.push_back({s.detail.empty() ? s.name : s.name + " (" + s.detail + ")", s.start_ns, s.end_ns, args});
  }
  spans.spans.push_back({"cudaStreamSynchronize (wait for the kernel)", w.call_end_ns, w.sync_end_ns, nlohmann::json::object()});
  tracks.push_back(std::move(spans));
  HostTrack api{"host", "CUDA API (CUPTI)", {}};
  std::map<uint32_t, HostTrack> streams;
  for (const bench::ActivityRecord& r : records) {
    nlohmann::json args = {{"kind", bench::activity_kind_name(r.kind)}, {"correlation", r.correlation_id}};
    if (r.kind == bench::ActivityKind::runtime_api || r.kind == bench::ActivityKind::driver_api) {
      args["thread"] = r.thread_id;
      api.spans.push_back({r.name, r.start_ns, r.end_ns, args});
      continue;
    }
    args["stream"] = r.stream_id;
    if (r.bytes) args["bytes"] = r.bytes;
    if (r.kind == bench::ActivityKind::kernel) {
      args["grid"] = {r.grid[0], r.grid[1], r.grid[2]};
      args["block"] = {r.block[0], r.block[1], r.block[2]};
      args["cluster"] = {r.cluster[0], r.cluster[1], r.cluster[2]};
      args["dynamic_smem"] = r.dynamic_smem;
    }
    auto [it, fresh] = streams.try_emplace(r.stream_id);
    if (fresh) it->second = HostTrack{"GPU (CUPTI)", "stream " + std::to_string(r.stream_id), {}};
    it->second.spans.push_back({r.name, r.start_ns, r.end_ns, args});
  }
  if (!api.spans.empty()) tracks.push_back(std::move(api));
  for (auto& [id, t] : streams) tracks.push_back(std::move(t));
  return tracks;
}

}  // namespace tilegemm::trace
