// compute_smem_layout: alignment, ordering, sizes, and the stage count the planner derives from it.
#include <gtest/gtest.h>

#include "sm90/smem_layout.hpp"

namespace tilegemm::sm90 {
namespace {

// Evaluated by the compiler: the function is usable in constant expressions (the JIT and kernels
// use it for template constants).
constexpr SmemLayout k128x128 = compute_smem_layout(128, 128, 64, 4, 2);
static_assert(k128x128.total_bytes == 164928);
static_assert(max_stages_that_fit(128, 256, 64, 2) == 3);
// The production 128x256 config stages its epilogue in 128-column parts: 32 KiB of D, 4 stages.
static_assert(max_stages_that_fit(128, 256, 64, 2, kSmemLimitPerBlock, 2, /*d_stage_cols=*/128) == 4);
static_assert(compute_smem_layout(128, 256, 64, 4, 2, 2, 128).total_bytes == 230464);

TEST(SmemLayout, HandComputed128x128Bf16FourStages) {
  // A stage 128*64*2 = 16384, B stage 16384; 4 stages each -> A [0, 65536), B [65536, 131072);
  // D 128*128*2 = 32768 at 131072; full barriers at 163840, empty at 163872; end 163904;
  // + 1024 base slack = 164928.
  const SmemLayout L = compute_smem_layout(128, 128, 64, 4, 2);
  EXPECT_EQ(L.a_stage_bytes, 16384);
  EXPECT_EQ(L.a_offset(3), 49152);
  EXPECT_EQ(L.b_base, 65536);
  EXPECT_EQ(L.b_offset(2), 65536 + 2 * 16384);
  EXPECT_EQ(L.d_offset, 131072);
  EXPECT_EQ(L.d_bytes, 32768);
  EXPECT_EQ(L.full_barrier(0), 163840);
  EXPECT_EQ(L.empty_barrier(0), 163872);
  EXPECT_EQ(L.empty_barrier(3), 163896);
  EXPECT_EQ(L.barrier_bytes, 64);
  EXPECT_EQ(L.used_bytes, 163904);
  EXPECT_EQ(L.total_bytes, 164928);
  EXPECT_EQ(L.overread_pad, 0);
}

TEST(SmemLayout, AlignmentAndOrderingForEveryPlannerTile) {
  for (int bm : {16, 32, 64, 128, 256}) {
    for (int bn = 8; bn <= 256; bn += 8) {
      for (int d_elem : {2, 4}) {
        for (int d_cols : {0, 8, 64, bn / 2, bn}) {
        if (d_cols > bn) continue;  // 64 > bn for the narrow tiles
        for (int stages = 1; stages <= kMaxStages; ++stages) {
          const SmemLayout L = compute_smem_layout(bm, bn, 64, stages, d_elem, 2, d_cols);
          SCOPED_TRACE(testing::Message() << bm << "x" << bn << " d" << d_elem << " cols" << d_cols << " s" << stages);
          for (int s = 0; s < stages; ++s) {
            ASSERT_EQ(L.a_offset(s) % 1024, 0);  // 128B swizzle: every tile on a 1024-B boundary
            ASSERT_EQ(L.b_offset(s) % 1024, 0);
            ASSERT_EQ(L.full_barrier(s) % 8, 0);
            ASSERT_EQ(L.empty_barrier(s) % 8, 0);
            ASSERT_GE(L.a_stage_stride, L.a_stage_bytes);  // stages never overlap
            ASSERT_GE(L.b_stage_stride, L.b_stage_bytes);
          }
          ASSERT_EQ(L.d_offset % 1024, 0);
          // Regions in order and disjoint: A stages, B stages, D, full barriers, empty barriers.
          ASSERT_LE(L.a_offset(stages - 1) + L.a_stage_bytes, L.b_base);
          ASSERT_LE(L.b_offset(stages - 1) + L.b_stage_bytes, L.d_offset);
          ASSERT_LE(L.d_offset + L.d_bytes, L.full_barrier_base);
          ASSERT_EQ(L.empty_barrier_base, L.full_barrier_base + stages * 8);
          ASSERT_LE(L.empty_barrier(stages - 1) + 8, L.used_bytes);
          // A 64-row WGMMA pass from the last A stage stays inside the allocation.
          ASSERT_LE(L.a_offset(stages - 1) + L.wgmma_a_read_bytes, L.used_bytes);
          ASSERT_EQ(L.total_bytes, L.used_bytes + kSmemBaseSlack);
          const int cols = d_cols == 0 ? bn : d_cols;  // 0 = the full tile
          ASSERT_EQ(L.d_stage_cols, cols);
          ASSERT_EQ(L.d_bytes, bm * cols * d_elem);
          // Staging only moves the barriers: the stages sit where they sit with a full tile.
          const SmemLayout F = compute_smem_layout(bm, bn, 64, stages, d_elem);
          ASSERT_EQ(L.a_base, F.a_base);
          ASSERT_EQ(L.b_base, F.b_base);
          ASSERT_EQ(L.d_offset, F.d_offset);
          ASSERT_LE(L.total_bytes, F.total_bytes);
        }
        }
      }
    }
  }
}

TEST(SmemLayout, DefaultStagingIsTheFullTile) {
  for (int bn : {64, 128, 192, 256}) {
    for (int stages : {1, 3, 4, 6}) {
      const SmemLayout D = compute_smem_layout(128, bn, 64, stages, 2);
      const SmemLayout E = compute_smem_layout(128, bn, 64, stages, 2, 2, bn);
      EXPECT_EQ(D.d_stage_cols, bn);
      EXPECT_EQ(D.d_bytes, E.d_bytes);
      EXPECT_EQ(D.full_barrier_base, E.full_barrier_base);
      EXPECT_EQ(D.total_bytes, E.total_bytes);
    }
    EXPECT_EQ(max_stages_that_fit(128, bn, 64, 2), max_stages_that_fit(128, bn, 64, 2, kSmemLimitPerBlock, 2, bn));
  }
}

TEST(SmemLayout, HandComputed128x256HalfStagingFourStages) {
  // A 4 x 16384 -> [0, 65536); B 4 x 32768 -> [65536, 196608); D 128 x 128 x 2 = 32768 at 196608;
  // full barriers at 229376, empty at 229408; end 229440; + 1024 slack = 230464 <= 232448.
  const SmemLayout L = compute_smem_layout(128, 256, 64, 4, 2, 2, 128);
  EXPECT_EQ(L.b_base, 65536);
  EXPECT_EQ(L.d_offset, 196608);
  EXPECT_EQ(L.d_stage_cols, 128);
  EXPECT_EQ(L.d_bytes, 32768);
  EXPECT_EQ(L.full_barrier(0), 229376);
  EXPECT_EQ(L.empty_barrier(3), 229432);
  EXPECT_EQ(L.used_bytes, 229440);
  EXPECT_EQ(L.total_bytes, 230464);
  EXPECT_TRUE(L.fits());
  EXPECT_FALSE(compute_smem_layout(128, 256, 64, 5, 2, 2, 128).fits());
  // The full tile with 4 stages does not fit: that is why the kernel stages in parts.
  EXPECT_FALSE(compute_smem_layout(128, 256, 64, 4, 2).fits());
}

TEST(SmemLayout, SmallBmReadsSixtyFourRowsIntoValidSmem) {
  const SmemLayout L = compute_smem_layout(16, 16, 64, 3, 2);
  EXPECT_EQ(L.a_stage_bytes, 16 * 128);
  EXPECT_EQ(L.wgmma_a_read_bytes, 64 * 128);  // wgmma M = 64 reads 4x the A stage
  EXPECT_LE(L.a_offset(2) + L.wgmma_a_read_bytes, L.used_bytes);
}

// A tile past the end of M or N: its box starts edge_shift_rows higher, the consumers read that
// much further into the stage. Over every offset of the last block: the box starts at a row >= 0,
// whole 8-row swizzle atoms, at most 7 rows of it past the end when the cap allows, every row of
// the tile inside the operand still read from the box (row0 + i = box row shift + i), and nothing
// for a block inside or for the first.
TEST(SmemLayout, EdgeShiftKeepsTheTileInsideTheBox) {
  for (int rows : {16, 64, 128, 256}) {
    for (int cap : {0, 8, 56, rows - 8}) {
      for (int blocks = 1; blocks <= 3; ++blocks) {
        for (int total = (blocks - 1) * rows + 1; total <= blocks * rows; ++total) {
          const int row0 = (blocks - 1) * rows;
          SCOPED_TRACE(testing::Message() << "rows " << rows << " cap " << cap << " total " << total);
          const int shift = edge_shift_rows(row0, rows, total, cap);
          ASSERT_EQ(shift % 8, 0);
          ASSERT_GE(shift, 0);
          ASSERT_LE(shift, cap);
          ASSERT_GE(row0 - shift, 0);
          if (row0 == 0 || total - row0 == rows) ASSERT_EQ(shift, 0);
          // The tile's rows inside the operand, [row0, total), lie in the box [row0 - shift, + rows).
          ASSERT_LE(total - (row0 - shift), rows);
          const int past = row0 - shift + rows - total;  // box rows past the end
          if (row0 > 0 && cap == rows - 8) ASSERT_LT(past, 8);  // the full cap: at most 7 rows outside
        }
      }
    }
  }
}

// The caps keep the consumers' shifted reads of the last stage inside the used shared memory
// (for every layout the template can have), and give the full shift to the planner's wide tiles.
TEST(SmemLayout, EdgeShiftCapsStayInsideTheUsedBytes) {
  for (int bm : {64, 128}) {
    for (int bn = 8; bn <= 256; bn += 8) {
      for (int d_cols : {0, 64, bn}) {
        if (d_cols > bn) continue;
        for (int stages = 1; stages <= kMaxStages; ++stages) {
          const SmemLayout L = compute_smem_layout(bm, bn, 64, stages, 2, 2, d_cols);
          SCOPED_TRACE(testing::Message() << bm << "x" << bn << " cols" << d_cols << " s" << stages);
          const int a_cap = a_edge_shift_cap(L, bm), b_cap = b_edge_shift_cap(L, bn);
          ASSERT_EQ(a_cap % 8, 0);
          ASSERT_EQ(b_cap % 8, 0);
          ASSERT_LE(a_cap, bm - 8);
          ASSERT_LE(b_cap, bn - 8 < 0 ? 0 : bn - 8);
          ASSERT_LE(L.a_offset(stages - 1) + (bm + a_cap) * 128, L.used_bytes);
          ASSERT_LE(L.b_offset(stages - 1) + (bn + b_cap) * 128, L.used_bytes);
        }
      }
    }
  }
  // The ping-pong 128x128 and the 128x256 tiles get the largest shift on both operands.
  const SmemLayout pp = compute_smem_layout(128, 128, 64, 6, 2, 2, 0, 0, /*d_rows=*/64);
  EXPECT_EQ(a_edge_shift_cap(pp, 128), 120);
  EXPECT_EQ(b_edge_shift_cap(pp, 128), 120);
  const SmemLayout wide = compute_smem_layout(128, 256, 64, 4, 2, 2, 128);
  EXPECT_EQ(a_edge_shift_cap(wide, 128), 120);
  EXPECT_EQ(b_edge_shift_cap(wide, 256), 248);
}

TEST(SmemLayout, MaxStagesIsTheDeepestThatFits) {
  for (int bm : {16, 32, 64, 128, 256}) {
    for (int bn = 16; bn <= 256; bn += 16) {
      for (int d_elem : {2, 4}) {
        const int s = max_stages_that_fit(bm, bn, 64, d_elem);
        ASSERT_LE(s, kAutoMaxStages);
        if (s > 0) ASSERT_TRUE(compute_smem_layout(bm, bn, 64, s, d_elem).fits());
        if (s < kAutoMaxStages) ASSERT_FALSE(compute_smem_layout(bm, bn, 64, s + 1, d_elem).fits());
        int prev = -1;  // a narrower staging never fits fewer stages
        for (int d_cols : {bn, bn / 2, 16}) {
          const int t = max_stages_that_fit(bm, bn, 64, d_elem, kSmemLimitPerBlock, 2, d_cols);
          SCOPED_TRACE(testing::Message() << bm << "x" << bn << " d" << d_elem << " cols" << d_cols);
          ASSERT_LE(t, kAutoMaxStages);
          if (t > 0) ASSERT_TRUE(compute_smem_layout(bm, bn, 64, t, d_elem, 2, d_cols).fits());
          if (t < kAutoMaxStages) ASSERT_FALSE(compute_smem_layout(bm, bn, 64, t + 1, d_elem, 2, d_cols).fits());
          ASSERT_GE(t, prev);
          prev = t;
        }
      }
    }
  }
  // 128x256 BF16: 3 x 48 KiB stages + 64 KiB D + barriers + slack = 214064 B; a 4th stage does not fit.
  EXPECT_EQ(compute_smem_layout(128, 256, 64, 3, 2).total_bytes, 3 * 49152 + 65536 + 48 + 1024);
  EXPECT_EQ(max_stages_that_fit(128, 256, 64, 2), 3);
  // 256x256 FP32 output: the 256 KiB D tile alone exceeds 227 KiB.
  EXPECT_EQ(max_stages_that_fit(256, 256, 64, 4), 0);
}

}  // namespace
}  // namespace tilegemm::sm90

namespace tilegemm::sm90 {
void* smem_layout_device_probe_address();  // smem_layout_device.cu
namespace {
TEST(SmemLayout, DeviceProbeKernelIsCompiledIntoTheTest) {
  EXPECT_NE(smem_layout_device_probe_address(), nullptr);
}
}  // namespace
}  // namespace tilegemm::sm90
