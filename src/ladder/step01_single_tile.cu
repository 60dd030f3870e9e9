// Ladder step 1 — one CTA computes one 128 x 128 output tile with K = 64.
//
// Adds: the whole SM90 data path once, with nothing repeated.
//   gmem --(threads, 16-B vectors)--> smem in the 128B-swizzled K-major layout
//        --(fence.proxy.async + __syncthreads)--> wgmma.mma_async reads it through descriptors
//        --(commit + wait_group 0)--> FP32 accumulators in registers --> bf16 --> gmem.
// Two warpgroups (256 threads): warpgroup w owns output rows [64w, 64w + 64) and issues four
// m64n128k16 wgmma (K = 64 = 4 x 16).
// Why the fence: the tile is written by ordinary st.shared (the generic proxy) and read by wgmma
// (the async proxy); a barrier alone does not order the two proxies (docs/HOPPER.md §1).
#include "ladder/common.cuh"
#include "ladder/ladder.hpp"

namespace tilegemm::ladder {
namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads) single_tile_kernel(const __nv_bfloat16* a,  // [128, 64]
                                                               const __nv_bfloat16* b,  // [128, 64]
                                                               __nv_bfloat16* d) {      // [128, 128]
  __shared__ alignas(1024) uint8_t smem_a[kTileBytes];
  __shared__ alignas(1024) uint8_t smem_b[kTileBytes];
  require_1024_aligned(smem_a);
  require_1024_aligned(smem_b);
  const int warpgroup = threadIdx.x / 128, thread_in_wg = threadIdx.x % 128;

  load_tile_sw128<kThreads>(smem_a, a, kTileK, 0, 0);
  load_tile_sw128<kThreads>(smem_b, b, kTileK, 0, 0);
  sm90::fence_proxy_async_smem();  // my st.shared before wgmma's async-proxy reads
  __syncthreads();                 // everyone's tile pieces are in

  float acc[64];
  sm90::wgmma_fence();  // before the first wgmma touches acc
  wgmma_tile_k64(acc, smem_a, smem_b, warpgroup, /*accumulate=*/0);
  sm90::wgmma_commit();
  sm90::wgmma_wait<0>();  // results in registers
  sm90::fence_accumulators(acc);

  store_tile_bf16(acc, d, kTileN, warpgroup * 64, 0, thread_in_wg);
}

std::string check(int m, int n, int k) {
  std::string e = require_equal("M", m, kTileM);
  if (e.empty()) e = require_equal("N", n, kTileN);
  if (e.empty()) e = require_equal("K", k, kTileK);
  return e;
}

cudaError_t launch(const Problem& p, cudaStream_t stream) {
  single_tile_kernel<<<1, kThreads, 0, stream>>>(p.a, p.b, p.d);
  return cudaGetLastError();
}

}  // namespace

extern const Step kStep01{1, "single-tile", "one CTA, one 128x128 tile, K = 64: smem layout, wgmma, epilogue",
                          check, launch};

}  // namespace tilegemm::ladder
