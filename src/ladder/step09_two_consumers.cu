// Ladder step 9 — the peak-class kernel: 128 x 256 tiles, two consumer warpgroups of 64 x 256, and
// a stmatrix + TMA-store epilogue that overlaps the next tile's mainloop.
//
// Adds, on top of step 8 (persistent, grouped-M, 2-CTA cluster along M multicasting B):
//   1. Wider math per stage. Each consumer warpgroup owns 64 rows x 256 columns: one
//      wgmma m64n256k16 per k16 step, 128 fp32 accumulators per thread (the registers setmaxnreg
//      232 pays for). Per stage a CTA reads A 16 KiB + B 32 KiB from smem for 2·128·256·64 FLOP:
//      twice step 8's math per smem byte, and half as many wgmma instructions per FLOP.
//      4 stages of 48 KiB (plus the D staging below) fill 224 KiB of the 227 KiB a block may have.
//   2. wgmma kept in flight across k-blocks. After committing k-block kb the consumer waits with
//      wait_group 1 — "all but the newest group done" — so k-block kb-1's wgmma has retired, and
//      only then releases stage(kb-1). The tensor cores always have the next group queued instead
//      of draining at every k-block (step 8 waited for 0). At the end of a tile: wait_group 0.
//   3. An epilogue through smem. Accumulators -> bf16 -> stmatrix (8x8 b16 matrices, four per
//      instruction) into a 128B-swizzled 64 x 64 staging box -> fence.proxy.async (stmatrix writes
//      in the generic proxy, TMA reads in the async proxy: docs/HOPPER.md §12 pitfall 3) -> named
//      barrier of the warpgroup -> one thread issues a TMA store of the box and commits it.
//      Each consumer has 2 staging slots of 8 KiB and walks its 64 x 256 slice in four boxes,
//      ping-ponging between the slots: before reusing a slot the issuing thread waits
//      (wait_group.read 1) until the store issued two boxes ago has read it. The stores are never
//      waited for otherwise: the consumers go straight to the next tile while TMA writes D, and
//      the producer has been filling the ring for that tile all along.
//      Swizzled staging makes each stmatrix conflict-free: the 8 rows of one 8x8 matrix fall in 8
//      different 16-B bank groups (tests/cpu/ladder/swizzle_twin_test.cpp).
// Register plan: producer 40, consumers 232 (128·40 + 256·232 = 64512 <= 65536).
#include "ladder/common.cuh"
#include "ladder/ladder.hpp"
#include "schedule/tile_mapping.hpp"

namespace tilegemm::ladder {
namespace {

constexpr int kBM = 128, kBN = 256;  // CTA tile
constexpr int kConsumers = 2;        // consumer c owns tile rows [64c, 64c + 64), all 256 columns
constexpr int kThreads = 128 * (1 + kConsumers);
constexpr int kProducerRegs = 40, kConsumerRegs = 232;
constexpr int kAcc = kBN / 2;  // fp32 accumulators per thread for m64n256
constexpr int kGroupM = 8;     // grouped-M strip height, in tile pairs
constexpr int kClusterSize = 2;
constexpr int kBHalfRows = kBN / kClusterSize;        // B rows each CTA multicasts: 128
constexpr int kBHalfBytes = kBHalfRows * kTileK * 2;  // 16 KiB
constexpr int kBoxCols = 64;                          // D store box: 64 columns (128 B, the swizzle span)
constexpr int kBoxRows = 64;                          //              x 64 rows (one consumer)
constexpr int kSlotBytes = kBoxRows * kBoxCols * 2;   // 8 KiB staging slot
using Smem = Step09Smem;
constexpr int kStages = Smem::stages;
static_assert(Smem::a_stage_bytes == kBM * kTileK * 2 && Smem::b_stage_bytes == kBN * kTileK * 2);
static_assert(Smem::d_bytes == kConsumers * 2 * kSlotBytes);
static_assert(Smem::launch_bytes <= kMaxDynamicSmem);
static_assert(128 * kProducerRegs + 128 * kConsumers * kConsumerRegs <= 65536);

__device__ __forceinline__ sched::Schedule tile_schedule(int m, int n) {
  return sched::Schedule{sched::make_tile_grid(m, n, kBM, kBN),
                         sched::Mapping{sched::MappingKind::grouped_m, kGroupM}, sched::ClusterAxis::along_m};
}

// One consumer's 64 x 256 x 64 block product: 4 x wgmma m64n256k16, A rows at a_addr (64 rows),
// all 256 B rows at b_addr; descriptors step +32 B along K inside the swizzled lines.
__device__ __forceinline__ void wgmma_k64_n256(float (&acc)[kAcc], uint32_t a_addr, uint32_t b_addr,
                                               int accumulate) {
  const uint64_t desc_a = sm90::make_kmajor_sw128_desc(a_addr);
  const uint64_t desc_b = sm90::make_kmajor_sw128_desc(b_addr);
#pragma unroll
  for (int k = 0; k < kTileK / 16; ++k)
    sm90::wgmma_m64k16<kBN>(acc, sm90::desc_advance_bytes(desc_a, k * 32), sm90::desc_advance_bytes(desc_b, k * 32),
                            (k > 0) | accumulate);
}

// Registers acc[8q .. 8q+7] (one 16-column block of the fragment, docs/HOPPER.md §4) as the four 8x8
// bf16 matrices of one stmatrix x4 (§5): (rows 0-7, cols 0-7), (rows 8-15, cols 0-7),
// (rows 0-7, cols 8-15), (rows 8-15, cols 8-15) of the warp's 16 rows.
__device__ __forceinline__ void stmatrix_bf16x4(void* row_addr, const float (&acc)[kAcc], int q) {
  sm90::stmatrix_x4(row_addr, sm90::pack_bf16x2(acc[8 * q + 0], acc[8 * q + 1]),
                    sm90::pack_bf16x2(acc[8 * q + 2], acc[8 * q + 3]), sm90::pack_bf16x2(acc[8 * q + 4], acc[8 * q + 5]),
                    sm90::pack_bf16x2(acc[8 * q + 6], acc[8 * q + 7]));
}

// Accumulators of one consumer -> bf16 -> swizzled staging slots -> TMA stores of four 64 x 64 boxes.
__device__ __forceinline__ void store_tile_tma(const float (&acc)[kAcc], const CUtensorMap* tmap_d,
                                               uint8_t* slots, int consumer, int thread_in_wg, int m0, int n0) {
  const int warp = thread_in_wg / 32, lane = thread_in_wg % 32;
  // stmatrix x4 addressing: lanes 8i..8i+7 give the rows of matrix i; matrices 0/1 are rows 0-7 /
  // 8-15 of the warp's 16 rows at columns +0..7, matrices 2/3 the same rows at columns +8..15.
  const int row = 16 * warp + (lane & 7) + 8 * ((lane >> 3) & 1);
  const int col = 8 * (lane >> 4);
#pragma unroll
  for (int box = 0; box < kBN / kBoxCols; ++box) {
    uint8_t* slot = slots + (box & 1) * kSlotBytes;
    if (thread_in_wg == 0) sm90::tma_store_wait_read<1>();  // the store 2 boxes ago has read this slot
    sm90::named_barrier_sync(1 + consumer, 128);
#pragma unroll
    for (int p = 0; p < kBoxCols / 16; ++p) {
      const int q = (box * kBoxCols) / 16 + p;  // 16-column block: registers acc[8q .. 8q+7]
      stmatrix_bf16x4(slot + sm90::kmajor_sw128_offset(row, 16 * p + col), acc, q);
    }
    sm90::fence_proxy_async_smem();              // my stmatrix writes before the async-proxy read
    sm90::named_barrier_sync(1 + consumer, 128);  // the whole box is written
    if (thread_in_wg == 0) {
      sm90::tma_store_2d(tmap_d, slot, n0 + box * kBoxCols, m0 + consumer * kBoxRows);
      sm90::tma_store_commit();
    }
  }
}

__global__ void __cluster_dims__(kClusterSize, 1, 1) __launch_bounds__(kThreads, 1)
    two_consumer_kernel(const __grid_constant__ CUtensorMap tmap_a,  // A [M, K], boxes 128 x 64
                        const __grid_constant__ CUtensorMap tmap_b,  // B [N, K], boxes 128 x 64 (half a tile)
                        const __grid_constant__ CUtensorMap tmap_d,  // D [M, N], boxes 64 x 64
                        int m_total, int n_total, int k_total) {
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = align_smem_1024(smem_raw);
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + Smem::full_offset(0));
  uint64_t* empty = reinterpret_cast<uint64_t*>(smem + Smem::empty_offset(0));
  const int warpgroup = threadIdx.x / 128, thread_in_wg = threadIdx.x % 128;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int num_kb = k_total / kTileK;
  const uint32_t rank = sm90::cluster_ctarank();
  const sched::Schedule schedule = tile_schedule(m_total, n_total);
  const int num_iters = sched::persistent_iterations(schedule, blockIdx.x, gridDim.x);
  if (threadIdx.x == 0) {
    sm90::prefetch_tensor_map(&tmap_a);
    sm90::prefetch_tensor_map(&tmap_b);
    sm90::prefetch_tensor_map(&tmap_d);
    for (int s = 0; s < kStages; ++s) {
      sm90::mbar_init(&full[s], 1);
      sm90::mbar_init(&empty[s], kClusterSize * 4 * kConsumers);
    }
    sm90::fence_barrier_init();
  }
  sm90::cluster_sync();

  if (warpgroup == 0) {
    // ---- producer ----
    sm90::setmaxnreg_dec<kProducerRegs>();
    if (warp == 0 && sm90::elect_one_sync()) {
      RingState<kStages> produce;
      for (int it = 0; it < num_iters; ++it) {
        const sched::TileWork work = sched::persistent_work(schedule, blockIdx.x, it, gridDim.x);
        const int m0 = work.tile.m_block * kBM, n0 = work.tile.n_block * kBN;
        for (int kb = 0; kb < num_kb; ++kb) {
          const int s = produce.stage;
          sm90::mbar_wait(&empty[s], produce.empty_parity());
          sm90::mbar_arrive_expect_tx(&full[s], Smem::stage_bytes);
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
    const int consumer = warpgroup - 1;
    const uint32_t smem_base = sm90::smem_u32(smem);
    uint8_t* slots = smem + Smem::d_offset + consumer * 2 * kSlotBytes;
    float acc[kAcc];
    RingState<kStages> consume;
    for (int it = 0; it < num_iters; ++it) {
      const sched::TileWork work = sched::persistent_work(schedule, blockIdx.x, it, gridDim.x);
      const int m0 = work.tile.m_block * kBM, n0 = work.tile.n_block * kBN;
      int held = -1;  // stage whose wgmma may still be running
      sm90::fence_accumulators(acc);
      for (int kb = 0; kb < num_kb; ++kb) {
        const int s = consume.stage;
        sm90::mbar_wait(&full[s], consume.full_parity());
        sm90::wgmma_fence();
        wgmma_k64_n256(acc, smem_base + Smem::a_offset(s) + consumer * 64 * 128, smem_base + Smem::b_offset(s),
                       /*accumulate=*/kb > 0);
        sm90::wgmma_commit();
        sm90::wgmma_wait<1>();  // k-block kb-1 retired; kb may still run
        if (held >= 0 && lane < kClusterSize) sm90::mbar_arrive_cluster(&empty[held], lane);
        held = s;
        consume.advance();
      }
      sm90::wgmma_wait<0>();
      sm90::fence_accumulators(acc);
      if (held >= 0 && lane < kClusterSize) sm90::mbar_arrive_cluster(&empty[held], lane);
      store_tile_tma(acc, &tmap_d, slots, consumer, thread_in_wg, m0, n0);
    }
    if (thread_in_wg == 0) sm90::tma_store_wait_all<0>();  // staging must outlive the last store
  }
  sm90::cluster_sync();
}

std::string check(int m, int n, int k) {
  return require_tile_multiples(m, n, k, kClusterSize * kBM, kBN, kTileK);
}

cudaError_t launch(const Problem& p, cudaStream_t stream) {
  CUtensorMap tmap_a, tmap_b, tmap_d;
  if (cudaError_t e = make_kmajor_operand_map(p.a, p.m, p.k, kBM, &tmap_a); e != cudaSuccess) return e;
  if (cudaError_t e = make_kmajor_operand_map(p.b, p.n, p.k, kBHalfRows, &tmap_b); e != cudaSuccess) return e;
  const sm90::Matrix2d dm{p.d, uint64_t(p.m), uint64_t(p.n), uint64_t(p.n), CU_TENSOR_MAP_DATA_TYPE_BFLOAT16};
  if (const std::string e = sm90::make_2d_tile_map(dm, sm90::Box2d{kBoxCols, kBoxRows}, CU_TENSOR_MAP_SWIZZLE_128B,
                                                   &tmap_d);
      !e.empty()) {
    std::fprintf(stderr, "tilegemm ladder: tensor map: %s\n", e.c_str());
    return cudaErrorInvalidValue;
  }
  if (cudaError_t e = cudaFuncSetAttribute(two_consumer_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           Smem::launch_bytes);
      e != cudaSuccess)
    return e;
  int ctas = 0;
  if (cudaError_t e = persistent_ctas(two_consumer_kernel, kThreads, Smem::launch_bytes, kClusterSize, &ctas);
      e != cudaSuccess)
    return e;
  const int num_tiles = (p.m / kBM) * (p.n / kBN);
  const int grid = num_tiles < ctas ? num_tiles : ctas;
  two_consumer_kernel<<<grid, kThreads, Smem::launch_bytes, stream>>>(tmap_a, tmap_b, tmap_d, p.m, p.n, p.k);
  return cudaGetLastError();
}

}  // namespace

extern const Step kStep09{9, "two-consumers",
                          "128x256 tiles, 2 consumers of 64x256 with wgmma wait<1>, stmatrix + TMA-store epilogue overlapped",
                          check, launch};

}  // namespace tilegemm::ladder
