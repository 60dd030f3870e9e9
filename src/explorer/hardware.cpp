#include "explorer/hardware.hpp"

#include "plan/device_profile_json.hpp"

namespace tilegemm::explorer {

namespace {

using nlohmann::ordered_json;

// The profile's every field (plan::device_profile_json: the keys of `tilegemm explain --json`'s
// "device", docs/PLANNER.md), plus the whole-GPU counts the page shows, derived from the per-SM
// architecture numbers.
ordered_json profile_json(const plan::DeviceProfile& d, const SmLimits& sm) {
  ordered_json j = plan::device_profile_json(d);
  j["derived"] = {{"tensor_cores", d.sm_count * sm.tensor_cores_per_sm},
                  {"fp32_lanes", d.sm_count * sm.fp32_lanes_per_sm},
                  {"tc_flops_per_cycle_per_sm", d.tc_flops_per_cycle_per_sm()}};
  return j;
}

ordered_json limits_json(const SmLimits& l) {
  return ordered_json{{"warp_size", l.warp_size},
                      {"max_threads_per_sm", l.max_threads_per_sm},
                      {"max_warps_per_sm", l.warp_size > 0 ? l.max_threads_per_sm / l.warp_size : 0},
                      {"max_ctas_per_sm", l.max_ctas_per_sm},
                      {"max_threads_per_cta", l.max_threads_per_cta},
                      {"regs_per_sm", l.regs_per_sm},
                      {"regs_per_cta", l.regs_per_cta},
                      {"max_regs_per_thread", l.max_regs_per_thread},
                      {"smem_per_sm", l.smem_per_sm},
                      {"smem_per_cta_optin", l.smem_per_cta_optin},
                      {"tensor_cores_per_sm", l.tensor_cores_per_sm},
                      {"fp32_lanes_per_sm", l.fp32_lanes_per_sm},
                      {"source", l.source}};
}

}  // namespace

SmLimits cc90_sm_limits() {
  SmLimits l;  // the defaults are the table
  l.source = "compute capability 9.0 table (CUDA C++ Programming Guide); tensor cores and FP32 lanes "
             "per SM from the Hopper architecture whitepaper";
  return l;
}

nlohmann::ordered_json hardware_json(const LiveDevice& live) {
  const SmLimits table = cc90_sm_limits();
  ordered_json j;
  j["schema"] = kHardwareJsonSchema;
  if (live.present) {
    ordered_json l{{"index", live.index},
                   {"name", live.name},
                   {"compute_capability", std::to_string(live.cc_major) + "." + std::to_string(live.cc_minor)},
                   {"sm_count", live.sm_count},
                   {"global_mem_bytes", live.global_mem_bytes},
                   {"l2_bytes", live.l2_bytes},
                   {"sm_clock_mhz", live.sm_clock_khz / 1000.0},
                   {"mem_clock_mhz", live.mem_clock_khz / 1000.0},
                   {"mem_bus_bits", live.mem_bus_bits},
                   // Double data rate: two transfers per memory clock.
                   {"hbm_from_clock_bytes_per_s", 2.0 * live.mem_clock_khz * 1e3 * (live.mem_bus_bits / 8.0)},
                   {"measured_hbm_bytes_per_s", nullptr},  // no bandwidth measurement is kept yet
                   {"sm_limits", limits_json(live.limits)}};
    l["profile"] = live.profile ? profile_json(*live.profile, live.limits) : ordered_json(nullptr);
    l["profile_reason"] = live.profile ? ordered_json(nullptr) : ordered_json(live.profile_reason);
    j["live"] = std::move(l);
    j["live_reason"] = nullptr;
  } else {
    j["live"] = nullptr;
    j["live_reason"] = live.reason;
  }
  ordered_json profiles = ordered_json::array();
  for (const plan::DeviceProfile& p : plan::builtin_profiles()) profiles.push_back(profile_json(p, table));
  j["profiles"] = std::move(profiles);
  j["sm_limits"] = limits_json(table);
  return j;
}

}  // namespace tilegemm::explorer
