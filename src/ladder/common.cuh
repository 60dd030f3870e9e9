// Building blocks that ladder steps 1-3 share. Step 1 introduces each of them; later steps reuse
// them unchanged so that each step's file shows only the mechanism it adds. Steps 4-9 add theirs
// at the end of this file.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include <cuda_bf16.h>

#include "sm90/pipeline.cuh"
#include "sm90/ptx.cuh"
#include "sm90/swizzle.hpp"
#include "sm90/tensor_map.hpp"
#include "sm90/smem_layout.hpp"

namespace tilegemm::ladder {

inline constexpr int kTileM = 128;  // output rows per CTA
inline constexpr int kTileN = 128;  // output cols per CTA
inline constexpr int kTileK = 64;   // one 128-B swizzled line of bf16 per row
inline constexpr int kTileBytes = kTileM * kTileK * 2;  // 16 KiB per operand tile (BM == BN)

// Synchronous gmem -> smem copy of a [128 rows][64 k] bf16 tile (rows `row0..row0+127`, k
// `k0..k0+63` of a K-major matrix with leading dimension ld) into the K-major 128B-swizzled layout
// that TMA SWIZZLE_128B produces and a wgmma descriptor with layout type 1 / SBO 1024 reads.
// Every thread of the CTA takes part; 16-B vectors, one swizzled 16-B chunk each.
template <int kThreads>
__device__ __forceinline__ void load_tile_sw128(uint8_t* smem_tile, const __nv_bfloat16* g,
                                                int64_t ld, int64_t row0, int64_t k0) {
  constexpr int kChunksPerRow = kTileK * 2 / 16;  // 8 chunks of 16 B per 128-B line
  for (int c = threadIdx.x; c < kTileM * kChunksPerRow; c += kThreads) {
    const int row = c / kChunksPerRow, chunk = c % kChunksPerRow;
    const uint4 v = *reinterpret_cast<const uint4*>(g + (row0 + row) * ld + k0 + chunk * 8);
    *reinterpret_cast<uint4*>(smem_tile + sm90::kmajor_sw128_offset(row, chunk * 8)) = v;
  }
}

// One warpgroup's 64 x 128 x 64 block product: 4 wgmma k16 steps reading A rows [64*wg, 64*wg+64)
// and all 128 B rows. The descriptor moves +32 B along K per step inside the swizzled line.
// accumulate = 0 starts a new sum (scale-d false), 1 adds to `acc`.
__device__ __forceinline__ void wgmma_tile_k64(float (&acc)[64], const uint8_t* smem_a,
                                               const uint8_t* smem_b, int warpgroup, int accumulate) {
  const uint64_t desc_a = sm90::make_kmajor_sw128_desc(sm90::smem_u32(smem_a) + warpgroup * 64 * 128);
  const uint64_t desc_b = sm90::make_kmajor_sw128_desc(sm90::smem_u32(smem_b));
#pragma unroll
  for (int k = 0; k < kTileK / 16; ++k) {
    sm90::wgmma_m64k16<kTileN>(acc, sm90::desc_advance_bytes(desc_a, k * 32),
                               sm90::desc_advance_bytes(desc_b, k * 32), (k > 0) | accumulate);
  }
}

// Accumulators -> bf16 -> global, straight from the wgmma fragment layout (no smem staging):
// each thread writes pairs of adjacent columns as one 4-byte store.
__device__ __forceinline__ void store_tile_bf16(const float (&acc)[64], __nv_bfloat16* d, int64_t ldd,
                                                int64_t row0, int64_t col0, int thread_in_wg) {
#pragma unroll
  for (int r = 0; r < 64; r += 2) {
    const sm90::FragCoord at = sm90::acc_fragment_coord(thread_in_wg, r);
    *reinterpret_cast<uint32_t*>(d + (row0 + at.row) * ldd + col0 + at.col) =
        sm90::pack_bf16x2(acc[r], acc[r + 1]);
  }
}

// Guards the 1024-B alignment the swizzle depends on (docs/HOPPER.md §3): a misaligned tile would
// give silently wrong results, so stop the kernel instead.
__device__ __forceinline__ void require_1024_aligned(const void* p) {
  if (sm90::smem_u32(p) % 1024 != 0) __trap();
}

}  // namespace tilegemm::ladder

// ================================================================================================
// Building blocks that steps 4-9 share (each introduced by the first step that needs it).
// ================================================================================================
namespace tilegemm::ladder {

// ---- host: tensor maps (step 4) ----------------------------------------------------------------
// TMA map for a K-major bf16 operand [rows, k] (ld = k) read in boxes of box_rows x 64 k: one
// 128-B line per row, swizzled 128B (exactly what load_tile_sw128 wrote by hand in steps 1-3).
// On failure prints the broken rule (errors are values up to here; Step::launch can only return a
// cudaError_t) and returns cudaErrorInvalidValue.
inline cudaError_t make_kmajor_operand_map(const __nv_bfloat16* base, int rows, int k, int box_rows,
                                           CUtensorMap* out) {
  const sm90::Matrix2d m{base, uint64_t(rows), uint64_t(k), uint64_t(k), CU_TENSOR_MAP_DATA_TYPE_BFLOAT16};
  const std::string e = sm90::make_2d_tile_map(m, sm90::Box2d{uint32_t(kTileK), uint32_t(box_rows)},
                                               CU_TENSOR_MAP_SWIZZLE_128B, out);
  if (e.empty()) return cudaSuccess;
  std::fprintf(stderr, "tilegemm ladder: tensor map: %s\n", e.c_str());
  return cudaErrorInvalidValue;
}

// ---- the smem ring (step 5) --------------------------------------------------------------------
// Where a producer or a consumer stands in a ring of kStages smem stages: the stage index and the
// parity of the barrier phase that this pass around the ring is about. One definition for the
// ladder and the production kernel (sm90/pipeline.cuh explains the parities; tested by
// tests/cpu/sm90/test_pipeline_ring.cu).
using sm90::RingState;

// Dynamic shared memory of a pipelined step: the ladder's names over the one layout function the
// planner and the production kernel use (sm90/smem_layout.hpp):
//   [A stage 0..S) [B stage 0..S) [D staging] [full[0..S)] [empty[0..S)]
// Every A/B tile and the D staging start on a 1024-B boundary (the 128B swizzle repeats every
// 1024 B and TMA swizzles by absolute address: docs/HOPPER.md §3, §12 pitfall 5). The launch asks for
// kSmemAlignSlack more than it uses, because the kernel rounds the dynamic-smem base up to 1024.
inline constexpr int kSmemAlignSlack = sm90::kSmemBaseSlack;
inline constexpr int kMaxDynamicSmem = sm90::kSmemLimitPerBlock;  // opt-in max per block (§9)

// kDStageCols: output columns the bf16 TMA-store staging holds at once (0: no staging, the
// epilogue stores from registers).
template <int kStages_, int kBM, int kBN, int kDStageCols>
struct RingSmem {
  TG_HD static constexpr sm90::SmemLayout layout() {
    return sm90::compute_smem_layout(kBM, kBN, kTileK, kStages_, kDStageCols > 0 ? 2 : 0, 2, kDStageCols);
  }
  static constexpr int stages = kStages_;
  static constexpr int a_stage_bytes = layout().a_stage_bytes;  // one A tile (BM x 64 bf16)
  static constexpr int b_stage_bytes = layout().b_stage_bytes;  // one B tile (BN x 64 bf16)
  static constexpr int d_bytes = layout().d_bytes;              // TMA-store staging
  static constexpr int stage_bytes = a_stage_bytes + b_stage_bytes;  // expect_tx per stage
  TG_HD static constexpr int a_offset(int s) { return layout().a_offset(s); }
  TG_HD static constexpr int b_offset(int s) { return layout().b_offset(s); }
  static constexpr int d_offset = layout().d_offset;
  TG_HD static constexpr int full_offset(int s) { return layout().full_barrier(s); }
  TG_HD static constexpr int empty_offset(int s) { return layout().empty_barrier(s); }
  static constexpr int used_bytes = layout().used_bytes;
  static constexpr int launch_bytes = layout().total_bytes;
};

// The rings of steps 5-9. 128 x 128 tiles: 4 stages of 32 KiB (128 KiB). Not "as many as fit":
// on the H200, 7 stages (224 KiB) made steps 6 and 7 12-16 % slower at 8192^3 and left step 8
// unchanged (docs/LADDER.md, measurement log); the cause is not established.
inline constexpr int kStages128x128 = 4;
using Step05Smem = RingSmem<kStages128x128, kTileM, kTileN, 0>;
using Step06Smem = RingSmem<kStages128x128, kTileM, kTileN, 0>;
using Step07Smem = RingSmem<kStages128x128, kTileM, kTileN, 0>;
using Step08Smem = RingSmem<kStages128x128, kTileM, kTileN, 0>;
// 128 x 256 tile: A 16 KiB + B 32 KiB per stage; the D staging holds 128 of the 256 columns
// (2 consumers x 2 slots x 64 x 64 bf16 = 32 KiB). 4 stages (192 KiB) + 32 KiB fill the budget;
// a full 64 KiB D tile would leave 3 stages.
using Step09Smem = RingSmem<4, 128, 256, 128>;

// Rounds the dynamic shared-memory base up to 1024 B (the launch budgets kSmemAlignSlack for it).
using sm90::align_smem_1024;

}  // namespace tilegemm::ladder

namespace tilegemm::ladder {

// ---- host: persistent grid size (steps 8-9) ----------------------------------------------------
// How many CTAs of `kernel` can be resident at once, in whole clusters of `cluster` CTAs: the
// persistent grid. With clusters this is not simply #SMs: a cluster's CTAs must sit in one GPC,
// and GPCs whose SM count is odd leave one SM out for pairs (docs/HOPPER.md §9). Launching more
// would start a second, mostly empty wave.
template <typename Kernel>
cudaError_t persistent_ctas(Kernel* kernel, int threads, int smem_bytes, int cluster, int* ctas) {
  int device = 0, num_sms = 0;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  if (cudaError_t e = cudaDeviceGetAttribute(&num_sms, cudaDevAttrMultiProcessorCount, device); e != cudaSuccess)
    return e;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(num_sms / cluster * cluster, 1, 1);
  config.blockDim = dim3(threads, 1, 1);
  config.dynamicSmemBytes = smem_bytes;
  cudaLaunchAttribute attr = {};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = cluster;
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  config.attrs = &attr;
  config.numAttrs = 1;
  int clusters = 0;
  if (cudaError_t e = cudaOccupancyMaxActiveClusters(&clusters, kernel, &config); e != cudaSuccess) return e;
  if (clusters < 1) return cudaErrorInvalidConfiguration;
  *ctas = clusters * cluster;
  return cudaSuccess;
}

}  // namespace tilegemm::ladder
