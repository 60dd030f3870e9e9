#include "jit/driver_api.hpp"

#include <cuda_runtime_api.h>

namespace tilegemm::jit {
namespace {

// Looks `symbol` up at ABI `version` (the CUDA version that introduced the prototype in `fn`'s type).
template <typename Fn>
void resolve(const char* symbol, int version, Fn* fn, std::string* error, bool required = true) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult query = cudaDriverEntryPointSymbolNotFound;
  const cudaError_t err = cudaGetDriverEntryPointByVersion(symbol, &p, version, cudaEnableDefault, &query);
  if (err == cudaSuccess && query == cudaDriverEntryPointSuccess && p != nullptr) {
    *fn = reinterpret_cast<Fn>(p);
    return;
  }
  if (!required || !error->empty()) return;  // keep the first reason
  if (err != cudaSuccess)
    *error = std::string("cannot reach the CUDA driver (cudaGetDriverEntryPointByVersion(") + symbol +
             "): " + cudaGetErrorName(err) + ": " + cudaGetErrorString(err) + ")";
  else
    *error = std::string("the CUDA driver has no ") + symbol + " (ABI " + std::to_string(version) +
             "); tilegemm's JIT needs a CUDA 12.0 or newer driver";
}

DriverApi resolve_all() {
  DriverApi a;
  std::string* e = &a.error;
  resolve("cuGetErrorName", 6000, &a.get_error_name, e);
  resolve("cuCtxGetCurrent", 4000, &a.ctx_get_current, e);
  resolve("cuCtxGetDevice", 2000, &a.ctx_get_device, e);
  resolve("cuLibraryLoadData", 12000, &a.library_load_data, e);
  resolve("cuLibraryUnload", 12000, &a.library_unload, e);
  resolve("cuLibraryGetKernel", 12000, &a.library_get_kernel, e);
  resolve("cuKernelGetFunction", 12000, &a.kernel_get_function, e);
  resolve("cuKernelSetAttribute", 12000, &a.kernel_set_attribute, e);
  resolve("cuKernelGetParamInfo", 12040, &a.kernel_get_param_info, e, /*required=*/false);
  resolve("cuLaunchKernelEx", 11060, &a.launch_kernel_ex, e);
  resolve("cuOccupancyMaxActiveClusters", 11070, &a.occupancy_max_active_clusters, e);
  return a;
}

}  // namespace

const DriverApi& driver_api() {
  static const DriverApi api = resolve_all();
  return api;
}

std::string driver_error_name(CUresult r) {
  const DriverApi& api = driver_api();
  const char* name = nullptr;
  if (api.get_error_name == nullptr || api.get_error_name(r, &name) != CUDA_SUCCESS || name == nullptr)
    name = "CUresult";
  return std::string(name) + " (" + std::to_string(static_cast<int>(r)) + ")";
}

Status current_device(const DriverApi& api, CUdevice* device) {
  CUcontext ctx = nullptr;
  CUresult r = api.ctx_get_current(&ctx);
  if (r != CUDA_SUCCESS || ctx == nullptr) {
    // cudaFree(nullptr) initialises the runtime and makes the current device's primary context
    // current on this thread (CUDA Runtime API, "Initialization").
    const cudaError_t err = cudaFree(nullptr);
    if (err != cudaSuccess)
      return Status{ErrorCode::no_device, "device",
                    std::string("no current CUDA context, and the runtime could not make its primary context "
                                "current: ") + cudaGetErrorName(err) + ": " + cudaGetErrorString(err)};
    r = api.ctx_get_current(&ctx);
    if (r != CUDA_SUCCESS || ctx == nullptr)
      return Status{ErrorCode::cuda_error, "device",
                    "cuCtxGetCurrent after cudaFree(nullptr): " +
                        (r != CUDA_SUCCESS ? driver_error_name(r) : std::string("still no current context"))};
  }
  r = api.ctx_get_device(device);
  if (r != CUDA_SUCCESS)
    return Status{ErrorCode::cuda_error, "device", "cuCtxGetDevice: " + driver_error_name(r)};
  return {};
}

}  // namespace tilegemm::jit
