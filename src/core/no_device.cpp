// no_device_reason (no_device.hpp).
#include "core/no_device.hpp"

namespace tilegemm {
namespace {

std::string cuda_version_text(int v) {  // 13000 -> "13.0"
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

}  // namespace

std::string no_device_reason(cudaError_t err, int driver_version, int runtime_version) {
  const std::string name = cudaGetErrorName(err);
  if (err == cudaErrorInsufficientDriver && driver_version == 0)
    return "no NVIDIA driver / no GPU found (the CUDA runtime found no driver to load: " + name + ")";
  if (err == cudaErrorInsufficientDriver)
    return "the NVIDIA driver supports CUDA " + cuda_version_text(driver_version) + " but tilegemm's CUDA runtime is " +
           cuda_version_text(runtime_version) + ": install a newer driver (" + name + ")";
  if (err == cudaErrorNoDevice)
    return "no GPU found: the NVIDIA driver" +
           (driver_version > 0 ? " (CUDA " + cuda_version_text(driver_version) + ")" : std::string()) +
           " reports no CUDA device (" + name + ")";
  return name + ": " + cudaGetErrorString(err);
}

std::string no_device_reason(cudaError_t err) {
  int driver_version = 0;
  if (cudaDriverGetVersion(&driver_version) != cudaSuccess) driver_version = 0;
  (void)cudaGetLastError();  // reset the last error, so the next caller does not see this one
  return no_device_reason(err, driver_version, CUDART_VERSION);
}

}  // namespace tilegemm
