// CUPTI kernel timing (timer.hpp, cupti_timer.hpp).
//
// libcupti is dlopen'ed on first use and reached only through dlsym'ed pointers, so no binary
// depends on it: without it (or without a GPU) they start as before and time with events.
//
// One timed call, with CONCURRENT_KERNEL activity enabled:
//   [memset of the flush buffer]  sync  flush+discard  |  launch()  sync  flush+collect
// Everything recorded before the launch (warm-up calls, anything earlier) is discarded after the
// device is idle; after the launch the device is synchronised again, so the records collected by
// the forced flush are exactly the kernels that this one call launched (the bench is
// single-threaded; a second timing session waits for the first). The memset is a MEMSET activity,
// which is not enabled, and lies before the discard anyway. The call's time is the sum of its
// kernels' (end - start): what the profiler reports and the anchors summed (e.g. cuBLAS's split-K
// GEMM + reduce), without the launch gap that events measure.
#include "bench/cupti_timer.hpp"

#include "core/library_candidates.hpp"
#include "core/no_device.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <type_traits>

namespace tilegemm::bench {
namespace detail {

bool kernel_time_us(const std::vector<KernelSpan>& spans, double* us, std::string* error) {
  if (spans.empty()) {
    *error = "the timed call produced no kernel activity record (it launched no kernel?)";
    return false;
  }
  uint64_t total_ns = 0;
  for (const KernelSpan& s : spans) {
    if (s.start_ns == 0 || s.end_ns == 0 || s.end_ns < s.start_ns) {
      *error = "incomplete kernel activity record (correlation id " + std::to_string(s.correlation_id) +
               ", start " + std::to_string(s.start_ns) + " ns, end " + std::to_string(s.end_ns) + " ns)";
      return false;
    }
    total_ns += s.end_ns - s.start_ns;
  }
  *us = static_cast<double>(total_ns) * 1e-3;
  return true;
}

std::vector<std::string> cupti_library_candidates(const char* override_path, const char* cuda_home,
                                                  const char* cuda_path) {
  return library_candidates(override_path, {"libcupti.so.13", "libcupti.so"}, {cuda_home, cuda_path, "/usr/local/cuda"},
                            {"/extras/CUPTI/lib64/", "/lib64/", "/lib/"});
}

bool CuptiLibrary::load(const std::vector<std::string>& candidates, std::string* reason) {
  CuptiLibrary lib;
  std::string tried;
  void* h = dlopen_first(
      candidates,
      [&lib](SymbolResolver& resolve) {
        lib = CuptiLibrary{};
        resolve(&lib.get_version, "cuptiGetVersion");
        resolve(&lib.get_result_string, "cuptiGetResultString");
        resolve(&lib.register_callbacks, "cuptiActivityRegisterCallbacks");
        resolve(&lib.enable, "cuptiActivityEnable");
        resolve(&lib.disable, "cuptiActivityDisable");
        resolve(&lib.flush_all, "cuptiActivityFlushAll");
        resolve(&lib.get_next_record, "cuptiActivityGetNextRecord");
        resolve(&lib.get_num_dropped, "cuptiActivityGetNumDroppedRecords");
        resolve(&lib.get_callback_name, "cuptiGetCallbackName", /*required=*/false);  // optional
        resolve(&lib.get_timestamp, "cuptiGetTimestamp", /*required=*/false);
      },
      &lib.path, &tried);
  if (h == nullptr) {
    *reason = "cannot load libcupti (tried: " + tried + ")";
    return false;
  }
  lib.handle = h;
  *this = lib;
  return true;
}

uint32_t CuptiLibrary::version() const {
  uint32_t v = 0;
  if (get_version == nullptr || get_version(&v) != CUPTI_SUCCESS) return 0;
  return v;
}

std::string CuptiLibrary::result_string(CUptiResult result) const {
  const char* s = nullptr;
  if (get_result_string != nullptr && get_result_string(result, &s) == CUPTI_SUCCESS && s != nullptr)
    return s;
  return "CUPTI error " + std::to_string(static_cast<int>(result));
}

// Process-wide CUPTI state. Allocated once and never destroyed: CUPTI may call the buffer
// callbacks from its own thread, possibly while static destructors run.
struct CuptiState {
  std::once_flag once;
  CuptiLibrary lib;
  std::mutex status_mutex;  // guards usable, reason
  bool usable = false;
  std::string reason = "CUPTI not probed yet";
  std::mutex session;  // one timing session at a time: the records are process-wide

  std::mutex sink_mutex;  // guards everything below (written by the buffer callbacks)
  std::vector<KernelSpan> spans;
  size_t dropped = 0;
  std::string callback_error;
  bool recording = false;               // a recording session (cupti_activity.cpp) is on
  std::vector<ActivityRecord> activity;  // its records
};

CuptiState& cupti_state() {
  static CuptiState* s = new CuptiState;
  return *s;
}

namespace {

CuptiState& state() { return cupti_state(); }

constexpr size_t kBufferBytes = size_t{1} << 20;
constexpr size_t kBufferAlign = 8;  // CUPTI requires 8-byte aligned activity buffers

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  void* p = std::aligned_alloc(kBufferAlign, kBufferBytes);  // null: CUPTI drops records (counted)
  *buffer = static_cast<uint8_t*>(p);
  *size = p != nullptr ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t /*size*/,
                               size_t valid_size) {
  CuptiState& st = state();
  std::vector<KernelSpan> spans;
  std::vector<ActivityRecord> activity;
  bool recording = false;
  {
    std::lock_guard<std::mutex> lock(st.sink_mutex);
    recording = st.recording;
  }
  std::string error;
  if (buffer != nullptr && valid_size > 0) {
    CUpti_Activity* record = nullptr;
    for (;;) {
      const CUptiResult r = st.lib.get_next_record(buffer, valid_size, &record);
      if (r == CUPTI_ERROR_MAX_LIMIT_REACHED) break;  // end of the buffer
      if (r != CUPTI_SUCCESS) {
        error = "cuptiActivityGetNextRecord: " + st.lib.result_string(r);
        break;
      }
      if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
        // The fields read here (start, end, correlationId) have kept their offsets in every
        // CUpti_ActivityKernelN since N = 4.
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        spans.push_back({k->start, k->end, k->correlationId});
      }
      ActivityRecord a;
      if (recording && to_activity(st.lib, record, &a)) activity.push_back(std::move(a));
    }
  }
  size_t dropped = 0;
  if (st.lib.get_num_dropped(context, stream_id, &dropped) != CUPTI_SUCCESS) dropped = 0;
  std::free(buffer);
  std::lock_guard<std::mutex> lock(st.sink_mutex);
  st.spans.insert(st.spans.end(), spans.begin(), spans.end());
  for (ActivityRecord& a : activity) st.activity.push_back(std::move(a));
  st.dropped += dropped;
  if (!error.empty() && st.callback_error.empty()) st.callback_error = error;
}

void set_unusable(CuptiState& st, std::string reason) {
  std::lock_guard<std::mutex> lock(st.status_mutex);
  st.usable = false;
  st.reason = std::move(reason);
}

void probe(CuptiState& st) {
  std::string reason;
  const char* override_path = std::getenv("TILEGEMM_CUPTI_LIB");
  if (override_path != nullptr && std::string(override_path) == "none") {
    set_unusable(st, "disabled by TILEGEMM_CUPTI_LIB=none");
    return;
  }
  // A profiler (Nsight Systems / Compute) is attached through the injection variable, or something
  // loaded CUPTI before us: registering our buffer callbacks could take its records away. Leave
  // CUPTI to it and time with events.
  if (const char* injection = std::getenv("CUDA_INJECTION64_PATH"); injection != nullptr && injection[0] != '\0') {
    set_unusable(st, std::string("a CUDA profiling tool is attached (CUDA_INJECTION64_PATH=") + injection + ")");
    return;
  }
  for (const char* soname : {"libcupti.so.13", "libcupti.so", "libcupti.so.12"}) {
    if (void* h = dlopen(soname, RTLD_NOW | RTLD_NOLOAD); h != nullptr) {
      dlclose(h);  // drops only the reference RTLD_NOLOAD added
      set_unusable(st, std::string(soname) + " was already loaded by something else in this process (a profiler?)");
      return;
    }
  }
  // No device, no driver: do not load CUPTI at all (CI machines).
  int count = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess || count == 0) {
    set_unusable(st, "no CUDA device: " + no_device_reason(e == cudaSuccess ? cudaErrorNoDevice : e));
    return;
  }
  const std::vector<std::string> candidates =
      cupti_library_candidates(override_path, std::getenv("CUDA_HOME"), std::getenv("CUDA_PATH"));
  if (!st.lib.load(candidates, &reason)) {
    set_unusable(st, reason);
    return;
  }
  const std::string where = " (" + st.lib.path + ", CUPTI API " + std::to_string(st.lib.version()) + ")";
  if (const CUptiResult r = st.lib.register_callbacks(buffer_requested, buffer_completed); r != CUPTI_SUCCESS) {
    set_unusable(st, "cuptiActivityRegisterCallbacks: " + st.lib.result_string(r) + where);
    return;
  }
  // Enabling is where another subscriber (a profiler attached to the process) or missing
  // permissions show up; try once now so cupti_available() tells the truth before any timing.
  if (const CUptiResult r = st.lib.enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL); r != CUPTI_SUCCESS) {
    set_unusable(st, "cuptiActivityEnable(CONCURRENT_KERNEL): " + st.lib.result_string(r) + where);
    return;
  }
  if (const CUptiResult r = st.lib.disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL); r != CUPTI_SUCCESS) {
    set_unusable(st, "cuptiActivityDisable(CONCURRENT_KERNEL): " + st.lib.result_string(r) + where);
    return;
  }
  std::lock_guard<std::mutex> lock(st.status_mutex);
  st.usable = true;
  st.reason.clear();
}

// True when usable; *reason otherwise.
bool ready(std::string* reason) {
  CuptiState& st = state();
  std::call_once(st.once, [&st] { probe(st); });
  std::lock_guard<std::mutex> lock(st.status_mutex);
  if (!st.usable && reason != nullptr) *reason = st.reason;
  return st.usable;
}

// Delivers every record CUPTI holds and moves the kernel spans out (into *spans when non-null,
// else discarded). False with *error on a CUPTI failure, dropped records or a parse error.
bool flush_and_take(CuptiState& st, std::vector<KernelSpan>* spans, std::string* error) {
  if (const CUptiResult r = st.lib.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); r != CUPTI_SUCCESS) {
    *error = "cuptiActivityFlushAll: " + st.lib.result_string(r);
    return false;
  }
  std::lock_guard<std::mutex> lock(st.sink_mutex);
  std::vector<KernelSpan> taken;
  taken.swap(st.spans);
  const size_t dropped = st.dropped;
  std::string callback_error;
  callback_error.swap(st.callback_error);
  st.dropped = 0;
  if (!callback_error.empty()) {
    *error = callback_error;
    return false;
  }
  if (dropped != 0) {
    *error = "CUPTI dropped " + std::to_string(dropped) + " activity record(s)";
    return false;
  }
  if (spans != nullptr) *spans = std::move(taken);
  return true;
}

// Kernel activity on for the life of the object; off (and CUPTI's buffers drained) after.
struct KernelActivity {
  CuptiState& st;
  bool enabled = false;
  ~KernelActivity() {
    if (!enabled) return;
    st.lib.disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    std::string ignored;
    flush_and_take(st, nullptr, &ignored);
  }
};

}  // namespace

bool cupti_ready(std::string* reason) { return ready(reason); }
std::mutex& cupti_session_mutex() { return state().session; }
const CuptiLibrary& cupti_library() { return state().lib; }

void set_recording(bool on) {
  CuptiState& st = state();
  std::lock_guard<std::mutex> lock(st.sink_mutex);
  st.recording = on;
  if (on) st.activity.clear();
}

bool take_activity(std::vector<ActivityRecord>* out, std::string* error) {
  CuptiState& st = state();
  if (!flush_and_take(st, nullptr, error)) return false;
  std::lock_guard<std::mutex> lock(st.sink_mutex);
  *out = std::move(st.activity);
  st.activity.clear();
  return true;
}

cudaError_t time_with_cupti(const std::function<cudaError_t(cudaStream_t)>& launch, const TimingOptions& options,
                            cudaStream_t stream, const std::function<cudaError_t(int)>& flush, Timing* out,
                            std::string* cupti_failure) {
  std::string reason;
  if (!ready(&reason)) {
    *cupti_failure = "CUPTI unavailable: " + reason;
    return cudaSuccess;
  }
  CuptiState& st = state();
  std::lock_guard<std::mutex> session(st.session);
  // Idle device, nothing pending from before this session.
  if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) return e;
  KernelActivity activity{st};
  if (const CUptiResult r = st.lib.enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL); r != CUPTI_SUCCESS) {
    const std::string why = "cuptiActivityEnable(CONCURRENT_KERNEL): " + st.lib.result_string(r);
    set_unusable(st, why);  // e.g. a profiler attached since the probe: do not try again
    *cupti_failure = why;
    return cudaSuccess;
  }
  activity.enabled = true;

  for (int i = 0; i < options.warmup; ++i)
    if (cudaError_t e = launch(stream); e != cudaSuccess) return e;

  std::vector<double> us(options.iters);
  std::vector<KernelSpan> spans;
  int kernels = 0;
  for (int i = 0; i < options.iters; ++i) {
    if (flush)
      if (cudaError_t e = flush(i); e != cudaSuccess) return e;
    if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) return e;
    std::string error;
    if (!flush_and_take(st, nullptr, &error)) {  // warm-up (i = 0) and earlier kernels: not this call's
      *cupti_failure = error;
      return cudaSuccess;
    }
    if (cudaError_t e = launch(stream); e != cudaSuccess) return e;
    if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) return e;
    if (!flush_and_take(st, &spans, &error) || !kernel_time_us(spans, &us[i], &error)) {
      *cupti_failure = "timed call " + std::to_string(i) + ": " + error;
      return cudaSuccess;
    }
    kernels = std::max(kernels, static_cast<int>(spans.size()));
  }
  Timing t = summarize_times(std::move(us));
  t.method = timing_method_name(TimingMethod::cupti);
  t.kernels = kernels;
  *out = std::move(t);
  return cudaSuccess;
}

}  // namespace detail

bool cupti_available() { return detail::ready(nullptr); }

std::string cupti_unavailable_reason() {
  std::string reason;
  return detail::ready(&reason) ? std::string() : reason;
}

TimingMethod default_timing_method() { return cupti_available() ? TimingMethod::cupti : TimingMethod::events; }

}  // namespace tilegemm::bench
