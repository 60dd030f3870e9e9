// Ladder step 8 — 2-CTA clusters: the pair of CTAs on tiles (2j, n) and (2j+1, n) fetch their
// shared B k-blocks once, with TMA multicast.
//
// Adds: a thread-block cluster of 2 along M (__cluster_dims__(2, 1, 1); schedule ClusterAxis::
// along_m pairs the tiles once and for all, and grouped-M order walks the pairs). Both tiles of a
// pair read the same B[n-block] k-blocks, so per stage each producer
//   - loads its own A tile (128 x 64) into its own smem, and
//   - loads HALF of the shared B tile (64 of its 128 rows) with .multicast::cluster into the same
//     offset of both CTAs' smem, completing tx on the full barrier at that offset in each CTA.
// Each CTA still expects the whole stage (A 16 KiB + B 16 KiB) on its own full barrier: its own
// copies plus the peer's half add up to exactly that (counting multicast bytes twice hangs the
// barrier, docs/HOPPER.md §12 pitfall 2). L2 -> SM traffic for B halves.
// The price is cluster-wide release: my producer writes into my peer's stage too, so it may only
// refill stage s when the consumers of BOTH CTAs are done with it. empty[s] therefore counts
// 2 x 8 consumer warps, and lane r < 2 of every consumer warp arrives on CTA r's empty[s] (mapa +
// a relaxed remote mbarrier.arrive; sm90::mbar_arrive_cluster in ptx.cuh says why not
// .release.cluster, which halved this step's speed). The two CTAs now advance in lockstep: a
// refill waits for the slower of the two, plus the cross-SM arrive.
// Measured on the H200 this step is ~9 % SLOWER than step 7 with 128 x 128 tiles (a 7-stage ring
// did not change that), while the same multicast in step 9 is worth ~+10 %: docs/LADDER.md.
// Lifetime: a CTA must not exit while its peer may still multicast into its smem or arrive on its
// barriers. Both CTAs walk the same number of tiles, and every thread of both ends with a cluster
// barrier, after the last remote arrive (docs/HOPPER.md §9, §12 pitfall 6). At start, the barrier inits
// are published to the cluster (fence.mbarrier_init + cluster barrier) before any peer can use them.
// What it does not do yet: each consumer warpgroup computes only 64 x 128 per stage, so A and B
// are re-read from smem for little math (m64n128), and the epilogue writes straight from registers
// with the tensor cores idle. Step 9 widens the tile to 128 x 256 and stages D through smem.
#include "ladder/common.cuh"
#include "ladder/ladder.hpp"
#include "schedule/tile_mapping.hpp"

namespace tilegemm::ladder {
namespace {

constexpr int kConsumers = 2;
constexpr int kThreads = 128 * (1 + kConsumers);
constexpr int kProducerRegs = 40, kConsumerRegs = 232;
constexpr int kGroupM = 8;      // grouped-M strip height, in tile pairs
constexpr int kClusterSize = 2;  // CTAs per cluster, along M
constexpr int kBHalfRows = kTileN / kClusterSize;           // rows of B each CTA multicasts
constexpr int kBHalfBytes = kBHalfRows * kTileK * 2;       // 8 KiB, 1024-aligned inside the B tile
using Smem = Step08Smem;
constexpr int kStages = Smem::stages;
static_assert(Smem::launch_bytes <= kMaxDynamicSmem);
static_assert(kBHalfBytes % 1024 == 0);

__device__ __forceinline__ sched::Schedule tile_schedule(int m, int n) {
  return sched::Schedule{sched::make_tile_grid(m, n, kTileM, kTileN),
                         sched::Mapping{sched::MappingKind::grouped_m, kGroupM}, sched::ClusterAxis::along_m};
}

__global__ void __cluster_dims__(kClusterSize, 1, 1) __launch_bounds__(kThreads, 1)
    cluster_kernel(const __grid_constant__ CUtensorMap tmap_a,  // A [M, K], boxes 128 x 64
                   const __grid_constant__ CUtensorMap tmap_b,  // B [N, K], boxes 64 x 64 (half a tile)
                   __nv_bfloat16* d,                            // D [M, N]
                   int m_total, int n_total, int k_total) {
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = align_smem_1024(smem_raw);  // same offset in both CTAs: multicast relies on it
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + Smem::full_offset(0));
  uint64_t* empty = reinterpret_cast<uint64_t*>(smem + Smem::empty_offset(0));
  const int warpgroup = threadIdx.x / 128, thread_in_wg = threadIdx.x % 128;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int num_kb = k_total / kTileK;
  const uint32_t rank = sm90::cluster_ctarank();  // == blockIdx.x % 2 == the schedule's cluster_rank
  const sched::Schedule schedule = tile_schedule(m_total, n_total);
  const int num_iters = sched::persistent_iterations(schedule, blockIdx.x, gridDim.x);
  if (threadIdx.x == 0) {
    sm90::prefetch_tensor_map(&tmap_a);
    sm90::prefetch_tensor_map(&tmap_b);
    for (int s = 0; s < kStages; ++s) {
      sm90::mbar_init(&full[s], 1);
      sm90::mbar_init(&empty[s], kClusterSize * 4 * kConsumers);  // every consumer warp of both CTAs
    }
    sm90::fence_barrier_init();  // publish the inits to the cluster
  }
  sm90::cluster_sync();  // no peer multicasts or arrives before my barriers exist

  if (warpgroup == 0) {
    // ---- producer ----
    sm90::setmaxnreg_dec<kProducerRegs>();
    if (warp == 0 && sm90::elect_one_sync()) {
      RingState<kStages> produce;
      for (int it = 0; it < num_iters; ++it) {
        const sched::TileWork work = sched::persistent_work(schedule, blockIdx.x, it, gridDim.x);
        const int m0 = work.tile.m_block * kTileM, n0 = work.tile.n_block * kTileN;
        for (int kb = 0; kb < num_kb; ++kb) {
          const int s = produce.stage;
          sm90::mbar_wait(&empty[s], produce.empty_parity());  // released by both CTAs' consumers
          sm90::mbar_arrive_expect_tx(&full[s], Smem::stage_bytes);  // my A + both halves of B
          sm90::tma_load_2d(smem + Smem::a_offset(s), &tmap_a, &full[s], kb * kTileK, m0);
          sm90::tma_load_2d_multicast(smem + Smem::b_offset(s) + rank * kBHalfBytes, &tmap_b, &full[s], kb * kTileK,
                                      n0 + rank * kBHalfRows, /*cta_mask=*/0b11);
          produce.advance();
        }
      }
    }
  } else {
    // ---- consumers ----
    sm90::setmaxnreg_inc<kConsumerRegs>();
    const int rows = warpgroup - 1;
    float acc[64];
    RingState<kStages> consume;
    for (int it = 0; it < num_iters; ++it) {
      const sched::TileWork work = sched::persistent_work(schedule, blockIdx.x, it, gridDim.x);
      const int m0 = work.tile.m_block * kTileM, n0 = work.tile.n_block * kTileN;
      for (int kb = 0; kb < num_kb; ++kb) {
        const int s = consume.stage;
        sm90::mbar_wait(&full[s], consume.full_parity());
        sm90::wgmma_fence();
        wgmma_tile_k64(acc, smem + Smem::a_offset(s), smem + Smem::b_offset(s), rows, /*accumulate=*/kb > 0);
        sm90::wgmma_commit();
        sm90::wgmma_wait<0>();
        sm90::fence_accumulators(acc);
        if (lane < kClusterSize) sm90::mbar_arrive_cluster(&empty[s], lane);  // release in CTA `lane`
        consume.advance();
      }
      store_tile_bf16(acc, d, n_total, m0 + rows * 64, n0, thread_in_wg);
    }
  }
  sm90::cluster_sync();  // nobody leaves while the peer may still multicast or arrive into it
}

// M covers whole cluster pairs: every CTA of a pair has a tile.
std::string check(int m, int n, int k) {
  return require_tile_multiples(m, n, k, kClusterSize * kTileM, kTileN, kTileK);
}

cudaError_t launch(const Problem& p, cudaStream_t stream) {
  CUtensorMap tmap_a, tmap_b;
  if (cudaError_t e = make_kmajor_operand_map(p.a, p.m, p.k, kTileM, &tmap_a); e != cudaSuccess) return e;
  if (cudaError_t e = make_kmajor_operand_map(p.b, p.n, p.k, kBHalfRows, &tmap_b); e != cudaSuccess) return e;
  if (cudaError_t e = cudaFuncSetAttribute(cluster_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           Smem::launch_bytes);
      e != cudaSuccess)
    return e;
  int ctas = 0;
  if (cudaError_t e = persistent_ctas(cluster_kernel, kThreads, Smem::launch_bytes, kClusterSize, &ctas);
      e != cudaSuccess)
    return e;
  const int num_tiles = (p.m / kTileM) * (p.n / kTileN);  // even: M is a multiple of 2 tiles
  const int grid = num_tiles < ctas ? num_tiles : ctas;
  cluster_kernel<<<grid, kThreads, Smem::launch_bytes, stream>>>(tmap_a, tmap_b, p.d, p.m, p.n, p.k);
  return cudaGetLastError();
}

}  // namespace

extern const Step kStep08{8, "cluster-multicast",
                          "2-CTA clusters along M: B k-blocks multicast to both CTAs, stages released cluster-wide",
                          check, launch};

}  // namespace tilegemm::ladder
