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

// alpha · acc[4g .. 4g+7] (the 16 fragment columns from 8-column group g: groups g and g + 1)
// -> bf16 -> one stmatrix x4 at this lane's row address. g is any group, not only an even one: a
// tile 8 columns short of a multiple of 16 (BN % 16 == 8) has its last, overlapping box
// (store_box_col0) start at an odd group.
// kTrans: the same four matrices stored transposed (stmatrix .trans), for swap-AB's staging.
template <int BN, bool kTrans = false>
__device__ __forceinline__ void stmatrix_block(uint8_t* row_addr, const float (&acc)[BN / 2], float alpha, int g) {
  const uint32_t r0 = pack_bf16x2(alpha * acc[4 * g + 0], alpha * acc[4 * g + 1]);
  const uint32_t r1 = pack_bf16x2(alpha * acc[4 * g + 2], alpha * acc[4 * g + 3]);
  const uint32_t r2 = pack_bf16x2(alpha * acc[4 * g + 4], alpha * acc[4 * g + 5]);
  const uint32_t r3 = pack_bf16x2(alpha * acc[4 * g + 6], alpha * acc[4 * g + 7]);
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
      const int g0 = store_box_col0(box, BN, kBfBoxCols) / 8;  // a constant once unrolled
#pragma unroll
      for (int p = 0; p < kBfBoxCols / 16; ++p)
        stmatrix_block<BN, kTrans>(dst + stmatrix_box_offset<kTrans>(warp, lane, p), acc, alpha, g0 + 2 * p);
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
        stmatrix_block<BN, kTrans>(slot + stmatrix_box_offset<kTrans>(warp, lane, p), acc, alpha, col0 / 8 + 2 * p);
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
    // The box's 16-column blocks, and for a transposed last box of BN % 16 == 8 columns its
    // 8-column tail (one group: matrices 0 and 1, stmatrix / ldmatrix .x2).
    const int width = kTrans ? trans_box_width(box, BN) : kBfBoxCols;  // a constant once unrolled
    const int col0 = kTrans ? 64 * box : store_box_col0(box, BN, kBfBoxCols);
    // alpha · acc (+ beta · C's words cw) of the `words` words from group g, into dw.
    auto combine = [&](int g, int words, const uint32_t* cw, uint32_t* dw) {
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        if (r >= words) break;
        float v0 = alpha * acc[4 * g + 2 * r], v1 = alpha * acc[4 * g + 2 * r + 1];
        if constexpr (kWithC) {
          v0 += beta * bf16_bits_to_float(uint16_t(cw[r] & 0xFFFFu));
          v1 += beta * bf16_bits_to_float(uint16_t(cw[r] >> 16));
        }
        dw[r] = pack_bf16x2(v0, v1);
      }
    };
#pragma unroll
    for (int p = 0; p < kBfBoxCols / 16; ++p) {
      if (16 * p >= width) break;
      uint8_t* addr = slot + stmatrix_box_offset<kTrans>(warp, lane, p);
      const int g = col0 / 8 + 2 * p;  // the block's first 8-column group of the fragment
      uint32_t cw[4] = {0u, 0u, 0u, 0u}, dw[4];
      if (16 * p + 8 == width) {  // (only in a transposed last box)
        if constexpr (kWithC) ldmatrix_x2<kTrans>(addr, cw[0], cw[1]);
        combine(g, 2, cw, dw);
        stmatrix_x2<kTrans>(addr, dw[0], dw[1]);
      } else {
        if constexpr (kWithC) ldmatrix_x4<kTrans>(addr, cw[0], cw[1], cw[2], cw[3]);
        combine(g, 4, cw, dw);
        stmatrix_x4<kTrans>(addr, dw[0], dw[1], dw[2], dw[3]);
      }
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

// Byte offset, from warp w's first row of a staged box (row 16w: a multiple of 8), of the 4-B word
// at byte 4 * lane of its row rr (0..15) in the 128B-swizzled box; with rr a constant of an
// unrolled step the swizzle's XOR is a constant too.
__device__ __forceinline__ int box_row_word(int rr, int lane) { return rr * 128 + ((lane * 4) ^ ((rr & 7) << 4)); }

// The words lane `lane` of a warp holds in rows b .. b + kBatch - 1 of its 16 rows of a staged box
// (s_warp: the warp's first row; box_row_word), all read before any store that uses them.
template <int kBatch>
__device__ __forceinline__ void load_box_words(const uint8_t* s_warp, int lane, int b, uint32_t (&v)[kBatch]) {
#pragma unroll
  for (int i = 0; i < kBatch; ++i) v[i] = *reinterpret_cast<const uint32_t*>(s_warp + box_row_word(b + i, lane));
}

// An fp32 box to D in batches of kBatch rows per thread (copy_box_rows): every shared load of a
// batch is issued before its first global store (the compiler does not move a load above a store
// through these generic pointers by itself: the shared and global sides might alias for all it
// knows). NOTES: measured on the H200 (docs/PERF.md, twenty-first session): 4001x3999x256 fp32
// 39.5 -> 34.5 us with 8 rows at a time; bf16 (whose rows go as halves where they are not 4-B
// aligned) ran 1-2 % slower that way, so it writes row by row. (C read that way, 4 rows at a time,
// was superseded by issue_c_box_async: twenty-second session.)
template <int kBatch>
__device__ __forceinline__ void copy_box_rows_fp32_batched(uint8_t* slot, int col0, int thread_in_wg, void* global,
                                                           int64_t ld, const TileOut& o) {
  const int warp = thread_in_wg / 32, lane = thread_in_wg % 32;
  const int c = col0 + lane;                                // this lane's column
  const int rows_in_m = o.m_total - (o.row0 + 16 * warp);   // this warp's rows inside M (<= 0: none)
  const bool lo = c < o.n_total;
  const int64_t row_step = ld * 4;
  uint8_t* g0 = static_cast<uint8_t*>(global) + (int64_t(o.row0 + 16 * warp) * ld + c) * 4;
  const uint8_t* s_warp = slot + 16 * warp * 128;
#pragma unroll
  for (int b = 0; b < 16; b += kBatch) {
    uint32_t v[kBatch];
    load_box_words(s_warp, lane, b, v);
#pragma unroll
    for (int i = 0; i < kBatch; ++i)
      if (b + i < rows_in_m && lo) *reinterpret_cast<uint32_t*>(g0 + (b + i) * row_step) = v[i];
  }
}

// A bf16 box to D (copy_box_rows), without branches: warp w's 16 rows of the box, lane l the word
// of columns col0 + 2l, col0 + 2l + 1 of each, read from the slot kBatch rows at a time ahead of
// their stores. A row whose address is 4-B aligned is written as one word, any other as its two
// halves; every row is 2 * ld bytes after the one before it, so the rows alternate between two
// alignments (or keep one), fixed per warp before the loop. The three stores of a row are
// predicated in PTX (a word, or a low half and a high half), so that the unrolled rows carry no
// branch and the compiler interleaves them (here it also runs neighbouring boxes' copies together).
// NOTES: measured on the H100 (docs/PERF.md, thirty-second session) against the copy it replaced
// (a branch per row between the word and the halves, ~18 instructions per row; ncu put the copy's
// stalls on `wait`, fixed-latency dependencies, and branch resolution), one call, 14 odd-N shapes
// (12 in no suite): geomean 0.94x of its time, 0.88x at K <= 512 (4001x3999x256 28.4 -> 25.5 us,
// 3999x4001x128 35.0 -> 28.1), none slower beyond run-to-run noise. Two neighbours measured too:
// the alignment and the word test kept apart (`pw = in_m && hi && aligned`), which compiles to a
// separate copy-out per box, gained 1-4 %; writing every row as halves (two predicated stores, no
// word) was up to 8 % slower at long K: twice the store requests where rows are aligned.
template <int kBatch>
__device__ __forceinline__ void copy_box_rows_bf16_batched(uint8_t* slot, int col0, int thread_in_wg, void* global,
                                                           int64_t ld, const TileOut& o) {
  static_assert(16 % kBatch == 0);
  const int warp = thread_in_wg / 32, lane = thread_in_wg % 32;
  const int c = col0 + 2 * lane;                            // this lane's first column
  const int rows_in_m = o.m_total - (o.row0 + 16 * warp);   // this warp's rows inside M (<= 0: none)
  const bool lo = c < o.n_total, hi = c + 1 < o.n_total;
  const int64_t row_step = ld * 2;
  uint8_t* g0 = static_cast<uint8_t*>(global) + (int64_t(o.row0 + 16 * warp) * ld + c) * 2;
  // (Whether a row is 4-B aligned is the same for every lane: c is even.)
  const bool word_even = hi && (reinterpret_cast<uintptr_t>(g0) & 3u) == 0;
  const bool word_odd = hi && ((reinterpret_cast<uintptr_t>(g0) + uintptr_t(row_step)) & 3u) == 0;
  const uint8_t* s_warp = slot + 16 * warp * 128;
#pragma unroll
  for (int b = 0; b < 16; b += kBatch) {
    uint32_t v[kBatch];
    load_box_words(s_warp, lane, b, v);
#pragma unroll
    for (int i = 0; i < kBatch; ++i) {
      const int rr = b + i;
      const bool in_m = rr < rows_in_m;
      const bool word = in_m && ((rr & 1) ? word_odd : word_even);
      const uint32_t pw = word, pl = in_m && lo && !word, ph = in_m && hi && !word;
      uint8_t* g = g0 + rr * row_step;
      asm volatile(
          "{\n .reg .pred pw, pl, ph;\n"
          " setp.ne.u32 pw, %2, 0;\n setp.ne.u32 pl, %3, 0;\n setp.ne.u32 ph, %4, 0;\n"
          " @pw st.global.b32 [%0], %1;\n"
          " @pl st.global.b16 [%0], %5;\n"
          " @ph st.global.b16 [%0+2], %6;\n}"
          ::"l"(g), "r"(v[i]), "r"(pw), "r"(pl), "r"(ph), "h"(uint16_t(v[i] & 0xFFFFu)), "h"(uint16_t(v[i] >> 16))
          : "memory");
    }
  }
}

// smem_stores: one staged box <-> global rows [row0, row0 + 64) x columns [col0, col0 + 128 B),
// clipped to M and N. Warp w takes rows 16w .. 16w + 15, one row per step, lane l the 4 bytes at
// byte 4l of the row (2 bf16 or 1 fp32): each step is one coalesced 128-B row segment. The global
// side may be at any element alignment (a bf16 pair that is not 4-B aligned goes as two halves).
// D goes through copy_box_rows_fp32_batched or copy_box_rows_bf16_batched; reading C (!kToGlobal)
// is the k-split kernels' way (the others load C's boxes by cp.async: issue_c_box_async), a branch
// per row between a word and two halves (the swizzle's XOR is a constant per step: 16w is a
// multiple of 8).
// NOTES: what else has been tried for a D that TMA cannot describe, each measured slower than this
// copy-out and reverted (docs/PERF.md): TMA stores per row class r mod 8, eight tensor maps
// (fifth session: the restaging and eight small stores per box cost more); the producer's spare
// warps copying while the consumers go on, and 16-B chunk stores (sixth session: the copy runs
// at a fixed rate per warp, and the chunks' partial ends cost stores); the halves written as words
// shifted by a warp shuffle (thirty-first: 10-12 % slower, and the shuffle cost the mainloop its
// uniform wgmma descriptors); a test-free copy for boxes inside M and N in four compile-time
// alignment variants (thirty-first: up to 19 % slower, 2.6x the kernel's code). The copy-out never
// fills the store queue (lg_throttle 0 in ncu) and makes DRAM read no partial sector; its time per
// warp is set by the instructions one warp issues in a row (ncu thirty-second session: stalls led
// by `wait`, fixed-latency dependencies, then `selected`), which is why dropping the branches paid.
template <int kElem, bool kToGlobal>
__device__ __forceinline__ void copy_box_rows(uint8_t* slot, int col0, int thread_in_wg, void* global, int64_t ld,
                                              const TileOut& o) {
  if constexpr (kToGlobal && kElem == 4) {
    copy_box_rows_fp32_batched<8>(slot, col0, thread_in_wg, global, ld, o);
  } else if constexpr (kToGlobal) {
    copy_box_rows_bf16_batched<8>(slot, col0, thread_in_wg, global, ld, o);
  } else {
    const int warp = thread_in_wg / 32, lane = thread_in_wg % 32;
    const int c = col0 + lane * (4 / kElem);                  // this lane's first column
    const int rows_in_m = o.m_total - (o.row0 + 16 * warp);   // this warp's rows inside M (<= 0: none)
    const bool lo = c < o.n_total, hi = c + 4 / kElem - 1 < o.n_total;
    const int64_t row_step = ld * kElem;
    const uint8_t* g = static_cast<const uint8_t*>(global) + (int64_t(o.row0 + 16 * warp) * ld + c) * kElem;
    uint8_t* s_warp = slot + 16 * warp * 128;
    // (Four steps at a time; all 16 in flight spill next to a ping-pong tile's accumulators.)
#pragma unroll 4
    for (int rr = 0; rr < 16; ++rr, g += row_step) {
      uint32_t* s = reinterpret_cast<uint32_t*>(s_warp + box_row_word(rr, lane));
      const bool in_m = rr < rows_in_m;
      if constexpr (kElem == 4) {
        *s = in_m && lo ? *reinterpret_cast<const uint32_t*>(g) : 0u;
      } else {
        const bool l = in_m && lo, h = in_m && hi;
        uint32_t v = 0;
        if (h && (reinterpret_cast<uintptr_t>(g) & 3u) == 0) {
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

// C's box for the smem_stores epilogue, into a staging slot by cp.async (no register holds a
// load, so a box's 16 rows per lane all stay in flight, and the next tile's first boxes arrive
// during its mainloop): the layout copy_box_rows reads C into (warp w rows 16w .. 16w + 15, lane l
// the 4-B word at byte 4l of each row, 128B-swizzled), zeros past M and N. Commits nothing (the
// caller commits one group per box). A bf16 row whose start is 2 B off a 4-B boundary (odd ldc or
// an odd element offset of C) cannot be copied by 4-B words where they lie: its lane l copies the
// aligned word of elements (col0 + 2l - 1, col0 + 2l), lane 31 also the one of (col0 + 63, col0 +
// 64) into `side` (a word per row), and realign_c_box shifts them into place once they landed.
// Nothing outside C is read: a word half past N is read as its first 2 bytes (cp.async's
// src-size), and the word before column 0 not at all (realign_c_box reads that element itself).
template <int kElem>
__device__ __forceinline__ void issue_c_box_async(uint8_t* slot, uint32_t* side, int col0, int thread_in_wg,
                                                  const TileOut& o) {
  const int warp = thread_in_wg / 32, lane = thread_in_wg % 32;
  const uint8_t* cbase = static_cast<const uint8_t*>(o.c);
  const int rows_in_m = o.m_total - (o.row0 + 16 * warp);  // this warp's rows inside M
  const int64_t step = o.ldc * kElem;
  // Row rr's column col0 is at g + rr * step (not read past M).
  const uint8_t* g = cbase + (int64_t(o.row0 + 16 * warp) * o.ldc + col0) * kElem;
  const uint32_t s_warp = smem_u32(slot + 16 * warp * 128);
  // Most boxes lie inside M and N with the words they read (bf16: columns col0 - 1 .. col0 + 64):
  // whole words, no bounds, the row pointer stepped. NOTES: measured on the H200 (docs/PERF.md,
  // twenty-second session, ncu, 4001x3999x256 128x128): with only the general loop below the
  // kernel with C executed 4.3x the instructions of the one without (C's loads were never what it
  // waited on: an L2 prefetch of C's rows changed nothing); with this path 2.8x, 106.6 -> 81.0 us.
  const bool inside = rows_in_m >= 16 && (kElem == 4 ? col0 + 32 <= o.n_total : col0 >= 1 && col0 + 65 <= o.n_total);
  if (inside) {
    const uint8_t* p = g + 4 * lane;  // the lane's bytes of row rr (bf16: 2 B off in rows that start so)
    // (Four rows per step: all 16 unrolled, the compiler computes their addresses ahead and spills
    // next to a 128x144 tile's accumulators: the cubin audit.)
#pragma unroll 4
    for (int rr = 0; rr < 16; ++rr, p += step) {
      const uint32_t dst = s_warp + uint32_t(box_row_word(rr, lane));
      if constexpr (kElem == 4) {
        cp_async_4(dst, p);
      } else {
        const uintptr_t at = reinterpret_cast<uintptr_t>(p);
        cp_async_4(dst, reinterpret_cast<const void*>(at & ~uintptr_t(3)));  // (col0 + 2l - 1, col0 + 2l) when off
        if (lane == 31 && (at & 2u) != 0) cp_async_4(smem_u32(side + 16 * warp + rr), p + 2);  // (col0 + 63, col0 + 64)
      }
    }
    return;
  }
  // bytes of the elements [col0 + e, col0 + e + 4 / kElem) inside [0, N): 4, 2 (bf16: the first only) or 0
  auto bytes_in_n = [&](int e) -> uint32_t {
    if (col0 + e < 0 || col0 + e >= o.n_total) return 0u;
    return kElem == 2 && col0 + e + 1 >= o.n_total ? 2u : 4u;
  };
  // (Not unrolled: no load is waited for here, and unrolled the 16 rows' addresses spill next to a
  // 128x256 tile's accumulators: the cubin audit.)
#pragma unroll 1
  for (int rr = 0; rr < 16; ++rr) {
    const uint8_t* row = g + rr * step;
    const bool in_m = rr < rows_in_m;
    const bool off = kElem == 2 && (reinterpret_cast<uintptr_t>(row) & 2u) != 0;  // warp-uniform
    const int e = lane * (4 / kElem) - (off ? 1 : 0);  // the word's first element, from col0
    const uint32_t n = in_m ? bytes_in_n(e) : 0u;
    cp_async_4(s_warp + uint32_t(box_row_word(rr, lane)), n ? row + e * kElem : cbase, n);
    if (off && lane == 31) {
      const uint32_t n2 = in_m ? bytes_in_n(63) : 0u;
      cp_async_4(smem_u32(side + 16 * warp + rr), n2 ? row + 63 * kElem : cbase, n2);
    }
  }
}

// After issue_c_box_async's group landed (and a __syncwarp): the rows it copied 2 B early (bf16,
// rows 2 B off a 4-B boundary) shifted into place, word l = (high half of word l, low half of
// word l + 1, the side word for lane 31). Warp-local, like everything of a box's rows; ends on a
// __syncwarp.
__device__ __forceinline__ void realign_c_box(uint8_t* slot, const uint32_t* side, int col0, int thread_in_wg,
                                              const TileOut& o) {
  const int warp = thread_in_wg / 32, lane = thread_in_wg % 32;
  const int rows_in_m = o.m_total - (o.row0 + 16 * warp);
  const int64_t step = o.ldc * 2;
  const uint8_t* g = static_cast<const uint8_t*>(o.c) + (int64_t(o.row0 + 16 * warp) * o.ldc + col0) * 2;
  uint8_t* s_warp = slot + 16 * warp * 128;
#pragma unroll
  for (int rr = 0; rr < 16; ++rr) {
    const uint8_t* row = g + rr * step;
    if ((reinterpret_cast<uintptr_t>(row) & 2u) == 0) continue;  // warp-uniform
    uint32_t* w = reinterpret_cast<uint32_t*>(s_warp + box_row_word(rr, lane));
    const uint32_t* wn = lane < 31 ? reinterpret_cast<const uint32_t*>(s_warp + box_row_word(rr, lane + 1))
                                   : side + 16 * warp + rr;
    uint32_t a = *w;
    const uint32_t b = *wn;
    if (lane == 0 && col0 == 0)  // the word before column 0 was not read: column 0 itself
      a = rr < rows_in_m ? uint32_t(*reinterpret_cast<const uint16_t*>(row)) << 16 : 0u;
    __syncwarp();  // every lane has read word l before lane l overwrites it
    *w = __funnelshift_r(a, b, 16);
  }
  __syncwarp();
}

// The first kSlots boxes of C for a tile's 64-row block `o` (smem_stores with kAsyncC), issued
// when the slots are free (before the tile's mainloop), one group per box: the epilogue's waits
// count on exactly kSlots groups ahead of each box.
template <int BN, int kSlots, DType kOut>
__device__ __forceinline__ void issue_c_boxes_ahead(uint8_t* slots, uint32_t* c_side, int thread_in_wg,
                                                    const TileOut& o) {
  constexpr int kBoxCols = store_box_cols(kOut);
  static_assert(kSlots <= store_boxes(BN, kOut), "a slot per box at most (store_tile_staged)");
#pragma unroll
  for (int b = 0; b < kSlots; ++b) {
    issue_c_box_async<out_elem_bytes(kOut)>(slots + b * kStoreBoxBytes, c_side + b * kStoreBoxRows,
                                            o.n0 + store_box_col0(b, BN, kBoxCols), thread_in_wg, o);
    cp_async_commit();
  }
}

// The TMA-store epilogue for fp32 output and/or C (store_tile is the bf16 one without C): box b
// through slot b % kSlots, one bulk group per box. Without C a slot is refilled once the store that
// last read it is done (wait_group.read kSlots - 1); with C the slot already holds C's box (the
// first kSlots came in during the mainloop, prefetch_c_boxes), is combined in place, stored, and
// then reloaded with C's box b + kSlots while the other slots are worked on (a box wholly past M or
// N has no C box and is skipped); with c_rows_follow, a slot whose last box of this 64-row block is
// stored is reloaded with its box of the block below, for the next call (which loads none itself).
// kThreads (the smem_stores epilogue): D written, and C read, by the threads (copy_box_rows, or
// cp.async: kAsyncC) instead of TMA: per box, C's box into the slot, the box combined in the slot,
// the copy out, each step ordered by a __syncwarp (the steps are warp-local).
// kTrans (swap-AB, bf16 with C; store_tile's kTrans without C): the boxes are transposed, the last
// one partial instead of overlapping (trans_box_width), each loaded and stored in sub-boxes
// (trans_sub_box_inside); no tail columns (the kernel's M, D's row length, is whole 16-B chunks).
// kAsyncC (kThreads with C outside k-split kernels, async_thread_c): C's boxes come by cp.async,
// kSlots boxes ahead (issue_c_boxes_ahead before the mainloop, then each box's successor once the
// box is copied out, c_side their side words, c_rows_follow: the next 64-row block of the tile
// follows, whose first boxes are issued in this one's last); otherwise the threads read C as they
// go (copy_box_rows).
template <int BN, int kSlots, DType kOut, bool kWithC, bool kThreads = false, bool kTrans = false, bool kAsyncC = false>
__device__ __forceinline__ void store_tile_staged(const float (&acc)[BN / 2], float alpha, float beta,
                                                  const void* tmap_d, StagedC& sc, uint8_t* slots, int consumer,
                                                  int thread_in_wg, const TileOut& o, uint32_t* c_side = nullptr,
                                                  bool c_rows_follow = false) {
  constexpr int kElem = out_elem_bytes(kOut);
  constexpr int kBoxCols = store_box_cols(kOut);
  constexpr int kBoxes = store_boxes(BN, kOut);
  static_assert(kSlots >= 1 && kSlots <= kBoxes && kBoxes % kSlots == 0);
  // (With C and a last box that overlaps its neighbour (store_boxes), C must not be D: config.hpp.)
  static_assert(!kTrans || (kWithC && !kThreads && kOut == DType::bf16), "transposed staging with C: bf16, TMA");
  if constexpr (kThreads) {
    // NOTES: warp-local. Warp w's rows of a box (16w .. 16w + 15) are the rows its lanes hold in
    // the accumulator fragment (write_box), load C into and copy out (copy_box_rows): no other warp
    // touches them, so a __syncwarp orders each step (a barrier of the warpgroup did before; the
    // same times within 1 % without C, docs/PERF.md twenty-second session).
#pragma unroll  // box indexes the accumulators: it must be a constant
    for (int box = 0; box < kBoxes; ++box) {
      uint8_t* slot = slots + (box % kSlots) * kStoreBoxBytes;
      const int col0 = o.n0 + store_box_col0(box, BN, kBoxCols);
      uint32_t* side = kAsyncC ? c_side + (box % kSlots) * kStoreBoxRows : nullptr;
      if constexpr (kAsyncC) {
        cp_async_wait_group<kSlots - 1>();  // this box's group (one per box, kSlots ahead: issue_c_boxes_ahead)
        __syncwarp();                       // ... and every lane's
        if constexpr (kElem == 2) realign_c_box(slot, side, col0, thread_in_wg, o);
      } else {
        __syncwarp();  // the slot's previous copy-out (this warp's rows) is done
        if constexpr (kWithC) {
          copy_box_rows<kElem, false>(slot, col0, thread_in_wg, const_cast<void*>(o.c), o.ldc, o);
          __syncwarp();  // C's box is in the slot
        }
      }
      write_box<BN, kOut, kWithC>(slot, acc, alpha, beta, box, thread_in_wg);
      __syncwarp();  // the box is written
      if (o.row0 < o.m_total && col0 < o.n_total) copy_box_rows<kElem, true>(slot, col0, thread_in_wg, o.d, o.ldd, o);
      if constexpr (kAsyncC) {
        // The box kSlots ahead into the slot just copied out: of this 64-row block, or the first
        // boxes of the next one (c_rows_follow); one group either way, empty past the last.
        __syncwarp();  // every lane's copy-out has read the slot
        const int next = box + kSlots;
        if (next < kBoxes) {
          issue_c_box_async<kElem>(slot, side, o.n0 + store_box_col0(next, BN, kBoxCols), thread_in_wg, o);
        } else if (c_rows_follow) {
          TileOut below = o;
          below.row0 += kStoreBoxRows;
          issue_c_box_async<kElem>(slot, side, o.n0 + store_box_col0(next - kBoxes, BN, kBoxCols), thread_in_wg, below);
        }
        cp_async_commit();
      }
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
        // (Eight 8-row sub-boxes per box (BN % 16 == 8) stay a loop: unrolled, next to the stream-K
        // fix-up's registers, 128x152 spilled: the cubin audit.)
#pragma unroll(kSub == 8 ? 1 : 64 / kSub)
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
      // The slot's next C box: box + kSlots of this 64-row block; once this block has no further
      // box for the slot (past its last, or past N: box_loaded only turns false as the box index
      // grows), box s of the block below (c_rows_follow), so that the next block's first boxes
      // load while this one's last are combined and stored instead of after them. NOTES: issued
      // from the slot's last box that is stored, not from the slot's last box: a box past N is
      // skipped above, so a load tied to it was never issued and the next block waited on the
      // slot's barrier for good (hung in the GPU tests, docs/PERF.md fiftieth session).
      const int next = box + kSlots;
      TileOut below = o;
      below.row0 += kStoreBoxRows;
      const bool next_here = next < kBoxes && box_loaded<kBoxCols>(o, next);
      const bool next_below = !next_here && c_rows_follow && box_loaded<kBoxCols>(below, s);
      if (next_here || next_below) {
        if (box == tail_box) named_barrier_sync(barrier_id, 128);  // the tail is read before the refill
        if (thread_in_wg == 0) {
          tma_store_wait_read<0>();  // the store just issued has read the slot
          if (next_here)
            load_c_box<kBoxCols, kTrans, BN>(sc, slot, s, next, o);
          else
            load_c_box<kBoxCols, kTrans, BN>(sc, slot, s, s, below);
        }
      }
    }
  }
}

}  // namespace tilegemm::sm90
