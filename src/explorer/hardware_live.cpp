// The live GPU through the CUDA runtime API (cudart is linked statically, libcuda never), so this
// links everywhere and reports "no CUDA device (...)" on a machine without a driver or GPU.
#include <cuda_runtime_api.h>

#include <string>

#include "core/no_device.hpp"
#include "explorer/hardware.hpp"

namespace tilegemm::explorer {

LiveDevice probe_live_device(int index) {
  LiveDevice d;
  d.index = index;
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    d.reason = no_device_reason(err);  // also resets the last error
    return d;
  }
  if (index < 0 || index >= count) {
    d.reason = "device " + std::to_string(index) + " does not exist (" + std::to_string(count) + " found)";
    return d;
  }
  cudaDeviceProp prop{};
  if ((err = cudaGetDeviceProperties(&prop, index)) != cudaSuccess) {
    cudaGetLastError();
    d.reason = std::string("cudaGetDeviceProperties failed: ") + cudaGetErrorString(err);
    return d;
  }
  d.present = true;
  d.name = prop.name;
  d.cc_major = prop.major;
  d.cc_minor = prop.minor;
  d.sm_count = prop.multiProcessorCount;
  d.global_mem_bytes = static_cast<int64_t>(prop.totalGlobalMem);
  d.l2_bytes = prop.l2CacheSize;
  d.mem_bus_bits = prop.memoryBusWidth;
  // CUDA 13 keeps the clocks out of cudaDeviceProp: ask for the attributes (0 = unknown).
  if (cudaDeviceGetAttribute(&d.sm_clock_khz, cudaDevAttrClockRate, index) != cudaSuccess) d.sm_clock_khz = 0;
  if (cudaDeviceGetAttribute(&d.mem_clock_khz, cudaDevAttrMemoryClockRate, index) != cudaSuccess)
    d.mem_clock_khz = 0;
  cudaGetLastError();

  SmLimits& l = d.limits;
  l.warp_size = prop.warpSize;
  l.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  l.max_ctas_per_sm = prop.maxBlocksPerMultiProcessor;
  l.max_threads_per_cta = prop.maxThreadsPerBlock;
  l.regs_per_sm = prop.regsPerMultiprocessor;
  l.regs_per_cta = prop.regsPerBlock;
  l.smem_per_sm = static_cast<int64_t>(prop.sharedMemPerMultiprocessor);
  l.smem_per_cta_optin = static_cast<int64_t>(prop.sharedMemPerBlockOptin);
  l.source = "live device " + d.name + " (cudaDeviceProp); tensor cores, FP32 lanes and the 255-register "
             "cap are architecture facts, not runtime properties";

  d.profile = plan::query_live_profile(index, &d.profile_reason);
  return d;
}

}  // namespace tilegemm::explorer
