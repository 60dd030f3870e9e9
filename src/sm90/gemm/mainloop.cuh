// The production kernel's mainloop, its two halves:
//   producer_load_unit: one elected producer thread walks the unit's k-blocks around the smem ring,
//     waiting empty[s] and issuing the TMA loads of the A and B tiles into stage s (with 2-CTA
//     clusters: its half of the shared operand, multicast into both CTAs);
//   consumer_mma_unit: each consumer warpgroup waits full[s], issues 4 x wgmma m64nBNk16 over its
//     64 rows, keeps one k-block of wgmma in flight and releases the stage before (in every CTA of
//     the cluster: each CTA's producer refills its half of both CTAs' stages).
// Both walk the same RingState sequence, so stage and phase agree (sm90/pipeline.cuh).
#pragma once

#include "sm90/gemm/params.hpp"
#include "sm90/gemm/scheduler.cuh"
#include "sm90/gemm/traits.cuh"
#include "sm90/pipeline.cuh"
#include "sm90/swizzle.hpp"

namespace tilegemm::sm90 {

// The A/B tiles of k-block kb into stage `stage` of the ring.
// A [M, K] K-major: box 64 k x kALoadRows rows at (kb·64, m0 [+ half]); B likewise at n0.
template <Config C>
__device__ __forceinline__ void producer_load_stage(uint8_t* smem, int stage, uint64_t* full_bar,
                                                    const GemmParams& p, int kb, int m0, int n0, uint32_t rank) {
  using T = GemmTraits<C>;
  constexpr SmemLayout L = T::kLayout;
  mbar_arrive_expect_tx(full_bar, T::kStageTxBytes);  // full boxes, even where TMA zero-fills
  const int k0 = kb * T::kBlockK;
  if constexpr (T::kMulticastA) {
    tma_load_2d_multicast(smem + L.a_offset(stage) + rank * T::kALoadBytes, &p.tmap_a, full_bar, k0,
                          m0 + int(rank) * T::kALoadRows, /*cta_mask=*/0b11);
  } else {
    tma_load_2d(smem + L.a_offset(stage), &p.tmap_a, full_bar, k0, m0);
  }
  if constexpr (T::kMulticastB) {
    tma_load_2d_multicast(smem + L.b_offset(stage) + rank * T::kBLoadBytes, &p.tmap_b, full_bar, k0,
                          n0 + int(rank) * T::kBLoadRows, /*cta_mask=*/0b11);
  } else {
    tma_load_2d(smem + L.b_offset(stage), &p.tmap_b, full_bar, k0, n0);
  }
}

template <Config C>
__device__ __forceinline__ void producer_load_unit(uint8_t* smem, uint64_t* full, uint64_t* empty,
                                                   RingState<C.stages>& ring, const GemmParams& p,
                                                   const UnitWork& unit, uint32_t rank) {
  const int m0 = unit.work.tile.m_block * C.bm, n0 = unit.work.tile.n_block * C.bn;
  for (int kb = unit.kb0; kb < unit.kb1; ++kb) {
    const int s = ring.stage;
    mbar_wait(&empty[s], ring.empty_parity());  // every consumer warp of the cluster released it
    producer_load_stage<C>(smem, s, &full[s], p, kb, m0, n0, rank);
    ring.advance();
  }
}

// One consumer's 64 x BN x 64 block product: 4 x wgmma m64nBNk16 reading 64 A rows at a_addr and
// all BN B rows at b_addr; the descriptors step +32 B along K inside the swizzled line.
template <int BN>
__device__ __forceinline__ void wgmma_block_k64(float (&acc)[BN / 2], uint32_t a_addr, uint32_t b_addr, int accumulate) {
  const uint64_t desc_a = make_kmajor_sw128_desc(a_addr);
  const uint64_t desc_b = make_kmajor_sw128_desc(b_addr);
#pragma unroll
  for (int k = 0; k < kBlockK / 16; ++k)
    wgmma_m64k16<BN>(acc, desc_advance_bytes(desc_a, k * 32), desc_advance_bytes(desc_b, k * 32), (k > 0) | accumulate);
}

// acc = A[rows of this consumer] · B[tile]ᵀ over the unit's k-blocks. Returns with every wgmma
// retired and every stage it read released.
template <Config C>
__device__ __forceinline__ void consumer_mma_unit(float (&acc)[C.bn / 2], uint32_t smem_base, uint64_t* full,
                                                  uint64_t* empty, RingState<C.stages>& ring, const UnitWork& unit,
                                                  int consumer, int lane) {
  using T = GemmTraits<C>;
  constexpr SmemLayout L = T::kLayout;
  int held = -1;  // stage whose wgmma may still be running
  fence_accumulators(acc);
  for (int kb = unit.kb0; kb < unit.kb1; ++kb) {
    const int s = ring.stage;
    mbar_wait(&full[s], ring.full_parity());
    wgmma_fence();
    wgmma_block_k64<C.bn>(acc, smem_base + L.a_offset(s) + consumer * 64 * 128, smem_base + L.b_offset(s),
                          /*accumulate=*/kb > unit.kb0);
    wgmma_commit();
    wgmma_wait<1>();  // k-block kb-1 retired; kb may still run
    if (held >= 0 && lane < T::kClusterSize) release_stage<T::kClusterSize>(&empty[held], lane);
    held = s;
    ring.advance();
  }
  wgmma_wait<0>();
  fence_accumulators(acc);
  if (held >= 0 && lane < T::kClusterSize) release_stage<T::kClusterSize>(&empty[held], lane);
}

}  // namespace tilegemm::sm90
