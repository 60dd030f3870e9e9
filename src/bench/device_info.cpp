// Device facts through the CUDA runtime (device_info.hpp).
#include "bench/device_info.hpp"

#include <cuda_runtime_api.h>

#include "core/no_device.hpp"
#include "reference/cublaslt.hpp"

namespace tilegemm::bench {

std::string DeviceInfo::not_sm90_reason() const {
  if (is_sm90()) return {};
  if (!present) return error;
  return "device " + std::to_string(index) + " (" + name + ") is compute capability " + std::to_string(cc_major) +
         "." + std::to_string(cc_minor) + "; tilegemm's kernels are built for sm_90a (Hopper, 9.0)";
}

DeviceInfo probe_device(int index) {
  DeviceInfo info;
  info.index = index;
  cudaRuntimeGetVersion(&info.runtime_version);  // never fails for a linked runtime
  if (cudaDriverGetVersion(&info.driver_version) != cudaSuccess) info.driver_version = 0;
  info.cublaslt_version = ref::CublasLt::version_string();

  const auto describe = [](const char* call, cudaError_t e) {
    return std::string(call) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
  };
  if (cudaError_t e = cudaGetDeviceCount(&info.device_count); e != cudaSuccess || info.device_count == 0) {
    info.device_count = 0;
    info.error = no_device_reason(e == cudaSuccess ? cudaErrorNoDevice : e);  // resets the last error too
    return info;
  }
  if (index < 0 || index >= info.device_count) {
    info.error = "device " + std::to_string(index) + " does not exist (" + std::to_string(info.device_count) +
                 " device(s))";
    return info;
  }
  cudaDeviceProp prop{};
  if (cudaError_t e = cudaGetDeviceProperties(&prop, index); e != cudaSuccess) {
    info.error = describe("cudaGetDeviceProperties", e);
    return info;
  }
  info.present = true;
  info.name = prop.name;
  info.cc_major = prop.major;
  info.cc_minor = prop.minor;
  info.sm_count = prop.multiProcessorCount;
  info.global_mem_bytes = static_cast<int64_t>(prop.totalGlobalMem);
  info.l2_bytes = prop.l2CacheSize;
  info.smem_optin_per_block = static_cast<int64_t>(prop.sharedMemPerBlockOptin);
  info.smem_per_sm = static_cast<int64_t>(prop.sharedMemPerMultiprocessor);
  // Clocks are attributes since CUDA 13 dropped them from cudaDeviceProp; 0 if a query fails.
  if (cudaDeviceGetAttribute(&info.sm_clock_khz, cudaDevAttrClockRate, index) != cudaSuccess) info.sm_clock_khz = 0;
  if (cudaDeviceGetAttribute(&info.mem_clock_khz, cudaDevAttrMemoryClockRate, index) != cudaSuccess)
    info.mem_clock_khz = 0;
  if (cudaDeviceGetAttribute(&info.mem_bus_bits, cudaDevAttrGlobalMemoryBusWidth, index) != cudaSuccess)
    info.mem_bus_bits = 0;
  return info;
}

}  // namespace tilegemm::bench
