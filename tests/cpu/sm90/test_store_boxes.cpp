// The staged epilogues' store boxes (sm90/gemm/config.hpp: store_boxes, store_box_col0) and the
// kernel template's rule for them (check_kernel_config, epilogue_boxes).
#include <gtest/gtest.h>

#include <vector>

#include "sm90/gemm/config.hpp"
#include "sm90/gemm/traits.cuh"

namespace tilegemm::sm90 {
namespace {

TEST(StoreBoxes, TheBoxesCoverTheTileExactlyAndStayInsideIt) {
  for (DType out : {DType::bf16, DType::fp32}) {
    const int box = store_box_cols(out);
    for (int bn = box; bn <= 256; bn += 8) {
      SCOPED_TRACE(testing::Message() << (out == DType::fp32 ? "fp32" : "bf16") << " bn " << bn);
      const int boxes = store_boxes(bn, out);
      EXPECT_EQ(boxes, (bn + box - 1) / box);
      std::vector<int> writers(bn, 0);
      for (int b = 0; b < boxes; ++b) {
        const int c0 = store_box_col0(b, bn, box);
        ASSERT_GE(c0, 0);
        ASSERT_LE(c0 + box, bn);      // never a column of the next tile
        ASSERT_EQ(c0 % 8, 0);         // whole 8-column fragment groups (stmatrix from any group, write_box)
        if (b + 1 < boxes) EXPECT_EQ(c0, b * box);
        for (int c = c0; c < c0 + box; ++c) ++writers[c];
      }
      int twice = 0;
      for (int c = 0; c < bn; ++c) {
        ASSERT_GE(writers[c], 1) << "column " << c << " is in no box";
        ASSERT_LE(writers[c], 2);
        twice += writers[c] == 2;
      }
      EXPECT_EQ(twice, bn % box == 0 ? 0 : box - bn % box);  // only the last box overlaps
    }
  }
}

Config staged(int bn, DType out, int stage_cols, bool with_c) {
  Config c;
  c.bm = 128;
  c.bn = bn;
  c.stages = 4;
  c.out_dtype = out;
  c.with_c = with_c;
  c.stage_cols = stage_cols;
  c.epilogue = Epilogue::tma_store;
  return c;
}

TEST(StoreBoxes, TheTemplateTakesOverlappingBoxesWithOrWithoutC) {
  // bf16: 144 = 64 + 64 + 16 -> three boxes, the last from column 80.
  EXPECT_EQ(check_kernel_config(staged(144, DType::bf16, 192, false)), ConfigRule::ok);
  EXPECT_EQ(check_kernel_config(staged(144, DType::bf16, 64, false)), ConfigRule::ok);    // 1 slot of 3
  EXPECT_EQ(check_kernel_config(staged(144, DType::bf16, 128, false)), ConfigRule::epilogue_boxes);  // 2 of 3
  EXPECT_EQ(check_kernel_config(staged(144, DType::bf16, 256, false)), ConfigRule::epilogue_boxes);  // > boxes
  // With C too (the planner offers it only when C is not D: staged_overlapping_c).
  EXPECT_EQ(check_kernel_config(staged(144, DType::bf16, 192, true)), ConfigRule::ok);
  EXPECT_TRUE(staged_overlapping_c(staged(144, DType::bf16, 192, true)));
  EXPECT_FALSE(staged_overlapping_c(staged(144, DType::bf16, 192, false)));
  EXPECT_FALSE(staged_overlapping_c(staged(256, DType::bf16, 128, true)));
  EXPECT_TRUE(staged_overlapping_c(staged(208, DType::fp32, 224, true)));
  EXPECT_EQ(check_kernel_config(staged(48, DType::bf16, 64, false)), ConfigRule::epilogue_boxes);    // < 1 box
  EXPECT_EQ(check_kernel_config(staged(256, DType::bf16, 128, true)), ConfigRule::ok);
  // fp32: 32-column boxes; 208 = 6 x 32 + 16 -> seven boxes.
  EXPECT_EQ(check_kernel_config(staged(208, DType::fp32, 32, false)), ConfigRule::ok);
  EXPECT_EQ(check_kernel_config(staged(208, DType::fp32, 224, false)), ConfigRule::ok);
  EXPECT_EQ(check_kernel_config(staged(208, DType::fp32, 64, false)), ConfigRule::epilogue_boxes);
  Config direct = staged(144, DType::bf16, 0, true);
  direct.epilogue = Epilogue::direct;
  EXPECT_EQ(check_kernel_config(direct), ConfigRule::ok);
  // The staging smem holds whole boxes: three for 144 fully staged, one when partly.
  EXPECT_FALSE(partly_staged(staged(144, DType::bf16, 192, false)));
  EXPECT_TRUE(partly_staged(staged(144, DType::bf16, 64, false)));
  EXPECT_EQ(config_smem_layout(staged(144, DType::bf16, 192, false)).d_bytes, 2 * 3 * kStoreBoxBytes);
  EXPECT_EQ(config_smem_layout(staged(144, DType::bf16, 64, false)).d_bytes, 2 * 1 * kStoreBoxBytes);
}

// Swap-AB's transposed boxes with C (trans_box_width, trans_sub_box_cols): every box is whole
// sub-boxes, a tile 8 columns past a multiple of 16 takes sub-boxes of 8 rows (the last box's
// 8-column tail, write_box's stmatrix .x2), and the template takes those widths.
TEST(StoreBoxes, TransposedBoxesAreWholeSubBoxesForEveryWidth) {
  for (int bn = 64; bn <= 256; bn += 8) {
    SCOPED_TRACE(testing::Message() << "bn " << bn);
    const int sub = trans_sub_box_cols(bn);
    EXPECT_EQ(bn % sub, 0);
    EXPECT_EQ(sub, bn % 64 == 0 ? 64 : bn % 32 == 0 ? 32 : bn % 16 == 0 ? 16 : 8);
    int covered = 0;
    for (int b = 0; b < store_boxes(bn, DType::bf16); ++b) {
      const int w = trans_box_width(b, bn);
      EXPECT_GT(w, 0);
      EXPECT_EQ(w % sub, 0);
      covered += w;
    }
    EXPECT_EQ(covered, bn);  // no overlap: C may be D
    Config c = staged(bn, DType::bf16, whole_stage_cols(bn, DType::bf16), true);
    c.d_col_major = true;
    EXPECT_TRUE(staged_trans_c(c));
    EXPECT_EQ(check_kernel_config(c), ConfigRule::ok);
  }
  Config odd = staged(100, DType::bf16, 128, false);
  EXPECT_EQ(check_kernel_config(odd), ConfigRule::tile_n);
}

// Ping-pong consumers (Config::pingpong): whole tiles, no k-split, accumulators within what ptxas
// keeps in registers, two consumers' staging whatever BM is.
TEST(Pingpong, TheTemplateBoundsItsAccumulatorsAndStaging) {
  Config c = staged(176, DType::bf16, 192, false);
  c.pingpong = true;
  EXPECT_EQ(c.consumers(), 2);
  EXPECT_EQ(c.row_blocks(), 2);
  EXPECT_EQ(c.accumulators(), 176);
  EXPECT_EQ(check_kernel_config(c), ConfigRule::ok);
  c.bn = 192;  // 192 accumulators: spills
  EXPECT_EQ(check_kernel_config(c), ConfigRule::pingpong);
  c.bn = 176;
  c.stream_k = true;
  EXPECT_EQ(check_kernel_config(c), ConfigRule::pingpong);
  c.stream_k = false;
  c.epilogue = Epilogue::direct;
  c.stage_cols = 0;
  c.with_c = true;  // the direct epilogue reading C: at most 128
  EXPECT_EQ(check_kernel_config(c), ConfigRule::pingpong);
  c.bn = 128;
  EXPECT_EQ(check_kernel_config(c), ConfigRule::ok);
  Config t = staged(176, DType::bf16, 192, false);  // the threads' copy-out: at most 144
  t.pingpong = true;
  t.epilogue = Epilogue::smem_stores;
  EXPECT_EQ(check_kernel_config(t), ConfigRule::pingpong);
  t.bn = 144;
  EXPECT_EQ(check_kernel_config(t), ConfigRule::ok);
  // C loaded by TMA into slots reused box by box, as with cooperative consumers.
  Config sc = staged(128, DType::fp32, 32, true);
  sc.pingpong = true;
  EXPECT_EQ(check_kernel_config(sc), ConfigRule::ok);
  // BM = 64: one 64-row block each, yet two consumers stage their own boxes.
  Config s = staged(256, DType::bf16, 256, false);
  s.bm = 64;
  s.pingpong = true;
  EXPECT_EQ(s.consumers(), 2);
  EXPECT_EQ(s.accumulators(), 128);
  EXPECT_EQ(check_kernel_config(s), ConfigRule::ok);
  EXPECT_EQ(config_smem_layout(s).d_bytes, 2 * 64 * 256 * 2);
  s.pingpong = false;
  EXPECT_EQ(config_smem_layout(s).d_bytes, 64 * 256 * 2);
}

}  // namespace
}  // namespace tilegemm::sm90
