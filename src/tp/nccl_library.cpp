// nccl_library.hpp: dlopen of libnccl, the entry points, error text.
#include "tp/nccl_library.hpp"

#include <cstdlib>
#include <mutex>

#include "core/library_candidates.hpp"

namespace tilegemm::tp::detail {

std::vector<std::string> nccl_library_candidates(const char* override_path, const char* cuda_home,
                                                 const char* cuda_path) {
  return library_candidates(override_path, {"libnccl.so.2", "libnccl.so"}, {cuda_home, cuda_path, "/usr/local/cuda"},
                            {"/lib64/", "/lib/", "/targets/x86_64-linux/lib/"});
}

bool NcclLibrary::load(const std::vector<std::string>& candidates, std::string* reason) {
  NcclLibrary lib;
  std::string tried;
  void* h = dlopen_first(
      candidates,
      [&lib](SymbolResolver& resolve) {
        lib = NcclLibrary{};
        resolve(&lib.get_version, "ncclGetVersion");
        resolve(&lib.get_unique_id, "ncclGetUniqueId");
        resolve(&lib.comm_init_rank, "ncclCommInitRank");
        resolve(&lib.comm_init_all, "ncclCommInitAll");
        resolve(&lib.comm_destroy, "ncclCommDestroy");
        resolve(&lib.comm_abort, "ncclCommAbort");
        resolve(&lib.comm_get_async_error, "ncclCommGetAsyncError");
        resolve(&lib.comm_count, "ncclCommCount");
        resolve(&lib.comm_cu_device, "ncclCommCuDevice");
        resolve(&lib.comm_user_rank, "ncclCommUserRank");
        resolve(&lib.group_start, "ncclGroupStart");
        resolve(&lib.group_end, "ncclGroupEnd");
        resolve(&lib.send, "ncclSend");
        resolve(&lib.recv, "ncclRecv");
        resolve(&lib.get_error_string, "ncclGetErrorString");
        resolve(&lib.get_last_error, "ncclGetLastError", /*required=*/false);  // NCCL >= 2.13
      },
      &lib.path, &tried);
  if (h == nullptr) {
    *reason = "cannot load NCCL (tried: " + tried + "); set TILEGEMM_NCCL_LIBRARY to libnccl.so.2's path";
    return false;
  }
  lib.handle = h;
  *this = lib;
  return true;
}

std::string NcclLibrary::describe(const char* call, NcclResult r, ncclComm* comm) const {
  std::string s = std::string(call) + " failed: " + (get_error_string ? get_error_string(r) : "error");
  s += " (ncclResult_t " + std::to_string(r) + ")";
  if (get_last_error != nullptr) {
    const char* last = get_last_error(comm);
    if (last != nullptr && last[0] != '\0') s += ": " + std::string(last);
  }
  return s;
}

const NcclLibrary* nccl_library(std::string* reason) {
  static std::once_flag once;
  static NcclLibrary lib;
  static std::string why;
  std::call_once(once, [] {
    (void)lib.load(nccl_library_candidates(std::getenv("TILEGEMM_NCCL_LIBRARY"), std::getenv("CUDA_HOME"),
                                           std::getenv("CUDA_PATH")),
                   &why);
  });
  if (lib.handle == nullptr) {
    if (reason) *reason = why;
    return nullptr;
  }
  return &lib;
}

Status loaded_nccl(const NcclLibrary** out) {
  std::string why;
  *out = nccl_library(&why);
  if (*out == nullptr) return Status{ErrorCode::unsupported, "comm", why};
  return Status::success();
}

Status nccl_status(const NcclLibrary& lib, const char* call, NcclResult r, ncclComm* comm) {
  if (r == kNcclSuccess) return Status::success();
  return Status{ErrorCode::cuda_error, "comm", lib.describe(call, r, comm)};
}

}  // namespace tilegemm::tp::detail
