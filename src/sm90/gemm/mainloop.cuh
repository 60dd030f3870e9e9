// The production kernel's mainloop, its two halves:
//   producer_load_unit: one elected producer thread walks the unit's k-blocks around the smem ring,
//     waiting empty[s] and issuing the TMA loads of the A and B tiles into stage s (with 2-CTA
//     clusters: its half of the shared operand, multicast into both CTAs);
//   consumer_mma_unit: each consumer warpgroup waits full[s], issues 4 x wgmma m64nBNk16 over each
//     64-row block it computes (its own block, or with ping-pong every block of the tile), keeps
//     one k-block of wgmma in flight and releases the stage before (in every CTA of the cluster:
//     each CTA's producer refills its half of both CTAs' stages).
// Both walk the same RingState sequence, so stage and phase agree (sm90/pipeline.cuh).
#pragma once

#include "sm90/gemm/params.hpp"
#include "sm90/gemm/scheduler.cuh"
#include "sm90/gemm/trace_lane.cuh"
#include "sm90/gemm/traits.cuh"
#include "sm90/pipeline.cuh"
#include "sm90/swizzle.hpp"

namespace tilegemm::sm90 {

// `rows` rows (MN) of one operand's k-block k0 into `dst`, starting at row `row0`, into this CTA
// (kMulticast = false) or into both CTAs of the pair (true).
//   K-major (kChunk = 0): one box of 64 K x rows (the tensor map's inner dimension is K);
//   MN-major: rows / kChunk boxes of kChunk MN x 64 K (inner dimension MN), one chunk each
//   (sm90/swizzle.hpp: 64, 32 or 16 elements, the map's swizzle 128, 64 or 32 B).
template <int kChunk, bool kMulticast, int kRows>
__device__ __forceinline__ void load_operand(uint8_t* dst, const TmaDescriptor* tmap, uint64_t* full_bar, int k0,
                                             int row0) {
  if constexpr (kChunk == 0) {
    if constexpr (kMulticast) {
      tma_load_2d_multicast(dst, tmap, full_bar, k0, row0, /*cta_mask=*/0b11);
    } else {
      tma_load_2d(dst, tmap, full_bar, k0, row0);
    }
  } else {
    static_assert(kRows % kChunk == 0, "MN-major tiles are whole chunks");
#pragma unroll
    for (int j = 0; j < kRows / kChunk; ++j) {
      uint8_t* chunk = dst + j * int(mn_chunk_bytes(kChunk));
      if constexpr (kMulticast) {
        tma_load_2d_multicast(chunk, tmap, full_bar, row0 + kChunk * j, k0, /*cta_mask=*/0b11);
      } else {
        tma_load_2d(chunk, tmap, full_bar, row0 + kChunk * j, k0);
      }
    }
  }
}

// The A/B tiles of k-block kb into stage `stage` of the ring: A rows m0.. (with multicast: this
// CTA's half, sent to both), B rows n0.. likewise.
template <Config C>
__device__ __forceinline__ void producer_load_stage(uint8_t* smem, int stage, uint64_t* full_bar,
                                                    const GemmParams& p, int kb, int m0, int n0, uint32_t rank) {
  using T = GemmTraits<C>;
  constexpr SmemLayout L = T::kLayout;
  mbar_arrive_expect_tx(full_bar, T::kStageTxBytes);  // full boxes, even where TMA zero-fills
  const int k0 = kb * T::kBlockK;
  // Only a multicast operand is split between the pair: its half `rank` (the other operand is
  // loaded whole by each CTA, whatever its rank).
  const uint32_t a_half = T::kMulticastA ? rank : 0u, b_half = T::kMulticastB ? rank : 0u;
  load_operand<T::kAChunk, T::kMulticastA, T::kALoadRows>(smem + L.a_offset(stage) + a_half * T::kALoadBytes,
                                                            &p.tmap_a, full_bar, k0, m0 + int(a_half) * T::kALoadRows);
  load_operand<T::kBChunk, T::kMulticastB, T::kBLoadRows>(smem + L.b_offset(stage) + b_half * T::kBLoadBytes,
                                                            &p.tmap_b, full_bar, k0, n0 + int(b_half) * T::kBLoadRows);
}

// Where the epilogue's threads read C from memory themselves (the direct epilogue, the k-split
// kernels' copy-out, or fewer TMA-loaded staging slots than boxes), the consumer prefetches its
// share of the tile's C into L2 once it has issued its first k-block, so that those reads hit L2.
// Not where the staging slots load C by TMA, nor where the copy-out's C boxes come by cp.async,
// issued a few boxes ahead (async_thread_c). A tile shared between units (k-split) is stored by
// its piece 0 after the fix-up, so only piece 0 prefetches.
// NOTES: measured on the H200 (docs/PERF.md, seventeenth and twentieth sessions), the prefetch
// helps where the epilogue reads C (1x24576x1536 4 % slower without it, 1x2112x7168's direct split
// 14.7 -> 14.4 us). It was first issued by the producer's TMA thread, a bulk L2 prefetch
// (cp.async.bulk.prefetch) per line spread over the k-blocks, which delayed the stage loads behind
// it: each cost ~50 ns of mainloop (128x2112x7168 direct 64x32 with C 22.4 us against 17.2 without
// any prefetch, H200). Moved to the consumers' ordinary prefetch instructions, once per unit, and
// dropped for the cp.async copy-out (H100, thirty-eighth session, `bench --beta 1`): 128x2112x7168
// 23.7 -> 20.1 us (18.8 without C), 4001x3999x256 91.0 -> 61.6, 3999x4001x128 84.4 -> 61.0; odd
// suite with C geomean 0.946 of the time, llm suite with C 0.991; the long-K copy-outs lost 1-3 %
// (3001x5003x1027 100.2 -> 102.2, 7001x3001x2999 265.8 -> 272.7), and the consumers' prefetch did not
// win that back (issued at the first k-block or 8 before the last: 3001x5003x1027 103.9).
template <Config C>
inline constexpr bool kPrefetchesC =
    C.with_c && !(C.epilogue == Epilogue::tma_store && !partly_staged(C)) && !async_thread_c(C);

// This consumer's share of the tile's C into L2 (params.hpp, c_share): one prefetch per 128-B block
// that holds a byte of it, the blocks spread over the warpgroup's threads.
template <Config C>
__device__ __forceinline__ void prefetch_c_share(const GemmParams& p, int m_total, int n_total, int r0, int rows,
                                                 int n0, int thread_in_wg) {
  constexpr int kElem = out_elem_bytes(C.out_dtype);
  const CShare sh = c_share(m_total, n_total, r0, rows, n0, C.bn, C.d_col_major, kElem);
  const uint64_t base = reinterpret_cast<uintptr_t>(p.c);
  for (int i = thread_in_wg; i < sh.lines * sh.per_line; i += 128) {
    const uint64_t block = c_share_block(sh, i, base, p.ldc, r0, n0, C.d_col_major, kElem);
    if (block != 0) prefetch_l2_line(reinterpret_cast<const void*>(uintptr_t(block)));
  }
}

// Rows the boxes of a unit's tile start above it, A's and B's (a tile past M or N:
// smem_layout.hpp, edge_shift_rows); the producer loads from there, the consumers read as much
// further into the stage. m_total / n_total: the kernel's M and N (N baked in when fixed_n).
struct EdgeShifts {
  int a = 0, b = 0;
};
template <Config C>
__device__ __forceinline__ EdgeShifts tile_edge_shifts(const UnitWork& unit, int m_total, int n_total) {
  using T = GemmTraits<C>;
  return {edge_shift_rows(unit.work.tile.m_block * C.bm, C.bm, m_total, T::kAShiftCap),
          edge_shift_rows(unit.work.tile.n_block * C.bn, C.bn, n_total, T::kBShiftCap)};
}

template <Config C>
__device__ __forceinline__ void producer_load_unit(uint8_t* smem, uint64_t* full, uint64_t* empty,
                                                   RingState<C.stages>& ring, const GemmParams& p,
                                                   const UnitWork& unit, EdgeShifts shift, uint32_t rank,
                                                   TraceLane<C.trace>& rec) {
  const int m0 = unit.work.tile.m_block * C.bm, n0 = unit.work.tile.n_block * C.bn;
  const int box_m0 = m0 - shift.a, box_n0 = n0 - shift.b;
  for (int kb = unit.kb0; kb < unit.kb1; ++kb) {
    const int s = ring.stage;
    TraceMark t = rec.now();
    mbar_wait(&empty[s], ring.empty_parity());  // every consumer warp of the cluster released it
    rec.record(t, trace::EventKind::wait_empty, s, kb);
    t = rec.now();
    producer_load_stage<C>(smem, s, &full[s], p, kb, box_m0, box_n0, rank);
    rec.record(t, trace::EventKind::tma_issue, s, kb);
    ring.advance();
  }
}

// The descriptor of an operand tile at `addr` and its step per k16: K-major (kChunk = 0), +32 B
// along the swizzled row; MN-major (transposed in wgmma), +16 K rows = 32 x kChunk B
// (sm90/swizzle.hpp).
template <int kChunk>
__device__ __forceinline__ uint64_t operand_desc(uint32_t addr) {
  if constexpr (kChunk != 0) return make_mnmajor_desc(addr, kChunk);
  return make_kmajor_sw128_desc(addr);
}
template <int kChunk>
inline constexpr uint32_t kK16StepBytes = kChunk != 0 ? mn_k16_step_bytes(kChunk) : 32u;

// One consumer's 64 x BN x 64 block product: 4 x wgmma m64nBNk16 reading 64 A rows and all BN B
// rows at the descriptors (operand_desc) given as their 32-bit words. (The 64 A rows of consumer
// c start 8192 B into the stage in both layouts: 64 rows of 128 B, or 64 / W chunks of W x 64.)
// With two accumulator sets (Config::acc_sets) the even k16 steps go to `acc`, the odd ones to
// `acc2`.
// NOTES: each wgmma of one chain waits for the one before it (they add into the same registers);
// two sets make two chains that can overlap. Measured (docs/PERF.md, 2026-12-02 eighth session):
// it pays only on memory-bound narrow tiles (2-6 %), and costs 8-10 % on compute-bound ones with
// one consumer, so the planner picks it by problem (plan/planner.cpp).
template <int BN, int kAChunk, int kBChunk, int kSets>
__device__ __forceinline__ void wgmma_block_k64(float (&acc)[BN / 2], float (&acc2)[BN / 2], uint32_t a_lo,
                                                uint32_t a_hi, uint32_t b_lo, uint32_t b_hi, int accumulate) {
#pragma unroll
  for (int k = 0; k < kBlockK / 16; ++k) {
    // A k16 step adds to the start address field (bits 0-13 of the low word, 16-B units; shared
    // addresses stay below 2^18 B, so it never carries into the leading offset above it).
    const uint32_t da = a_lo + uint32_t(desc_encode(k * kK16StepBytes<kAChunk>));
    const uint32_t db = b_lo + uint32_t(desc_encode(k * kK16StepBytes<kBChunk>));
    constexpr int kTransA = kAChunk != 0 ? 1 : 0, kTransB = kBChunk != 0 ? 1 : 0;
    if (kSets == 2 && (k & 1)) {
      wgmma_m64k16_words<BN, kTransA, kTransB>(acc2, da, a_hi, db, b_hi, (k > 1) | accumulate);
    } else {
      wgmma_m64k16_words<BN, kTransA, kTransB>(acc, da, a_hi, db, b_hi, (k >= kSets) | accumulate);
    }
  }
}

// acc[r] = A[64-row block row_block0 + r of the tile] · B[tile]ᵀ over the unit's k-blocks (one
// block, the consumer's own, when cooperative; all bm / 64 with ping-pong, one commit group per
// k-block either way). `turn_next` (ping-pong): each warp arrives on it once it has passed its
// last full-barrier wait, which lets the other consumer start on its tile (kernel.cuh).
// `at_kblock(kb)` runs once each k-block's wgmma are issued (the C prefetch, kernel.cuh).
// Returns with every wgmma retired and every stage it read released.
template <Config C, class AtKblock>
__device__ __forceinline__ void consumer_mma_unit(float (&acc)[GemmTraits<C>::kRowBlocks][C.bn / 2],
                                                  uint32_t smem_base, uint64_t* full, uint64_t* empty,
                                                  RingState<C.stages>& ring, const UnitWork& unit, int row_block0,
                                                  int lane, TraceLane<C.trace>& rec, EdgeShifts shift,
                                                  uint64_t* turn_next, AtKblock&& at_kblock) {
  using T = GemmTraits<C>;
  constexpr SmemLayout L = T::kLayout;
  constexpr int kSets = C.acc_sets == 2 ? 2 : 1;
  // The second accumulator set, added into acc at the end (with one set it is never touched, and
  // takes no registers).
  float acc2[T::kRowBlocks][C.bn / 2];
  int held = -1;  // stage whose wgmma may still be running
#pragma unroll
  for (int r = 0; r < T::kRowBlocks; ++r) {
    fence_accumulators(acc[r]);
    if constexpr (kSets == 2) fence_accumulators(acc2[r]);
  }
  // Stage 0's descriptors as 32-bit words; each next stage's low words are stepped by a stage
  // stride at the end of the k-block before (see wgmma_block_k64), not rebuilt from its address.
  // NOTES: built from the stage's address after the full-barrier wait, as before, the descriptors
  // cost a chain of 64-bit integer ops and register-to-uniform moves (R2UR) between the wait and
  // the first wgmma. With the warpgroup index and the ring state taken through lane 0 (kernel.cuh,
  // below) the compiler keeps them in uniform registers: from the wait to the first HGMMA a few
  // uniform adds (tests/cpu/jit/test_cubin_audit.cpp checks the whole-tile kernels). Measured on
  // the H200 (docs/PERF.md, twentieth session): bf16 suites 0.1-0.7 % faster (geomean), with C
  // and fp32 out 1.3 %; 128x2112x7168 fp32 64x32 16.9 -> 16.6 us.
  static_assert(L.a_stage_stride % 16 == 0 && L.b_stage_stride % 16 == 0, "16-B aligned stages");
  // (The shifts through a shuffle from lane 0: warp-uniform, so the descriptors stay in uniform
  // registers.)
  const int a_shift = __shfl_sync(0xffffffffu, shift.a, 0);
  const int b_shift = __shfl_sync(0xffffffffu, shift.b, 0);
  const uint64_t desc_b0 = operand_desc<T::kBChunk>(smem_base + L.b_offset(0) + uint32_t(b_shift) * 128u);
  const uint32_t b_hi = uint32_t(desc_b0 >> 32);
  const uint32_t b_lo0 = uint32_t(desc_b0);
  uint32_t a_lo0[T::kRowBlocks], a_hi[T::kRowBlocks];
#pragma unroll
  for (int r = 0; r < T::kRowBlocks; ++r) {
    const uint64_t d =
        operand_desc<T::kAChunk>(smem_base + L.a_offset(0) + ((row_block0 + r) * 64 + a_shift) * 128);
    a_lo0[r] = uint32_t(d);
    a_hi[r] = uint32_t(d >> 32);
  }
  // The ring state and k range through lane 0, so that the compiler may take them (and the
  // descriptors stepped with them) as warp-uniform. (After a k-split fix-up's divergent code it
  // still does not for most stream_k kernels, nor for two ping-pong 128x128 ones: the cubin audit
  // lists their "R2UR in wgmma issue".)
  ring.stage = __shfl_sync(0xffffffffu, ring.stage, 0);
  ring.phase = __shfl_sync(0xffffffffu, ring.phase, 0);
  const int kb0 = __shfl_sync(0xffffffffu, unit.kb0, 0), kb1 = __shfl_sync(0xffffffffu, unit.kb1, 0);
  constexpr uint32_t kAStep = L.a_stage_stride / 16, kBStep = L.b_stage_stride / 16;
  uint32_t a_step = uint32_t(ring.stage) * kAStep, b_lo = b_lo0 + uint32_t(ring.stage) * kBStep;
  for (int kb = kb0; kb < kb1; ++kb) {
    const int s = ring.stage;
    TraceMark t = rec.now();
    mbar_wait(&full[s], ring.full_parity());
    rec.record(t, trace::EventKind::wait_full, s, kb);
    t = rec.now();
    wgmma_fence();
#pragma unroll
    for (int r = 0; r < T::kRowBlocks; ++r)
      wgmma_block_k64<C.bn, T::kAChunk, T::kBChunk, kSets>(acc[r], acc2[r], a_lo0[r] + a_step, a_hi[r], b_lo,
                                                                b_hi, /*accumulate=*/kb > kb0);
    wgmma_commit();
    rec.record(t, trace::EventKind::wgmma_issue, s, kb);
    at_kblock(kb);
    t = rec.now();
    wgmma_wait<1>();  // k-block kb-1 retired; kb may still run
    if (held >= 0) {
      rec.record(t, trace::EventKind::wgmma_wait, held, kb - 1);
      t = rec.now();
      if (lane < T::kClusterSize) release_stage<T::kClusterSize>(&empty[held], lane);
      rec.record(t, trace::EventKind::stage_release, held, kb - 1);
    }
    held = s;
    ring.advance();
    // The next stage's descriptors, stepped (not recomputed from its address after the next wait).
    a_step = ring.stage == 0 ? 0u : a_step + kAStep;
    b_lo = ring.stage == 0 ? b_lo0 : b_lo + kBStep;
  }
  if (turn_next != nullptr && lane == 0) mbar_arrive(turn_next);
  TraceMark t = rec.now();
  wgmma_wait<0>();
#pragma unroll
  for (int r = 0; r < T::kRowBlocks; ++r) {
    fence_accumulators(acc[r]);
    if constexpr (kSets == 2) {
      fence_accumulators(acc2[r]);
#pragma unroll
      for (int i = 0; i < C.bn / 2; ++i) acc[r][i] += acc2[r][i];  // one order: the same bits every run
    }
  }
  if (held >= 0) {
    rec.record(t, trace::EventKind::wgmma_wait, held, unit.kb1 - 1);
    t = rec.now();
    if (lane < T::kClusterSize) release_stage<T::kClusterSize>(&empty[held], lane);
    rec.record(t, trace::EventKind::stage_release, held, unit.kb1 - 1);
  }
}

}  // namespace tilegemm::sm90
