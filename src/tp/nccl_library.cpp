// nccl_library.hpp: dlopen of libnccl, the entry points, error text.
#include "tp/nccl_library.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <type_traits>

#include "core/library_candidates.hpp"

namespace tilegemm::tp::detail {

std::vector<std::string> nccl_library_candidates(const char* override_path, const char* cuda_home,
                                                 const char* cuda_path) {
  return library_candidates(override_path, {"libnccl.so.2", "libnccl.so"}, {cuda_home, cuda_path, "/usr/local/cuda"},
                            {"/lib64/", "/lib/", "/targets/x86_64-linux/lib/"});
}

bool NcclLibrary::load(const std::vector<std::string>& candidates, std::string* reason) {
  std::string tried;
  for (const std::string& candidate : candidates) {
    if (!tried.empty()) tried += "; ";
    dlerror();
    void* h = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
      const char* e = dlerror();
      tried += e ? std::string(e) : candidate + ": dlopen failed";
      continue;
    }
    NcclLibrary lib;
    std::string missing;
    const auto resolve = [&](auto* slot, const char* name, bool required) {
      void* sym = dlsym(h, name);
      if (sym == nullptr && required && missing.empty()) missing = name;
      *slot = reinterpret_cast<std::remove_reference_t<decltype(*slot)>>(sym);
    };
    resolve(&lib.get_version, "ncclGetVersion", true);
    resolve(&lib.get_unique_id, "ncclGetUniqueId", true);
    resolve(&lib.comm_init_rank, "ncclCommInitRank", true);
    resolve(&lib.comm_init_all, "ncclCommInitAll", true);
    resolve(&lib.comm_destroy, "ncclCommDestroy", true);
    resolve(&lib.comm_abort, "ncclCommAbort", true);
    resolve(&lib.comm_get_async_error, "ncclCommGetAsyncError", true);
    resolve(&lib.comm_count, "ncclCommCount", true);
    resolve(&lib.comm_cu_device, "ncclCommCuDevice", true);
    resolve(&lib.comm_user_rank, "ncclCommUserRank", true);
    resolve(&lib.group_start, "ncclGroupStart", true);
    resolve(&lib.group_end, "ncclGroupEnd", true);
    resolve(&lib.send, "ncclSend", true);
    resolve(&lib.recv, "ncclRecv", true);
    resolve(&lib.get_error_string, "ncclGetErrorString", true);
    resolve(&lib.get_last_error, "ncclGetLastError", false);
    if (!missing.empty()) {
      tried += candidate + ": no symbol " + missing + " (NCCL >= 2.7 has them all)";
      dlclose(h);
      continue;
    }
    lib.handle = h;
    lib.path = candidate;
    *this = lib;
    return true;
  }
  *reason = "cannot load NCCL (tried: " + (tried.empty() ? std::string("nothing") : tried) +
            "); set TILEGEMM_NCCL_LIBRARY to libnccl.so.2's path";
  return false;
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

Status nccl_status(const NcclLibrary& lib, const char* call, NcclResult r, ncclComm* comm) {
  if (r == kNcclSuccess) return Status::success();
  return Status{ErrorCode::cuda_error, "comm", lib.describe(call, r, comm)};
}

}  // namespace tilegemm::tp::detail
