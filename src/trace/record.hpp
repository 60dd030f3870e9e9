// Recording one traced GEMM on this machine's Hopper GPU: what `tilegemm trace` and the explorer's
// POST /api/trace/record both run (docs/TRACE.md). The call goes through the production path with
// the kernel's tracing switched on (detail::GemmOptions::trace), optionally after a warm-up call so
// the recorded one finds its kernel compiled, inside a CUPTI activity recording; its result is
// checked against the CPU reference as `tilegemm bench` checks (bench::run_case); the device buffer
// is downloaded and decoded, summarised per warp role and checked for the pipeline's order; the
// host spans and CUPTI records become host tracks on the same axis. Host only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/runner.hpp"
#include "plan/config.hpp"
#include "tilegemm/tilegemm.hpp"
#include "trace/decode.hpp"
#include "trace/host_tracks.hpp"
#include "trace/invariants.hpp"
#include "trace/summary.hpp"

namespace tilegemm::trace {

inline constexpr const char* kTraceInfoSchema = "tilegemm.trace/1";  // the document's otherData

struct RecordRequest {
  bench::Case problem;                 // M, N, K, layouts, output dtype, D's major, C, alpha, beta
  std::optional<plan::Config> config;  // trace this configuration instead of the planner's pick
  bool config_stages_given = false;
  uint32_t lane_capacity = 0;          // events per lane; 0: as many as the launch records
  bool warm = true;                    // a call first, so the recorded one finds its kernel compiled
  uint64_t seed = 20261129;            // the inputs' random normal streams
};

struct Recording {
  bench::CaseResult checked;   // the traced call, checked against the CPU reference
  std::string device;          // "NVIDIA H200 (132 SMs)"
  plan::Config config;         // the Config that ran (trace set)
  int64_t grid = 0;            // CTAs launched
  uint32_t lane_capacity = 0;
  std::vector<uint8_t> raw;    // the device buffer as downloaded (tilegemm trace --raw)
  DecodedTrace decoded;
  TraceSummary summary;
  InvariantReport invariants;
  CallWindow window;
  ClockAlignment clock;
  std::vector<HostTrack> tracks;  // host spans, CUDA API and GPU work from CUPTI
  std::string cupti_note;         // empty: CUPTI recorded the call; else why not
  // The document's otherData: schema, problem, config, device, check, host_spans,
  // launch_to_first_instruction_ns, clock, cupti, grid, lane_capacity, stages, summary,
  // summary_text, problems, invariants.
  nlohmann::json info;

  // The check passed, the buffer decoded without a problem and the pipeline order holds.
  bool ok() const { return checked.passed() && decoded.problems.empty() && invariants.ok(); }
};

// Records `request`. Errors: no_device when there is no Hopper (sm_90) GPU, the message saying why;
// the call's own Status when it cannot run (a --config the problem cannot take, a CUDA error); a
// buffer that cannot be downloaded or decoded. A result that fails its check is not an error:
// out->checked and out->info["check"] say so.
Status record_trace(const RecordRequest& request, Recording* out);

// The part of otherData every trace has, recorded or decoded from a saved buffer: stages, summary
// (JSON), summary_text, problems, invariants. host_call_to_first_ns < 0: not known.
void add_findings(const DecodedTrace& t, const TraceSummary& summary, const InvariantReport& invariants,
                  double host_call_to_first_ns, nlohmann::json* info);

// How many of the first `max_ctas` CTAs keep the document within `max_events` device events (at
// least one CTA, whatever its count).
uint32_t ctas_within(const DecodedTrace& t, uint32_t max_ctas, uint64_t max_events);

// The recording as Chrome-trace JSON (chrome_trace.hpp), the lanes of the first max_ctas CTAs.
nlohmann::json recording_document(const Recording& r, uint32_t max_ctas);

}  // namespace tilegemm::trace
