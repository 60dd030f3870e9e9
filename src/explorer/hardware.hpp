// Panel 1 of the explorer, "Hardware": the live GPU (if any) beside the planner's built-in device
// profiles (plan/device_profile.hpp) and the per-SM limits of compute capability 9.0 (host only).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "plan/device_profile.hpp"

namespace tilegemm::explorer {

inline constexpr const char* kHardwareJsonSchema = "tilegemm.hardware/1";

// Per-SM (and per-CTA) limits. For a live device the runtime fills every field it reports; the
// two the CUDA runtime does not report (tensor cores, FP32 lanes) are architecture facts of the
// GH100 SM and keep the table's values.
struct SmLimits {
  int warp_size = 32;
  int max_threads_per_sm = 2048;  // = 64 warps
  int max_ctas_per_sm = 32;
  int max_threads_per_cta = 1024;
  int regs_per_sm = 65536;        // 32-bit registers
  int regs_per_cta = 65536;
  int max_regs_per_thread = 255;
  int64_t smem_per_sm = 233472;         // 228 KiB
  int64_t smem_per_cta_optin = 232448;  // 227 KiB, after cudaFuncSetAttribute opt-in
  int tensor_cores_per_sm = 4;          // 4th-generation; not a runtime property
  int fp32_lanes_per_sm = 128;          // not a runtime property
  std::string source;
};

// The compute capability 9.0 table (CUDA C++ Programming Guide, "Technical Specifications per
// Compute Capability"; tensor cores and FP32 lanes from NVIDIA's Hopper architecture whitepaper).
SmLimits cc90_sm_limits();

// What the CUDA runtime says about one GPU (hardware_live.cpp; runtime API only, so on a machine
// without a driver or GPU it reports why not instead).
struct LiveDevice {
  bool present = false;
  std::string reason;  // why not present
  int index = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int64_t global_mem_bytes = 0;
  int64_t l2_bytes = 0;
  int sm_clock_khz = 0;   // peak SM clock (cudaDevAttrClockRate)
  int mem_clock_khz = 0;  // peak memory clock
  int mem_bus_bits = 0;
  SmLimits limits;
  // The planner's profile of this GPU (query_live_profile): only for compute capability 9.x.
  std::optional<plan::DeviceProfile> profile;
  std::string profile_reason;  // why there is no profile
};

LiveDevice probe_live_device(int index = 0);

// The /api/hardware document (schema above; docs/EXPLORER.md lists the keys).
nlohmann::ordered_json hardware_json(const LiveDevice& live);

}  // namespace tilegemm::explorer
