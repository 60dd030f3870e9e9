// Compile-time facts of one production kernel, derived from its Config (config.hpp) and shared by
// its parts: the mainloop, the epilogues, the scheduler hook and the kernel's roles.
#pragma once

#include "schedule/mapping.hpp"
#include "sm90/gemm/config.hpp"
#include "sm90/smem_layout.hpp"

namespace tilegemm::sm90 {

inline constexpr int kStoreBoxCols = 64;  // D store box: 64 columns (128 B of bf16, the swizzle span)
inline constexpr int kStoreBoxRows = 64;  //              x 64 rows (one consumer's rows)
inline constexpr int kStoreBoxBytes = kStoreBoxCols * kStoreBoxRows * 2;

// Bytes per element of the epilogue staging tile for a config: 2 (bf16) for the TMA-store
// epilogue, 0 (no staging) otherwise. The planner sizes the smem with the same function.
TG_HD constexpr int staging_elem_bytes(const Config& c) { return c.epilogue == Epilogue::tma_store ? 2 : 0; }

// The shared-memory layout of a config: the planner (stages, launch size) and the kernel (offsets)
// both call this, so they cannot disagree.
TG_HD constexpr SmemLayout config_smem_layout(const Config& c) {
  return compute_smem_layout(c.bm, c.bn, c.bk, c.stages, staging_elem_bytes(c), /*ab_elem_bytes=*/2,
                             c.epilogue == Epilogue::tma_store ? c.stage_cols : 0);
}

template <Config C>
struct GemmTraits {
  static_assert(check_kernel_config(C) == ConfigRule::ok, "Config outside the kernel template (config.hpp)");
  static constexpr int kBlockM = C.bm, kBlockN = C.bn, kBlockK = C.bk, kStages = C.stages;
  static constexpr int kConsumers = C.consumers();
  static constexpr int kThreads = C.threads();
  static constexpr int kAcc = C.accumulators();  // fp32 accumulators per consumer thread (m64nBN)
  static constexpr int kClusterSize = C.cluster_size();
  static constexpr bool kMulticastA = C.cluster_n == 2;  // N-neighbours share the A tile
  static constexpr bool kMulticastB = C.cluster_m == 2;  // M-neighbours share the B tile
  static constexpr sched::ClusterAxis kClusterAxis =
      kMulticastB ? sched::ClusterAxis::along_m : kMulticastA ? sched::ClusterAxis::along_n : sched::ClusterAxis::none;
  static constexpr bool kSplitK = C.epilogue == Epilogue::splitk_partials;
  static constexpr bool kRebalance = C.producer_regs != 0;
  static constexpr SmemLayout kLayout = config_smem_layout(C);
  static_assert(kLayout.fits(), "stages do not fit in the 227 KiB a block may opt into");
  static constexpr int kStageTxBytes = kLayout.a_stage_bytes + kLayout.b_stage_bytes;  // full boxes
  // Rows of each operand this CTA loads per stage (with multicast: its half, sent to both CTAs).
  static constexpr int kALoadRows = a_load_rows(C);
  static constexpr int kBLoadRows = b_load_rows(C);
  static constexpr int kALoadBytes = kALoadRows * kBlockK * 2;
  static constexpr int kBLoadBytes = kBLoadRows * kBlockK * 2;
  // Operand storage: K-major tiles are rows of 64 K (one 128-B swizzle row); MN-major tiles are
  // chunks of 64 MN elements x 64 K rows (sm90/swizzle.hpp), loaded one TMA box per chunk.
  static constexpr bool kAMnMajor = C.a_major == Major::mn_major;
  static constexpr bool kBMnMajor = C.b_major == Major::mn_major;
  static constexpr int kMnChunkBytes = 64 * kBlockK * 2;  // one MN-major chunk: 64 MN x 64 K bf16
  // Epilogue staging: each consumer stages its 64 rows in kSlots boxes of 64 x 64 at a time.
  static constexpr int kBoxesPerConsumer = kBlockN / kStoreBoxCols;
  static constexpr int kSlotsPerConsumer = C.epilogue == Epilogue::tma_store ? C.stage_cols / kStoreBoxCols : 0;
  static_assert(kLayout.d_bytes == kConsumers * kSlotsPerConsumer * kStoreBoxBytes, "staging = the slots");
};

}  // namespace tilegemm::sm90
