// Ladder step 5 — a ring of smem stages: copies of later k-blocks overlap the current wgmma.
//
// Adds: a ring of kStages = 4 stages of (A tile, B tile) in dynamic shared memory (128 KiB;
// Step05Smem in common.cuh) and two barriers per stage:
//   full[s]  — 1 arrival (the expect_tx) + 32 KiB of TMA bytes: "stage s holds k-block kb".
//   empty[s] — 8 arrivals, lane 0 of each of the 8 warps after its wgmma finished reading stage s:
//              "stage s may be overwritten".
// Thread 0 fills the whole ring up front, then after every k-block waits until the stage just
// read is released and refills it with the k-block kStages ahead. While the tensor cores chew on
// k-block kb, the copies of kb + 1 .. kb + 3 are already in flight or landed.
// Phase tracking (RingState in common.cuh): each pass around the ring completes one phase of every
// barrier, so the parity a waiter names flips whenever the stage index wraps. The consumers wait
// full[s] for `phase`; the producer waits empty[s] for `phase ^ 1` — on a fresh barrier that
// returns at once, which is exactly "the first pass needs no release". Getting either wrong hangs
// or, worse, lets a copy overwrite a stage still being read (docs/HOPPER.md §12 pitfall 1).
// What it does not do yet: thread 0 is both a producer and a consumer. Its refill waits for the
// slowest warp of both warpgroups, and its warpgroup cannot issue the next wgmma meanwhile, so the
// copy issue sits on the math's critical path. Step 6 gives the copies their own warpgroup.
#include "ladder/common.cuh"
#include "ladder/ladder.hpp"

namespace tilegemm::ladder {
namespace {

constexpr int kThreads = 256;
using Smem = Step05Smem;
constexpr int kStages = Smem::stages;
constexpr int kConsumerWarps = kThreads / 32;  // every warp reads every stage
static_assert(Smem::launch_bytes <= kMaxDynamicSmem);

__global__ void __launch_bounds__(kThreads) pipeline_kernel(const __grid_constant__ CUtensorMap tmap_a,  // A [M, K]
                                                            const __grid_constant__ CUtensorMap tmap_b,  // B [N, K]
                                                            __nv_bfloat16* d,                            // D [M, N]
                                                            int n_total, int k_total) {
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = align_smem_1024(smem_raw);
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + Smem::full_offset(0));
  uint64_t* empty = reinterpret_cast<uint64_t*>(smem + Smem::empty_offset(0));
  const int warpgroup = threadIdx.x / 128, thread_in_wg = threadIdx.x % 128, lane = threadIdx.x % 32;
  const int m0 = blockIdx.y * kTileM, n0 = blockIdx.x * kTileN;
  const int num_kb = k_total / kTileK;
  if (threadIdx.x == 0) {
    sm90::prefetch_tensor_map(&tmap_a);
    sm90::prefetch_tensor_map(&tmap_b);
    for (int s = 0; s < kStages; ++s) {
      sm90::mbar_init(&full[s], 1);
      sm90::mbar_init(&empty[s], kConsumerWarps);
    }
    sm90::fence_barrier_init();
  }
  __syncthreads();

  // Producer side (thread 0 only): wait until the stage is free, then start both copies into it.
  RingState<kStages> produce;
  int next_kb = 0;
  auto produce_next = [&] {
    const int s = produce.stage;
    sm90::mbar_wait(&empty[s], produce.empty_parity());
    sm90::mbar_arrive_expect_tx(&full[s], Smem::stage_bytes);
    sm90::tma_load_2d(smem + Smem::a_offset(s), &tmap_a, &full[s], next_kb * kTileK, m0);
    sm90::tma_load_2d(smem + Smem::b_offset(s), &tmap_b, &full[s], next_kb * kTileK, n0);
    produce.advance();
    ++next_kb;
  };
  if (threadIdx.x == 0)
    while (next_kb < num_kb && next_kb < kStages) produce_next();  // fill the ring

  float acc[64];
  RingState<kStages> consume;
  for (int kb = 0; kb < num_kb; ++kb) {
    const int s = consume.stage;
    sm90::mbar_wait(&full[s], consume.full_parity());  // k-block kb is in stage s

    sm90::wgmma_fence();
    wgmma_tile_k64(acc, smem + Smem::a_offset(s), smem + Smem::b_offset(s), warpgroup, /*accumulate=*/kb > 0);
    sm90::wgmma_commit();
    sm90::wgmma_wait<0>();
    sm90::fence_accumulators(acc);
    if (lane == 0) sm90::mbar_arrive(&empty[s]);  // this warp is done reading stage s
    consume.advance();

    if (threadIdx.x == 0 && next_kb < num_kb) produce_next();  // refill: k-block kb + kStages
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
  if (cudaError_t e = cudaFuncSetAttribute(pipeline_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           Smem::launch_bytes);
      e != cudaSuccess)
    return e;
  const dim3 grid(p.n / kTileN, p.m / kTileM);
  pipeline_kernel<<<grid, kThreads, Smem::launch_bytes, stream>>>(tmap_a, tmap_b, p.d, p.n, p.k);
  return cudaGetLastError();
}

}  // namespace

extern const Step kStep05{5, "pipeline", "a ring of 4 smem stages with full/empty mbarriers: copies run ahead of wgmma",
                          check, launch};

}  // namespace tilegemm::ladder
