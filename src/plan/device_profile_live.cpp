// Device profile of the live GPU. CUDA runtime API only (cudart is linked statically; libcuda is
// never linked), so this file links everywhere and simply reports "no device" on a machine
// without a driver or GPU.
#include <cuda_runtime_api.h>

#include <string>

#include "core/no_device.hpp"
#include "plan/device_profile.hpp"

namespace tilegemm::plan {

namespace {

// The built-in entry a device name stands for, or "" when none does. H100 PCIe has the H800
// PCIe's SM count and memory system, so it borrows that entry's tensor peak and clock.
std::string builtin_key_for(const std::string& device_name, int sm_count) {
  auto has = [&](const char* s) { return device_name.find(s) != std::string::npos; };
  if (has("H200")) return "h200";
  if (has("H20")) return "h20";  // after H200: "H20" is a prefix of "H200"
  if (has("H800") || has("H100")) return sm_count == 132 ? "h100" : sm_count == 114 ? "h800" : "";
  return "";
}

}  // namespace

DeviceProfile profile_from_device_prop(const cudaDeviceProp& prop, int clock_khz, int mem_clock_khz) {
  const std::string device_name = prop.name;
  const std::string key = builtin_key_for(device_name, prop.multiProcessorCount);
  DeviceProfile p;
  if (auto base = key.empty() ? std::nullopt : find_builtin_profile(key)) {
    p = *base;  // tensor peak, clock, achievable HBM and time constants of the matching SKU
  } else {
    // Unknown part: a full-rate Hopper SM (4096 dense BF16 FLOP/cycle, [peers] in
    // device_profile.cpp) at the reported peak clock; HBM achievable at the H200's measured ratio.
    p = builtin_profiles().front();
    p.clock_ghz = clock_khz > 0 ? clock_khz / 1e6 : p.clock_ghz;
    p.tc_peak_flops = 4096.0 * prop.multiProcessorCount * p.clock_ghz * 1e9;
    p.description = device_name + " (no built-in entry: tensor peak derived from the clock)";
  }
  p.name = "live";
  p.source = "live device " + device_name + (key.empty() ? "" : " (SKU constants from built-in " + key + ")");
  if (!key.empty()) p.description = device_name;
  p.sm_count = prop.multiProcessorCount;
  if (!key.empty() && p.sm_count != find_builtin_profile(key)->sm_count) {
    // e.g. a MIG slice or a partially enabled part: scale the tensor peak with the SMs present.
    p.tc_peak_flops *= static_cast<double>(p.sm_count) / find_builtin_profile(key)->sm_count;
  }
  p.l2_bytes_per_cycle = seed_l2_bytes_per_cycle(p.sm_count);
  p.local_bytes_per_cycle = seed_local_bytes_per_cycle(p.sm_count);
  if (prop.l2CacheSize > 0) p.l2_bytes = prop.l2CacheSize;
  if (prop.sharedMemPerBlockOptin > 0) p.smem_per_block_optin = static_cast<int>(prop.sharedMemPerBlockOptin);
  if (prop.sharedMemPerMultiprocessor > 0) p.smem_per_sm = static_cast<int>(prop.sharedMemPerMultiprocessor);
  if (prop.regsPerMultiprocessor > 0) p.regs_per_sm = prop.regsPerMultiprocessor;
  if (mem_clock_khz > 0 && prop.memoryBusWidth > 0) {
    // Double data rate: bus bits / 8 bytes per transfer, two transfers per clock.
    const double sheet = 2.0 * mem_clock_khz * 1e3 * (prop.memoryBusWidth / 8.0);
    const double ratio = p.hbm_bytes_per_s / p.hbm_datasheet_bytes_per_s;
    p.hbm_datasheet_bytes_per_s = sheet;
    p.hbm_bytes_per_s = sheet * ratio;
  }
  return p;
}

std::optional<DeviceProfile> query_live_profile(int device, std::string* why_not) {
  auto fail = [&](std::string why) -> std::optional<DeviceProfile> {
    if (why_not) *why_not = std::move(why);
    return std::nullopt;
  };
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) return fail(no_device_reason(err));  // also resets the last error
  if (device < 0 || device >= count)
    return fail("device " + std::to_string(device) + " does not exist (" + std::to_string(count) + " found)");
  cudaDeviceProp prop{};
  if ((err = cudaGetDeviceProperties(&prop, device)) != cudaSuccess)
    return fail(std::string("cudaGetDeviceProperties failed: ") + cudaGetErrorString(err));
  if (prop.major != 9)
    return fail(std::string(prop.name) + " is compute capability " + std::to_string(prop.major) + "." +
                std::to_string(prop.minor) + ", not 9.x (Hopper)");
  int clock_khz = 0, mem_clock_khz = 0;
  if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device) != cudaSuccess) clock_khz = 0;
  if (cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, device) != cudaSuccess) mem_clock_khz = 0;
  cudaGetLastError();
  return profile_from_device_prop(prop, clock_khz, mem_clock_khz);
}

}  // namespace tilegemm::plan
