// libnccl reached through dlopen (like libcupti in the bench): no binary of the project links
// NCCL, so everything that does not use tensor parallelism runs without it. The declarations are
// the project's own, for the few entry points used, following NCCL's documented C ABI
// (nccl.h: ncclResult_t and ncclDataType_t are C enums, ncclUniqueId a struct of 128 chars,
// ncclComm_t a pointer to the opaque struct ncclComm); tests/cpu/tp/test_nccl_abi.cpp holds them
// to the toolkit's nccl.h where one is installed.
#pragma once

#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "tilegemm/tp.hpp"

namespace tilegemm::tp::detail {

using NcclResult = int;             // ncclResult_t
constexpr NcclResult kNcclSuccess = 0;
constexpr NcclResult kNcclInProgress = 7;
constexpr int kNcclUint8 = 1;       // ncclDataType_t ncclUint8
struct NcclUniqueId {               // ncclUniqueId
  char internal[128];
};

// Files tried, in order: TILEGEMM_NCCL_LIBRARY alone when set; else libnccl.so.2 (the one already
// in the process, e.g. PyTorch's, or the loader's search), then the CUDA roots (CUDA_HOME,
// CUDA_PATH, /usr/local/cuda) under lib64/, lib/ and targets/x86_64-linux/lib/.
std::vector<std::string> nccl_library_candidates(const char* override_path, const char* cuda_home,
                                                 const char* cuda_path);

struct NcclLibrary {
  void* handle = nullptr;
  std::string path;
  NcclResult (*get_version)(int*) = nullptr;
  NcclResult (*get_unique_id)(NcclUniqueId*) = nullptr;
  NcclResult (*comm_init_rank)(ncclComm**, int, NcclUniqueId, int) = nullptr;
  NcclResult (*comm_init_all)(ncclComm**, int, const int*) = nullptr;
  NcclResult (*comm_destroy)(ncclComm*) = nullptr;
  NcclResult (*comm_abort)(ncclComm*) = nullptr;
  NcclResult (*comm_get_async_error)(ncclComm*, NcclResult*) = nullptr;
  NcclResult (*comm_count)(const ncclComm*, int*) = nullptr;
  NcclResult (*comm_cu_device)(const ncclComm*, int*) = nullptr;
  NcclResult (*comm_user_rank)(const ncclComm*, int*) = nullptr;
  NcclResult (*group_start)() = nullptr;
  NcclResult (*group_end)() = nullptr;
  NcclResult (*send)(const void*, size_t, int, int, ncclComm*, cudaStream_t) = nullptr;
  NcclResult (*recv)(void*, size_t, int, int, ncclComm*, cudaStream_t) = nullptr;
  const char* (*get_error_string)(NcclResult) = nullptr;
  const char* (*get_last_error)(ncclComm*) = nullptr;  // optional (NCCL >= 2.13)

  bool load(const std::vector<std::string>& candidates, std::string* reason);
  // "ncclX failed: <ncclGetErrorString> (<ncclGetLastError>)".
  std::string describe(const char* call, NcclResult r, ncclComm* comm) const;
};

// The process's NCCL, loaded on first use (thread-safe), or nullptr with *reason.
const NcclLibrary* nccl_library(std::string* reason);

// The same as a Status: `unsupported` (naming the files tried) when no NCCL could be loaded.
Status loaded_nccl(const NcclLibrary** out);

// An `unsupported` Status for a missing library, a `cuda_error` naming the failed call otherwise.
Status nccl_status(const NcclLibrary& lib, const char* call, NcclResult r, ncclComm* comm);

}  // namespace tilegemm::tp::detail
