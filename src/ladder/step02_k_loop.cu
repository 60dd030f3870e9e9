// Ladder step 2 — the K-loop: still one CTA and one 128 x 128 tile, now any K (multiple of 64).
//
// Adds: accumulation over k-blocks and an mbarrier whose phase bit flips every iteration.
//   for each 64-wide k-block: threads copy A/B k-block -> smem, fence.proxy.async, arrive on
//   `loaded`; everyone waits for the phase with the current parity, flips the parity; wgmma
//   accumulates (scale-d = 1 after the first k16 step); wait_group 0; __syncthreads so nobody
//   overwrites the tile while the other warpgroup's wgmma may still read it.
// Why the phase bit: an mbarrier completes phase 0, then 1, then 0 ... A waiter names the parity of
// the phase it waits for. Forgetting the flip makes the second wait return at once (it sees the
// completed phase 0 again) and wgmma reads a half-written tile (docs/HOPPER.md §12 pitfall 1). From step 4
// on, the same barrier is completed by TMA bytes instead of thread arrivals.
#include "ladder/common.cuh"
#include "ladder/ladder.hpp"

namespace tilegemm::ladder {
namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads) k_loop_kernel(const __nv_bfloat16* a,  // [128, K]
                                                          const __nv_bfloat16* b,  // [128, K]
                                                          __nv_bfloat16* d,        // [128, 128]
                                                          int k_total) {
  __shared__ alignas(1024) uint8_t smem_a[kTileBytes];
  __shared__ alignas(1024) uint8_t smem_b[kTileBytes];
  __shared__ uint64_t loaded;  // completes when all 256 threads stored their part of a k-block
  require_1024_aligned(smem_a);
  require_1024_aligned(smem_b);
  const int warpgroup = threadIdx.x / 128, thread_in_wg = threadIdx.x % 128;
  if (threadIdx.x == 0) sm90::mbar_init(&loaded, kThreads);
  __syncthreads();

  float acc[64];
  uint32_t phase = 0;
  for (int kb = 0; kb < k_total / kTileK; ++kb) {
    load_tile_sw128<kThreads>(smem_a, a, k_total, 0, int64_t(kb) * kTileK);
    load_tile_sw128<kThreads>(smem_b, b, k_total, 0, int64_t(kb) * kTileK);
    sm90::fence_proxy_async_smem();
    sm90::mbar_arrive(&loaded);
    sm90::mbar_wait(&loaded, phase);  // this k-block's tiles are complete
    phase ^= 1;                       // the next k-block completes the next phase

    sm90::wgmma_fence();
    wgmma_tile_k64(acc, smem_a, smem_b, warpgroup, /*accumulate=*/kb > 0);
    sm90::wgmma_commit();
    sm90::wgmma_wait<0>();
    sm90::fence_accumulators(acc);
    __syncthreads();  // both warpgroups finished reading before the tile is overwritten
  }
  store_tile_bf16(acc, d, kTileN, warpgroup * 64, 0, thread_in_wg);
}

std::string check(int m, int n, int k) {
  std::string e = require_equal("M", m, kTileM);
  if (e.empty()) e = require_equal("N", n, kTileN);
  if (e.empty()) e = require_multiple("K", k, kTileK);
  return e;
}

cudaError_t launch(const Problem& p, cudaStream_t stream) {
  k_loop_kernel<<<1, kThreads, 0, stream>>>(p.a, p.b, p.d, p.k);
  return cudaGetLastError();
}

}  // namespace

extern const Step kStep02{2, "k-loop", "loop over K in 64-wide blocks, mbarrier phase flips per block",
                          check, launch};

}  // namespace tilegemm::ladder
