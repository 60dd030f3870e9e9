// ActivityRecording (cupti_activity.hpp) and the parsing of the records it keeps.
#include "bench/cupti_activity.hpp"

#include <algorithm>

#include "bench/cupti_timer.hpp"

namespace tilegemm::bench {
namespace detail {
namespace {

std::string api_name(const CuptiLibrary& lib, CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  const char* name = nullptr;
  if (lib.get_callback_name != nullptr && lib.get_callback_name(domain, cbid, &name) == CUPTI_SUCCESS && name)
    return name;
  return (domain == CUPTI_CB_DOMAIN_RUNTIME_API ? "runtime API " : "driver API ") + std::to_string(cbid);
}

}  // namespace

// The fields read here exist with these names in the CUDA 13.0 record types (cupti_activity.h).
bool to_activity(const CuptiLibrary& lib, const CUpti_Activity* record, ActivityRecord* a) {
  switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      const auto* r = reinterpret_cast<const CUpti_ActivityAPI*>(record);
      const bool runtime = record->kind == CUPTI_ACTIVITY_KIND_RUNTIME;
      a->kind = runtime ? ActivityKind::runtime_api : ActivityKind::driver_api;
      a->name = api_name(lib, runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API, r->cbid);
      a->start_ns = r->start;
      a->end_ns = r->end;
      a->correlation_id = r->correlationId;
      a->thread_id = r->threadId;
      return true;
    }
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      a->kind = ActivityKind::kernel;
      a->name = k->name != nullptr ? k->name : "kernel";
      a->start_ns = k->start;
      a->end_ns = k->end;
      a->correlation_id = k->correlationId;
      a->stream_id = k->streamId;
      a->grid[0] = uint32_t(k->gridX), a->grid[1] = uint32_t(k->gridY), a->grid[2] = uint32_t(k->gridZ);
      a->block[0] = uint32_t(k->blockX), a->block[1] = uint32_t(k->blockY), a->block[2] = uint32_t(k->blockZ);
      a->cluster[0] = k->clusterX, a->cluster[1] = k->clusterY, a->cluster[2] = k->clusterZ;
      a->dynamic_smem = k->dynamicSharedMemory;
      return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      static const char* const kinds[] = {"memcpy",      "memcpy HtoD", "memcpy DtoH", "memcpy HtoA", "memcpy AtoH",
                                          "memcpy AtoA", "memcpy AtoD", "memcpy DtoA", "memcpy DtoD", "memcpy HtoH"};
      a->kind = ActivityKind::memcpy;
      a->name = m->copyKind < sizeof(kinds) / sizeof(kinds[0]) ? kinds[m->copyKind] : "memcpy";
      a->start_ns = m->start;
      a->end_ns = m->end;
      a->correlation_id = m->correlationId;
      a->stream_id = m->streamId;
      a->bytes = m->bytes;
      return true;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      a->kind = ActivityKind::memset;
      a->name = "memset";
      a->start_ns = m->start;
      a->end_ns = m->end;
      a->correlation_id = m->correlationId;
      a->stream_id = m->streamId;
      a->bytes = m->bytes;
      return true;
    }
    default: return false;
  }
}

}  // namespace detail

const char* activity_kind_name(ActivityKind k) {
  switch (k) {
    case ActivityKind::runtime_api: return "runtime API";
    case ActivityKind::driver_api: return "driver API";
    case ActivityKind::kernel: return "kernel";
    case ActivityKind::memcpy: return "memcpy";
    case ActivityKind::memset: return "memset";
  }
  return "unknown";
}

ActivityRecording::ActivityRecording() {
  if (!detail::cupti_ready(&reason_)) return;
  session_ = std::unique_lock<std::mutex>(detail::cupti_session_mutex());
  const detail::CuptiLibrary& lib = detail::cupti_library();
  detail::set_recording(true);
  for (CUpti_ActivityKind k : {CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER,
                               CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                               CUPTI_ACTIVITY_KIND_MEMSET}) {
    if (const CUptiResult r = lib.enable(k); r != CUPTI_SUCCESS) {
      reason_ = "cuptiActivityEnable(" + std::to_string(int(k)) + "): " + lib.result_string(r);
      for (int e : enabled_) lib.disable(CUpti_ActivityKind(e));
      enabled_.clear();
      detail::set_recording(false);
      return;
    }
    enabled_.push_back(int(k));
  }
  ok_ = true;
}

ActivityRecording::~ActivityRecording() {
  if (!ok_ || finished_) return;
  std::vector<ActivityRecord> ignored;
  std::string error;
  finish(&ignored, &error);
}

bool ActivityRecording::finish(std::vector<ActivityRecord>* out, std::string* error) {
  if (!ok_) {
    *error = reason_;
    return false;
  }
  if (finished_) {
    *error = "the recording was already finished";
    return false;
  }
  finished_ = true;
  const detail::CuptiLibrary& lib = detail::cupti_library();
  for (int e : enabled_) lib.disable(CUpti_ActivityKind(e));
  const bool took = detail::take_activity(out, error);
  detail::set_recording(false);
  session_.unlock();  // timing sessions may run again
  if (took) std::sort(out->begin(), out->end(), [](const ActivityRecord& a, const ActivityRecord& b) {
    return a.start_ns < b.start_ns;
  });
  return took;
}

}  // namespace tilegemm::bench
