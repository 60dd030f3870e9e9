// Why the CUDA runtime found no device, in words a user can act on. One place for the sentence
// every layer prints (check_device, tilegemm info/bench/ladder, the planner's live profile, the
// explorer, the JIT): a machine without the NVIDIA driver makes cudaGetDeviceCount return
// cudaErrorInsufficientDriver, whose own text ("CUDA driver version is insufficient for CUDA
// runtime version") sends a user to update a driver that is not there. cudaDriverGetVersion tells
// the two apart: it reports 0 when no driver is installed (CUDA Runtime API reference,
// cudaDriverGetVersion).
#pragma once

#include <string>

#include <cuda_runtime_api.h>

namespace tilegemm {

// `err`: what a runtime call that looks for devices returned (cudaSuccess with no device counts
// as cudaErrorNoDevice); `driver_version`: cudaDriverGetVersion's answer, 0 = no driver;
// `runtime_version`: the CUDA runtime's (CUDART_VERSION). Pure: testable without a GPU.
//   no driver          -> "no NVIDIA driver / no GPU found (...)"
//   driver too old     -> "the NVIDIA driver supports CUDA 12.2 but ... needs 13.0 ..."
//   no device          -> "no GPU found: the NVIDIA driver (CUDA 13.0) reports no CUDA device ..."
//   anything else      -> "<cudaErrorName>: <cudaGetErrorString>"
std::string no_device_reason(cudaError_t err, int driver_version, int runtime_version);

// The same for this process: asks cudaDriverGetVersion, then resets the runtime's last error
// (cudaGetLastError), as every caller did before.
std::string no_device_reason(cudaError_t err);

}  // namespace tilegemm
