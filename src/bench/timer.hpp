// Device timing used by `tilegemm bench`, `tilegemm ladder` and the mapping comparison.
// Each timed call is preceded by an L2 flush of >= 2x the L2 size outside the measured set: a
// memset of a buffer (FlushKind::write, the default) or a kernel that reads it (FlushKind::read,
// which leaves no dirty line for the timed call to write back; flush.cu says why that matters). Two ways to measure the one launch (docs/TESTING.md, "Timing"):
//   - cupti (the default): the sum of (end - start) of every kernel the call launched, from CUPTI
//     activity records — what the profiler-based anchors report; no launch/front-end gap;
//   - events: CUDA events recorded around the launch on its stream.
// libcupti is never linked: it is dlopen'ed on first use (src/bench/cupti_timer.cpp). Where it
// cannot be loaded or initialised — or a measurement with it fails (e.g. the call launched no
// kernel, only a memset) — timing falls back to events and says why (Timing::fallback_reason).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

namespace tilegemm::bench {

enum class TimingMethod { events, cupti };

// How the L2 is emptied of the operands before each timed call (see the file comment).
enum class FlushKind { write, read };
// "write" / "read".
const char* flush_kind_name(FlushKind kind);
// Accepts exactly "write" and "read".
bool parse_flush_kind(const std::string& text, FlushKind* kind);

// "events" / "cupti".
const char* timing_method_name(TimingMethod method);
// Accepts exactly "events" and "cupti".
bool parse_timing_method(const std::string& text, TimingMethod* method);

// True when CUPTI was loaded and kernel activity could be enabled (probed once, on the first call:
// dlopen, cuptiActivityRegisterCallbacks, enable/disable of CONCURRENT_KERNEL). Never throws, and
// loads nothing when there is no CUDA device.
bool cupti_available();
// Empty when CUPTI is usable; otherwise why not, e.g. "cannot load libcupti (tried: ...)",
// "cuptiActivityEnable(CONCURRENT_KERNEL): CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED" (another
// profiler holds CUPTI), "no CUDA device (...)". Probes like cupti_available().
// Set TILEGEMM_CUPTI_LIB=/path/to/libcupti.so to load that file only, or =none to disable CUPTI.
std::string cupti_unavailable_reason();
// cupti when cupti_available(), else events.
TimingMethod default_timing_method();

// What a command asked for with --timer, resolved: the method it will pass in TimingOptions and
// the words its header prints.
struct TimerChoice {
  TimingMethod method = TimingMethod::cupti;
  std::string description;      // "CUPTI kernel time (...)" / "CUDA events around the call (...)"
  std::string fallback_reason;  // the default (cupti) was unavailable: why; events are used
};
// requested: "" (the default: cupti when available, else events), "events" or "cupti". Nothing
// (with *error) when requested is none of these, or is "cupti" while CUPTI is unavailable — a
// method asked for by name is never silently replaced.
std::optional<TimerChoice> choose_timer(const std::string& requested, std::string* error);

struct TimingOptions {
  int warmup = 5;      // untimed calls first (module load, clocks up)
  int iters = 30;      // timed calls; median and min reported
  bool flush_l2 = true;
  FlushKind flush = FlushKind::write;  // with flush_l2
  // cupti is used when available, else events (Timing::method says which measured).
  TimingMethod method = TimingMethod::cupti;
};

struct Timing {
  double median_us = 0, min_us = 0, max_us = 0;
  double mean_us = 0;  // what profiler-based numbers (the anchors) report
  int iters = 0;
  const char* method = "";      // "cupti" or "events": how these numbers were measured
  int kernels = 0;              // cupti: most kernel records one timed call produced; events: 0
  std::string fallback_reason;  // cupti was asked for but events measured: why
};

// Median (mean of the two middle values for an even count), min, max, mean of per-call times.
// Empty input: all zero.
Timing summarize_times(std::vector<double> us);

// Bytes the L2 flush memsets on the current device: max(2 x L2 size, 512 MiB) (the anchors flushed
// 512 MB). 0 if the device cannot be queried.
size_t l2_flush_bytes();

// Runs launch(stream) warmup + iters times and returns the times of the timed calls, measured with
// options.method (see above). Returns a CUDA error (and leaves `out` untouched) if any launch or
// CUDA call fails; a CUPTI failure is not an error (events measure instead).
cudaError_t time_on_device(const std::function<cudaError_t(cudaStream_t)>& launch,
                           const TimingOptions& options, cudaStream_t stream, Timing* out);

inline double tflops(double m, double n, double k, double us) { return 2.0 * m * n * k / (us * 1e6); }
// bytes: A + B read once, D written once (C read once if used): the minimum traffic.
inline double gbps(double bytes, double us) { return bytes / (us * 1e3); }

}  // namespace tilegemm::bench
