// The row-class TMA-store epilogue (Epilogue::tma_row_classes, config.hpp): D whose leading
// dimension or base TMA cannot describe as one tensor (a row pitch that is not a multiple of 16 B),
// stored with TMA all the same, without C.
//
// Why it works: rows r and r + 8 of D lie 8·ldd elements apart, a multiple of 16 B whatever ldd
// is, so the rows of one class j = r mod 8 form a 2-D tensor with a legal stride. Its base must be
// 16-B aligned, and so must every box's first element (a store box starting off 16 B is an illegal
// instruction on the H200, measured): class j's tensor starts at its first aligned column
// c_j = ((16 - addr(D[j][0]) mod 16) mod 16) / elem (the same for every row of the class), and
// tile columns n0 + c_j + 8t are where its boxes may start (n0 is a multiple of 16).
//
// Per consumer (64 rows x BN) and box b of the span [c_j, c_j + BN - P) (P = one 16-B chunk of
// elements; box b covers [col0_b + c_j, col0_b + c_j + box), col0_b = store_box_col0 over the span):
//   1. the fragment writes tile columns [s0, s0 + box + 16) (s0 = col0_b rounded down to the
//      16-column fragment block) unshifted into the consumer's window (rows padded to 176 / 208 B:
//      the eight rows of one store fall on different banks);
//   2. the threads copy the window into the slot's 8 sub-boxes, sub-box j = rows j, j + 8, ...,
//      j + 56, each row's 16-B chunks funnel-shifted by c_j elements, 128B-swizzled (TMA's layout);
//   3. one TMA store per class (map j, 8 rows x 128 B), one bulk group per box, drained while the
//      next tile's mainloop runs.
// The threads store the rest from registers: columns [0, c_j) and [BN - P + c_j, BN) of each row
// (one chunk per row and tile), and in the tile at the right edge the columns past class j's map
// (the TMA store clips only in whole 16-B chunks: the map ends at N - c_j rounded down to a chunk).
#pragma once

#include "sm90/ptx.cuh"
#include "sm90/swizzle.hpp"
#include "sm90/gemm/epilogue_direct.cuh"
#include "sm90/gemm/params.hpp"
#include "sm90/gemm/traits.cuh"

namespace tilegemm::sm90 {

// c_j of the row class of D's row j (any row of the class gives the same value).
template <int kElem>
__device__ __forceinline__ int row_class_shift(const void* d, int64_t ldd, int j) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(d) + uintptr_t(j) * uintptr_t(ldd) * kElem;
  return int((16u - uint32_t(a & 15u)) & 15u) / kElem;
}
// Columns of class j's map (the host encodes the same): N - c_j rounded down to whole chunks.
template <int kElem>
__device__ __forceinline__ int row_class_map_cols(int n_total, int shift) {
  constexpr int kP = 16 / kElem;
  return n_total > shift ? (n_total - shift) / kP * kP : 0;
}

// 16 bytes starting `shift` bytes (a multiple of 2) into lo:hi.
__device__ __forceinline__ uint4 funnel_16(const uint4& lo, const uint4& hi, uint32_t shift) {
  if (shift == 0) return lo;
  const uint32_t w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  const uint32_t q = shift / 4, bits = 8 * (shift % 4);
  uint32_t out[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    // Selects, not an indexed array (an indexed register array would live in local memory).
    const uint32_t a = q == 0 ? w[i] : q == 1 ? w[i + 1] : q == 2 ? w[i + 2] : w[i + 3];
    const uint32_t b = q == 0 ? w[i + 1] : q == 1 ? w[i + 2] : q == 2 ? w[i + 3] : w[i + 4];
    out[i] = __funnelshift_r(a, b, bits);
  }
  return make_uint4(out[0], out[1], out[2], out[3]);
}

// The columns of this thread's fragment rows that the maps do not reach, stored from registers.
template <int BN, DType kOut>
__device__ __forceinline__ void store_row_class_edges(const float (&acc)[BN / 2], float alpha, int thread_in_wg,
                                                      const TileOut& o, int shift, int map_cols) {
  constexpr int kElem = out_elem_bytes(kOut);
  constexpr int kSpan = BN - chunk_cols(kOut);
  const int warp = thread_in_wg / 32, lane = thread_in_wg % 32, q = lane % 4;
  const bool edge = o.n0 + kSpan > map_cols;  // some of the tile's span lies past the map's end
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int m = o.row0 + 16 * warp + lane / 4 + 8 * i;
    if (m >= o.m_total) continue;
    uint8_t* row = static_cast<uint8_t*>(o.d) + int64_t(m) * o.ldd * kElem;
    auto put = [&](int g, int e) {
      const int col = 8 * g + 2 * q + e, gc = o.n0 + col;
      if (gc < o.n_total && (col < shift || col >= kSpan + shift || gc - shift >= map_cols)) {
        const float v = alpha * acc[4 * g + 2 * i + e];
        if constexpr (kElem == 4) {
          *reinterpret_cast<float*>(row + int64_t(gc) * 4) = v;
        } else {
          *reinterpret_cast<uint16_t*>(row + int64_t(gc) * 2) = to_bf16_bits(v);
        }
      }
    };
    if (edge) {
#pragma unroll
      for (int g = 0; g < BN / 8; ++g) {
        put(g, 0);
        put(g, 1);
      }
    } else {  // [0, shift) lies in fragment block 0, [BN - P + shift, BN) in the last one
      put(0, 0);
      put(0, 1);
      put(BN / 8 - 1, 0);
      put(BN / 8 - 1, 1);
    }
  }
}

// One consumer's tile. `slots`: kSlots boxes of 8 KiB (1024-B aligned); `window`: 64 rows of
// row_class_window_pitch bytes.
template <int BN, int kSlots, DType kOut>
__device__ __forceinline__ void store_tile_row_classes(const float (&acc)[BN / 2], float alpha,
                                                       const TmaDescriptor* tmaps, uint8_t* slots, uint8_t* window,
                                                       int consumer, int thread_in_wg, const TileOut& o) {
  constexpr int kElem = out_elem_bytes(kOut);
  constexpr int kP = chunk_cols(kOut);
  constexpr int kBoxCols = store_box_cols(kOut);
  constexpr int kSpan = BN - kP;
  constexpr int kBoxes = store_boxes(kSpan, kOut);
  constexpr int kWinCols = kBoxCols + 16;
  constexpr int kPitch = row_class_window_pitch(kOut);
  static_assert(kSpan >= kBoxCols && kBoxes % kSlots == 0);
  static_assert(kPitch % 16 == 0 && kWinCols % 16 == 0);
  const int warp = thread_in_wg / 32, lane = thread_in_wg % 32;
  const uint32_t barrier_id = 1 + consumer;
  // The window writer's rows (its fragment rows): class lane / 4. The copier's rows: class (t / 8) % 8.
  const int q = lane % 4;
  const int u = thread_in_wg % 8, copy_class = (thread_in_wg / 8) % 8;
  const uint32_t copy_shift = uint32_t(row_class_shift<kElem>(o.d, o.ldd, copy_class) * kElem);  // bytes
  const int y = o.row0 / 8;  // the tile's first row of every class, in class rows
  // The threads' own columns first: the boxes below then use up the accumulators one by one.
  const int my_shift = row_class_shift<kElem>(o.d, o.ldd, lane / 4);
  store_row_class_edges<BN, kOut>(acc, alpha, thread_in_wg, o, my_shift,
                                  row_class_map_cols<kElem>(o.n_total, my_shift));
#pragma unroll  // box indexes the accumulators: it must be a constant
  for (int box = 0; box < kBoxes; ++box) {
    uint8_t* slot = slots + (box % kSlots) * kStoreBoxBytes;
    const int col0 = store_box_col0(box, kSpan, kBoxCols);
    const int s0 = col0 & ~15;  // the window: tile columns [s0, s0 + kWinCols)
    // 1. fragment -> window, unshifted. (The previous box's copy out of the window is behind the
    // barrier that ended it.)
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      uint8_t* wrow = window + (16 * warp + lane / 4 + 8 * i) * kPitch;
#pragma unroll
      for (int gg = 0; gg < kWinCols / 8; ++gg) {
        const int g = s0 / 8 + gg;
        if (g < BN / 8) {
          const float v0 = alpha * acc[4 * g + 2 * i], v1 = alpha * acc[4 * g + 2 * i + 1];
          if constexpr (kElem == 4) {
            *reinterpret_cast<float2*>(wrow + (8 * gg + 2 * q) * 4) = make_float2(v0, v1);
          } else {
            *reinterpret_cast<uint32_t*>(wrow + (8 * gg + 2 * q) * 2) = pack_bf16x2(v0, v1);
          }
        }
      }
    }
    if (thread_in_wg == 0) tma_store_wait_read<kSlots - 1>();  // the slot's last store has read it
    named_barrier_sync(barrier_id, 128);                      // the window is written, the slot free
    // 2. window -> the slot's sub-boxes, shifted by the row's class.
#pragma unroll
    for (int pass = 0; pass < 4; ++pass) {
      const int lrow = thread_in_wg / 8 + 16 * pass;  // tile row: class copy_class, class row lrow / 8
      const uint32_t b0 = uint32_t((col0 - s0) * kElem) + copy_shift + 16u * u;
      const uint8_t* src = window + lrow * kPitch + (b0 & ~15u);
      const uint4 lo = *reinterpret_cast<const uint4*>(src);
      const uint4 hi = (b0 & 15u) != 0 ? *reinterpret_cast<const uint4*>(src + 16) : lo;
      const int sub_row = lrow / 8;
      *reinterpret_cast<uint4*>(slot + copy_class * 1024 + sub_row * 128 + 16 * (u ^ sub_row)) =
          funnel_16(lo, hi, b0 & 15u);
    }
    fence_proxy_async_smem();             // the sub-boxes before the async proxy (TMA) reads them
    named_barrier_sync(barrier_id, 128);  // the whole slot is written; the window is read
    // 3. one store per class, one bulk group per box (empty or not).
    if (thread_in_wg == 0) {
#pragma unroll
      for (int j = 0; j < kRowClasses; ++j) {
        const int shift = row_class_shift<kElem>(o.d, o.ldd, j);
        const int rows = o.m_total > j ? (o.m_total - j + 7) / 8 : 0;
        if (y < rows && o.n0 + col0 < row_class_map_cols<kElem>(o.n_total, shift))
          tma_store_2d(&tmaps[j], slot + j * 1024, o.n0 + col0, y);
      }
      tma_store_commit();
    }
  }
}

}  // namespace tilegemm::sm90
