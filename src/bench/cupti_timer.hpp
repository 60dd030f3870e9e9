// Private to src/bench (and its tests): the CUPTI half of time_on_device (timer.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
// Types and prototypes only: nothing here is called directly (no link dependency on libcupti);
// the functions are reached through the pointers CuptiLibrary::load resolves with dlsym.
#include <cupti.h>

#include "bench/cupti_activity.hpp"
#include "bench/timer.hpp"

namespace tilegemm::bench::detail {

// One CUPTI kernel activity record, reduced to what the timer uses. Timestamps in ns.
struct KernelSpan {
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t correlation_id = 0;
};

// Kernel time of one timed call: the sum of (end - start) of the records collected while it (and
// only it) ran. False, with *error set, when there is no record (the call launched no kernel) or a
// record is incomplete (a zero timestamp, or end before start).
bool kernel_time_us(const std::vector<KernelSpan>& spans, double* us, std::string* error);

// Files tried by dlopen, in order: override_path alone when non-empty; otherwise the soname
// ("libcupti.so.13", "libcupti.so") then <root>/extras/CUPTI/lib64, <root>/lib64, <root>/lib for
// each of cuda_home, cuda_path (either may be null or empty) and /usr/local/cuda. No duplicates.
std::vector<std::string> cupti_library_candidates(const char* override_path, const char* cuda_home,
                                                  const char* cuda_path);

// A loaded libcupti: the first candidate that dlopens and has every function the timer uses.
// Never dlclose'd once loaded (CUPTI keeps threads and callbacks alive).
struct CuptiLibrary {
  void* handle = nullptr;
  std::string path;  // the file that was loaded
  decltype(&cuptiGetVersion) get_version = nullptr;
  decltype(&cuptiGetResultString) get_result_string = nullptr;
  decltype(&cuptiActivityRegisterCallbacks) register_callbacks = nullptr;
  decltype(&cuptiActivityEnable) enable = nullptr;
  decltype(&cuptiActivityDisable) disable = nullptr;
  decltype(&cuptiActivityFlushAll) flush_all = nullptr;
  decltype(&cuptiActivityGetNextRecord) get_next_record = nullptr;
  decltype(&cuptiActivityGetNumDroppedRecords) get_num_dropped = nullptr;
  // Optional (resolved when present, never required): API names and the timestamp the activity
  // records use, for `tilegemm trace` (cupti_activity.hpp).
  decltype(&cuptiGetCallbackName) get_callback_name = nullptr;
  decltype(&cuptiGetTimestamp) get_timestamp = nullptr;

  // False with *reason ("cannot load libcupti (tried: a: <dlerror>; b: no symbol cuptiX)")
  // when no candidate works.
  bool load(const std::vector<std::string>& candidates, std::string* reason);
  bool loaded() const { return handle != nullptr; }
  // cuptiGetVersion (e.g. 130001), 0 on failure.
  uint32_t version() const;
  // cuptiGetResultString, or "CUPTI error <n>".
  std::string result_string(CUptiResult result) const;
};

// The record as an ActivityRecord, for the kinds a recording keeps (API calls, kernels, memcpy,
// memset); false for the others (cupti_activity.cpp).
bool to_activity(const CuptiLibrary& lib, const CUpti_Activity* record, ActivityRecord* out);

// The process's CUPTI state (cupti_timer.cpp). A recording session and a timing session never
// overlap: both hold `session`.
struct CuptiState;
CuptiState& cupti_state();
// True when CUPTI is usable (probing once); *reason otherwise.
bool cupti_ready(std::string* reason);
// While recording, the buffer callbacks also keep API, memcpy and memset records.
void set_recording(bool on);
// Flushes CUPTI and moves the kept records out. False with *error on a CUPTI failure.
bool take_activity(std::vector<ActivityRecord>* out, std::string* error);
std::mutex& cupti_session_mutex();
const CuptiLibrary& cupti_library();

// Measures with CUPTI. Returns a CUDA error when a launch or CUDA call fails (as the events timer
// does). Otherwise returns cudaSuccess and either fills *out (method "cupti") or leaves it alone
// and sets *cupti_failure to why CUPTI could not measure — the caller then times with events.
// `flush` runs before each timed call (its i-th run gets i) when set.
cudaError_t time_with_cupti(const std::function<cudaError_t(cudaStream_t)>& launch, const TimingOptions& options,
                            cudaStream_t stream, const std::function<cudaError_t(int)>& flush, Timing* out,
                            std::string* cupti_failure);

}  // namespace tilegemm::bench::detail
