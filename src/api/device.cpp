// check_device(): is there a current CUDA device, and is it compute capability 9.0?
// The library is built for sm_90a only (wgmma, setmaxnreg), and "a" code runs on CC 9.0 exactly.
#include <string>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "core/no_device.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm {

// NOTES: gemm() calls this on every call, so it uses the cheap queries (device count, current
// device, two attributes); the full cudaGetDeviceProperties is read only to name a wrong device.
Status check_device() {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err == cudaSuccess && count == 0) err = cudaErrorNoDevice;
  int device = -1;
  if (err == cudaSuccess) err = cudaGetDevice(&device);
  if (err != cudaSuccess) return Status{ErrorCode::no_device, "device", no_device_reason(err)};

  int major = 0, minor = 0;
  err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  if (err != cudaSuccess)
    return Status{ErrorCode::no_device, "device",
                  fmt::format("no CUDA device: cannot read the compute capability of device {}: "
                              "{} ({})",
                              device, cudaGetErrorString(err), cudaGetErrorName(err))};
  if (major == 9 && minor == 0) return Status::success();

  cudaDeviceProp prop{};
  const std::string name =
      cudaGetDeviceProperties(&prop, device) == cudaSuccess ? prop.name : "unknown name";
  return Status{ErrorCode::no_device, "device",
                fmt::format("device {} ({}) has compute capability {}.{}: tilegemm is built for "
                            "sm_90a, which runs only on compute capability 9.0 (Hopper)",
                            device, name, major, minor)};
}

}  // namespace tilegemm
