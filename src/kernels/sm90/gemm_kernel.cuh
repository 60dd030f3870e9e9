// The production SM90 BF16 GEMM kernel (NT: A [M, K] K-major, B [N, K] K-major, D [M, N] row-major
// bf16), D = alpha · A·Bᵀ. Device code only, header-only; the host side is gemm_launch.{hpp,cu}.
//
// Structure: ladder step 9 (src/ladder/step09_two_consumers.cu, 816 TFLOPS at 8192^3 on the H200),
// generalised to what a user passes:
//   - any M, N >= 1 and K >= 1. TMA does the edges: a load box that reaches past M, N or K is
//     zero-filled (a ragged K tail adds 0) and still completes the full box bytes on the barrier
//     (HOPPER_NOTES §6, §7); the TMA store clips rows/cols past the end of D, and D's tensor map is
//     (N & ~7, M) with stride ldd (the store clips in 16-B chunks only; the < 8 last columns go
//     through plain stores, see store_tile), so nothing outside D is written even when ldd > N.
//   - tile order from schedule/tile_mapping.hpp with the Mapping passed at run time (a kernel
//     parameter), persistent CTAs (CTA p takes slots p, p + P, ...).
//   - BLOCK_M = 64 * kConsumers: one consumer warpgroup per 64 rows (wgmma M is 64), each owning
//     64 x BLOCK_N fp32 accumulators; one producer warpgroup whose elected thread issues the TMA.
//   - kClusterM = 2: CTA pairs along M share the B tile; each CTA loads BLOCK_N / 2 rows of B and
//     multicasts them to both (step 8/9). The host uses it only when every pair is complete
//     (even number of m-blocks), so every step of every CTA multicasts and the two rings stay in
//     lock-step; otherwise it launches the kClusterM = 1 instantiation.
//   - Shared memory from plan/smem_layout.hpp (the planner's layout): kStages A/B stages, a
//     BLOCK_M x kStageCols bf16 staging area for the epilogue (kStageCols = BLOCK_N: the full tile),
//     the barriers.
// Epilogue: alpha · acc -> bf16 -> stmatrix into 128B-swizzled 64 x 64 boxes of the staging area ->
// fence.proxy.async -> named barrier -> one thread issues the TMA stores and commits them.
//   - Full tile (kStageCols = BLOCK_N): all boxes at once; the stores are waited for
//     (wait_group.read 0) only before the next tile's epilogue writes the staging tile again, so
//     they overlap the next tile's mainloop.
//   - In parts (kStageCols < BLOCK_N, used by 128x256 so that a 4th stage fits): each consumer has
//     kStageCols / 64 slots of one 64 x 64 box and walks its BLOCK_N / 64 boxes through them as a
//     ring, one bulk group per box, as ladder step 9 does: before refilling a slot the issuing
//     thread waits (wait_group.read kSlots - 1) for the store that last read it, then a named
//     barrier lets the other writers in.
// Direct epilogue (BLOCK_N not a multiple of 64: the 128x144 and 128x176 configs): no staging, no
// TMA store; each consumer writes alpha · acc as bf16 straight from its registers with
// bounds-checked 4-B stores (store_tile_direct), which also covers the ragged N edge and ldd > N.
// Split-K (kSplitK = true; the launch code uses it for decode shapes whose tiles fill less than half
// of the GPU, gemm_launch.hpp choose_splits): the work unit is (slot, k-split) instead of a slot;
// unit u is slot u / S, split u % S, and covers k-blocks [split·KB/S, (split+1)·KB/S). Instead of
// the bf16 epilogue each consumer writes its fp32 accumulators straight from registers to the
// workspace ws[split][m][n] ([S][M][N_pad], N_pad = n-blocks · BLOCK_N, rows >= M not written), and
// splitk_reduce_kernel (below, a second launch on the same stream) sums the S partials in split
// order, applies alpha, converts to bf16 and writes D with bounds-checked plain stores: the result
// is deterministic (fixed K ranges, fixed summation order), bit for bit from run to run.
#pragma once

#include <cstdint>

#include <cuda.h>  // CUtensorMap (type only)

#include "kernels/sm90/ptx.cuh"
#include "kernels/sm90/smem_layout_math.hpp"
#include "plan/smem_layout.hpp"
#include "schedule/tile_mapping.hpp"

namespace tilegemm::sm90 {

inline constexpr int kGemmBlockK = 64;    // one 128-B swizzled line of bf16 per operand row
inline constexpr int kStoreBoxCols = 64;  // D store box: 64 columns (128 B, the swizzle span)
inline constexpr int kStoreBoxRows = 64;  //              x 64 rows (one consumer's rows)
inline constexpr int kStoreBoxBytes = kStoreBoxCols * kStoreBoxRows * 2;

// Split-K arguments (kernel parameter; ignored by the kSplitK = false instantiations).
struct SplitKArgs {
  float* workspace = nullptr;  // [splits][M][n_pad] fp32 partial tiles
  int splits = 1;              // S >= 1, <= the number of k-blocks (every split gets >= 1)
  int n_pad = 0;               // n-blocks · BLOCK_N: the workspace row length
};

// Compile-time facts of one instantiation, shared by the kernel and its launch code.
template <int BLOCK_M, int BLOCK_N, int kStages_, int kClusterM, int kStageCols_ = BLOCK_N>
struct GemmTraits {
  static_assert(BLOCK_M == 64 || BLOCK_M == 128, "one or two consumer warpgroups of 64 rows");
  // BLOCK_N a multiple of 64: the staged TMA-store epilogue (64-column boxes). Otherwise (128x144,
  // 128x176: widths picked for wave quantization) the direct epilogue: bounds-checked plain stores
  // from the accumulator fragment (store_tile_direct), no staging smem.
  static constexpr bool kDirectEpilogue = BLOCK_N % 64 != 0;
  static_assert(BLOCK_N % 16 == 0 && BLOCK_N >= 64 && BLOCK_N <= 256, "wgmma N (step 16)");
  static_assert(!kDirectEpilogue || BLOCK_N % (8 * kClusterM) == 0, "B multicast halves: whole 8-row swizzle atoms");
  static_assert(kClusterM == 1 || kClusterM == 2);
  // Staging width: whole 64-column boxes, and a whole number of ring turns per tile, so that box b
  // of every tile uses slot b % kSlots and the slot's previous reader is exactly kSlots groups back.
  static_assert(kDirectEpilogue || (kStageCols_ % 64 == 0 && kStageCols_ >= 64 && kStageCols_ <= BLOCK_N &&
                                    BLOCK_N % kStageCols_ == 0),
                "epilogue staging: whole boxes, a divisor of BLOCK_N");
  static constexpr int kBlockM = BLOCK_M, kBlockN = BLOCK_N;
  static constexpr int kConsumers = BLOCK_M / 64;
  static constexpr int kThreads = 128 * (1 + kConsumers);
  static constexpr int kStages = kStages_;
  static constexpr int kAcc = BLOCK_N / 2;  // fp32 accumulators per consumer thread (m64nBLOCK_N)
  static constexpr int kStageCols = kStageCols_;
  static constexpr plan::SmemLayout kLayout = plan::compute_smem_layout(
      BLOCK_M, BLOCK_N, kGemmBlockK, kStages, /*d_elem_bytes=*/kDirectEpilogue ? 0 : 2, /*ab_elem_bytes=*/2,
      kStageCols);
  static_assert(kLayout.fits(), "stages do not fit in 227 KiB");
  static constexpr int kStageTxBytes = kLayout.a_stage_bytes + kLayout.b_stage_bytes;  // full boxes
  static constexpr int kBLoadRows = BLOCK_N / kClusterM;  // B rows this CTA loads (and multicasts)
  static constexpr int kBLoadBytes = kBLoadRows * kGemmBlockK * 2;
  static constexpr int kBoxesPerConsumer = BLOCK_N / kStoreBoxCols;    // boxes of one consumer's 64 rows
  static constexpr int kSlotsPerConsumer = kStageCols / kStoreBoxCols;  // boxes it can stage at once
  static_assert(kLayout.d_bytes == (kDirectEpilogue ? 0 : kConsumers * kSlotsPerConsumer * kStoreBoxBytes));
  // Registers (setmaxnreg, two consumers only): 128·56 + 256·224 = 64512 <= 65536. The producer
  // gets 56, not step 9's 40: it evaluates the run-time mapping (Hilbert/Morton descend a quadtree)
  // and the cluster pairing per tile, and at 40 ptxas spilled in the 2-CTA instantiation.
  static constexpr int kProducerRegs = 56, kConsumerRegs = 224;
  static constexpr sched::ClusterAxis kClusterAxis =
      kClusterM == 2 ? sched::ClusterAxis::along_m : sched::ClusterAxis::none;
};

// Where a producer or consumer stands in the ring: stage index and the parity of the phase this
// pass is about (consumer waits full with `phase`, producer waits empty with `phase ^ 1`: a fresh
// barrier counts its preceding phase as complete; HOPPER_NOTES §6).
template <int kStages>
struct PipelineState {
  int stage = 0;
  uint32_t phase = 0;
  __device__ __forceinline__ void advance() {
    if (++stage == kStages) {
      stage = 0;
      phase ^= 1u;
    }
  }
};

// "This warp is done reading stage s": arrive on the empty barrier at the same offset in cluster
// CTA `cta_rank`. Relaxed on purpose: wgmma.wait_group has returned, nothing is left to order, and
// the .release.cluster form costs a MEMBAR.GPU per warp per k-block (ladder step 8 measured 2x).
template <int kClusterM>
__device__ __forceinline__ void release_stage(uint64_t* bar, uint32_t cta_rank) {
  if constexpr (kClusterM == 1) {
    (void)cta_rank;
    (void)ptx::mbarrier_arrive(ptx::sem_relaxed, ptx::scope_cta, ptx::space_shared, bar);
  } else {
    auto* remote = static_cast<uint64_t*>(__cluster_map_shared_rank(bar, cta_rank));  // mapa
    ptx::mbarrier_arrive(ptx::sem_relaxed, ptx::scope_cluster, ptx::space_cluster, remote);
  }
}

// Rounds the dynamic smem base up to 1024 B (compute_smem_layout budgets kSmemBaseSlack for it).
__device__ __forceinline__ uint8_t* align_smem_1024(uint8_t* raw) {
  const uint32_t addr = smem_u32(raw);
  return raw + ((1024u - (addr & 1023u)) & 1023u);
}

// One consumer's 64 x BLOCK_N x 64 block product: 4 x wgmma m64nBLOCK_Nk16 reading 64 A rows at
// a_addr and all BLOCK_N B rows at b_addr; the descriptors step +32 B along K inside the line.
template <int BLOCK_N>
__device__ __forceinline__ void wgmma_block_k64(float (&acc)[BLOCK_N / 2], uint32_t a_addr, uint32_t b_addr,
                                                int accumulate) {
  const uint64_t desc_a = make_kmajor_sw128_desc(a_addr);
  const uint64_t desc_b = make_kmajor_sw128_desc(b_addr);
#pragma unroll
  for (int k = 0; k < kGemmBlockK / 16; ++k)
    wgmma_m64k16<BLOCK_N>(acc, desc_advance_bytes(desc_a, k * 32), desc_advance_bytes(desc_b, k * 32),
                          (k > 0) | accumulate);
}

// alpha · acc[8q .. 8q+7] (16-column block q of the fragment, HOPPER_NOTES §4) -> bf16 -> one
// stmatrix x4 at this lane's row address.
template <int BLOCK_N>
__device__ __forceinline__ void stmatrix_block(uint8_t* row_addr, const float (&acc)[BLOCK_N / 2], float alpha, int q) {
  stmatrix_x4(row_addr, pack_bf16x2(alpha * acc[8 * q + 0], alpha * acc[8 * q + 1]),
              pack_bf16x2(alpha * acc[8 * q + 2], alpha * acc[8 * q + 3]),
              pack_bf16x2(alpha * acc[8 * q + 4], alpha * acc[8 * q + 5]),
              pack_bf16x2(alpha * acc[8 * q + 6], alpha * acc[8 * q + 7]));
}

// The < 8 tail columns [n_tma, N) of one staged box (tile columns [64·box, 64·box + 64)), written
// with plain stores by threads 0..63 (one row each). Call between the "box written" barrier and
// the next barrier that lets the slot be overwritten.
__device__ __forceinline__ void store_tail_columns(const uint8_t* src, int box, int thread_in_wg, int consumer,
                                                   int m_total, int n_total, int n_tma, int m0, int n0,
                                                   __nv_bfloat16* d, int64_t ldd) {
  if (thread_in_wg < kStoreBoxRows) {
    const int row = thread_in_wg, m = m0 + consumer * kStoreBoxRows + row;
    if (m < m_total)
      for (int c = n_tma; c < n_total; ++c)
        d[int64_t(m) * ldd + c] =
            *reinterpret_cast<const __nv_bfloat16*>(src + kmajor_sw128_offset(row, c - n0 - box * kStoreBoxCols));
  }
}

// One consumer's accumulators -> alpha · acc in bf16 -> its staging boxes -> TMA stores.
// Box j of consumer c holds tile rows [64c, 64c + 64) x cols [64j, 64j + 64), 128B-swizzled; with
// kSlots < BLOCK_N / 64 staging slots box j goes to slot j % kSlots.
// NOTES: the TMA store clips at the tensor end only in whole 16-B chunks (measured on the H200:
// with N = 257 it wrote columns 257..263, with N = 300 columns 300..303, into the ldd - N gap).
// So D's tensor map covers the first n_tma = N rounded down to 8 columns, and the last N - n_tma
// (< 8) columns of each row are written here with plain stores from the staging box.
template <int BLOCK_N, int kSlots>
__device__ __forceinline__ void store_tile(const float (&acc)[BLOCK_N / 2], float alpha, const CUtensorMap* tmap_d,
                                           uint8_t* slots, int consumer, int thread_in_wg, int m_total,
                                           int n_total, int m0, int n0, __nv_bfloat16* d, int64_t ldd) {
  constexpr int kBoxes = BLOCK_N / kStoreBoxCols;
  static_assert(kSlots >= 1 && kSlots <= kBoxes && kBoxes % kSlots == 0);
  const int n_tma = n_total & ~7;
  const int warp = thread_in_wg / 32, lane = thread_in_wg % 32;
  // stmatrix x4: lanes 8i..8i+7 give the rows of matrix i; matrices 0/1 are rows 0-7 / 8-15 of the
  // warp's 16 rows at columns +0..7, matrices 2/3 the same rows at columns +8..15 (HOPPER_NOTES §5).
  const int row = 16 * warp + (lane & 7) + 8 * ((lane >> 3) & 1);
  const int col = 8 * (lane >> 4);
  const int row0 = m0 + consumer * kStoreBoxRows;
  // The < 8 tail columns [n_tma, N) all lie in one box (n_tma is a multiple of 8, boxes of 64).
  const bool has_tail = n_tma < n_total && n_tma >= n0 && n_tma < n0 + BLOCK_N;
  const int tail_box = has_tail ? (n_tma - n0) / kStoreBoxCols : -1;
  if constexpr (kSlots == kBoxes) {
    // ---- full tile: stage every box, then store them all ----
    if (thread_in_wg == 0) tma_store_wait_read<0>();  // the previous tile's stores have read the boxes
    named_barrier_sync(1 + consumer, 128);
#pragma unroll
    for (int box = 0; box < kBoxes; ++box) {
      uint8_t* dst = slots + box * kStoreBoxBytes;
#pragma unroll
      for (int p = 0; p < kStoreBoxCols / 16; ++p)
        stmatrix_block<BLOCK_N>(dst + kmajor_sw128_offset(row, 16 * p + col), acc, alpha,
                                (box * kStoreBoxCols) / 16 + p);
    }
    fence_proxy_async_smem();               // my stmatrix writes before the async-proxy (TMA) read
    named_barrier_sync(1 + consumer, 128);  // all boxes written
    if (thread_in_wg == 0) {
      if (row0 < m_total) {  // NOTES: a box wholly past M or N has nothing to write: skip it
#pragma unroll
        for (int box = 0; box < kBoxes; ++box)
          if (n0 + box * kStoreBoxCols < n_tma)
            tma_store_2d(tmap_d, slots + box * kStoreBoxBytes, n0 + box * kStoreBoxCols, row0);
      }
      tma_store_commit();
    }
    if (has_tail)
      store_tail_columns(slots + tail_box * kStoreBoxBytes, tail_box, thread_in_wg, consumer, m_total, n_total, n_tma,
                         m0, n0, d, ldd);
  } else {
    // ---- in parts: box b through slot b % kSlots, one bulk group per box ----
#pragma unroll
    for (int box = 0; box < kBoxes; ++box) {
      uint8_t* slot = slots + (box % kSlots) * kStoreBoxBytes;
      // The last store that read this slot was committed kSlots groups ago (this tile's box
      // - kSlots, or the previous tile's box + kBoxes - kSlots: every box commits one group).
      if (thread_in_wg == 0) tma_store_wait_read<kSlots - 1>();
      named_barrier_sync(1 + consumer, 128);  // ... and only then may anyone overwrite it
#pragma unroll
      for (int p = 0; p < kStoreBoxCols / 16; ++p)
        stmatrix_block<BLOCK_N>(slot + kmajor_sw128_offset(row, 16 * p + col), acc, alpha,
                                (box * kStoreBoxCols) / 16 + p);
      fence_proxy_async_smem();               // my stmatrix writes before the async-proxy (TMA) read
      named_barrier_sync(1 + consumer, 128);  // the whole box is written
      if (thread_in_wg == 0) {
        // NOTES: a box wholly past M or N has nothing to write: skip the store, but still commit
        // (an empty group), so that the group count per box stays one.
        if (row0 < m_total && n0 + box * kStoreBoxCols < n_tma)
          tma_store_2d(tmap_d, slot, n0 + box * kStoreBoxCols, row0);
        tma_store_commit();
      }
      if (box == tail_box)
        store_tail_columns(slot, box, thread_in_wg, consumer, m_total, n_total, n_tma, m0, n0, d, ldd);
    }
  }
}

// Direct epilogue (BLOCK_N not a multiple of 64): alpha · acc -> bf16 -> plain stores from the
// fragment (HOPPER_NOTES §4: thread holds rows 16·warp + lane/4 (+8), columns 8j + 2·(lane%4) (+1)).
// Bounds-checked per element pair: nothing at rows >= M or columns >= N is written (ldd gap kept).
// Column pairs start even, d is 16-B aligned and ldd a multiple of 8: a pair is one aligned 4-B store.
template <int BLOCK_N>
__device__ __forceinline__ void store_tile_direct(const float (&acc)[BLOCK_N / 2], float alpha, int m_total,
                                                  int n_total, int row0, int n0, int thread_in_wg,
                                                  __nv_bfloat16* d, int64_t ldd) {
  const int warp = thread_in_wg / 32, lane = thread_in_wg % 32;
  const int r = row0 + 16 * warp + lane / 4;
  const int c = n0 + 2 * (lane % 4);
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int row = r + 8 * i;
    if (row < m_total) {
      __nv_bfloat16* dst = d + int64_t(row) * ldd;
#pragma unroll
      for (int j = 0; j < BLOCK_N / 8; ++j) {
        const int col = c + 8 * j;
        const float v0 = alpha * acc[4 * j + 2 * i], v1 = alpha * acc[4 * j + 2 * i + 1];
        if (col + 1 < n_total)
          *reinterpret_cast<uint32_t*>(dst + col) = pack_bf16x2(v0, v1);
        else if (col < n_total)
          dst[col] = __float2bfloat16_rn(v0);
      }
    }
  }
}

// Split-K epilogue: one consumer's fp32 accumulators (rows [row0, row0 + 64) of the tile at column
// n0) -> the workspace rows < m_total, as float2 (the two adjacent columns a thread holds,
// HOPPER_NOTES §4). Columns need no check: the workspace rows are n_pad = whole tiles long.
template <int BLOCK_N>
__device__ __forceinline__ void store_partial(const float (&acc)[BLOCK_N / 2], float* ws_split, int n_pad,
                                              int m_total, int row0, int n0, int thread_in_wg) {
  const int warp = thread_in_wg / 32, lane = thread_in_wg % 32;
  const int r = row0 + 16 * warp + lane / 4;
  const int c = n0 + 2 * (lane % 4);
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int row = r + 8 * i;
    if (row < m_total) {
      float* dst = ws_split + int64_t(row) * n_pad + c;
#pragma unroll
      for (int j = 0; j < BLOCK_N / 8; ++j)
        *reinterpret_cast<float2*>(dst + 8 * j) = make_float2(acc[4 * j + 2 * i], acc[4 * j + 2 * i + 1]);
    }
  }
}

// One work unit: the tile, and the k-blocks [kb0, kb1) of it to compute (split `split` of S).
struct UnitWork {
  sched::TileWork work;
  int kb0 = 0, kb1 = 0, split = 0;
};

// The work of CTA `cta` at step `iter`. Without split-K: the persistent slot walk, all k-blocks.
// With split-K: unit u = cta + iter · P, slot u / S, split u % S, k-blocks [split·KB/S, (split+1)·KB/S).
template <bool kSplitK>
__device__ __forceinline__ UnitWork unit_work(const sched::Schedule& schedule, int cta, int iter, int num_ctas,
                                              int num_kb, int splits) {
  UnitWork u;
  if constexpr (kSplitK) {
    const int unit = cta + iter * num_ctas;
    const int slot = unit / splits;
    u.split = unit - slot * splits;
    u.work = sched::slot_work(schedule, slot);
    u.kb0 = int(int64_t(u.split) * num_kb / splits);
    u.kb1 = int(int64_t(u.split + 1) * num_kb / splits);
  } else {
    (void)splits;
    u.work = sched::persistent_work(schedule, cta, iter, num_ctas);
    u.kb0 = 0;
    u.kb1 = num_kb;
  }
  return u;
}

// Persistent warp-specialised GEMM. Grid: P CTAs (a multiple of kClusterM), cluster (kClusterM,1,1)
// set at launch. Dynamic smem: Traits::kLayout.total_bytes. kStageCols: epilogue staging width.
template <int BLOCK_M, int BLOCK_N, int kStages, int kClusterM, int kStageCols = BLOCK_N, bool kSplitK = false>
__global__ void __launch_bounds__(GemmTraits<BLOCK_M, BLOCK_N, kStages, kClusterM, kStageCols>::kThreads, 1)
    gemm_bf16_nt_kernel(const __grid_constant__ CUtensorMap tmap_a,  // A [M, K]: boxes 64 k x BLOCK_M rows
                        const __grid_constant__ CUtensorMap tmap_b,  // B [N, K]: boxes 64 k x BLOCK_N/kClusterM
                        const __grid_constant__ CUtensorMap tmap_d,  // D [M, N & ~7] (stride ldd): 64 x 64
                        int m_total, int n_total, int k_total, float alpha, sched::Mapping mapping,
                        __nv_bfloat16* d, int64_t ldd,  // D again, for the < 8 tail columns (store_tile)
                        SplitKArgs split) {             // kSplitK only
  static_assert(!kSplitK || kClusterM == 1, "split-K runs without clusters (no lock-step pairs)");
  using T = GemmTraits<BLOCK_M, BLOCK_N, kStages, kClusterM, kStageCols>;
  constexpr plan::SmemLayout L = T::kLayout;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = align_smem_1024(smem_raw);
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + L.full_barrier(0));
  uint64_t* empty = reinterpret_cast<uint64_t*>(smem + L.empty_barrier(0));
  const int warpgroup = threadIdx.x / 128, thread_in_wg = threadIdx.x % 128;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int num_kb = sched::ceil_div(k_total, kGemmBlockK);  // the last k-block may be ragged (zero-filled)
  const uint32_t rank = kClusterM == 2 ? cluster_ctarank() : 0u;
  const sched::Schedule schedule{sched::make_tile_grid(m_total, n_total, BLOCK_M, BLOCK_N), mapping, T::kClusterAxis};
  const int splits = kSplitK ? split.splits : 1;
  int num_iters = 0;
  if constexpr (kSplitK) {
    const int units = sched::num_slots(schedule) * splits;
    num_iters = int(blockIdx.x) < units ? sched::ceil_div(units - int(blockIdx.x), int(gridDim.x)) : 0;
  } else {
    num_iters = sched::persistent_iterations(schedule, blockIdx.x, gridDim.x);
  }

  if (threadIdx.x == 0) {
    prefetch_tensor_map(&tmap_a);
    prefetch_tensor_map(&tmap_b);
    prefetch_tensor_map(&tmap_d);
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&full[s], 1);                                 // the producer's arrive.expect_tx
      mbar_init(&empty[s], kClusterM * 4 * T::kConsumers);    // every consumer warp of the cluster
    }
    fence_barrier_init();
  }
  if constexpr (kClusterM == 2) {
    cluster_sync();  // peers' barriers exist before anyone multicasts or arrives remotely
  } else {
    __syncthreads();
  }

  if (warpgroup == 0) {
    // ---- producer: one elected thread issues the TMA loads ----
    if constexpr (T::kConsumers == 2) setmaxnreg_dec<T::kProducerRegs>();  // consumers get the registers
    if (warp == 0 && elect_one_sync()) {
      PipelineState<kStages> produce;
      for (int it = 0; it < num_iters; ++it) {
        const UnitWork unit = unit_work<kSplitK>(schedule, blockIdx.x, it, gridDim.x, num_kb, splits);
        const sched::TileWork& work = unit.work;
        if (!work.has_tile) continue;
        const int m0 = work.tile.m_block * BLOCK_M, n0 = work.tile.n_block * BLOCK_N;
        for (int kb = unit.kb0; kb < unit.kb1; ++kb) {
          const int s = produce.stage;
          mbar_wait(&empty[s], produce.phase ^ 1u);
          mbar_arrive_expect_tx(&full[s], T::kStageTxBytes);  // full boxes, even where zero-filled
          tma_load_2d(smem + L.a_offset(s), &tmap_a, &full[s], kb * kGemmBlockK, m0);
          if constexpr (kClusterM == 2) {
            tma_load_2d_multicast(smem + L.b_offset(s) + rank * T::kBLoadBytes, &tmap_b, &full[s], kb * kGemmBlockK,
                                  n0 + int(rank) * T::kBLoadRows, /*cta_mask=*/0b11);
          } else {
            tma_load_2d(smem + L.b_offset(s), &tmap_b, &full[s], kb * kGemmBlockK, n0);
          }
          produce.advance();
        }
      }
    }
  } else {
    // ---- consumers: consumer c computes tile rows [64c, 64c + 64) x all BLOCK_N columns ----
    if constexpr (T::kConsumers == 2) setmaxnreg_inc<T::kConsumerRegs>();
    const int consumer = warpgroup - 1;
    const uint32_t smem_base = smem_u32(smem);
    uint8_t* slots = smem + L.d_offset + consumer * T::kSlotsPerConsumer * kStoreBoxBytes;
    float acc[T::kAcc];
    PipelineState<kStages> consume;
    for (int it = 0; it < num_iters; ++it) {
      const UnitWork unit = unit_work<kSplitK>(schedule, blockIdx.x, it, gridDim.x, num_kb, splits);
      const sched::TileWork& work = unit.work;
      if (!work.has_tile) continue;
      const int m0 = work.tile.m_block * BLOCK_M, n0 = work.tile.n_block * BLOCK_N;
      int held = -1;  // stage whose wgmma may still be running
      fence_accumulators(acc);
      for (int kb = unit.kb0; kb < unit.kb1; ++kb) {
        const int s = consume.stage;
        mbar_wait(&full[s], consume.phase);
        wgmma_fence();
        wgmma_block_k64<BLOCK_N>(acc, smem_base + L.a_offset(s) + consumer * 64 * 128, smem_base + L.b_offset(s),
                                 /*accumulate=*/kb > unit.kb0);
        wgmma_commit();
        wgmma_wait<1>();  // k-block kb-1 retired; kb may still run
        if (held >= 0 && lane < kClusterM) release_stage<kClusterM>(&empty[held], lane);
        held = s;
        consume.advance();
      }
      wgmma_wait<0>();
      fence_accumulators(acc);
      if (held >= 0 && lane < kClusterM) release_stage<kClusterM>(&empty[held], lane);
      if constexpr (kSplitK) {
        store_partial<BLOCK_N>(acc, split.workspace + int64_t(unit.split) * m_total * split.n_pad, split.n_pad, m_total,
                               m0 + consumer * 64, n0, thread_in_wg);
      } else if constexpr (T::kDirectEpilogue) {
        store_tile_direct<BLOCK_N>(acc, alpha, m_total, n_total, m0 + consumer * 64, n0, thread_in_wg, d, ldd);
      } else {
        store_tile<BLOCK_N, T::kSlotsPerConsumer>(acc, alpha, &tmap_d, slots, consumer, thread_in_wg, m_total, n_total,
                                                  m0, n0, d, ldd);
      }
    }
    if (thread_in_wg == 0) tma_store_wait_all<0>();  // the staging tile must outlive the last store
  }
  // NOTES: no CTA of a pair may exit while its peer can still multicast into it or arrive on its
  // empty barriers (HOPPER_NOTES §9, §12 bug 6).
  if constexpr (kClusterM == 2) cluster_sync();
}

// Split-K reduction: D[m, n] = bf16(alpha · Σ_{s = 0..S-1} ws[s][m][n]), summed in split order.
// One thread per 4 consecutive columns of a row (float4 loads: n_pad and the 4-column groups are
// multiples of 4); a full group is stored as 8 B (d 16-B aligned, ldd a multiple of 8), the last
// group of a row with N % 4 != 0 element by element, so nothing past column N is written.
// Block: kThreads threads (a template so that the header stays include-anywhere).
template <int kThreads>
__global__ void __launch_bounds__(kThreads) splitk_reduce_kernel(const float* __restrict__ ws, int splits, int m_total,
                                                            int n_total, int n_pad, float alpha,
                                                            __nv_bfloat16* __restrict__ d, int64_t ldd) {
  const int groups = (n_total + 3) / 4;
  const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= int64_t(m_total) * groups) return;
  const int row = int(idx / groups);
  const int c = int(idx - int64_t(row) * groups) * 4;
  const int64_t split_stride = int64_t(m_total) * n_pad;
  const float* src = ws + int64_t(row) * n_pad + c;
  float4 sum = *reinterpret_cast<const float4*>(src);
  for (int s = 1; s < splits; ++s) {
    const float4 v = *reinterpret_cast<const float4*>(src + s * split_stride);
    sum.x += v.x;
    sum.y += v.y;
    sum.z += v.z;
    sum.w += v.w;
  }
  __nv_bfloat16* out = d + int64_t(row) * ldd + c;
  if (c + 4 <= n_total) {
    *reinterpret_cast<uint2*>(out) = make_uint2(pack_bf16x2(alpha * sum.x, alpha * sum.y),
                                                pack_bf16x2(alpha * sum.z, alpha * sum.w));
  } else {
    // 1..3 columns left (no local array: a dynamically indexed one would live on the stack)
    out[0] = __float2bfloat16_rn(alpha * sum.x);
    if (c + 1 < n_total) out[1] = __float2bfloat16_rn(alpha * sum.y);
    if (c + 2 < n_total) out[2] = __float2bfloat16_rn(alpha * sum.z);
  }
}

}  // namespace tilegemm::sm90
