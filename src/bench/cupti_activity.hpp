// CUPTI activity around a stretch of host code (`tilegemm trace`): the CUDA runtime and driver
// API calls, kernels, memcpys and memsets it caused, with CUPTI's timestamps (on Linux CUPTI takes
// them from clock_gettime(CLOCK_REALTIME) and maps the GPU's onto the same axis: cupti_activity.h,
// cuptiActivityRegisterTimestampCallback). libcupti is reached through dlopen (cupti_timer.cpp);
// without it, or without a GPU, a recording says why and records nothing.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace tilegemm::bench {

enum class ActivityKind { runtime_api, driver_api, kernel, memcpy, memset };
const char* activity_kind_name(ActivityKind k);  // "runtime API", "driver API", "kernel", ...

struct ActivityRecord {
  ActivityKind kind = ActivityKind::kernel;
  std::string name;  // API function ("cudaStreamSynchronize", "cuLaunchKernelEx"), kernel name, "memcpy HtoD"
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t correlation_id = 0;  // an API call and the GPU work it launched share it
  uint32_t thread_id = 0;       // API records: the calling thread
  uint32_t stream_id = 0;       // kernels, memcpy, memset
  uint64_t bytes = 0;           // memcpy, memset
  uint32_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0}, cluster[3] = {0, 0, 0};  // kernels
  int32_t dynamic_smem = 0;     // kernels
};

// Records while it lives (one at a time, and never during a CUPTI timing session: both take the
// same lock). Check ok(); finish() returns the records.
class ActivityRecording {
 public:
  ActivityRecording();
  ~ActivityRecording();
  ActivityRecording(const ActivityRecording&) = delete;
  ActivityRecording& operator=(const ActivityRecording&) = delete;

  bool ok() const { return ok_; }
  const std::string& reason() const { return reason_; }  // why not ok
  // Stops recording, flushes CUPTI and moves the records out, sorted by start. False with *error.
  bool finish(std::vector<ActivityRecord>* out, std::string* error);

 private:
  std::unique_lock<std::mutex> session_;
  bool ok_ = false, finished_ = false;
  std::string reason_;
  std::vector<int> enabled_;  // CUpti_ActivityKind values enabled by this recording
};

}  // namespace tilegemm::bench
