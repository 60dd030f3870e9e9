// Compile-time facts of one production kernel, derived from its Config (config.hpp) and shared by
// its parts: the mainloop, the epilogues, the scheduler hook and the kernel's roles.
#pragma once

#include "schedule/mapping.hpp"
#include "sm90/gemm/config.hpp"
#include "sm90/smem_layout.hpp"

namespace tilegemm::sm90 {

// The TMA-store epilogue stages D in boxes of 64 rows (one consumer's rows) x 128 B (the swizzle
// span): 64 bf16 or 32 fp32 columns (store_box_cols, config.hpp), 8 KiB either way.
inline constexpr int kStoreBoxRows = 64;
inline constexpr int kStoreBoxBytes = kStoreBoxRows * 128;

// Bytes per element of the epilogue staging tile for a config: D's (2 bf16, 4 fp32) for the
// staged epilogues, 0 (no staging) otherwise. The planner sizes the smem with the same function.
TG_HD constexpr int staging_elem_bytes(const Config& c) {
  return staged_epilogue(c.epilogue) ? out_elem_bytes(c.out_dtype) : 0;
}
// The epilogue's own mbarriers: with C and the TMA-store epilogue, one per staging slot of each
// consumer (the slot's C load; smem_stores reads C with the threads).
TG_HD constexpr int epilogue_barriers(const Config& c) {
  return c.epilogue == Epilogue::tma_store && c.with_c ? c.consumers() * (c.stage_cols / store_box_cols(c.out_dtype))
                                                       : 0;
}

// Ping-pong's turn barriers, after the epilogue's: turn[c] completes when the other consumer has
// waited on every k-block of its tile, so consumer c may start on its next tile (kernel.cuh).
TG_HD constexpr int turn_barriers(const Config& c) { return c.pingpong ? 2 : 0; }

// A k-split cluster (Config::cluster_k): the receive barriers, after the turn barriers, one per
// consumer (slice 0's consumer c waits on its own for the other slices' partials, fixup.cuh), and
// the receive area: the fp32 partial tile of every other slice, 64 x BN per consumer.
TG_HD constexpr int recv_barriers(const Config& c) { return c.cluster_k > 1 ? c.consumers() : 0; }
TG_HD constexpr int recv_partial_bytes(const Config& c) { return 64 * c.bn * 4; }  // one consumer's partial
TG_HD constexpr int recv_area_bytes(const Config& c) {
  return c.cluster_k > 1 ? (c.cluster_k - 1) * c.consumers() * recv_partial_bytes(c) : 0;
}

// The smem_stores epilogue's C (a C TMA cannot describe) loaded by cp.async, the first boxes of a
// tile during its mainloop (epilogue.cuh, issue_c_box_async). k-split kernels keep the threads'
// loads as they store (copy_box_rows): whether a unit stores its tile is known only after its
// fix-up. With bf16 output a side word per staged row (a row 2 B off a 4-B boundary spans 33
// words), after the receive area.
TG_HD constexpr bool async_thread_c(const Config& c) {
  return c.epilogue == Epilogue::smem_stores && c.with_c && !c.stream_k;
}
TG_HD constexpr int async_c_side_bytes(const Config& c) {
  return async_thread_c(c) && c.out_dtype == DType::bf16
             ? c.consumers() * (c.stage_cols / store_box_cols(c.out_dtype)) * kStoreBoxRows * 4
             : 0;
}

// The shared-memory layout of a config: the planner (stages, launch size) and the kernel (offsets)
// both call this, so they cannot disagree.
TG_HD constexpr SmemLayout config_smem_layout(const Config& c) {
  return compute_smem_layout(c.bm, c.bn, c.bk, c.stages, staging_elem_bytes(c), /*ab_elem_bytes=*/2,
                             staged_epilogue(c.epilogue) ? c.stage_cols : 0,
                             epilogue_barriers(c) + turn_barriers(c) + recv_barriers(c),
                             /*d_rows=*/64 * c.consumers(), recv_area_bytes(c) + async_c_side_bytes(c));
}

// The most stages of `c` (its other fields as they are, at most kAutoMaxStages: the planner's own
// depth) within `limit` bytes, 0 if not even one.
TG_HD constexpr int config_max_stages(Config c, int limit) {
  for (int s = kAutoMaxStages; s >= 1; --s) {
    c.stages = s;
    if (config_smem_layout(c).total_bytes <= limit) return s;
  }
  return 0;
}

template <Config C>
struct GemmTraits {
  static_assert(check_kernel_config(C) == ConfigRule::ok, "Config outside the kernel template (config.hpp)");
  static constexpr int kBlockM = C.bm, kBlockN = C.bn, kBlockK = C.bk, kStages = C.stages;
  static constexpr int kConsumers = C.consumers();
  static constexpr int kThreads = C.threads();
  static constexpr int kRowBlocks = C.row_blocks();  // 64-row blocks of one consumer's tile
  static constexpr int kAcc = C.bn / 2;              // fp32 accumulators per thread of one m64nBN block
  static constexpr int kClusterSize = C.cluster_size();  // a multicast pair (2) or not (1)
  static constexpr int kClusterK = C.cluster_k;          // a k-split cluster's slices (1: none)
  static constexpr int kLaunchCluster = C.launch_cluster_size();
  static constexpr bool kMulticastA = C.cluster_n == 2;  // N-neighbours share the A tile
  static constexpr bool kMulticastB = C.cluster_m == 2;  // M-neighbours share the B tile
  static constexpr sched::ClusterAxis kClusterAxis = cluster_axis(C);
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
  // chunks of kAChunk / kBChunk (64, 32 or 16) MN elements x 64 K rows (sm90/swizzle.hpp), loaded
  // one TMA box per chunk.
  static constexpr int kAChunk = a_mn_chunk(C);  // 0 for a K-major operand
  static constexpr int kBChunk = b_mn_chunk(C);
  // The most rows a K-major operand's box may start above a tile that runs past M (A) or N (B)
  // (smem_layout.hpp, edge_shift_rows). 0 for an MN-major operand (its boxes are chunks along MN).
  static constexpr int kAShiftCap = kAChunk != 0 ? 0 : a_edge_shift_cap(kLayout, C.bm);
  static constexpr int kBShiftCap = kBChunk != 0 ? 0 : b_edge_shift_cap(kLayout, C.bn);
  // Epilogue staging: each consumer stages its 64 rows in kSlots boxes of 64 rows x 128 B at a time.
  static constexpr int kBoxCols = store_box_cols(C.out_dtype);
  static constexpr int kBoxesPerConsumer = store_boxes(C.bn, C.out_dtype);  // the last may overlap (config.hpp)
  static constexpr int kSlotsPerConsumer = staged_epilogue(C.epilogue) ? C.stage_cols / kBoxCols : 0;
  static constexpr bool kStagedC = C.epilogue == Epilogue::tma_store && C.with_c;  // C loaded into the slots
  static_assert(kLayout.d_bytes == kConsumers * kSlotsPerConsumer * kStoreBoxBytes, "staging = the slots");
};

}  // namespace tilegemm::sm90
