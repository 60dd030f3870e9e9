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
// thread reads the counter with acquire and meets its warpgroup at the barrier before any thread
// reads the partials (release -> acquire -> barrier: the PTX memory model's causality order is
// transitive through the barrier's synchronisation, PTX ISA "Memory Consistency Model").
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

// How many 16-B partial loads one consumer thread keeps in flight while it sums: what the
// registers hold beside the BN / 2 accumulators and ~40 of everything else, within [4, 32]. The
// register budget per thread is what ptxas gives the whole kernel: 65536 / threads rounded down to
// 8 (168 with two consumers), at most 255.
template <int BN, int kThreads>
inline constexpr int kFixupLoadsInFlight = [] {
  const int budget = 65536 / kThreads / 8 * 8 < 255 ? 65536 / kThreads / 8 * 8 : 255;
  const int n = (budget - BN / 2 - 40) / 4;
  return n < 4 ? 4 : n > 32 ? 32 : n;
}();

// acc += the partial tiles of pieces 1 .. pieces - 1 (tile_of(i): piece i's partial), in piece order
// for every element (((acc + p1) + p2) + ...), so the sum is the same bits whatever order the loads
// land in.
// NOTES: the loads of several partials go out together. Added one partial at a time (a loop over a
// run-time piece count, each trip's loads waiting on the previous trip's), every partial cost a
// full round trip to L2: measured on the H200, leaving the adds out took 2.7 us off 1x576x7168
// (64x16 swap-AB, split 8: 10.6 -> 7.8 us), 2.7 off 128x576x7168 (64x64, split 7) and 2.2 off
// 128x4096x7168 (128x128, split 4). Plain loads (not volatile asm), so the compiler may schedule
// them freely; they cannot rise above the barrier before them (a memory clobber), and no line of a
// partial can be stale in this SM's L1: each partial slot is written once and read once per
// launch, and a kernel sees what an earlier kernel wrote.
template <int BN, int kThreads, class TileOf>
__device__ __forceinline__ void add_partials(float (&acc)[BN / 2], int pieces, const TileOf& tile_of,
                                             int thread_in_wg) {
  constexpr int kF4 = BN / 8;  // float4 of one partial per thread
  constexpr int kInFlight = kFixupLoadsInFlight<BN, kThreads>;
  constexpr int kJ = kF4 < kInFlight ? kF4 : kInFlight;  // float4 of one partial per batch
  constexpr int kG = kInFlight / kJ;                     // partials per batch
#pragma unroll
  for (int j0 = 0; j0 < kF4; j0 += kJ) {
    for (int i0 = 1; i0 < pieces; i0 += kG) {
      float4 v[kG][kJ];
#pragma unroll
      for (int g = 0; g < kG; ++g) {
        if (i0 + g < pieces) {
          const float4* s4 = reinterpret_cast<const float4*>(tile_of(i0 + g)) + thread_in_wg;
#pragma unroll
          for (int j = 0; j < kJ; ++j)
            if (j0 + j < kF4) v[g][j] = s4[(j0 + j) * 128];
        }
      }
#pragma unroll
      for (int g = 0; g < kG; ++g) {
        if (i0 + g < pieces) {
#pragma unroll
          for (int j = 0; j < kJ; ++j) {
            if (j0 + j < kF4) {
              acc[4 * (j0 + j) + 0] += v[g][j].x;
              acc[4 * (j0 + j) + 1] += v[g][j].y;
              acc[4 * (j0 + j) + 2] += v[g][j].z;
              acc[4 * (j0 + j) + 3] += v[g][j].w;
            }
          }
        }
      }
    }
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
// is not waiting (its pieces are consecutive workers, fewer than the CTAs; stream-K over runs:
// every E-th worker, E = KSplit::group, the workers no more than the CTAs).
// (Before, every piece looked at the counter, wrote, counted and learned whether it was last,
// and the last one summed: measured on the H200 that put ~3.5 us of round trips on each shared
// unit, build 9f6fde9.)
template <int BN, int kThreads>
__device__ __forceinline__ bool fixup_piece(float (&acc)[BN / 2], float* workspace, uint32_t* counters,
                                            const sched::KSplit& split, const UnitWork& u, int consumers,
                                            int consumer, int thread_in_wg) {
  const uint32_t barrier_id = 1 + consumer;
  uint32_t* counter = counters + (u.slot - split.dp_tiles) * consumers + consumer;
  auto piece_tile = [&](int i) {
    return partial_tile<BN>(workspace, split.partial_index(split.piece_worker(u.first_worker, i)), consumers, consumer);
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
  // Thread 0's acquire, then the barrier: every thread's loads below come after the other pieces'
  // stores (the barrier orders them after thread 0's acquire; no fence of its own needed, 0.3 us).
  named_barrier_sync(barrier_id, 128);
  add_partials<BN, kThreads>(acc, u.pieces, piece_tile, thread_in_wg);
  return true;
}

// ---- the k-split cluster (Config::cluster_k) ----------------------------------------------------
// Split-K whose S slices of a tile are the S CTAs of one cluster (slice = cluster rank; the host
// launches exactly one unit per CTA: grid = tiles x S, cluster (S, 1, 1)). Slice s > 0 sends its
// fp32 partial into slice 0's receive area with st.async, 16 B at a time, each store counting its
// bytes on slice 0's receive barrier of that consumer; slice 0 arms the barrier with the bytes of
// all S - 1 partials, waits for the phase, and adds them in slice order from its own shared memory
// (((p0 + p1) + p2) + ... : the same order, so the same bits, as the workspace fix-up above).
// Nothing goes through global memory and no slice waits for an answer: the fix-up costs one
// one-way SM-to-SM transfer instead of a store, a GPU-scope fence, a count, a poll and an L2 round
// trip. A slice's CTA may not exit while its stores are in flight or while slice 0 reads: the
// kernel ends with a cluster barrier (kernel.cuh), which slice 0 reaches only after its sum.
// Receive area: partial of slice s (1 .. S-1) of consumer c at ((s - 1) · consumers + c) · 64 · BN
// floats, thread t's float4 j at index j · 128 + t (the accumulator fragment's order, as above).
template <int BN>
__device__ __forceinline__ float* recv_partial(uint8_t* recv_area, int slice, int consumers, int consumer) {
  return reinterpret_cast<float*>(recv_area) + (int64_t(slice - 1) * consumers + consumer) * 64 * BN;
}

// One consumer's part in the cluster fix-up of unit `u` (u.pieces = S slices, u.piece = this CTA's
// cluster rank). Returns true on slice 0 (the caller stores the summed tile), false elsewhere.
template <int BN>
__device__ __forceinline__ bool cluster_fixup_piece(float (&acc)[BN / 2], uint8_t* recv_area, uint64_t* recv_bar,
                                                    const UnitWork& u, int consumers, int consumer, int thread_in_wg) {
  if (u.piece != 0) {
    float* dst = recv_partial<BN>(recv_area, u.piece, consumers, consumer);  // slice 0's, same offset
#pragma unroll
    for (int j = 0; j < BN / 8; ++j)
      st_async_v4(dst + (j * 128 + thread_in_wg) * 4, recv_bar, 0u, acc[4 * j], acc[4 * j + 1], acc[4 * j + 2],
                  acc[4 * j + 3]);
    return false;
  }
  // One unit per CTA, so the barrier's first phase; its one arrival is this, with the bytes to
  // expect (st.async bytes that land first count down from zero: the phase cannot complete before
  // the arrival, PTX ISA "mbarrier" tx-count).
  if (thread_in_wg == 0) mbar_arrive_expect_tx(recv_bar, uint32_t(u.pieces - 1) * uint32_t(64 * BN * 4));
  mbar_wait<true>(recv_bar, 0u);  // acquire at cluster scope: the other slices' bytes
  for (int i = 1; i < u.pieces; ++i) {
    const float4* src = reinterpret_cast<const float4*>(recv_partial<BN>(recv_area, i, consumers, consumer)) + thread_in_wg;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      const float4 v = src[j * 128];
      acc[4 * j + 0] += v.x;
      acc[4 * j + 1] += v.y;
      acc[4 * j + 2] += v.z;
      acc[4 * j + 3] += v.w;
    }
  }
  return true;
}

}  // namespace tilegemm::sm90
