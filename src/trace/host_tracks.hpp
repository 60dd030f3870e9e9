// The host side of a recorded trace (record.hpp: `tilegemm trace`, the explorer's record
// endpoint): the host spans and CUPTI records of the traced call as host tracks, and where the
// device's %globaltimer lies on the host axis.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "api/trace_capture.hpp"
#include "bench/cupti_activity.hpp"
#include "trace/chrome_trace.hpp"
#include "trace/decode.hpp"

namespace tilegemm::trace {

// The traced call on the host clock: the whole gemm_with_options call and the stream
// synchronisation that waited for it.
struct CallWindow {
  uint64_t call_start_ns = 0, call_end_ns = 0;  // gemm_with_options
  uint64_t sync_end_ns = 0;                      // cudaStreamSynchronize after it returned
};

// How device times map onto the host axis (host = %globaltimer + offset_ns).
struct ClockAlignment {
  int64_t offset_ns = 0;
  std::string method;
  bool has_cupti_kernel = false;            // CUPTI recorded the traced kernel
  int64_t raw_globaltimer_minus_cupti_ns = 0;  // the first instruction's %globaltimer - CUPTI's start
  int64_t host_call_to_first_ns = 0;        // the call's start to the first in-kernel timestamp
  // With CUPTI's kernel record: the last role's end to the record's end (the CTAs' exit, a
  // cluster's last sync, the kernel's completion); -1 without it.
  int64_t last_role_to_kernel_end_ns = -1;
};

// The CUPTI records that belong to the traced call: from its start to the end of the
// synchronisation that waited for it.
std::vector<bench::ActivityRecord> records_of_call(const std::vector<bench::ActivityRecord>& all, const CallWindow& w);

// The traced kernel's CUPTI record among `records` (the kernel named tilegemm_gemm that started
// last before the window ends), or null.
const bench::ActivityRecord* traced_kernel_record(const std::vector<bench::ActivityRecord>& records);

ClockAlignment align_clocks(const DecodedTrace& t, const CallWindow& w, const bench::ActivityRecord* kernel);

// Host tracks: "host / tilegemm (host spans)" with the call and its stages, "host / CUDA API
// (CUPTI)" and "GPU (CUPTI) / stream N".
std::vector<HostTrack> host_tracks(const detail::TraceCapture& capture, const CallWindow& w,
                                          const std::vector<bench::ActivityRecord>& records);

}  // namespace tilegemm::trace
