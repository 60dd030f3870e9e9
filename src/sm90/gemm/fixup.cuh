// The k-split fix-up (Config::stream_k): a tile whose k-blocks several units computed (split-K
// slices, or stream-K ranges: schedule/stream_k.hpp) is summed inside the kernel, with no second
// kernel and no unit waiting for another:
//   every piece but the last to arrive writes its fp32 partial to the workspace and counts itself
//   on the tile's counter; the piece that finds all the others counted reads their partials and
//   sums them with its own in piece order (((p0 + p1) + p2) + ... : fixed, so the result is the
//   same bits whichever piece arrives last), then runs the Config's epilogue on the sum as on any
//   tile.
// Per consumer warpgroup: each consumer sums its own 64 rows with its own counter, so only its 128
// threads synchronise (named barrier 1 + consumer, as the epilogues).
// Workspace: partial p (KSplit::partial_index) of consumer c is 64 x BN floats at
// workspace + (p · consumers + c) · 64 · BN, stored in the accumulator fragment's own order —
// thread t's float4 j at index j · 128 + t — so that every access is a coalesced 16-B one.
// Counters: one uint32 per (stream-K slot, consumer), 0 between launches (the host zeroes them when
// it allocates them; the summing piece puts its counter back to 0).
// Memory order: writers store and meet at the barrier, then one thread fences (release at GPU
// scope, cumulative over what the barrier ordered before it) and adds to the counter (acq_rel); the
// summing piece's thread reads the counter with acquire, meets its warpgroup at the barrier, and
// every thread fences before reading the partials.
#pragma once

#include "schedule/stream_k.hpp"
#include "sm90/gemm/scheduler.cuh"
#include "sm90/ptx.cuh"

namespace tilegemm::sm90 {

template <int BN>
__device__ __forceinline__ float* partial_tile(float* workspace, int index, int consumers, int consumer) {
  return workspace + (int64_t(index) * consumers + consumer) * 64 * BN;
}

// This thread's accumulators -> its part of partial tile `dst` (BN / 8 coalesced 16-B stores).
template <int BN>
__device__ __forceinline__ void store_partial_fragment(float* dst, const float (&acc)[BN / 2], int thread_in_wg) {
#pragma unroll
  for (int j = 0; j < BN / 8; ++j)
    store_global_cg_f4(dst + (j * 128 + thread_in_wg) * 4, acc[4 * j], acc[4 * j + 1], acc[4 * j + 2], acc[4 * j + 3]);
}

// acc (+)= partial tile `src` (this thread's BN / 8 float4).
// NOTES: plain loads, not volatile asm: the compiler may then issue the next piece's loads before
// this piece's adds (volatile loads went out one piece at a time: a round trip to L2 per piece,
// measured on the H200 as ~1.7 us more for 1x576x7168 split 8 than the old separate reduce).
// They cannot rise above the fence before them (asm volatile with a memory clobber), and no line
// of a partial can be stale in this SM's L1: every partial slot is written once and read once per
// launch, and L1 starts each kernel clean.
template <int BN, bool kAdd>
__device__ __forceinline__ void add_partial_fragment(float (&acc)[BN / 2], const float* src, int thread_in_wg) {
  const float4* s4 = reinterpret_cast<const float4*>(src) + thread_in_wg;
#pragma unroll
  for (int j = 0; j < BN / 8; ++j) {
    const float4 v = s4[j * 128];
    acc[4 * j + 0] = kAdd ? acc[4 * j + 0] + v.x : v.x;
    acc[4 * j + 1] = kAdd ? acc[4 * j + 1] + v.y : v.y;
    acc[4 * j + 2] = kAdd ? acc[4 * j + 2] + v.z : v.z;
    acc[4 * j + 3] = kAdd ? acc[4 * j + 3] + v.w : v.w;
  }
}

// acc = ((p_0 + p_1) + p_2) + ... + p_{pieces-1}, where acc holds this unit's own piece and the
// others are in the workspace. Piece 0 (the usual last arrival with stream-K: its tile ends the
// range of the worker before) adds the others to itself in place; any other piece has its own
// partial in the workspace (`own_written`, or written here: each thread reads back only the
// addresses it wrote) and starts the sum from p_0. No registers beyond the accumulators.
template <int BN>
__device__ __forceinline__ void sum_pieces(float (&acc)[BN / 2], float* workspace, const sched::KSplit& split,
                                           const UnitWork& u, bool own_written, int consumers, int consumer,
                                           int thread_in_wg) {
  auto piece_tile = [&](int i) {
    return partial_tile<BN>(workspace, split.partial_index(u.first_worker + i, u.slot), consumers, consumer);
  };
  if (u.piece != 0) {
    if (!own_written) store_partial_fragment<BN>(piece_tile(u.piece), acc, thread_in_wg);
    add_partial_fragment<BN, false>(acc, piece_tile(0), thread_in_wg);
  }
  for (int i = 1; i < u.pieces; ++i) add_partial_fragment<BN, true>(acc, piece_tile(i), thread_in_wg);
}

// One consumer's part in the fix-up of unit `u` (u.pieces > 1), after its mainloop. Returns true
// when this piece arrived last: acc then holds the tile's whole sum and the caller stores it;
// false: the partial is written and counted, and the caller moves on.
template <int BN>
__device__ __forceinline__ bool fixup_piece(float (&acc)[BN / 2], float* workspace, uint32_t* counters,
                                            const sched::KSplit& split, const UnitWork& u, int consumers,
                                            int consumer, int thread_in_wg) {
  const uint32_t barrier_id = 1 + consumer;
  uint32_t* counter = counters + (u.slot - split.dp_tiles) * consumers + consumer;
  const uint32_t others = uint32_t(u.pieces - 1);
  // NOTES: look before writing: when every other piece is already counted this one sums at once,
  // and its partial (which no one would read) is never written.
  bool last = named_barrier_any(barrier_id, 128, thread_in_wg == 0 && load_acquire_gpu(counter) == others);
  const bool own_written = !last;
  if (!last) {
    store_partial_fragment<BN>(partial_tile<BN>(workspace, split.partial_index(u.first_worker + u.piece, u.slot),
                                                consumers, consumer),
                               acc, thread_in_wg);
    named_barrier_sync(barrier_id, 128);  // every thread's partial stores ...
    bool counted_last = false;
    if (thread_in_wg == 0) {
      fence_acq_rel_gpu();  // ... before the count, at GPU scope (the barrier made them this thread's to release)
      counted_last = atomic_add_acq_rel_gpu(counter, 1u) == others;
    }
    last = named_barrier_any(barrier_id, 128, counted_last);
    if (!last) return false;
  }
  fence_acq_rel_gpu();  // the other pieces' partials after their counts
  sum_pieces<BN>(acc, workspace, split, u, own_written, consumers, consumer, thread_in_wg);
  if (thread_in_wg == 0) store_relaxed_gpu(counter, 0u);  // every piece has arrived: ready for the next launch
  return true;
}

}  // namespace tilegemm::sm90
