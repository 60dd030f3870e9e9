// A decoded device trace plus host-side spans -> Chrome-trace JSON (the "JSON object format" that
// chrome://tracing and Perfetto's legacy importer read: {"traceEvents": [...], "otherData": {...}}).
//   processes: one per SM that ran a traced CTA ("SM 17", pid 1000 + smid), one per host track
//              process ("host", "GPU (CUPTI)", pid 1, 2, ... in order of appearance)
//   threads:   one per warp role of each CTA on the SM ("CTA 5 producer", "CTA 5 consumer 1",
//              tid 4·cta + lane + 1), one per host track
//   events:    complete events ("ph": "X"), ts and dur in microseconds (ns precision) from the
//              earliest timestamp of the document; device events carry args kind, stage,
//              k_block, tile_m, tile_n, cta, sm, lane, dur_clk; metadata events name and order
//              processes and threads
// Host only.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "trace/decode.hpp"

namespace tilegemm::trace {

inline constexpr int kSmPidBase = 1000;

struct HostSpan {
  std::string name;
  uint64_t start_ns = 0, end_ns = 0;  // the host axis: CLOCK_REALTIME nanoseconds
  nlohmann::json args = nlohmann::json::object();
};

struct HostTrack {
  std::string process;  // "host", "GPU (CUPTI)"
  std::string thread;   // "tilegemm::gemm", "CUDA API (CUPTI)", "stream 13"
  std::vector<HostSpan> spans;
};

struct TraceDocument {
  const DecodedTrace* device = nullptr;  // may be null (host tracks only)
  int64_t device_offset_ns = 0;          // host time of a device event = %globaltimer + this
  std::vector<HostTrack> tracks;
  nlohmann::json info = nlohmann::json::object();  // -> "otherData"
  uint32_t max_ctas = std::numeric_limits<uint32_t>::max();  // lanes of CTAs >= this are left out
};

nlohmann::json chrome_trace(const TraceDocument& doc);

// The label of a device event in the timelines: "WAIT FULL", "TILE (3, 7)", ...
std::string event_label(const Event& e);

}  // namespace tilegemm::trace
