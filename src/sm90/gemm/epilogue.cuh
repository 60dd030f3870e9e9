// The production kernel's epilogues: one consumer's 64 x BN fp32 accumulators -> global memory.
// Which one a kernel uses is its Config's `epilogue` (config.hpp):
//   store_tile         (tma_store)       alpha·acc -> bf16 -> stmatrix into 128B-swizzled 64 x 64
//                                        boxes -> fence.proxy.async -> TMA store, drained while the
//                                        next tile's mainloop runs;
//   store_tile_direct  (direct)          alpha·acc -> bf16 -> bounds-checked stores from registers;
//   store_partial      (splitk_partials) fp32 acc -> the split-K workspace (reduced later).
// Accumulator fragment of wgmma m64nNk16 (PTX ISA §9.7.15.5.1.1.1, sm90/swizzle.hpp
// acc_fragment_coord): thread t holds rows 16·(t/32) + (t%32)/4 (+8) and columns 8j + 2·(t%4) (+1).
#pragma once

#include "sm90/ptx.cuh"
#include "sm90/swizzle.hpp"
#include "sm90/gemm/trace_lane.cuh"
#include "sm90/gemm/traits.cuh"

namespace tilegemm::sm90 {

// alpha · acc[8q .. 8q+7] (16-column block q of the fragment) -> bf16 -> one stmatrix x4 at this
// lane's row address.
template <int BN>
__device__ __forceinline__ void stmatrix_block(uint8_t* row_addr, const float (&acc)[BN / 2], float alpha, int q) {
  stmatrix_x4(row_addr, pack_bf16x2(alpha * acc[8 * q + 0], alpha * acc[8 * q + 1]),
              pack_bf16x2(alpha * acc[8 * q + 2], alpha * acc[8 * q + 3]),
              pack_bf16x2(alpha * acc[8 * q + 4], alpha * acc[8 * q + 5]),
              pack_bf16x2(alpha * acc[8 * q + 6], alpha * acc[8 * q + 7]));
}

// Where one consumer's tile lands: rows [row0, row0 + 64) x columns [n0, n0 + BN) of D [M, N]
// (row-major bf16, stride ldd elements).
struct TileOut {
  int m_total, n_total;  // M, N
  int row0, n0;
  uint16_t* d;  // bf16 bits
  int64_t ldd;
};

// The < 8 tail columns [n_tma, N) of one staged box (tile columns [64·box, 64·box + 64)), written
// with plain stores by threads 0..63 (one row each). Call between the "box written" barrier and
// the next barrier that lets the slot be overwritten.
__device__ __forceinline__ void store_tail_columns(const uint8_t* box_smem, int box, int thread_in_wg, int n_tma,
                                                   const TileOut& o) {
  if (thread_in_wg < kStoreBoxRows) {
    const int row = thread_in_wg, m = o.row0 + row;
    if (m < o.m_total)
      for (int c = n_tma; c < o.n_total; ++c)
        o.d[int64_t(m) * o.ldd + c] =
            *reinterpret_cast<const uint16_t*>(box_smem + kmajor_sw128_offset(row, c - o.n0 - box * kStoreBoxCols));
  }
}

// One consumer's accumulators -> alpha · acc in bf16 -> its staging boxes -> TMA stores.
// Box j of consumer c holds tile rows [64c, 64c + 64) x cols [64j, 64j + 64), 128B-swizzled; with
// kSlots < BN / 64 staging slots box j goes to slot j % kSlots, one bulk group per box, and before
// refilling a slot the issuing thread waits (wait_group.read kSlots - 1) for the store that last
// read it: every box commits one group, so that store is exactly kSlots groups back.
// NOTES: the TMA store clips at the tensor end only in whole 16-B chunks (measured on the H200:
// with N = 257 it wrote columns 257..263 into the ldd - N gap). So D's tensor map covers the first
// n_tma = N rounded down to 8 columns, and the last N - n_tma (< 8) columns of each row are written
// from the staging box with plain stores.
template <int BN, int kSlots, class Trace>
__device__ __forceinline__ void store_tile(const float (&acc)[BN / 2], float alpha, const void* tmap_d,
                                           uint8_t* slots, int consumer, int thread_in_wg, const TileOut& o,
                                           Trace& rec) {
  using trace::EventKind;
  constexpr int kBoxes = BN / kStoreBoxCols;
  static_assert(kSlots >= 1 && kSlots <= kBoxes && kBoxes % kSlots == 0);
  const int n_tma = o.n_total & ~7;
  const int warp = thread_in_wg / 32, lane = thread_in_wg % 32;
  // stmatrix x4: lanes 8i..8i+7 give the rows of matrix i; matrices 0/1 are rows 0-7 / 8-15 of the
  // warp's 16 rows at columns +0..7, matrices 2/3 the same rows at columns +8..15.
  const int row = 16 * warp + (lane & 7) + 8 * ((lane >> 3) & 1);
  const int col = 8 * (lane >> 4);
  // The < 8 tail columns [n_tma, N) all lie in one box (n_tma is a multiple of 8, boxes of 64).
  const bool has_tail = n_tma < o.n_total && n_tma >= o.n0 && n_tma < o.n0 + BN;
  const int tail_box = has_tail ? (n_tma - o.n0) / kStoreBoxCols : -1;
  const uint32_t barrier_id = 1 + consumer;  // one named barrier per consumer warpgroup
  if constexpr (kSlots == kBoxes) {
    // ---- full tile: stage every box, then store them all ----
    TraceMark t = rec.now();
    if (thread_in_wg == 0) tma_store_wait_read<0>();  // the previous tile's stores have read the boxes
    named_barrier_sync(barrier_id, 128);
    rec.record(t, EventKind::tma_store_wait, 0, -1);
    t = rec.now();
#pragma unroll
    for (int box = 0; box < kBoxes; ++box) {
      uint8_t* dst = slots + box * kStoreBoxBytes;
#pragma unroll
      for (int p = 0; p < kStoreBoxCols / 16; ++p)
        stmatrix_block<BN>(dst + kmajor_sw128_offset(row, 16 * p + col), acc, alpha, (box * kStoreBoxCols) / 16 + p);
    }
    fence_proxy_async_smem();             // my stmatrix writes before the async-proxy (TMA) read
    named_barrier_sync(barrier_id, 128);  // all boxes written
    rec.record(t, EventKind::stmatrix, 0, -1);
    t = rec.now();
    if (thread_in_wg == 0) {
      if (o.row0 < o.m_total) {  // NOTES: a box wholly past M or N has nothing to write: skip it
#pragma unroll
        for (int box = 0; box < kBoxes; ++box)
          if (o.n0 + box * kStoreBoxCols < n_tma)
            tma_store_2d(tmap_d, slots + box * kStoreBoxBytes, o.n0 + box * kStoreBoxCols, o.row0);
      }
      tma_store_commit();
    }
    rec.record(t, EventKind::tma_store_issue, 0, -1);
    if (has_tail) store_tail_columns(slots + tail_box * kStoreBoxBytes, tail_box, thread_in_wg, n_tma, o);
  } else {
    // ---- in parts: box b through slot b % kSlots, one bulk group per box ----
#pragma unroll
    for (int box = 0; box < kBoxes; ++box) {
      uint8_t* slot = slots + (box % kSlots) * kStoreBoxBytes;
      TraceMark t = rec.now();
      if (thread_in_wg == 0) tma_store_wait_read<kSlots - 1>();
      named_barrier_sync(barrier_id, 128);  // ... and only then may anyone overwrite it
      rec.record(t, EventKind::tma_store_wait, box, -1);
      t = rec.now();
#pragma unroll
      for (int p = 0; p < kStoreBoxCols / 16; ++p)
        stmatrix_block<BN>(slot + kmajor_sw128_offset(row, 16 * p + col), acc, alpha, (box * kStoreBoxCols) / 16 + p);
      fence_proxy_async_smem();
      named_barrier_sync(barrier_id, 128);  // the whole box is written
      rec.record(t, EventKind::stmatrix, box, -1);
      t = rec.now();
      if (thread_in_wg == 0) {
        // NOTES: a box wholly past M or N has nothing to write: skip the store, but still commit
        // (an empty group), so that the group count per box stays one.
        if (o.row0 < o.m_total && o.n0 + box * kStoreBoxCols < n_tma)
          tma_store_2d(tmap_d, slot, o.n0 + box * kStoreBoxCols, o.row0);
        tma_store_commit();
      }
      rec.record(t, EventKind::tma_store_issue, box, -1);
      if (box == tail_box) store_tail_columns(slot, box, thread_in_wg, n_tma, o);
    }
  }
}

// Direct epilogue: alpha · acc -> bf16 -> plain stores from the fragment. Bounds-checked per
// element pair: nothing at rows >= M or columns >= N is written (the ldd gap is kept). Column pairs
// start even, d is 16-B aligned and ldd a multiple of 8: a pair is one aligned 4-B store.
template <int BN>
__device__ __forceinline__ void store_tile_direct(const float (&acc)[BN / 2], float alpha, int thread_in_wg,
                                                  const TileOut& o) {
  const int warp = thread_in_wg / 32, lane = thread_in_wg % 32;
  const int r = o.row0 + 16 * warp + lane / 4;
  const int c = o.n0 + 2 * (lane % 4);
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int row = r + 8 * i;
    if (row < o.m_total) {
      uint16_t* dst = o.d + int64_t(row) * o.ldd;
#pragma unroll
      for (int j = 0; j < BN / 8; ++j) {
        const int col = c + 8 * j;
        const float v0 = alpha * acc[4 * j + 2 * i], v1 = alpha * acc[4 * j + 2 * i + 1];
        if (col + 1 < o.n_total)
          *reinterpret_cast<uint32_t*>(dst + col) = pack_bf16x2(v0, v1);
        else if (col < o.n_total)
          dst[col] = to_bf16_bits(v0);
      }
    }
  }
}

// Split-K epilogue: one consumer's fp32 accumulators (rows [row0, row0 + 64) of the tile at column
// n0) -> the workspace rows < M, as float2 (the two adjacent columns a thread holds). Columns need
// no check: the workspace rows are n_pad = whole tiles long.
template <int BN>
__device__ __forceinline__ void store_partial(const float (&acc)[BN / 2], float* ws_split, int n_pad, int m_total,
                                              int row0, int n0, int thread_in_wg) {
  const int warp = thread_in_wg / 32, lane = thread_in_wg % 32;
  const int r = row0 + 16 * warp + lane / 4;
  const int c = n0 + 2 * (lane % 4);
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int row = r + 8 * i;
    if (row < m_total) {
      float* dst = ws_split + int64_t(row) * n_pad + c;
#pragma unroll
      for (int j = 0; j < BN / 8; ++j)
        *reinterpret_cast<float2*>(dst + 8 * j) = make_float2(acc[4 * j + 2 * i], acc[4 * j + 2 * i + 1]);
    }
  }
}

}  // namespace tilegemm::sm90
