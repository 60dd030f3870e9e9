// Ladder step 4 — TMA loads: the copy engine moves the tiles, one thread starts it.
//
// Adds: the tensor memory accelerator in place of step 3's thread copies. The host describes A and
// B once as tensor maps (cuTensorMapEncodeTiled: a 2-D bf16 matrix, boxes of 128 rows x 64 k,
// SWIZZLE_128B, so TMA writes exactly the swizzled K-major layout load_tile_sw128 built by hand).
// The maps travel as `const __grid_constant__ CUtensorMap` kernel parameters: the copy engine reads
// them from parameter space (a by-value copy in local memory is not a valid map; docs/HOPPER.md §7).
// Per k-block:
//   thread 0: arrive.expect_tx(full, 32 KiB) + two cp.async.bulk.tensor (A box, B box) -> full
//   everyone: wait(full, parity)  — the phase completes when the one arrival AND all 32 KiB landed
//   wgmma as before; wait_group 0; __syncthreads so the single stage is free before the next copy.
// Why it helps: 256 threads no longer spend issue slots on 16-B loads, address math and st.shared;
// one instruction per tile replaces 2 x 1024 of them, and no proxy fence is needed because TMA and
// wgmma both work in the async proxy (the mbarrier completion orders them; §1). What it does not do
// yet: with one stage the copy of k-block kb + 1 starts only after wgmma finished k-block kb, so
// copy latency and math still alternate. Step 5 adds a ring of stages.
#include "ladder/common.cuh"
#include "ladder/ladder.hpp"

namespace tilegemm::ladder {
namespace {

constexpr int kThreads = 256;
constexpr uint32_t kStageBytes = 2 * kTileBytes;  // A tile + B tile: what one phase of `full` expects

__global__ void __launch_bounds__(kThreads) tma_kernel(const __grid_constant__ CUtensorMap tmap_a,  // A [M, K]
                                                       const __grid_constant__ CUtensorMap tmap_b,  // B [N, K]
                                                       __nv_bfloat16* d,                            // D [M, N]
                                                       int n_total, int k_total) {
  __shared__ alignas(1024) uint8_t smem_a[kTileBytes];
  __shared__ alignas(1024) uint8_t smem_b[kTileBytes];
  __shared__ uint64_t full;  // one arrival (thread 0's expect_tx) + kStageBytes of TMA transactions
  require_1024_aligned(smem_a);
  require_1024_aligned(smem_b);
  const int warpgroup = threadIdx.x / 128, thread_in_wg = threadIdx.x % 128;
  const int m0 = blockIdx.y * kTileM, n0 = blockIdx.x * kTileN;
  if (threadIdx.x == 0) {
    sm90::prefetch_tensor_map(&tmap_a);
    sm90::prefetch_tensor_map(&tmap_b);
    sm90::mbar_init(&full, 1);
    sm90::fence_barrier_init();
  }
  __syncthreads();

  float acc[64];
  uint32_t phase = 0;
  for (int kb = 0; kb < k_total / kTileK; ++kb) {
    if (threadIdx.x == 0) {
      sm90::mbar_arrive_expect_tx(&full, kStageBytes);
      sm90::tma_load_2d(smem_a, &tmap_a, &full, kb * kTileK, m0);  // box (64 k, 128 rows) at (k, row)
      sm90::tma_load_2d(smem_b, &tmap_b, &full, kb * kTileK, n0);
    }
    sm90::mbar_wait(&full, phase);  // both tiles landed
    phase ^= 1;

    sm90::wgmma_fence();
    wgmma_tile_k64(acc, smem_a, smem_b, warpgroup, /*accumulate=*/kb > 0);
    sm90::wgmma_commit();
    sm90::wgmma_wait<0>();
    sm90::fence_accumulators(acc);
    __syncthreads();  // both warpgroups finished reading the stage before thread 0 refills it
  }
  store_tile_bf16(acc, d, n_total, m0 + warpgroup * 64, n0, thread_in_wg);
}

std::string check(int m, int n, int k) {
  return require_tile_multiples(m, n, k, kTileM, kTileN, kTileK);
}

cudaError_t launch(const Problem& p, cudaStream_t stream) {
  CUtensorMap tmap_a, tmap_b;
  if (cudaError_t e = make_kmajor_operand_map(p.a, p.m, p.k, kTileM, &tmap_a); e != cudaSuccess) return e;
  if (cudaError_t e = make_kmajor_operand_map(p.b, p.n, p.k, kTileN, &tmap_b); e != cudaSuccess) return e;
  const dim3 grid(p.n / kTileN, p.m / kTileM);
  tma_kernel<<<grid, kThreads, 0, stream>>>(tmap_a, tmap_b, p.d, p.n, p.k);
  return cudaGetLastError();
}

}  // namespace

extern const Step kStep04{4, "tma", "TMA copies (tensor map, 128B swizzle) completing on an mbarrier with expect-tx",
                          check, launch};

}  // namespace tilegemm::ladder
