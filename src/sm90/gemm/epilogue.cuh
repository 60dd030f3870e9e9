// The production kernel's epilogues: one consumer's 64 x BN fp32 accumulators -> global memory.
// Which one a kernel uses is its Config's `epilogue` (config.hpp):
//   store_tile         (tma_store)       alpha·acc -> bf16 -> stmatrix into 128B-swizzled 64 x 64
//                                        boxes -> fence.proxy.async -> TMA store, drained while the
//                                        next tile's mainloop runs;
//   store_tile_direct  (direct)          alpha·acc (+ beta·C) -> bf16 or fp32 -> bounds-checked
//                                        stores from registers (epilogue_direct.cuh).
// A tile shared between k-split units reaches these only as its sum (fixup.cuh).
// Accumulator fragment of wgmma m64nNk16 (PTX ISA §9.7.15.5.1.1.1, sm90/swizzle.hpp
// acc_fragment_coord): thread t holds rows 16·(t/32) + (t%32)/4 (+8) and columns 8j + 2·(t%4) (+1).
#pragma once

#include "sm90/ptx.cuh"
#include "sm90/swizzle.hpp"
#include "sm90/gemm/trace_lane.cuh"
#include "sm90/gemm/traits.cuh"
#include "sm90/gemm/epilogue_direct.cuh"

namespace tilegemm::sm90 {

inline constexpr int kBfBoxCols = store_box_cols(DType::bf16);  // 64: store_tile's boxes

// alpha · acc[8q .. 8q+7] (16-column block q of the fragment) -> bf16 -> one stmatrix x4 at this
// lane's row address.
// kTrans: the same four matrices stored transposed (stmatrix .trans), for swap-AB's staging.
template <int BN, bool kTrans = false>
__device__ __forceinline__ void stmatrix_block(uint8_t* row_addr, const float (&acc)[BN / 2], float alpha, int q) {
  const uint32_t r0 = pack_bf16x2(alpha * acc[8 * q + 0], alpha * acc[8 * q + 1]);
  const uint32_t r1 = pack_bf16x2(alpha * acc[8 * q + 2], alpha * acc[8 * q + 3]);
  const uint32_t r2 = pack_bf16x2(alpha * acc[8 * q + 4], alpha * acc[8 * q + 5]);
  const uint32_t r3 = pack_bf16x2(alpha * acc[8 * q + 6], alpha * acc[8 * q + 7]);
  stmatrix_x4<kTrans>(row_addr, r0, r1, r2, r3);
}

// The staging-box position (row, element column) of this lane's stmatrix row address for the
// fragment's 16-column block p of a box (store_tile). Plain: box rows are the tile's rows 16w ..
// 16w + 15, matrices 0/1 rows +0..7 / +8..15 at columns +0..7, matrices 2/3 the same at +8..15.
// Transposed (swap-AB: the kernel's tile is Dᵀ, the box holds D's rows): each matrix lands
// transposed, so box rows are the fragment's columns 16p .. 16p + 15 (matrices 0/1 at +0..7, 2/3
// at +8..15) and box columns its rows 16w + 0..7 (matrices 0/2) and + 8..15 (1/3).
template <bool kTrans>
__device__ __forceinline__ uint32_t stmatrix_box_offset(int warp, int lane, int p) {
  if constexpr (kTrans)
    return kmajor_sw128_offset(uint32_t(16 * p + (lane & 7) + 8 * (lane >> 4)), uint32_t(16 * warp + 8 * ((lane >> 3) & 1)));
  return kmajor_sw128_offset(uint32_t(16 * warp + (lane & 7) + 8 * ((lane >> 3) & 1)), uint32_t(16 * p + 8 * (lane >> 4)));
}

// One staged box to D at the kernel's tile column `col` and row `row0` (TMA store): D's tensor
// map takes (column, row), or with kTrans (swap-AB's transposed boxes, D's rows being the kernel's
// columns) (row, column).
template <bool kTrans>
__device__ __forceinline__ void store_box(const void* tmap_d, uint8_t* box_smem, int col, int row0) {
  if constexpr (kTrans) {
    tma_store_2d(tmap_d, box_smem, row0, col);
  } else {
    tma_store_2d(tmap_d, box_smem, col, row0);
  }
}

// The tail columns [n_tma, N) (< 8 bf16 or < 4 fp32: less than one 16-B chunk) of one staged
// box (tile columns [col0, col0 + 128 B)), written with plain stores by threads
// 0..63 (one row each). Call between the "box written" barrier and the next barrier that lets the
// slot be overwritten.
template <int kElem = 2>
__device__ __forceinline__ void store_tail_columns(const uint8_t* box_smem, int col0, int thread_in_wg, int n_tma,
                                                   const TileOut& o) {
  if (thread_in_wg < kStoreBoxRows) {
    const int row = thread_in_wg, m = o.row0 + row;
    if (m < o.m_total)
      for (int c = n_tma; c < o.n_total; ++c) {
        const uint8_t* src = box_smem + swizzle_128b(uint32_t(row * 128 + (c - o.n0 - col0) * kElem));
        uint8_t* dst = static_cast<uint8_t*>(o.d) + (int64_t(m) * o.ldd + c) * kElem;
        if constexpr (kElem == 4) {
          *reinterpret_cast<float*>(dst) = *reinterpret_cast<const float*>(src);
        } else {
          *reinterpret_cast<uint16_t*>(dst) = *reinterpret_cast<const uint16_t*>(src);
        }
      }
  }
}

// One consumer's accumulators -> alpha · acc in bf16 -> its staging boxes -> TMA stores.
// Box j of consumer c holds tile rows [64c, 64c + 64) x cols [64j, 64j + 64), 128B-swizzled (the
// last one, when 64 does not divide BN, cols [BN - 64, BN): store_box_col0); with
// kSlots < store_boxes staging slots box j goes to slot j % kSlots, one bulk group per box, and before
// refilling a slot the issuing thread waits (wait_group.read kSlots - 1) for the store that last
// read it: every box commits one group, so that store is exactly kSlots groups back.
// NOTES: the TMA store clips at the tensor end only in whole 16-B chunks (measured on the H200:
// with N = 257 it wrote columns 257..263 into the ldd - N gap). So D's tensor map covers the first
// n_tma = N rounded down to 8 columns, and the last N - n_tma (< 8) columns of each row are written
// from the staging box with plain stores.
// kTrans (swap-AB, a column-major D for the kernel): box j holds the transpose of the plain box,
// D's rows [n0 + col0, + 64) x D's columns [row0, row0 + 64), and is stored at those coordinates
// of D's tensor map (inner dimension the kernel's M). The planner takes this only where the
// kernel's M is a whole number of 16-B chunks (plan/planner.cpp), so no column tail exists: a
// box's rows past the kernel's N are clipped by TMA per row, its columns past M never exist.
template <int BN, int kSlots, bool kTrans = false, class Trace>
__device__ __forceinline__ void store_tile(const float (&acc)[BN / 2], float alpha, const void* tmap_d,
                                           uint8_t* slots, int consumer, int thread_in_wg, const TileOut& o,
                                           Trace& rec) {
  using trace::EventKind;
  constexpr int kBoxes = store_boxes(BN, DType::bf16);
  static_assert(kSlots >= 1 && kSlots <= kBoxes && kBoxes % kSlots == 0);
  const int n_tma = kTrans ? o.n_total : o.n_total & ~7;
  const int warp = thread_in_wg / 32, lane = thread_in_wg % 32;
  // The < 8 tail columns [n_tma, N) all lie in one box (n_tma is a multiple of 8, boxes of 64
  // from a multiple of 8); where the last box overlaps its neighbour, the neighbour writes them.
  const bool has_tail = !kTrans && n_tma < o.n_total && n_tma >= o.n0 && n_tma < o.n0 + BN;
  const int tail_box = has_tail ? min((n_tma - o.n0) / kBfBoxCols, kBoxes - 1) : -1;
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
      const int q0 = store_box_col0(box, BN, kBfBoxCols) / 16;  // a constant once unrolled
#pragma unroll
      for (int p = 0; p < kBfBoxCols / 16; ++p)
        stmatrix_block<BN, kTrans>(dst + stmatrix_box_offset<kTrans>(warp, lane, p), acc, alpha, q0 + p);
    }
    fence_proxy_async_smem();             // my stmatrix writes before the async-proxy (TMA) read
    named_barrier_sync(barrier_id, 128);  // all boxes written
    rec.record(t, EventKind::stmatrix, 0, -1);
    t = rec.now();
    if (thread_in_wg == 0) {
      if (o.row0 < o.m_total) {  // NOTES: a box wholly past M or N has nothing to write: skip it
#pragma unroll
        for (int box = 0; box < kBoxes; ++box) {
          const int col = o.n0 + store_box_col0(box, BN, kBfBoxCols);
          if (col < n_tma) store_box<kTrans>(tmap_d, slots + box * kStoreBoxBytes, col, o.row0);
        }
      }
      tma_store_commit();
    }
    rec.record(t, EventKind::tma_store_issue, 0, -1);
    if (has_tail)
      store_tail_columns(slots + tail_box * kStoreBoxBytes, store_box_col0(tail_box, BN, kBfBoxCols), thread_in_wg,
                         n_tma, o);
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
      const int col0 = store_box_col0(box, BN, kBfBoxCols);
#pragma unroll
      for (int p = 0; p < kBfBoxCols / 16; ++p)
        stmatrix_block<BN, kTrans>(slot + stmatrix_box_offset<kTrans>(warp, lane, p), acc, alpha, col0 / 16 + p);
      fence_proxy_async_smem();
      named_barrier_sync(barrier_id, 128);  // the whole box is written
      rec.record(t, EventKind::stmatrix, box, -1);
      t = rec.now();
      if (thread_in_wg == 0) {
        // NOTES: a box wholly past M or N has nothing to write: skip the store, but still commit
        // (an empty group), so that the group count per box stays one.
        if (o.row0 < o.m_total && o.n0 + col0 < n_tma) store_box<kTrans>(tmap_d, slot, o.n0 + col0, o.row0);
        tma_store_commit();
      }
      rec.record(t, EventKind::tma_store_issue, box, -1);
      if (box == tail_box) store_tail_columns(slot, col0, thread_in_wg, n_tma, o);
    }
  }
}

// The staging slots' C loads (Config::with_c with the TMA-store epilogue): box b of a consumer's
// tile goes through slot b % kSlots; the slot's mbarrier (count 1, arrive.expect_tx by the
// issuing thread) completes when C's box has landed. A box is loaded iff the consumer has rows
// (row0 < M) and the box starts before N: every thread of the consumer evaluates the same
// predicate, so loads and waits pair up, and each wait flips that slot's bit of `phase`.
struct StagedC {
  const void* tmap_c;
  uint64_t* bars;   // kSlots barriers of this consumer
  uint32_t phase;   // bit s: parity of slot s's next completion
};

// (The overlapping last box of store_boxes starts left of box * kBoxCols; the columns it adds start
// there, so when that is past N its columns inside N are its neighbour's and it is skipped too.)
template <int kBoxCols>
__device__ __forceinline__ bool box_loaded(const TileOut& o, int box) {
  return o.row0 < o.m_total && o.n0 + box * kBoxCols < o.n_total;
}

// Swap-AB's transposed box `box` of a BN-wide tile (kernel columns [64 box, + trans_box_width),
// config.hpp) in sub-boxes of trans_sub_box_cols(BN) kernel columns: the ones that start inside the
// kernel's N (D's rows; the others have nothing to load or store). Box rows are kernel columns, so
// sub-box j is the slot's rows [j sub, (j + 1) sub), 1024-B aligned like the slot: its 128-B swizzle
// is the slot's.
template <int BN>
__device__ __forceinline__ bool trans_sub_box_inside(int box, int j, const TileOut& o) {
  return o.n0 + 64 * box + j * trans_sub_box_cols(BN) < o.n_total;
}

// Issued by thread 0 of the consumer: C's box `box` of a BN-wide tile into `slot`, from the box's
// first column (store_box_col0: the last box may overlap its neighbour). kTrans (swap-AB, C [kernel
// N, kernel M] row-major like D, its tensor map's boxes trans_sub_box_cols(BN) rows of 64): the
// box's sub-boxes, at (kernel row, kernel column) coordinates.
template <int kBoxCols, bool kTrans, int BN>
__device__ __forceinline__ void load_c_box(const StagedC& sc, uint8_t* slot, int s, int box, const TileOut& o) {
  if constexpr (kTrans) {
    constexpr int kSub = trans_sub_box_cols(BN);
    const int subs = trans_box_width(box, BN) / kSub;  // a constant once unrolled
    uint32_t bytes = 0;
#pragma unroll
    for (int j = 0; j < 64 / kSub; ++j)
      if (j < subs && trans_sub_box_inside<BN>(box, j, o)) bytes += kSub * 128;
    mbar_arrive_expect_tx(&sc.bars[s], bytes);  // whole sub-boxes: zero-filled past M
#pragma unroll
    for (int j = 0; j < 64 / kSub; ++j)
      if (j < subs && trans_sub_box_inside<BN>(box, j, o))
        tma_load_2d(slot + j * kSub * 128, sc.tmap_c, &sc.bars[s], o.row0, o.n0 + 64 * box + j * kSub);
  } else {
    mbar_arrive_expect_tx(&sc.bars[s], kStoreBoxBytes);  // full boxes: TMA zero-fills past M and N
    tma_load_2d(slot, sc.tmap_c, &sc.bars[s], o.n0 + store_box_col0(box, BN, kBoxCols), o.row0);
  }
}

// Before the tile's mainloop: C's first kSlots boxes into the slots, so that they land while the
// tile is computed. The slots must be free: every thread is done with the previous tile's tail
// (the barrier) and the previous tile's TMA stores have read them (wait_group.read 0).
template <int BN, int kSlots, DType kOut, bool kTrans = false>
__device__ __forceinline__ void prefetch_c_boxes(StagedC& sc, uint8_t* slots, int consumer, int thread_in_wg,
                                                 const TileOut& o) {
  constexpr int kBoxCols = store_box_cols(kOut);
  named_barrier_sync(1 + consumer, 128);
  if (thread_in_wg == 0) {
    tma_store_wait_read<0>();
#pragma unroll
    for (int b = 0; b < kSlots; ++b)
      if (box_loaded<kBoxCols>(o, b)) load_c_box<kBoxCols, kTrans, BN>(sc, slots + b * kStoreBoxBytes, b, b, o);
  }
}

// One box of the fragment, combined and written into its slot: alpha·acc (+ beta·C read from the
// same slot positions) -> bf16 (ldmatrix / stmatrix, the stmatrix lane addressing of store_tile)
// or fp32 (8-B shared accesses at the 128B-swizzled positions of the thread's column pairs).
// kTrans (swap-AB, bf16): the transposed box of store_tile's kTrans (ldmatrix / stmatrix .trans),
// from column 64 box, only its trans_box_width columns.
template <int BN, DType kOut, bool kWithC, bool kTrans = false>
__device__ __forceinline__ void write_box(uint8_t* slot, const float (&acc)[BN / 2], float alpha, float beta,
                                          int box, int thread_in_wg) {
  static_assert(!kTrans || kOut == DType::bf16, "stmatrix .trans moves 16-bit elements");
  const int warp = thread_in_wg / 32, lane = thread_in_wg % 32;
  if constexpr (kOut == DType::bf16) {
    const int blocks = kTrans ? trans_box_width(box, BN) / 16 : kBfBoxCols / 16;  // a constant once unrolled
    const int col0 = kTrans ? 64 * box : store_box_col0(box, BN, kBfBoxCols);
#pragma unroll
    for (int p = 0; p < kBfBoxCols / 16; ++p) {
      if (p >= blocks) break;
      uint8_t* addr = slot + stmatrix_box_offset<kTrans>(warp, lane, p);
      const int q = col0 / 16 + p;  // 16-column block of the fragment
      uint32_t cw[4] = {0u, 0u, 0u, 0u};
      if constexpr (kWithC) ldmatrix_x4<kTrans>(addr, cw[0], cw[1], cw[2], cw[3]);
      uint32_t dw[4];
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        float v0 = alpha * acc[8 * q + 2 * r], v1 = alpha * acc[8 * q + 2 * r + 1];
        if constexpr (kWithC) {
          v0 += beta * bf16_bits_to_float(uint16_t(cw[r] & 0xFFFFu));
          v1 += beta * bf16_bits_to_float(uint16_t(cw[r] >> 16));
        }
        dw[r] = pack_bf16x2(v0, v1);
      }
      stmatrix_x4<kTrans>(addr, dw[0], dw[1], dw[2], dw[3]);
    }
  } else {
    // fp32: the box from tile column col0 holds fragment groups j = col0 / 8 .. + 3 (8 columns
    // each); the thread's pair of group j, row i is at byte column 4 * (8 (j - col0 / 8) + 2 (lane % 4))
    // of box row 16 warp + lane / 4 + 8 i.
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int row = 16 * warp + lane / 4 + 8 * i;
#pragma unroll
      for (int g = 0; g < 4; ++g) {
        const int j = store_box_col0(box, BN, store_box_cols(DType::fp32)) / 8 + g;
        float2* addr = reinterpret_cast<float2*>(slot + swizzle_128b(uint32_t(row * 128 + 4 * (8 * g + 2 * (lane % 4)))));
        float2 v = make_float2(alpha * acc[4 * j + 2 * i], alpha * acc[4 * j + 2 * i + 1]);
        if constexpr (kWithC) {
          const float2 c = *addr;
          v.x += beta * c.x;
          v.y += beta * c.y;
        }
        *addr = v;
      }
    }
  }
}

// copy_box_rows in batches of kBatch rows per thread: every load of a batch is issued before its
// first store, so that the loads' latencies overlap (the compiler does not move a load above a
// store through these generic pointers by itself: the shared and global sides might alias for all
// it knows). NOTES: measured on the H200 (docs/PERF.md, twenty-first session): reading C a row at
// a time waited out one global load per row, ~270 cycles each: with C, 4001x3999x256 took 100 us
// against 27 without, 75 with 4 rows at a time. Writing fp32 D 8 rows at a time took
// 4001x3999x256 39.5 -> 34.5 us; bf16 (whose rows go as halves where they are not 4-B aligned)
// ran 1-2 % slower that way, so it writes row by row. More rows of C in flight than the caller's
// kReadBatch spill next to the accumulators (the cubin audit checks it).
template <int kElem, bool kToGlobal, int kBatch>
__device__ __forceinline__ void copy_box_rows_batched(uint8_t* slot, int col0, int thread_in_wg, void* global,
                                                      int64_t ld, const TileOut& o) {
  static_assert(!kToGlobal || kElem == 4, "bf16 D is written row by row (copy_box_rows)");
  const int warp = thread_in_wg / 32, lane = thread_in_wg % 32;
  const int c = col0 + lane * (4 / kElem);                  // this lane's first column
  const int rows_in_m = o.m_total - (o.row0 + 16 * warp);   // this warp's rows inside M (<= 0: none)
  const bool lo = c < o.n_total, hi = c + 4 / kElem - 1 < o.n_total;
  const int64_t row_step = ld * kElem;
  uint8_t* g0 = static_cast<uint8_t*>(global) + (int64_t(o.row0 + 16 * warp) * ld + c) * kElem;
  uint8_t* s_warp = slot + 16 * warp * 128;
  // (16w is a multiple of 8, so the swizzle's XOR is a constant per step once unrolled.)
  auto smem_word = [&](int rr) {
    return reinterpret_cast<uint32_t*>(s_warp + rr * 128 + ((lane * 4) ^ ((rr & 7) << 4)));
  };
#pragma unroll
  for (int b = 0; b < 16; b += kBatch) {
    uint32_t v[kBatch];
    if constexpr (kToGlobal) {
#pragma unroll
      for (int i = 0; i < kBatch; ++i) v[i] = *smem_word(b + i);
#pragma unroll
      for (int i = 0; i < kBatch; ++i)
        if (b + i < rows_in_m && lo) *reinterpret_cast<uint32_t*>(g0 + (b + i) * row_step) = v[i];
    } else {
#pragma unroll
      for (int i = 0; i < kBatch; ++i) {
        const int rr = b + i;
        const uint8_t* g = g0 + rr * row_step;
        const bool in_m = rr < rows_in_m;
        if constexpr (kElem == 4) {
          v[i] = in_m && lo ? *reinterpret_cast<const uint32_t*>(g) : 0u;
        } else {
          const bool l = in_m && lo, h = in_m && hi;
          uint32_t x = 0;
          if (h && (reinterpret_cast<uintptr_t>(g) & 3u) == 0) {
            x = *reinterpret_cast<const uint32_t*>(g);
          } else {
            if (l) x = reinterpret_cast<const uint16_t*>(g)[0];
            if (h) x |= uint32_t(reinterpret_cast<const uint16_t*>(g)[1]) << 16;
          }
          v[i] = x;
        }
      }
#pragma unroll
      for (int i = 0; i < kBatch; ++i) *smem_word(b + i) = v[i];
    }
  }
}

// smem_stores: one staged box <-> global rows [row0, row0 + 64) x columns [col0, col0 + 128 B),
// clipped to M and N. Warp w takes rows 16w .. 16w + 15, one row per step, lane l the 4 bytes at
// byte 4l of the row (2 bf16 or 1 fp32): each step is one coalesced 128-B row segment. The global
// side may be at any element alignment (a bf16 pair that is not 4-B aligned goes as two halves).
// Everything but the row's pointer and M test is hoisted out of the steps, and the stores' 16 are
// unrolled (the swizzle's XOR is then a constant per step: 16w is a multiple of 8). An fp32 D, and
// C read kReadBatch (> 1) rows at a time, go through copy_box_rows_batched.
template <int kElem, bool kToGlobal, int kReadBatch = 1>
__device__ __forceinline__ void copy_box_rows(uint8_t* slot, int col0, int thread_in_wg, void* global, int64_t ld,
                                              const TileOut& o) {
  if constexpr (kToGlobal && kElem == 4) {
    copy_box_rows_batched<kElem, true, 8>(slot, col0, thread_in_wg, global, ld, o);
  } else if constexpr (!kToGlobal && kReadBatch > 1) {
    copy_box_rows_batched<kElem, false, kReadBatch>(slot, col0, thread_in_wg, global, ld, o);
  } else {
    const int warp = thread_in_wg / 32, lane = thread_in_wg % 32;
    const int c = col0 + lane * (4 / kElem);                  // this lane's first column
    const int rows_in_m = o.m_total - (o.row0 + 16 * warp);   // this warp's rows inside M (<= 0: none)
    const bool lo = c < o.n_total, hi = c + 4 / kElem - 1 < o.n_total;
    const int64_t row_step = ld * kElem;
    uint8_t* g = static_cast<uint8_t*>(global) + (int64_t(o.row0 + 16 * warp) * ld + c) * kElem;
    uint8_t* s_warp = slot + 16 * warp * 128;
    // (Reading C: four steps at a time; all 16 in flight spill next to a ping-pong tile's accumulators.)
#pragma unroll(kToGlobal ? 16 : 4)
    for (int rr = 0; rr < 16; ++rr, g += row_step) {
      uint32_t* s = reinterpret_cast<uint32_t*>(s_warp + rr * 128 + ((lane * 4) ^ ((rr & 7) << 4)));
      const bool in_m = rr < rows_in_m;
      if constexpr (kElem == 4) {
        if constexpr (kToGlobal) {
          if (in_m && lo) *reinterpret_cast<uint32_t*>(g) = *s;
        } else {
          *s = in_m && lo ? *reinterpret_cast<const uint32_t*>(g) : 0u;
        }
      } else {
        const bool l = in_m && lo, h = in_m && hi;
        const bool word = h && (reinterpret_cast<uintptr_t>(g) & 3u) == 0;
        if constexpr (kToGlobal) {
          const uint32_t v = *s;
          if (word) {
            *reinterpret_cast<uint32_t*>(g) = v;
          } else {
            if (l) reinterpret_cast<uint16_t*>(g)[0] = uint16_t(v & 0xFFFFu);
            if (h) reinterpret_cast<uint16_t*>(g)[1] = uint16_t(v >> 16);
          }
        } else {
          uint32_t v = 0;
          if (word) {
            v = *reinterpret_cast<const uint32_t*>(g);
          } else {
            if (l) v = reinterpret_cast<const uint16_t*>(g)[0];
            if (h) v |= uint32_t(reinterpret_cast<const uint16_t*>(g)[1]) << 16;
          }
          *s = v;
        }
      }
    }
  }
}

// The TMA-store epilogue for fp32 output and/or C (store_tile is the bf16 one without C): box b
// through slot b % kSlots, one bulk group per box. Without C a slot is refilled once the store that
// last read it is done (wait_group.read kSlots - 1); with C the slot already holds C's box (the
// first kSlots came in during the mainloop, prefetch_c_boxes), is combined in place, stored, and
// then reloaded with C's box b + kSlots while the other slots are worked on (a box wholly past M or
// N has no C box and is skipped).
// kThreads (the smem_stores epilogue): D written, and C read, by the threads (copy_box_rows)
// instead of TMA: per box, a barrier (the slot's previous copy is done), C's box into the slot and
// a barrier, the box combined in the slot and a barrier, the copy out.
// kTrans (swap-AB, bf16 with C; store_tile's kTrans without C): the boxes are transposed, the last
// one partial instead of overlapping (trans_box_width), each loaded and stored in sub-boxes
// (trans_sub_box_inside); no tail columns (the kernel's M, D's row length, is whole 16-B chunks).
// kReadBatch: the rows of C a thread loads at once in the smem_stores epilogue (copy_box_rows).
template <int BN, int kSlots, DType kOut, bool kWithC, bool kThreads = false, bool kTrans = false, int kReadBatch = 1>
__device__ __forceinline__ void store_tile_staged(const float (&acc)[BN / 2], float alpha, float beta,
                                                  const void* tmap_d, StagedC& sc, uint8_t* slots, int consumer,
                                                  int thread_in_wg, const TileOut& o) {
  constexpr int kElem = out_elem_bytes(kOut);
  constexpr int kBoxCols = store_box_cols(kOut);
  constexpr int kBoxes = store_boxes(BN, kOut);
  static_assert(kSlots >= 1 && kSlots <= kBoxes && kBoxes % kSlots == 0);
  // (With C and a last box that overlaps its neighbour (store_boxes), C must not be D: config.hpp.)
  static_assert(!kTrans || (kWithC && !kThreads && kOut == DType::bf16), "transposed staging with C: bf16, TMA");
  if constexpr (kThreads) {
    const uint32_t barrier_id = 1 + consumer;
#pragma unroll  // box indexes the accumulators: it must be a constant
    for (int box = 0; box < kBoxes; ++box) {
      uint8_t* slot = slots + (box % kSlots) * kStoreBoxBytes;
      const int col0 = o.n0 + store_box_col0(box, BN, kBoxCols);
      named_barrier_sync(barrier_id, 128);  // the slot's previous copy-out is done
      if constexpr (kWithC) {
        copy_box_rows<kElem, false, kReadBatch>(slot, col0, thread_in_wg, const_cast<void*>(o.c), o.ldc, o);
        named_barrier_sync(barrier_id, 128);  // C's box is in the slot
      }
      write_box<BN, kOut, kWithC>(slot, acc, alpha, beta, box, thread_in_wg);
      named_barrier_sync(barrier_id, 128);  // the box is written
      if (o.row0 < o.m_total && col0 < o.n_total) copy_box_rows<kElem, true>(slot, col0, thread_in_wg, o.d, o.ldd, o);
    }
    return;
  }
  const int n_tma = o.n_total & ~(16 / kElem - 1);  // TMA stores clip in 16-B chunks (store_tile's NOTES)
  const bool has_tail = !kTrans && n_tma < o.n_total && n_tma >= o.n0 && n_tma < o.n0 + BN;
  const int tail_box = has_tail ? min((n_tma - o.n0) / kBoxCols, kBoxes - 1) : -1;
  const uint32_t barrier_id = 1 + consumer;
#pragma unroll
  for (int box = 0; box < kBoxes; ++box) {
    const int s = box % kSlots;
    uint8_t* slot = slots + s * kStoreBoxBytes;
    const int col0 = kTrans ? 64 * box : store_box_col0(box, BN, kBoxCols);
    if constexpr (kWithC) {
      // NOTES: a box C was not loaded for lies wholly past M or N: nothing to combine or store.
      // Skip it (every thread alike). Writing it anyway would overwrite the slot while the TMA
      // store of the box before it (same slot, one slot per tile) may still be reading it: the
      // wrong values of build 2c93887 (64x256 fp32 + C, ping-pong, one slot of eight boxes).
      if (!box_loaded<kBoxCols>(o, box)) continue;
      mbar_wait(&sc.bars[s], (sc.phase >> s) & 1u);  // C's box is in the slot
      sc.phase ^= 1u << s;
    } else {
      if (thread_in_wg == 0) tma_store_wait_read<kSlots - 1>();
      named_barrier_sync(barrier_id, 128);  // the slot is free before anyone overwrites it
    }
    write_box<BN, kOut, kWithC, kTrans>(slot, acc, alpha, beta, box, thread_in_wg);
    fence_proxy_async_smem();             // my shared writes before the async-proxy (TMA) read
    named_barrier_sync(barrier_id, 128);  // the whole box is written (and C's box read)
    if (thread_in_wg == 0) {
      if constexpr (kTrans) {
        constexpr int kSub = trans_sub_box_cols(BN);
        const int subs = trans_box_width(box, BN) / kSub;  // a constant once unrolled
#pragma unroll
        for (int j = 0; j < 64 / kSub; ++j)
          if (j < subs && o.row0 < o.m_total && trans_sub_box_inside<BN>(box, j, o))
            tma_store_2d(tmap_d, slot + j * kSub * 128, o.row0, o.n0 + col0 + j * kSub);
      } else {
        if (o.row0 < o.m_total && o.n0 + col0 < n_tma) tma_store_2d(tmap_d, slot, o.n0 + col0, o.row0);
      }
      tma_store_commit();  // one group per box, empty or not
    }
    if (box == tail_box) store_tail_columns<kElem>(slot, col0, thread_in_wg, n_tma, o);
    if constexpr (kWithC) {
      const int next = box + kSlots;
      if (next < kBoxes && box_loaded<kBoxCols>(o, next)) {
        if (box == tail_box) named_barrier_sync(barrier_id, 128);  // the tail is read before the refill
        if (thread_in_wg == 0) {
          tma_store_wait_read<0>();  // the store just issued has read the slot
          load_c_box<kBoxCols, kTrans, BN>(sc, slot, s, next, o);
        }
      }
    }
  }
}

}  // namespace tilegemm::sm90
