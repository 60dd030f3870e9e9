// Ladder step 3 — many CTAs: a 2-D grid covers the M x N output with 128 x 128 tiles.
//
// Adds: spatial tiling. CTA (blockIdx.x, blockIdx.y) computes output tile (m = blockIdx.y,
// n = blockIdx.x) with step 2's K-loop unchanged; only the grid and the tile offsets are new.
// What it does not do yet: CTAs in the same tile row read the same A k-blocks and CTAs in the same
// tile column the same B k-blocks, each on its own (L2 catches some of it); loads and wgmma never
// overlap inside a CTA. Steps 4-5 (TMA, a multi-stage ring) attack the second.
#include "ladder/common.cuh"
#include "ladder/ladder.hpp"

namespace tilegemm::ladder {
namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads) multi_cta_kernel(const __nv_bfloat16* a,  // [M, K]
                                                             const __nv_bfloat16* b,  // [N, K]
                                                             __nv_bfloat16* d,        // [M, N]
                                                             int n_total, int k_total) {
  __shared__ alignas(1024) uint8_t smem_a[kTileBytes];
  __shared__ alignas(1024) uint8_t smem_b[kTileBytes];
  __shared__ uint64_t loaded;
  require_1024_aligned(smem_a);
  require_1024_aligned(smem_b);
  const int warpgroup = threadIdx.x / 128, thread_in_wg = threadIdx.x % 128;
  const int64_t m0 = int64_t(blockIdx.y) * kTileM, n0 = int64_t(blockIdx.x) * kTileN;
  if (threadIdx.x == 0) sm90::mbar_init(&loaded, kThreads);
  __syncthreads();

  float acc[64];
  uint32_t phase = 0;
  for (int kb = 0; kb < k_total / kTileK; ++kb) {
    load_tile_sw128<kThreads>(smem_a, a, k_total, m0, int64_t(kb) * kTileK);
    load_tile_sw128<kThreads>(smem_b, b, k_total, n0, int64_t(kb) * kTileK);
    sm90::fence_proxy_async_smem();
    sm90::mbar_arrive(&loaded);
    sm90::mbar_wait(&loaded, phase);
    phase ^= 1;

    sm90::wgmma_fence();
    wgmma_tile_k64(acc, smem_a, smem_b, warpgroup, /*accumulate=*/kb > 0);
    sm90::wgmma_commit();
    sm90::wgmma_wait<0>();
    sm90::fence_accumulators(acc);
    __syncthreads();
  }
  store_tile_bf16(acc, d, n_total, m0 + warpgroup * 64, n0, thread_in_wg);
}

std::string check(int m, int n, int k) {
  return require_tile_multiples(m, n, k, kTileM, kTileN, kTileK);
}

cudaError_t launch(const Problem& p, cudaStream_t stream) {
  const dim3 grid(p.n / kTileN, p.m / kTileM);
  multi_cta_kernel<<<grid, kThreads, 0, stream>>>(p.a, p.b, p.d, p.n, p.k);
  return cudaGetLastError();
}

}  // namespace

extern const Step kStep03{3, "multi-cta", "2-D grid of CTAs, one 128x128 output tile each",
                          check, launch};

}  // namespace tilegemm::ladder
