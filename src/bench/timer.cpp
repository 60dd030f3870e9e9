// Device timing (timer.hpp): the shared part, and the CUDA-event method. The CUPTI method is in
// cupti_timer.cpp; it is tried first when asked for, and events measure when it cannot.
//
// One event-timed call:   [flush of the L2]  start-event  launch()  stop-event
// The flush (a memset of the flush buffer, or a kernel reading it: flush.cu) evicts A, B and D from
// L2 (>= 2x L2 of other lines leave none of the operands'), and sits before the start event in
// stream order, so it is never inside the measured interval. All
// iterations are queued before the host waits; the memset (~0.1 ms) keeps the GPU ahead of the
// host's enqueueing, so what the events see is device time, not launch latency.
#include "bench/timer.hpp"

#include "bench/cupti_timer.hpp"
#include "bench/flush.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <vector>

namespace tilegemm::bench {
namespace {

constexpr size_t kMinFlushBytes = size_t{512} << 20;

// One flush buffer per device: `bytes` zeroed bytes and, after them, the read flush's sink word.
struct FlushBuffer {
  void* data = nullptr;
  size_t bytes = 0;
  uint32_t* sink = nullptr;
};

// Allocated and zeroed on first use and kept for the life of the process (NOTES: deliberately
// never freed — freeing from a static destructor can run after the CUDA runtime has shut down).
cudaError_t flush_buffer(FlushBuffer* out) {
  static std::mutex mutex;
  static std::map<int, FlushBuffer> buffers;
  int device = 0;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = buffers.find(device);
  if (it == buffers.end()) {
    FlushBuffer b;
    b.bytes = l2_flush_bytes();
    if (b.bytes == 0) return cudaErrorInvalidDevice;
    if (cudaError_t e = cudaMalloc(&b.data, b.bytes + 256); e != cudaSuccess) return e;
    if (cudaError_t e = cudaMemset(b.data, 0, b.bytes + 256); e != cudaSuccess) return e;
    b.sink = reinterpret_cast<uint32_t*>(static_cast<char*>(b.data) + b.bytes);
    it = buffers.emplace(device, b).first;
  }
  *out = it->second;
  return cudaSuccess;
}

// The i-th flush: a memset (a different byte each time) or the read kernel.
cudaError_t run_flush(const FlushBuffer& b, FlushKind kind, int i, cudaStream_t stream) {
  if (kind == FlushKind::read) return read_flush(b.data, b.bytes, b.sink, stream);
  return cudaMemsetAsync(b.data, i & 0xFF, b.bytes, stream);
}

// Destroys the events it holds, whatever path the timing function leaves by.
struct EventSet {
  std::vector<cudaEvent_t> events;
  ~EventSet() {
    for (cudaEvent_t e : events) cudaEventDestroy(e);
  }
  cudaError_t create(size_t n) {
    events.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      cudaEvent_t e = nullptr;
      if (cudaError_t err = cudaEventCreate(&e); err != cudaSuccess) return err;
      events.push_back(e);
    }
    return cudaSuccess;
  }
};

}  // namespace

const char* timing_method_name(TimingMethod method) {
  return method == TimingMethod::cupti ? "cupti" : "events";
}

bool parse_timing_method(const std::string& text, TimingMethod* method) {
  if (text == "events") {
    *method = TimingMethod::events;
    return true;
  }
  if (text == "cupti") {
    *method = TimingMethod::cupti;
    return true;
  }
  return false;
}

const char* flush_kind_name(FlushKind kind) { return kind == FlushKind::read ? "read" : "write"; }

bool parse_flush_kind(const std::string& text, FlushKind* kind) {
  if (text == "write" || text == "read") {
    *kind = text == "read" ? FlushKind::read : FlushKind::write;
    return true;
  }
  return false;
}

std::optional<TimerChoice> choose_timer(const std::string& requested, std::string* error) {
  TimerChoice c;
  if (!requested.empty() && !parse_timing_method(requested, &c.method)) {
    *error = "--timer '" + requested + "': must be events or cupti";
    return std::nullopt;
  }
  if (c.method == TimingMethod::cupti && !cupti_available()) {
    const std::string why = cupti_unavailable_reason();
    if (!requested.empty()) {
      *error = "--timer cupti: CUPTI is unavailable: " + why;
      return std::nullopt;
    }
    c.method = TimingMethod::events;
    c.fallback_reason = why;
  }
  if (c.method == TimingMethod::cupti)
    c.description = "CUPTI kernel time (sum of the call's kernels)";
  else
    c.description = "CUDA events around the call" +
                    (c.fallback_reason.empty() ? std::string() : " (CUPTI unavailable: " + c.fallback_reason + ")");
  return c;
}

Timing summarize_times(std::vector<double> us) {
  Timing t;
  if (us.empty()) return t;
  const size_t n = us.size();
  double sum = 0;
  for (double v : us) sum += v;
  std::sort(us.begin(), us.end());
  t.iters = static_cast<int>(n);
  t.min_us = us.front();
  t.max_us = us.back();
  t.median_us = n % 2 ? us[n / 2] : 0.5 * (us[n / 2 - 1] + us[n / 2]);
  t.mean_us = sum / static_cast<double>(n);
  return t;
}

size_t l2_flush_bytes() {
  int device = 0, l2 = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return 0;
  if (cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device) != cudaSuccess) return 0;
  return std::max(size_t{2} * static_cast<size_t>(l2), kMinFlushBytes);
}

cudaError_t time_on_device(const std::function<cudaError_t(cudaStream_t)>& launch, const TimingOptions& options,
                           cudaStream_t stream, Timing* out) {
  if (options.iters < 1 || options.warmup < 0 || out == nullptr) return cudaErrorInvalidValue;
  FlushBuffer buffer;
  std::function<cudaError_t(int)> flush;  // empty: no flush
  if (options.flush_l2) {
    if (cudaError_t e = flush_buffer(&buffer); e != cudaSuccess) return e;
    flush = [&buffer, kind = options.flush, stream](int i) { return run_flush(buffer, kind, i, stream); };
  }

  std::string fallback_reason;
  if (options.method == TimingMethod::cupti) {
    Timing t;
    if (cudaError_t e = detail::time_with_cupti(launch, options, stream, flush, &t, &fallback_reason);
        e != cudaSuccess)
      return e;
    if (fallback_reason.empty()) {
      *out = std::move(t);
      return cudaSuccess;
    }
  }

  for (int i = 0; i < options.warmup; ++i)
    if (cudaError_t e = launch(stream); e != cudaSuccess) return e;
  if (cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess) return e;

  const int iters = options.iters;
  EventSet events;  // [start_0, stop_0, start_1, stop_1, ...]
  if (cudaError_t e = events.create(2 * static_cast<size_t>(iters)); e != cudaSuccess) return e;
  for (int i = 0; i < iters; ++i) {
    if (flush)
      if (cudaError_t e = flush(i); e != cudaSuccess) return e;
    if (cudaError_t e = cudaEventRecord(events.events[2 * i], stream); e != cudaSuccess) return e;
    if (cudaError_t e = launch(stream); e != cudaSuccess) return e;
    if (cudaError_t e = cudaEventRecord(events.events[2 * i + 1], stream); e != cudaSuccess) return e;
  }
  if (cudaError_t e = cudaEventSynchronize(events.events.back()); e != cudaSuccess) return e;

  std::vector<double> us(iters);
  for (int i = 0; i < iters; ++i) {
    float ms = 0;
    if (cudaError_t e = cudaEventElapsedTime(&ms, events.events[2 * i], events.events[2 * i + 1]); e != cudaSuccess)
      return e;
    us[i] = 1000.0 * ms;
  }
  Timing t = summarize_times(std::move(us));
  t.method = timing_method_name(TimingMethod::events);
  t.fallback_reason = std::move(fallback_reason);
  *out = std::move(t);
  return cudaSuccess;
}

}  // namespace tilegemm::bench
