// The k-split fix-up (Config::stream_k): a tile whose k-blocks several units computed (split-K
// slices, or stream-K ranges: schedule/stream_k.hpp) is summed inside the kernel, with no second
// kernel; only a tile's piece 0 ever waits:
//   every piece but piece 0 (the tile's first k-blocks) writes its fp32 partial to the workspace
//   and counts itself on the tile's counter; piece 0 waits for the count, adds the partials to its
//   accumulators in piece order (((p0 + p1) + p2) + ... : fixed, so the result is the same bits on
//   every run), then runs the Config's epilogue on the sum as on any tile.
// Per consumer warpgroup: each consumer sums its own 64 rows with its own counter, so only its 128
// threads synchronise (named barrier 1 + consumer, as the epilogues).
// Workspace: partial p (KSplit::partial_index) of consumer c is 64 x BN floats at
// workspace + (p · consumers + c) · 64 · BN, stored in the accumulator fragment's own order —
// thread t's float4 j at index j · 128 + t — so that every access is a coalesced 16-B one.
// Counters: one uint32 per (stream-K slot, consumer), 0 between launches (the host zeroes them when
// it allocates them; piece 0 puts its counter back to 0).
// Memory order: writers store and meet at the barrier, then one thread fences (release at GPU
// scope, cumulative over what the barrier ordered before it) and adds to the counter; piece 0's
// thread reads the counter with acquire, meets its warpgroup at the barrier, and every thread
// fences before reading the partials.
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

// acc += partial tile `src` (this thread's BN / 8 float4).
// NOTES: plain loads, not volatile asm, so that the compiler may issue the next piece's loads before
// this piece's adds (volatile asm keeps them in program order). They cannot rise above the fence
// before them (asm volatile with a memory clobber), and no line of a partial can be stale in this
// SM's L1: each partial slot is written once and read once per launch, and a kernel sees what an
// earlier kernel wrote.
template <int BN>
__device__ __forceinline__ void add_partial_fragment(float (&acc)[BN / 2], const float* src, int thread_in_wg) {
  const float4* s4 = reinterpret_cast<const float4*>(src) + thread_in_wg;
#pragma unroll
  for (int j = 0; j < BN / 8; ++j) {
    const float4 v = s4[j * 128];
    acc[4 * j + 0] += v.x;
    acc[4 * j + 1] += v.y;
    acc[4 * j + 2] += v.z;
    acc[4 * j + 3] += v.w;
  }
}

// One consumer's part in the fix-up of unit `u` (u.pieces > 1), after its mainloop. Piece 0 (the
// tile's first k-blocks) sums: it waits until the other pieces have counted themselves, adds their
// partials to its accumulators in piece order and returns true (the caller stores the tile). Any
// other piece writes its partial, counts itself and returns false at once (the caller moves on).
// NOTES: why piece 0, and why it may wait. A piece that writes and leaves never waits for an
// answer, so only the summing piece has latency on its path. With stream-K, piece 0 is the end of
// the range of the worker before, so the other pieces (starts of later ranges) have long been
// counted when it gets there. With split-K the slices end together and piece 0 waits about one
// store-fence-count of the others. No deadlock: every CTA of the persistent grid is resident, a
// piece other than 0 never waits, and a waiting piece 0 waits only on later workers, which are
// either running now or (split-K with more workers than CTAs) come after a unit of their CTA that
// is not waiting (its pieces are consecutive workers, fewer than the CTAs).
// (Before, every piece looked at the counter, wrote, counted and learned whether it was last,
// and the last one summed: measured on the H200 that put ~3.5 us of round trips on each shared
// unit, build 9f6fde9.)
template <int BN>
__device__ __forceinline__ bool fixup_piece(float (&acc)[BN / 2], float* workspace, uint32_t* counters,
                                            const sched::KSplit& split, const UnitWork& u, int consumers,
                                            int consumer, int thread_in_wg) {
  const uint32_t barrier_id = 1 + consumer;
  uint32_t* counter = counters + (u.slot - split.dp_tiles) * consumers + consumer;
  auto piece_tile = [&](int i) {
    return partial_tile<BN>(workspace, split.partial_index(u.first_worker + i, u.slot), consumers, consumer);
  };
  if (u.piece != 0) {
    store_partial_fragment<BN>(piece_tile(u.piece), acc, thread_in_wg);
    named_barrier_sync(barrier_id, 128);  // every thread's partial stores ...
    if (thread_in_wg == 0) {
      fence_acq_rel_gpu();  // ... before the count, at GPU scope (the barrier made them this thread's to release)
      red_add_relaxed_gpu(counter, 1u);
    }
    return false;
  }
  if (thread_in_wg == 0) {
    const uint32_t others = uint32_t(u.pieces - 1);
    while (load_acquire_gpu(counter) != others) sleep_ns(64);
    store_relaxed_gpu(counter, 0u);  // every piece has counted: 0 again for the next launch
  }
  named_barrier_sync(barrier_id, 128);
  fence_acq_rel_gpu();  // the other pieces' partials after their counts
  for (int i = 1; i < u.pieces; ++i) add_partial_fragment<BN>(acc, piece_tile(i), thread_in_wg);
  return true;
}

}  // namespace tilegemm::sm90
