// A K-major A whose rows TMA cannot describe (a leading dimension that is not a multiple of 8
// elements, or a base that is not 16-B aligned), read in place through row classes
// (Config::a_classes): rows r, r + 8, r + 16, ... lie 8 · lda elements apart, a multiple of 16 B,
// so each class r (0..7) is a 2-D tensor TMA can describe from the 16-B boundary at or before its
// first row's start. Its rows then sit `shift` (0..7) elements into each TMA row: the class's
// tensor has K + shift columns, and element (row, k) of A is its element (row, k + shift).
//
// Per stage the producer loads the tile's 8 classes, each one box of kClassBoxCols columns from
// the k-block's first column (64 K plus the up to 7 the shift moves it) by class_box_rows(bm) rows,
// unswizzled, into its own block of the stage; class r's box starts r rows above the tile (rows of
// zeros above the first tile), so that the same row of every class falls on another 4-bank group.
// The consumers load their wgmma A fragments from there into registers (wgmma with A from
// registers), each pair of elements from two 32-bit words joined at the class's shift.
// Plain constexpr (TG_HD): the host encodes the maps with the same numbers the kernel reads
// (tests/cpu/sm90/test_row_classes.cpp).
#pragma once

#include "core/host_device.hpp"
#include "core/int_types.hpp"

namespace tilegemm::sm90 {

inline constexpr int kRowClasses = 8;            // rows 8 apart: 8 · lda · 2 B, a multiple of 16 B
inline constexpr int kClassBoxCols = 72;         // one k-block (64) plus the largest shift (7), rounded to 16 B
inline constexpr int kClassRowBytes = kClassBoxCols * 2;  // 144 B: 36 words, 4 banks on per row
// Rows of one class's box: the tile's bm / 8 rows of the class and 7 above them (class r's box
// starts r rows above the tile's first row of the class; the other 7 - r are below its last).
TG_HD constexpr int class_box_rows(int bm) { return bm / kRowClasses + kRowClasses - 1; }
// One class's block in the stage: its box, rounded up to 128 B (TMA's unswizzled shared-memory
// alignment), so every block starts on the same bank.
TG_HD constexpr int class_block_bytes(int bm) { return (class_box_rows(bm) * kClassRowBytes + 127) / 128 * 128; }
TG_HD constexpr int class_stage_bytes(int bm) { return kRowClasses * class_block_bytes(bm); }
// Bytes one stage's class boxes bring (the full barrier's transaction count: whole boxes, zero
// rows and columns included).
TG_HD constexpr int class_tx_bytes(int bm) { return kRowClasses * class_box_rows(bm) * kClassRowBytes; }

// Class r of an A at byte address `a_addr` with leading dimension `lda` (elements): where its
// tensor starts (16-B aligned) and how many elements its rows sit into their TMA rows.
struct RowClass {
  uint64_t base = 0;  // byte address, a multiple of 16
  int shift = 0;      // 0..7 elements
};
TG_HD constexpr RowClass row_class(uint64_t a_addr, int64_t lda, int r) {
  const uint64_t first = a_addr + uint64_t(2 * lda * r);
  return RowClass{first & ~uint64_t{15}, int((first & 15u) / 2u)};
}
// Rows of class r in an A of `rows` rows: ceil((rows - r) / 8), 0 when rows <= r.
TG_HD constexpr int64_t row_class_rows(int64_t rows, int r) {
  return rows > r ? (rows - r + kRowClasses - 1) / kRowClasses : 0;
}
// The 8 shifts packed for the kernel (GemmParams::a_class_shifts): class r's in bits [4r, 4r + 4).
TG_HD constexpr uint32_t pack_class_shifts(const int (&shift)[kRowClasses]) {
  uint32_t s = 0;
  for (int r = 0; r < kRowClasses; ++r) s |= uint32_t(shift[r] & 15) << (4 * r);
  return s;
}
TG_HD constexpr int class_shift(uint32_t packed, int r) { return int((packed >> (4 * r)) & 15u); }

}  // namespace tilegemm::sm90
