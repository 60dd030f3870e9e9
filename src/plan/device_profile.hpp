// Device parameters the planner's cost model needs, from a built-in table (so `explain` runs on a
// machine without a GPU) or from the live device (device_profile_live.cpp, CUDA runtime API only).
// Where each built-in number comes from is written next to it in device_profile.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

struct cudaDeviceProp;  // <cuda_runtime_api.h>; only device_profile_live.cpp needs the definition

namespace tilegemm::plan {

struct DeviceProfile {
  std::string name;         // table key: "h200", "h100", "h20", "h800"; "live" for a queried GPU
  std::string description;  // marketing name and form factor
  std::string source;       // "built-in table" or "live device <cudaDeviceProp::name>"
  int sm_count = 0;
  double clock_ghz = 0;  // SM clock the cycle terms are converted at (see device_profile.cpp)

  // The seed's two bandwidths, bytes per cycle for the whole GPU.
  double l2_bytes_per_cycle = 0;     // BW_L2: L2 -> SMs
  double local_bytes_per_cycle = 0;  // BW_local: SM-local path (smem, tensor-core operand feed)

  double hbm_bytes_per_s = 0;            // HBM bandwidth a streaming GEMM gets, used by the time model
  double hbm_datasheet_bytes_per_s = 0;  // datasheet peak, shown for reference
  double tc_peak_flops = 0;              // dense BF16 tensor-core peak, FP32 accumulate
  int64_t l2_bytes = 0;
  int smem_per_block_optin = 0;  // max dynamic smem per block after opt-in
  int smem_per_sm = 0;
  int regs_per_sm = 0;

  // Time-model constants that are not hardware facts (assumptions, see docs/PLANNER.md).
  double fixed_us = 0;         // per-kernel ramp-up + tail (first DRAM latency, pipeline fill, drain)
  // The TMA feed (measured, docs/PLANNER.md "the TMA feed"): every 128-B line a load box brings into
  // shared memory costs, whether it comes from HBM, from L2, or is zero-filled past the matrix edge.
  double tma_fill_bytes_per_s = 0;         // lines that miss L2 or lie past the edge, whole GPU
  double tma_bytes_per_s_per_sm = 0;       // every line a CTA loads, one SM
  double direct_store_bytes_per_cycle = 0; // the direct epilogue's stores from registers, one SM
  double direct_scalar_store_bytes_per_cycle = 0;  // the same element by element (D's pairs unaligned)
  double smem_store_bytes_per_cycle = 0;   // the smem_stores epilogue's copy-out of staged boxes, one SM
  double cluster_factor = 1;               // throughput of a 2-CTA cluster's lock-stepped rings
  // The same for one-consumer (64-row) tiles, by the operand multicast: 2x1 (B) and 1x2 (A).
  double one_consumer_cluster_factor_2x1 = 1;
  double one_consumer_cluster_factor_1x2 = 1;
  double fixup_bytes_per_s_per_sm = 0;  // k-split fix-up: fp32 partial tiles one SM writes or reads (L2)
  double fixup_latency_us = 0;          // k-split fix-up: per shared unit, on its CTA's critical path
  double cluster_fixup_latency_us = 0;  // the same through a k-split cluster's shared memory (Config::cluster_k)
  double cluster_fixup_bytes_per_s_per_sm = 0;  // partial tiles slice 0 receives from its cluster (st.async)
  double unsectored_row_factor = 1;     // TMA feed cost of an operand row starting inside a 32-B sector
  double oob_row_factor = 1;            // TMA feed cost of a tile row past the matrix edge (zero-filled)
  // L2 lines the TMA loads touch, whole GPU, in bytes (128 per line touched): a box row on a 128-B
  // boundary touches one line, one off it two (cost_model.cpp). 0: no such limit.
  double l2_line_touch_bytes_per_s = 0;
  // The least time a tile of the TMA-store epilogue holds its CTA: tile_floor_us + tile_floor_row_us
  // per row of the tile (cost_model.cpp). 0: no floor.
  double tile_floor_us = 0;
  double tile_floor_row_us = 0;
  double repack_bytes_per_s = 0;        // operand repack (route.cpp): bytes read + written, whole GPU
  double repack_launch_us = 0;          // operand repack: one more kernel
  double limit_norm_p = 1;              // the throughput limits combine as their p-norm (cost_model.cpp)
  // A short K (cost_model.cpp, short_k_norm_p): below short_k_blocks k-blocks every limit and the
  // tiles' floor add in a norm of p = short_k_norm_p (up to short_k_full_blocks, then rising
  // linearly to limit_norm_p). short_k_norm_p = 0: no such rule.
  double short_k_norm_p = 0;
  int short_k_full_blocks = 0;
  int short_k_blocks = 0;
  // A shallow ring under an HBM-heavy feed (cost_model.cpp): a 128-row tile whose ring holds less
  // than ring_bytes in flight, when at least ring_hbm_share of its TMA bytes come from HBM, runs its
  // mainloop at ring_shallow_factor.
  double ring_bytes = 0;
  double ring_hbm_share = 1;
  double ring_shallow_factor = 1;
  // A grid that leaves SMs idle (one wave of fewer tiles than SMs) runs its busy SMs at a higher
  // clock under the power cap (cost_model.cpp): its tensor term is divided by
  // min(partial_grid_clock_limit, busy_share^(-1 / partial_grid_power_exponent)).
  double partial_grid_clock_limit = 1;  // the unloaded clock over the loaded one (1 = off)
  double partial_grid_power_exponent = 3;
  // Reading C (cost_model.cpp, "C's read"): per tile stored with C, what the staged and the direct
  // epilogues add (the direct one also per row of C a consumer reads); C's boxes reloaded through
  // a tile's staging slots, at this rate per SM; and per reload when a consumer has one slot (no
  // other slot's work to hide it behind).
  double c_tile_us = 0;
  double c_tile_direct_us = 0;
  double c_direct_line_us = 0;
  double c_reload_bytes_per_s_per_sm = 0;
  double c_slot_round_us = 0;
  // The smem_stores epilogue (C that TMA cannot describe, loaded by the threads' cp.async, or in
  // k-split kernels by their loads): per 64 x 64 elements of C a consumer combines, instead of
  // c_tile_us and the reloads.
  double c_thread_box_us = 0;

  double tc_flops_per_cycle_per_sm() const { return tc_peak_flops / (sm_count * clock_ghz * 1e9); }
};

// The seed's bandwidth rules (DeepGEMM's SM90 heuristic, deepseek-ai/DeepGEMM):
// BW_L2 = min(64 B/cycle per SM, 6153 B/cycle) and BW_local = 128 B/cycle per SM.
double seed_l2_bytes_per_cycle(int sm_count);
double seed_local_bytes_per_cycle(int sm_count);

// The same device with only `sm_count` of its SMs for the kernel (GemmOptions::max_ctas leaves the
// rest to other streams): the tensor peak and the seed's bandwidths scale with the SMs; the memory
// rates (HBM, the TMA fill, the repack) are the whole device's and stay. Unchanged when `sm_count`
// is <= 0 or not below the profile's.
DeviceProfile with_sm_limit(const DeviceProfile& d, int sm_count);

// Built-in profiles, in a fixed order: h200, h100, h20, h800.
const std::vector<DeviceProfile>& builtin_profiles();
// Lookup by table key (case-insensitive); nullopt for an unknown name.
std::optional<DeviceProfile> find_builtin_profile(const std::string& name);
// "h200|h100|h20|h800", for help and error messages.
std::string builtin_profile_names();

// --- Live device (device_profile_live.cpp) ---

// Fill a profile from a cudaDeviceProp plus the two clocks that CUDA 13 no longer keeps in the
// struct (cudaDevAttrClockRate, cudaDevAttrMemoryClockRate, in kHz; 0 = unknown). Facts the struct
// has (SMs, L2 size, smem limits, registers) come from it; the tensor-core peak and the time-model
// constants come from the built-in entry whose name matches (H200, H100, H20, H800), else they are
// derived from the clock (a full-rate Hopper SM does 4096 dense BF16 FLOP per cycle).
DeviceProfile profile_from_device_prop(const cudaDeviceProp& prop, int clock_khz, int mem_clock_khz);

// Query device `device` (cudaGetDeviceProperties + cudaDeviceGetAttribute). nullopt when there is
// no usable CUDA device or it is not compute capability 9.x; *why_not then says why.
std::optional<DeviceProfile> query_live_profile(int device, std::string* why_not);

}  // namespace tilegemm::plan
