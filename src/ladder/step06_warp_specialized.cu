// Ladder step 6 — warp specialization: a producer warpgroup copies, two consumer warpgroups compute.
//
// Adds: roles. 384 threads = 3 warpgroups:
//   warpgroup 0, producer : one elected thread (elect.sync in warp 0) walks the k-blocks, waits
//                           empty[s], arms full[s] with expect_tx and starts the two copies. The
//                           other 127 threads have nothing to do.
//   warpgroups 1-2, consumers: wait full[s], 4 x wgmma m64n128k16 on their 64 rows, wait_group 0,
//                           lane 0 of each warp arrives on empty[s] (8 arrivals complete it).
// The ring (4 stages, Step06Smem), the barriers and the parities are step 5's unchanged; what
// changes is that nobody who issues wgmma ever waits on `empty`: the copy of k-block kb + 4 is
// started by a thread that does nothing else, as soon as the last consumer warp released the stage.
// setmaxnreg: a CTA gets one register budget (here 65536 / 384 = 168 per thread at entry; it needs
// __launch_bounds__(384, 1) so ptxas fixes the entry count, else C7508 "setmaxnreg ignored",
// docs/HOPPER.md §8). The producer needs few, so it gives them back (dec to 40) and the consumers
// take them (inc to 232): 128·40 + 256·232 = 64512 <= 65536. With 64 accumulators per thread
// these consumers do not need 232 yet; step 9's 64 x 256 accumulators (128 registers) do.
// What it does not do yet: one CTA per output tile. Every CTA pays its prologue (barrier init,
// ring fill with nothing to overlap) and its epilogue (stores with the tensor cores idle), and the
// last wave leaves SMs idle. Step 7 keeps CTAs alive across tiles.
#include "ladder/common.cuh"
#include "ladder/ladder.hpp"

namespace tilegemm::ladder {
namespace {

constexpr int kConsumers = 2;                    // warpgroups 1 and 2: 64 output rows each
constexpr int kThreads = 128 * (1 + kConsumers);
constexpr int kProducerRegs = 40, kConsumerRegs = 232;
static_assert(128 * kProducerRegs + 128 * kConsumers * kConsumerRegs <= 65536);
using Smem = Step06Smem;
constexpr int kStages = Smem::stages;
static_assert(Smem::launch_bytes <= kMaxDynamicSmem);

__global__ void __launch_bounds__(kThreads, 1) warp_specialized_kernel(
    const __grid_constant__ CUtensorMap tmap_a,  // A [M, K]
    const __grid_constant__ CUtensorMap tmap_b,  // B [N, K]
    __nv_bfloat16* d,                            // D [M, N]
    int n_total, int k_total) {
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = align_smem_1024(smem_raw);
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + Smem::full_offset(0));
  uint64_t* empty = reinterpret_cast<uint64_t*>(smem + Smem::empty_offset(0));
  const int warpgroup = threadIdx.x / 128, thread_in_wg = threadIdx.x % 128;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int m0 = blockIdx.y * kTileM, n0 = blockIdx.x * kTileN;
  const int num_kb = k_total / kTileK;
  if (threadIdx.x == 0) {
    sm90::prefetch_tensor_map(&tmap_a);
    sm90::prefetch_tensor_map(&tmap_b);
    for (int s = 0; s < kStages; ++s) {
      sm90::mbar_init(&full[s], 1);
      sm90::mbar_init(&empty[s], 4 * kConsumers);  // lane 0 of every consumer warp
    }
    sm90::fence_barrier_init();
  }
  __syncthreads();  // the last CTA-wide barrier: the roles never meet again

  if (warpgroup == 0) {
    // ---- producer ----
    sm90::setmaxnreg_dec<kProducerRegs>();  // give registers back to the consumers
    if (warp == 0 && sm90::elect_one_sync()) {
      RingState<kStages> produce;
      for (int kb = 0; kb < num_kb; ++kb) {
        const int s = produce.stage;
        sm90::mbar_wait(&empty[s], produce.empty_parity());  // consumers released the stage
        sm90::mbar_arrive_expect_tx(&full[s], Smem::stage_bytes);
        sm90::tma_load_2d(smem + Smem::a_offset(s), &tmap_a, &full[s], kb * kTileK, m0);
        sm90::tma_load_2d(smem + Smem::b_offset(s), &tmap_b, &full[s], kb * kTileK, n0);
        produce.advance();
      }
    }
  } else {
    // ---- consumers ----
    sm90::setmaxnreg_inc<kConsumerRegs>();  // consumers get the registers
    const int rows = warpgroup - 1;          // consumer c owns tile rows [64c, 64c + 64)
    float acc[64];
    RingState<kStages> consume;
    for (int kb = 0; kb < num_kb; ++kb) {
      const int s = consume.stage;
      sm90::mbar_wait(&full[s], consume.full_parity());
      sm90::wgmma_fence();
      wgmma_tile_k64(acc, smem + Smem::a_offset(s), smem + Smem::b_offset(s), rows, /*accumulate=*/kb > 0);
      sm90::wgmma_commit();
      sm90::wgmma_wait<0>();
      sm90::fence_accumulators(acc);
      if (lane == 0) sm90::mbar_arrive(&empty[s]);  // this warp is done with stage s
      consume.advance();
    }
    store_tile_bf16(acc, d, n_total, m0 + rows * 64, n0, thread_in_wg);
  }
}

std::string check(int m, int n, int k) {
  return require_tile_multiples(m, n, k, kTileM, kTileN, kTileK);
}

cudaError_t launch(const Problem& p, cudaStream_t stream) {
  CUtensorMap tmap_a, tmap_b;
  if (cudaError_t e = make_kmajor_operand_map(p.a, p.m, p.k, kTileM, &tmap_a); e != cudaSuccess) return e;
  if (cudaError_t e = make_kmajor_operand_map(p.b, p.n, p.k, kTileN, &tmap_b); e != cudaSuccess) return e;
  if (cudaError_t e = cudaFuncSetAttribute(warp_specialized_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           Smem::launch_bytes);
      e != cudaSuccess)
    return e;
  const dim3 grid(p.n / kTileN, p.m / kTileM);
  warp_specialized_kernel<<<grid, kThreads, Smem::launch_bytes, stream>>>(tmap_a, tmap_b, p.d, p.n, p.k);
  return cudaGetLastError();
}

}  // namespace

extern const Step kStep06{6, "warp-specialized",
                          "producer warpgroup (one elected thread issues TMA) + 2 consumer warpgroups, setmaxnreg 40/232",
                          check, launch};

}  // namespace tilegemm::ladder
