// What `tilegemm info` reports, and the "is there a Hopper GPU here?" test the bench and the demo
// use. Pure CUDA runtime queries: works (and says why not) on machines without a GPU or driver.
#pragma once

#include <cstdint>
#include <string>

namespace tilegemm::bench {

struct DeviceInfo {
  int runtime_version = 0;        // cudaRuntimeGetVersion, e.g. 13000
  int driver_version = 0;         // cudaDriverGetVersion; 0 when no driver is installed
  std::string cublaslt_version;   // "13.0.0"
  int device_count = 0;
  bool present = false;           // device `index` exists and answered
  std::string error;              // why not, when !present
  int index = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int64_t global_mem_bytes = 0;
  int64_t l2_bytes = 0;
  int64_t smem_optin_per_block = 0;   // bytes a kernel may opt into (cudaFuncSetAttribute)
  int64_t smem_per_sm = 0;
  int sm_clock_khz = 0;               // peak SM clock
  int mem_clock_khz = 0;              // peak memory clock
  int mem_bus_bits = 0;

  bool is_sm90() const { return present && cc_major == 9 && cc_minor == 0; }
  // Empty when is_sm90(); otherwise the reason, e.g. "no CUDA device (cudaErrorNoDevice: ...)".
  std::string not_sm90_reason() const;
  // Datasheet-style peak DRAM bandwidth from clock and bus width (2 transfers per clock), GB/s.
  double peak_dram_gbps() const { return 2.0 * mem_clock_khz * 1e3 * (mem_bus_bits / 8.0) / 1e9; }
};

DeviceInfo probe_device(int index = 0);

}  // namespace tilegemm::bench
