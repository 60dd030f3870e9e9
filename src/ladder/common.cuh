// Building blocks that ladder steps 1-3 share. Step 1 introduces each of them; later steps reuse
// them unchanged so that each step's file shows only the mechanism it adds.
#pragma once

#include <cstdint>
#include <string>

#include <cuda_bf16.h>

#include "kernels/sm90/ptx.cuh"
#include "kernels/sm90/smem_layout_math.hpp"

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

// Guards the 1024-B alignment the swizzle depends on (HOPPER_NOTES §3): a misaligned tile would
// give silently wrong results, so stop the kernel instead.
__device__ __forceinline__ void require_1024_aligned(const void* p) {
  if (sm90::smem_u32(p) % 1024 != 0) __trap();
}

}  // namespace tilegemm::ladder
