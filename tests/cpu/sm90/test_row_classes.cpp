// A read through its row classes (sm90/gemm/row_classes.hpp, Config::a_classes): every element of
// an A with any leading dimension and base is found at the class tensor's element (row / 8,
// k + shift) from a 16-B aligned base with a 16-B row stride; the class boxes cover every K window
// the consumers read; the stage layout and the kernel template's rule for such configs.
#include <gtest/gtest.h>

#include <cstdint>

#include "sm90/gemm/config.hpp"
#include "sm90/gemm/row_classes.hpp"
#include "sm90/gemm/traits.cuh"

namespace tilegemm::sm90 {
namespace {

TEST(RowClasses, EveryElementIsItsClassTensorsElementAtTheShift) {
  int checked = 0;
  for (int64_t lda : {1, 3, 7, 9, 13, 100, 2047, 2049, 4097, 4100, 8191})
    for (uint64_t off_elems = 0; off_elems < 8; ++off_elems) {
      const uint64_t a = 0x10000 + 2 * off_elems;  // any 2-B aligned base
      const int64_t rows = 37;
      int64_t total_rows = 0;
      for (int r = 0; r < kRowClasses; ++r) {
        const RowClass rc = row_class(a, lda, r);
        EXPECT_EQ(rc.base % 16, 0u);
        EXPECT_GE(rc.shift, 0);
        EXPECT_LT(rc.shift, 8);
        const int64_t class_rows = row_class_rows(rows, r);
        total_rows += class_rows;
        // (row, k) of A lies at the class tensor's (q, k + shift), its rows 16 · lda B apart.
        for (int64_t q = 0; q < class_rows; ++q)
          for (int64_t k : {int64_t{0}, int64_t{1}, int64_t{5}, lda - 1}) {
            if (k < 0) continue;
            const int64_t row = 8 * q + r;
            const uint64_t in_a = a + uint64_t(2 * (row * lda + k));
            const uint64_t in_class = rc.base + uint64_t(q) * uint64_t(16 * lda) + uint64_t(2 * (k + rc.shift));
            EXPECT_EQ(in_a, in_class) << "lda " << lda << " off " << off_elems << " row " << row << " k " << k;
            ++checked;
          }
      }
      EXPECT_EQ(total_rows, rows) << "the classes partition the rows";
    }
  EXPECT_GT(checked, 1000);
}

TEST(RowClasses, ShiftsPackIntoOneWord) {
  const int shifts[kRowClasses] = {7, 0, 5, 2, 3, 6, 1, 4};
  const uint32_t packed = pack_class_shifts(shifts);
  for (int r = 0; r < kRowClasses; ++r) EXPECT_EQ(class_shift(packed, r), shifts[r]);
}

TEST(RowClasses, BoxesCoverEveryShiftedWindowAndStartOnTheSameBank) {
  // A k-block's window of 64 elements, shifted by up to 7, fits the box's columns; the fragment
  // loads read word (k + s) / 2 and the next for each pair's first column k (even, at most 62),
  // so at most word 35, the last of the 36 in a row.
  EXPECT_GE(kClassBoxCols, 64 + 7);
  EXPECT_EQ(kClassBoxCols % 8, 0) << "box rows of whole 16-B chunks (TMA)";
  EXPECT_LE((62 + 7) / 2 + 1, kClassRowBytes / 4 - 1);
  for (int bm : {64, 128}) {
    EXPECT_EQ(class_block_bytes(bm) % 128, 0) << "TMA's unswizzled destinations are 128-B aligned";
    EXPECT_GE(class_block_bytes(bm), class_box_rows(bm) * kClassRowBytes);
    // Class r's rows sit r rows into its box: the tile's last class row must still be inside.
    EXPECT_LE(bm / 8 - 1 + (kRowClasses - 1), class_box_rows(bm) - 1);
    EXPECT_EQ(class_tx_bytes(bm), kRowClasses * class_box_rows(bm) * kClassRowBytes);
    // Rows of 36 words: row i of a box is 4 · i banks on from its first, so lanes reading row
    // (q + r) of class r (r = lane / 4) hit bank groups 4 · (q + r) apart.
    EXPECT_EQ((kClassRowBytes / 4) % 32, 4);
  }
}

Config classes_config(int bm, int bn) {
  Config c;
  c.bm = bm;
  c.bn = bn;
  c.a_classes = true;
  c.epilogue = Epilogue::tma_store;
  c.stage_cols = whole_stage_cols(bn, DType::bf16);
  c.stages = 3;
  return c;
}

TEST(RowClasses, KernelTemplateRule) {
  Config c = classes_config(128, 256);
  c.stage_cols = 128;
  EXPECT_EQ(check_kernel_config(c), ConfigRule::ok);
  Config pp = c;
  pp.pingpong = true;
  pp.bn = 128;
  pp.stage_cols = 128;
  EXPECT_EQ(check_kernel_config(pp), ConfigRule::a_classes);
  Config sets = classes_config(64, 32);
  sets.epilogue = Epilogue::direct;
  sets.stage_cols = 0;
  sets.acc_sets = 2;
  EXPECT_EQ(check_kernel_config(sets), ConfigRule::a_classes);
  Config mc = c;
  mc.cluster_n = 2;
  mc.mapping.kind = sched::MappingKind::grouped_n;
  EXPECT_EQ(check_kernel_config(mc), ConfigRule::a_classes);
  Config mn = c;
  mn.a_major = Major::mn_major;
  EXPECT_EQ(check_kernel_config(mn), ConfigRule::a_classes);
  Config swap = classes_config(128, 64);
  swap.d_col_major = true;
  EXPECT_EQ(check_kernel_config(swap), ConfigRule::a_classes);
}

TEST(RowClasses, StageLayoutHoldsTheClassBoxes) {
  for (int bm : {64, 128})
    for (int bn : {64, 128, 256}) {
      Config c = classes_config(bm, bn);
      c.stage_cols = 64;
      const SmemLayout plain = config_smem_layout([&] {
        Config p = c;
        p.a_classes = false;
        return p;
      }());
      const SmemLayout L = config_smem_layout(c);
      EXPECT_EQ(L.a_stage_bytes, class_stage_bytes(bm));
      EXPECT_GT(L.a_stage_bytes, plain.a_stage_bytes);
      EXPECT_EQ(L.a_stage_stride % 1024, 0);
      EXPECT_GE(L.b_base, L.a_offset(L.stages - 1) + class_stage_bytes(bm)) << "B after the last class stage";
      EXPECT_GE(config_max_stages(c, kSmemLimitPerBlock), 3) << bm << "x" << bn;
    }
}

}  // namespace
}  // namespace tilegemm::sm90
