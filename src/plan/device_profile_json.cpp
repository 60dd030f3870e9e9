// plan::device_profile_json (device_profile_json.hpp).
#include "plan/device_profile_json.hpp"

namespace tilegemm::plan {

nlohmann::ordered_json device_profile_json(const DeviceProfile& d) {
  return nlohmann::ordered_json{
      {"name", d.name}, {"description", d.description}, {"source", d.source},
      {"sm_count", d.sm_count}, {"clock_ghz", d.clock_ghz},
      {"l2_bytes_per_cycle", d.l2_bytes_per_cycle}, {"local_bytes_per_cycle", d.local_bytes_per_cycle},
      {"hbm_bytes_per_s", d.hbm_bytes_per_s}, {"hbm_datasheet_bytes_per_s", d.hbm_datasheet_bytes_per_s},
      {"tc_peak_flops", d.tc_peak_flops}, {"l2_bytes", d.l2_bytes},
      {"smem_per_block_optin", d.smem_per_block_optin}, {"smem_per_sm", d.smem_per_sm},
      {"regs_per_sm", d.regs_per_sm}, {"fixed_us", d.fixed_us},
      {"tma_fill_bytes_per_s", d.tma_fill_bytes_per_s}, {"tma_bytes_per_s_per_sm", d.tma_bytes_per_s_per_sm},
      {"direct_store_bytes_per_cycle", d.direct_store_bytes_per_cycle},
      {"direct_scalar_store_bytes_per_cycle", d.direct_scalar_store_bytes_per_cycle},
      {"smem_store_bytes_per_cycle", d.smem_store_bytes_per_cycle}, {"cluster_factor", d.cluster_factor},
      {"one_consumer_cluster_factor_2x1", d.one_consumer_cluster_factor_2x1},
      {"one_consumer_cluster_factor_1x2", d.one_consumer_cluster_factor_1x2},
      {"fixup_bytes_per_s_per_sm", d.fixup_bytes_per_s_per_sm}, {"fixup_latency_us", d.fixup_latency_us},
      {"cluster_fixup_latency_us", d.cluster_fixup_latency_us},
      {"cluster_fixup_bytes_per_s_per_sm", d.cluster_fixup_bytes_per_s_per_sm},
      {"unsectored_row_factor", d.unsectored_row_factor}, {"oob_row_factor", d.oob_row_factor},
      {"l2_line_touch_bytes_per_s", d.l2_line_touch_bytes_per_s},
      {"tile_floor_us", d.tile_floor_us}, {"tile_floor_row_us", d.tile_floor_row_us},
      {"repack_bytes_per_s", d.repack_bytes_per_s}, {"repack_launch_us", d.repack_launch_us},
      {"limit_norm_p", d.limit_norm_p}, {"short_k_norm_p", d.short_k_norm_p},
      {"short_k_full_blocks", d.short_k_full_blocks}, {"short_k_blocks", d.short_k_blocks}, {"ring_bytes", d.ring_bytes}, {"ring_hbm_share", d.ring_hbm_share},
      {"ring_shallow_factor", d.ring_shallow_factor}, {"partial_grid_clock_limit", d.partial_grid_clock_limit},
      {"partial_grid_power_exponent", d.partial_grid_power_exponent}, {"c_tile_us", d.c_tile_us},
      {"c_tile_direct_us", d.c_tile_direct_us}, {"c_direct_line_us", d.c_direct_line_us},
      {"c_reload_bytes_per_s_per_sm", d.c_reload_bytes_per_s_per_sm}, {"c_slot_round_us", d.c_slot_round_us},
      {"c_thread_box_us", d.c_thread_box_us}};
}

}  // namespace tilegemm::plan
