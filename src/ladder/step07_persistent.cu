// Ladder step 7 — persistent CTAs: one CTA per SM walks many tiles, in grouped-M order.
//
// Adds: the tile scheduler. The grid is min(#SMs, #tiles) CTAs; CTA p takes tasks
// i = p + iter * gridDim.x and maps each to an output tile with grouped-M order (strips of
// kGroupM = 8 tile rows, m fastest inside a strip: schedule/tile_mapping.hpp, the same code the
// planner and `tilegemm map` use). Producer and consumers each run their own copy of the loop, so
// no smem hand-off is needed, and the ring simply continues across tiles: stage and parity are
// never reset, the producer starts the next tile's copies while the consumers still compute (and
// store) the current one.
// Why it helps:
//   - the prologue (barrier init, tensor-map prefetch, filling an empty ring) is paid once per SM,
//     not once per tile, and the epilogue's global stores now overlap the next tile's copies;
//   - grouped order: the 132 tiles in flight at once cover ~8 tile rows x ~17 tile columns, so
//     they share A and B k-blocks in L2 instead of a 1 x 132 strip re-reading 132 B bands
//     (seed 1's working-set argument; `tilegemm map` shows it wave by wave).
// What it does not do yet: the two CTAs that work on neighbouring tiles still fetch their shared
// B k-blocks from L2 separately. Step 8 pairs them in a cluster and multicasts.
#include "ladder/common.cuh"
#include "ladder/ladder.hpp"
#include "schedule/tile_mapping.hpp"

namespace tilegemm::ladder {
namespace {

constexpr int kConsumers = 2;
constexpr int kThreads = 128 * (1 + kConsumers);
constexpr int kProducerRegs = 40, kConsumerRegs = 232;
constexpr int kGroupM = 8;  // grouped-M strip height in tiles
using Smem = Step07Smem;
constexpr int kStages = Smem::stages;
static_assert(Smem::launch_bytes <= kMaxDynamicSmem);

// The task list every role of every CTA walks: 128 x 128 tiles in grouped-M order.
__device__ __forceinline__ sched::Schedule tile_schedule(int m, int n) {
  return sched::Schedule{sched::make_tile_grid(m, n, kTileM, kTileN),
                         sched::Mapping{sched::MappingKind::grouped_m, kGroupM}, sched::ClusterAxis::none};
}

__global__ void __launch_bounds__(kThreads, 1) persistent_kernel(const __grid_constant__ CUtensorMap tmap_a,  // A [M, K]
                                                                 const __grid_constant__ CUtensorMap tmap_b,  // B [N, K]
                                                                 __nv_bfloat16* d,                            // D [M, N]
                                                                 int m_total, int n_total, int k_total) {
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = align_smem_1024(smem_raw);
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + Smem::full_offset(0));
  uint64_t* empty = reinterpret_cast<uint64_t*>(smem + Smem::empty_offset(0));
  const int warpgroup = threadIdx.x / 128, thread_in_wg = threadIdx.x % 128;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int num_kb = k_total / kTileK;
  const sched::Schedule schedule = tile_schedule(m_total, n_total);
  const int num_iters = sched::persistent_iterations(schedule, blockIdx.x, gridDim.x);
  if (threadIdx.x == 0) {
    sm90::prefetch_tensor_map(&tmap_a);
    sm90::prefetch_tensor_map(&tmap_b);
    for (int s = 0; s < kStages; ++s) {
      sm90::mbar_init(&full[s], 1);
      sm90::mbar_init(&empty[s], 4 * kConsumers);
    }
    sm90::fence_barrier_init();
  }
  __syncthreads();

  if (warpgroup == 0) {
    // ---- producer: the copies of every k-block of every tile of this CTA, in order ----
    sm90::setmaxnreg_dec<kProducerRegs>();
    if (warp == 0 && sm90::elect_one_sync()) {
      RingState<kStages> produce;  // continues across tiles
      for (int it = 0; it < num_iters; ++it) {
        const sched::TileWork work = sched::persistent_work(schedule, blockIdx.x, it, gridDim.x);
        const int m0 = work.tile.m_block * kTileM, n0 = work.tile.n_block * kTileN;
        for (int kb = 0; kb < num_kb; ++kb) {
          const int s = produce.stage;
          sm90::mbar_wait(&empty[s], produce.empty_parity());
          sm90::mbar_arrive_expect_tx(&full[s], Smem::stage_bytes);
          sm90::tma_load_2d(smem + Smem::a_offset(s), &tmap_a, &full[s], kb * kTileK, m0);
          sm90::tma_load_2d(smem + Smem::b_offset(s), &tmap_b, &full[s], kb * kTileK, n0);
          produce.advance();
        }
      }
    }
  } else {
    // ---- consumers: the same tiles in the same order ----
    sm90::setmaxnreg_inc<kConsumerRegs>();
    const int rows = warpgroup - 1;
    float acc[64];
    RingState<kStages> consume;  // continues across tiles
    for (int it = 0; it < num_iters; ++it) {
      const sched::TileWork work = sched::persistent_work(schedule, blockIdx.x, it, gridDim.x);
      const int m0 = work.tile.m_block * kTileM, n0 = work.tile.n_block * kTileN;
      for (int kb = 0; kb < num_kb; ++kb) {
        const int s = consume.stage;
        sm90::mbar_wait(&full[s], consume.full_parity());
        sm90::wgmma_fence();  // also orders the previous tile's accumulator reads before this wgmma
        wgmma_tile_k64(acc, smem + Smem::a_offset(s), smem + Smem::b_offset(s), rows, /*accumulate=*/kb > 0);
        sm90::wgmma_commit();
        sm90::wgmma_wait<0>();
        sm90::fence_accumulators(acc);
        if (lane == 0) sm90::mbar_arrive(&empty[s]);
        consume.advance();
      }
      store_tile_bf16(acc, d, n_total, m0 + rows * 64, n0, thread_in_wg);  // producer runs ahead meanwhile
    }
  }
}

std::string check(int m, int n, int k) {
  return require_tile_multiples(m, n, k, kTileM, kTileN, kTileK);
}

cudaError_t launch(const Problem& p, cudaStream_t stream) {
  CUtensorMap tmap_a, tmap_b;
  if (cudaError_t e = make_kmajor_operand_map(p.a, p.m, p.k, kTileM, &tmap_a); e != cudaSuccess) return e;
  if (cudaError_t e = make_kmajor_operand_map(p.b, p.n, p.k, kTileN, &tmap_b); e != cudaSuccess) return e;
  if (cudaError_t e = cudaFuncSetAttribute(persistent_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           Smem::launch_bytes);
      e != cudaSuccess)
    return e;
  int device = 0, num_sms = 0;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  if (cudaError_t e = cudaDeviceGetAttribute(&num_sms, cudaDevAttrMultiProcessorCount, device); e != cudaSuccess)
    return e;
  const int num_tiles = (p.m / kTileM) * (p.n / kTileN);
  const int grid = num_tiles < num_sms ? num_tiles : num_sms;  // one CTA per SM (smem allows only one)
  persistent_kernel<<<grid, kThreads, Smem::launch_bytes, stream>>>(tmap_a, tmap_b, p.d, p.m, p.n, p.k);
  return cudaGetLastError();
}

}  // namespace

extern const Step kStep07{7, "persistent",
                          "persistent CTAs (grid = #SMs) walking tiles blockIdx.x + iter*gridDim.x in grouped-M order",
                          check, launch};

}  // namespace tilegemm::ladder
