// The CUDA driver functions the JIT calls, reached through cudaGetDriverEntryPointByVersion and
// resolved once per process: libcuda is never linked, so a machine without a driver still runs
// everything up to the first load.
#pragma once

#include <string>

#include <cuda.h>
#include <cudaTypedefs.h>  // PFN_<name>_v<ABI version>: the prototype each version pins

#include "tilegemm/tilegemm.hpp"

namespace tilegemm::jit {

struct DriverApi {
  PFN_cuGetErrorName_v6000 get_error_name = nullptr;
  PFN_cuCtxGetCurrent_v4000 ctx_get_current = nullptr;
  PFN_cuCtxGetDevice_v2000 ctx_get_device = nullptr;
  PFN_cuLibraryLoadData_v12000 library_load_data = nullptr;
  PFN_cuLibraryUnload_v12000 library_unload = nullptr;
  PFN_cuLibraryGetKernel_v12000 library_get_kernel = nullptr;
  PFN_cuKernelGetFunction_v12000 kernel_get_function = nullptr;
  PFN_cuKernelSetAttribute_v12000 kernel_set_attribute = nullptr;
  PFN_cuKernelGetParamInfo_v12040 kernel_get_param_info = nullptr;  // optional (driver 12.4+)
  PFN_cuLaunchKernelEx_v11060 launch_kernel_ex = nullptr;
  PFN_cuOccupancyMaxActiveClusters_v11070 occupancy_max_active_clusters = nullptr;
  std::string error;  // why a required function is missing; empty when all were found
};

// Resolved on the first call (thread-safe); later calls return the same table.
const DriverApi& driver_api();

// "CUDA_ERROR_INVALID_VALUE (1)".
std::string driver_error_name(CUresult r);

// The calling thread's current context's device. With no current context, the CUDA runtime's
// primary context of the runtime's current device is made current first (cudaFree(nullptr)), as
// every other tilegemm call works in it. Cheap when a context is current (two driver queries).
Status current_device(const DriverApi& api, CUdevice* device);

}  // namespace tilegemm::jit
