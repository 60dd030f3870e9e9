// The encode arguments of the ladder's tensor maps, checked without a driver: what
// make_2d_tile_args computes for A, B and D, and that every broken cuda.h rule comes back as a
// message naming the argument (docs/HOPPER.md §7, §12 pitfall 9).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "sm90/tensor_map.hpp"

namespace tilegemm::sm90 {
namespace {

alignas(256) const unsigned char kBuffer[256] = {};
const void* aligned_ptr() { return kBuffer; }

TEST(TensorMapArgs, KMajorOperandBox128x64Swizzle128) {
  // A [M = 4096, K = 8192] K-major bf16, boxes of 128 rows x 64 k: one 128-B swizzled line per row.
  TensorMapArgs a;
  const Matrix2d m{aligned_ptr(), 4096, 8192, 8192, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16};
  ASSERT_EQ(make_2d_tile_args(m, Box2d{64, 128}, CU_TENSOR_MAP_SWIZZLE_128B, &a), "");
  EXPECT_EQ(a.rank, 2u);
  EXPECT_EQ(a.dtype, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
  EXPECT_EQ(a.global_address, aligned_ptr());
  EXPECT_EQ(a.global_dim[0], 8192u);  // dimension 0 is the contiguous one: K
  EXPECT_EQ(a.global_dim[1], 4096u);
  EXPECT_EQ(a.global_strides[0], 8192u * 2);  // bytes from row to row
  EXPECT_EQ(a.box_dim[0], 64u);               // 64 bf16 = 128 B = the swizzle span
  EXPECT_EQ(a.box_dim[1], 128u);
  EXPECT_EQ(a.element_strides[0], 1u);
  EXPECT_EQ(a.element_strides[1], 1u);
  EXPECT_EQ(a.interleave, CU_TENSOR_MAP_INTERLEAVE_NONE);
  EXPECT_EQ(a.swizzle, CU_TENSOR_MAP_SWIZZLE_128B);
  EXPECT_EQ(a.oob_fill, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);  // zeros past the edge
}

TEST(TensorMapArgs, MnMajorChunkBoxesSpanTheirSwizzle) {
  // An MN-major operand's chunk of W elements is one box of W x 64 whose rows are exactly the
  // swizzle span (2W bytes): the encode rules accept it, including a matrix narrower than the box
  // (M = 8 under a 16-wide chunk: TMA zero-fills the rest).
  for (int w : {64, 32, 16}) {
    const CUtensorMapSwizzle sw = mn_chunk_tensor_swizzle(w);
    EXPECT_EQ(tensor_map_swizzle_span(sw), uint32_t(2 * w)) << w;
    for (uint64_t mn : {uint64_t(4096), uint64_t(8)}) {
      TensorMapArgs a;
      const Matrix2d m{aligned_ptr(), 4096, mn, mn, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16};
      EXPECT_EQ(make_2d_tile_args(m, Box2d{uint32_t(w), 64}, sw, &a), "") << w << " " << mn;
      EXPECT_EQ(a.swizzle, sw);
    }
  }
}

TEST(TensorMapArgs, OutputBoxUsesNAsInnerDimension) {
  // D [M = 256, N = 512] row-major, TMA-store boxes of 64 rows x 64 columns (step 9's epilogue).
  TensorMapArgs a;
  const Matrix2d d{aligned_ptr(), 256, 512, 512, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16};
  ASSERT_EQ(make_2d_tile_args(d, Box2d{64, 64}, CU_TENSOR_MAP_SWIZZLE_128B, &a), "");
  EXPECT_EQ(a.global_dim[0], 512u);
  EXPECT_EQ(a.global_dim[1], 256u);
  EXPECT_EQ(a.global_strides[0], 1024u);
}

TEST(TensorMapArgs, LeadingDimensionLargerThanColsIsAllowed) {
  TensorMapArgs a;
  const Matrix2d m{aligned_ptr(), 100, 64, 72, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16};
  EXPECT_EQ(make_2d_tile_args(m, Box2d{64, 64}, CU_TENSOR_MAP_SWIZZLE_128B, &a), "");
  EXPECT_EQ(a.global_strides[0], 144u);
}

// L2 promotion: 256 B for rows on 128-B L2 lines, 128 B for rows that start off them (inside a
// 32-B sector, or on a sector between lines: an ld or base not a multiple of 128 B); a single row
// has only its base.
TEST(TensorMapArgs, L2PromotionFollowsTheRowsLines) {
  const unsigned char* base = static_cast<const unsigned char*>(aligned_ptr());
  const struct {
    const void* ptr;
    uint64_t rows, ld;
    CUtensorMapL2promotion want;
  } cases[] = {{base, 4096, 8192, CU_TENSOR_MAP_L2_PROMOTION_L2_256B},  // 16384-B rows on lines
               {base, 3000, 3000, CU_TENSOR_MAP_L2_PROMOTION_L2_128B},  // 6000-B rows: every other one inside a sector
               {base, 100, 72, CU_TENSOR_MAP_L2_PROMOTION_L2_128B},     // 144-B rows
               {base + 16, 100, 64, CU_TENSOR_MAP_L2_PROMOTION_L2_128B},  // base 16 B past a sector
               {base, 4096, 2000, CU_TENSOR_MAP_L2_PROMOTION_L2_128B},  // 4000-B rows: on sectors, off lines
               {base, 4096, 2016, CU_TENSOR_MAP_L2_PROMOTION_L2_128B},  // 4032-B rows: half a line off
               {base + 32, 64, 64, CU_TENSOR_MAP_L2_PROMOTION_L2_128B},  // base on a sector, off a line
               {base + 128, 64, 64, CU_TENSOR_MAP_L2_PROMOTION_L2_256B},  // base one line in
               {base, 1, 72, CU_TENSOR_MAP_L2_PROMOTION_L2_256B},       // one row: only its base counts
               {base + 32, 1, 64, CU_TENSOR_MAP_L2_PROMOTION_L2_128B}};
  for (const auto& c : cases) {
    TensorMapArgs a;
    const Matrix2d m{c.ptr, c.rows, 64, c.ld, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16};
    ASSERT_EQ(make_2d_tile_args(m, Box2d{64, 64}, CU_TENSOR_MAP_SWIZZLE_128B, &a), "");
    EXPECT_EQ(a.l2_promotion, c.want) << "rows " << c.rows << " ld " << c.ld;
    EXPECT_EQ(l2_promotion_for(m), c.want);
  }
}

// Every rule a caller can break names the argument, the value and the rule.
void expect_error(const std::string& e, const std::string& argument, const std::string& rule) {
  EXPECT_NE(e.find(argument), std::string::npos) << "message: " << e;
  EXPECT_NE(e.find(rule), std::string::npos) << "message: " << e;
}

TEST(TensorMapArgs, StrideNotMultipleOf16IsRejected) {
  // K = 100 bf16 = 200 B per row: the leading dimension breaks TMA's 16-B stride rule.
  TensorMapArgs a;
  const Matrix2d m{aligned_ptr(), 128, 100, 100, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16};
  expect_error(make_2d_tile_args(m, Box2d{64, 128}, CU_TENSOR_MAP_SWIZZLE_128B, &a), "globalStrides[0] = 200",
               "multiple of 16");
}

TEST(TensorMapArgs, InnerBoxWiderThanSwizzleSpanIsRejected) {
  TensorMapArgs a;
  const Matrix2d m{aligned_ptr(), 128, 256, 256, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16};
  // 128 bf16 = 256 B > 128 B: the cuda.h rule fast.cu and DeepGEMM work around with 64-wide boxes.
  expect_error(make_2d_tile_args(m, Box2d{128, 64}, CU_TENSOR_MAP_SWIZZLE_128B, &a), "boxDim[0] = 128",
               "<= 128 bytes");
  // 64B swizzle: 32 bf16 at most.
  expect_error(make_2d_tile_args(m, Box2d{64, 64}, CU_TENSOR_MAP_SWIZZLE_64B, &a), "boxDim[0] = 64",
               "<= 64 bytes");
  // Without a swizzle the wide box is legal.
  EXPECT_EQ(make_2d_tile_args(m, Box2d{128, 64}, CU_TENSOR_MAP_SWIZZLE_NONE, &a), "");
}

TEST(TensorMapArgs, BoxRangeIsChecked) {
  TensorMapArgs a;
  const Matrix2d m{aligned_ptr(), 1024, 64, 64, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16};
  expect_error(make_2d_tile_args(m, Box2d{64, 512}, CU_TENSOR_MAP_SWIZZLE_128B, &a), "boxDim[1] = 512",
               "[1, 256]");
  expect_error(make_2d_tile_args(m, Box2d{64, 0}, CU_TENSOR_MAP_SWIZZLE_128B, &a), "boxDim[1] = 0", "[1, 256]");
  // 4 bf16 = 8 B: the inner box must be a multiple of 16 B.
  expect_error(make_2d_tile_args(m, Box2d{4, 64}, CU_TENSOR_MAP_SWIZZLE_NONE, &a), "boxDim[0] = 4",
               "multiple of 16 bytes");
}

TEST(TensorMapArgs, AddressMustBe16ByteAlignedAndNotNull) {
  TensorMapArgs a;
  const Matrix2d misaligned{static_cast<const unsigned char*>(aligned_ptr()) + 8, 128, 64, 64,
                            CU_TENSOR_MAP_DATA_TYPE_BFLOAT16};
  expect_error(make_2d_tile_args(misaligned, Box2d{64, 128}, CU_TENSOR_MAP_SWIZZLE_128B, &a), "globalAddress",
               "16-byte aligned");
  const Matrix2d null{nullptr, 128, 64, 64, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16};
  expect_error(make_2d_tile_args(null, Box2d{64, 128}, CU_TENSOR_MAP_SWIZZLE_128B, &a), "globalAddress", "null");
}

TEST(TensorMapArgs, DimensionRangeIsChecked) {
  TensorMapArgs a;
  const Matrix2d empty{aligned_ptr(), 0, 64, 64, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16};
  expect_error(make_2d_tile_args(empty, Box2d{64, 128}, CU_TENSOR_MAP_SWIZZLE_128B, &a), "globalDim[1] = 0",
               "[1, 2^32]");
  const Matrix2d overlapping{aligned_ptr(), 16, 64, 32, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16};
  expect_error(make_2d_tile_args(overlapping, Box2d{64, 16}, CU_TENSOR_MAP_SWIZZLE_128B, &a), "ld = 32",
               ">= cols");
}

TEST(TensorMapArgs, DirectChecksCoverRankAndElementStrides) {
  TensorMapArgs a;
  a.global_address = aligned_ptr();
  a.rank = 2;
  a.global_dim[0] = 64;
  a.global_dim[1] = 64;
  a.global_strides[0] = 128;
  a.box_dim[0] = 64;
  a.box_dim[1] = 64;
  EXPECT_EQ(check_tensor_map_args(a), "");
  TensorMapArgs bad_rank = a;
  bad_rank.rank = 6;
  expect_error(check_tensor_map_args(bad_rank), "tensorRank = 6", "[1, 5]");
  TensorMapArgs bad_estride = a;
  bad_estride.element_strides[1] = 9;
  expect_error(check_tensor_map_args(bad_estride), "elementStrides[1] = 9", "[1, 8]");
  TensorMapArgs huge_stride = a;
  huge_stride.global_strides[0] = uint64_t(1) << 40;
  expect_error(check_tensor_map_args(huge_stride), "globalStrides[0]", "< 2^40");
}

TEST(TensorMapArgs, SwizzleSpansAndElementSizes) {
  EXPECT_EQ(tensor_map_swizzle_span(CU_TENSOR_MAP_SWIZZLE_NONE), 0u);
  EXPECT_EQ(tensor_map_swizzle_span(CU_TENSOR_MAP_SWIZZLE_32B), 32u);
  EXPECT_EQ(tensor_map_swizzle_span(CU_TENSOR_MAP_SWIZZLE_64B), 64u);
  EXPECT_EQ(tensor_map_swizzle_span(CU_TENSOR_MAP_SWIZZLE_128B), 128u);
  EXPECT_EQ(tensor_map_element_bytes(CU_TENSOR_MAP_DATA_TYPE_BFLOAT16), 2u);
  EXPECT_EQ(tensor_map_element_bytes(CU_TENSOR_MAP_DATA_TYPE_FLOAT32), 4u);
}

}  // namespace
}  // namespace tilegemm::sm90
