// Tracing one gemm() call through the production path (`tilegemm trace`, docs/TRACE.md).
// GemmOptions::trace points at a TraceCapture; gemm_with_options then
//   - records its own host spans (validate, device, route, plan, JIT kernel, trace buffer, launch),
//   - runs the traced kernel of the Config it would run anyway (the same config with
//     Config::trace set; never from or into the plan cache),
//   - hands that kernel an event buffer this object owns, sized for the launch (trace/event.hpp):
//     its header written and every event slot filled with trace::kUnwrittenByte first.
// After the caller synchronises the stream, download() returns the buffer's bytes for
// trace::decode_trace. Host only; the device buffer is freed with the object.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "plan/config.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm::detail {

struct PreparedKernel;
struct TraceTarget;

// The host time axis of a trace: CLOCK_REALTIME in nanoseconds. %globaltimer is initialised from
// the host's system clock (docs/TRACE.md says how far apart the two were measured).
uint64_t host_clock_ns();

struct HostSpanRecord {
  std::string name;    // "validate", "plan", "JIT kernel", "launch", ...
  uint64_t start_ns = 0, end_ns = 0;  // host_clock_ns()
  std::string detail;  // e.g. "memory cache" / "compiled (NVRTC)"
};

class TraceCapture {
 public:
  // lane_capacity 0: as many events per lane as the launch can record (counted from the schedule);
  // a smaller number makes lanes overflow (tests, and docs/TRACE.md's overflow check).
  explicit TraceCapture(uint32_t lane_capacity = 0) : requested_capacity_(lane_capacity) {}
  ~TraceCapture();
  TraceCapture(const TraceCapture&) = delete;
  TraceCapture& operator=(const TraceCapture&) = delete;

  // ---- what the last traced call did (gemm_with_options fills it) ----
  std::vector<HostSpanRecord> spans;  // cleared at the start of each call
  plan::Config config;                // the Config that ran (with trace set)
  int64_t grid = 0;                   // CTAs launched
  uint32_t lanes = 0, lane_capacity = 0;
  bool launched = false;

  // The buffer's bytes (call after the launch's stream is synchronised). Fails when nothing was
  // launched, on a CUDA error, or when the guard bytes behind the buffer were overwritten.
  Status download(std::vector<uint8_t>* bytes) const;

  // ---- gemm_with_options's side ----
  void begin_call();
  void add_span(const char* name, uint64_t start_ns, uint64_t end_ns, std::string detail = {});
  // Sizes the buffer for this launch (reusing the allocation when it is large enough) and
  // initialises it on args.stream.
  Status prepare(const GemmArgs& args, const PreparedKernel& prepared);
  TraceTarget target() const;  // the buffer and its lane capacity, for launch_sm90
  size_t buffer_bytes() const { return bytes_; }

 private:
  uint32_t requested_capacity_;
  void* buffer_ = nullptr;
  size_t allocated_ = 0, bytes_ = 0;
};

// [construction, destruction) as a span of `capture` (nothing when capture is null).
class TraceSpan {
 public:
  TraceSpan(TraceCapture* capture, const char* name) : capture_(capture), name_(name) {
    if (capture_) start_ = host_clock_ns();
  }
  ~TraceSpan() {
    if (capture_) capture_->add_span(name_, start_, host_clock_ns(), std::move(detail_));
  }
  TraceSpan(const TraceSpan&) = delete;
  TraceSpan& operator=(const TraceSpan&) = delete;
  void set_detail(std::string d) { detail_ = std::move(d); }

 private:
  TraceCapture* capture_;
  const char* name_;
  uint64_t start_ = 0;
  std::string detail_;
};

// Events one lane of `config` can append in its launch over `args` on a device with `resident_ctas`
// resident CTAs (the most units and k-blocks one CTA walks, times their steps, plus the final drain).
uint32_t trace_lane_capacity(const GemmArgs& args, const plan::Config& config, int resident_ctas);

}  // namespace tilegemm::detail
