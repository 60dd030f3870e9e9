// compute_smem_layout: alignment, ordering, sizes, and the stage count the planner derives from it.
#include <gtest/gtest.h>

#include "plan/smem_layout.hpp"

namespace tilegemm::plan {
namespace {

// Evaluated by the compiler: the function is usable in constant expressions (the JIT and kernels
// use it for template constants).
constexpr SmemLayout k128x128 = compute_smem_layout(128, 128, 64, 4, 2);
static_assert(k128x128.total_bytes == 164928);
static_assert(max_stages_that_fit(128, 256, 64, 2) == 3);

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
        for (int stages = 1; stages <= kMaxStages; ++stages) {
          const SmemLayout L = compute_smem_layout(bm, bn, 64, stages, d_elem);
          SCOPED_TRACE(testing::Message() << bm << "x" << bn << " d" << d_elem << " s" << stages);
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
          ASSERT_EQ(L.d_bytes, bm * bn * d_elem);
        }
      }
    }
  }
}

TEST(SmemLayout, SmallBmReadsSixtyFourRowsIntoValidSmem) {
  const SmemLayout L = compute_smem_layout(16, 16, 64, 3, 2);
  EXPECT_EQ(L.a_stage_bytes, 16 * 128);
  EXPECT_EQ(L.wgmma_a_read_bytes, 64 * 128);  // wgmma M = 64 reads 4x the A stage
  EXPECT_LE(L.a_offset(2) + L.wgmma_a_read_bytes, L.used_bytes);
}

TEST(SmemLayout, MaxStagesIsTheDeepestThatFits) {
  for (int bm : {16, 32, 64, 128, 256}) {
    for (int bn = 16; bn <= 256; bn += 16) {
      for (int d_elem : {2, 4}) {
        const int s = max_stages_that_fit(bm, bn, 64, d_elem);
        ASSERT_LE(s, kMaxStages);
        if (s > 0) ASSERT_TRUE(compute_smem_layout(bm, bn, 64, s, d_elem).fits());
        if (s < kMaxStages) ASSERT_FALSE(compute_smem_layout(bm, bn, 64, s + 1, d_elem).fits());
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
}  // namespace tilegemm::plan

namespace tilegemm::plan {
void* smem_layout_device_probe_address();  // smem_layout_device.cu
namespace {
TEST(SmemLayout, DeviceProbeKernelIsCompiledIntoTheTest) {
  EXPECT_NE(smem_layout_device_probe_address(), nullptr);
}
}  // namespace
}  // namespace tilegemm::plan
