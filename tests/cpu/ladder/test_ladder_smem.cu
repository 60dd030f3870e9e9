// The shared-memory plans of ladder steps 5-9 (common.cuh): each fits the 227 KiB a block may
// opt into, keeps every swizzled tile on a 1024-B boundary, and nothing overlaps.
// A .cu file because common.cuh holds device code too; only its host-side constants are used here.
#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "ladder/common.cuh"

namespace tilegemm::ladder {
namespace {

struct Region {
  int begin, end;
  const char* what;
};

template <class Smem>
void check_plan(const char* name, int expected_stage_bytes) {
  SCOPED_TRACE(name);
  EXPECT_EQ(Smem::stage_bytes, expected_stage_bytes);
  EXPECT_GE(Smem::stages, 3) << "a ring needs >= 3 stages to overlap copies with wgmma";
  EXPECT_LE(Smem::launch_bytes, kMaxDynamicSmem) << "over the 232448-B opt-in limit";
  EXPECT_EQ(Smem::launch_bytes, Smem::used_bytes + 1024) << "1 KiB slack for rounding the base up";
  std::vector<Region> regions;
  for (int s = 0; s < Smem::stages; ++s) {
    EXPECT_EQ(Smem::a_offset(s) % 1024, 0) << "A stage " << s;
    EXPECT_EQ(Smem::b_offset(s) % 1024, 0) << "B stage " << s;
    regions.push_back({Smem::a_offset(s), Smem::a_offset(s) + Smem::a_stage_bytes, "A"});
    regions.push_back({Smem::b_offset(s), Smem::b_offset(s) + Smem::b_stage_bytes, "B"});
    EXPECT_EQ(Smem::full_offset(s) % 8, 0);
    EXPECT_EQ(Smem::empty_offset(s) % 8, 0);
    regions.push_back({Smem::full_offset(s), Smem::full_offset(s) + 8, "full"});
    regions.push_back({Smem::empty_offset(s), Smem::empty_offset(s) + 8, "empty"});
  }
  if (Smem::d_bytes > 0) {
    EXPECT_EQ(Smem::d_offset % 1024, 0) << "D staging";
    regions.push_back({Smem::d_offset, Smem::d_offset + Smem::d_bytes, "D"});
  }
  std::sort(regions.begin(), regions.end(), [](const Region& x, const Region& y) { return x.begin < y.begin; });
  for (size_t i = 1; i < regions.size(); ++i)
    EXPECT_LE(regions[i - 1].end, regions[i].begin) << regions[i - 1].what << " overlaps " << regions[i].what;
  EXPECT_LE(regions.back().end, Smem::used_bytes);
}

TEST(LadderSmemPlan, Step05) { check_plan<Step05Smem>("step 5", 2 * 128 * 64 * 2); }
TEST(LadderSmemPlan, Step06) { check_plan<Step06Smem>("step 6", 2 * 128 * 64 * 2); }
TEST(LadderSmemPlan, Step07) { check_plan<Step07Smem>("step 7", 2 * 128 * 64 * 2); }
TEST(LadderSmemPlan, Step08) { check_plan<Step08Smem>("step 8", 2 * 128 * 64 * 2); }
TEST(LadderSmemPlan, Step09) {
  check_plan<Step09Smem>("step 9", (128 + 256) * 64 * 2);
  // Step 9 keeps 4 stages next to its epilogue staging: 4 x 48 KiB + 32 KiB + barriers + slack.
  EXPECT_EQ(Step09Smem::stages, 4);
  EXPECT_EQ(Step09Smem::d_bytes, 2 * 2 * 64 * 64 * 2);
  EXPECT_EQ(Step09Smem::launch_bytes, 4 * 49152 + 32768 + 64 + 1024);
}

}  // namespace
}  // namespace tilegemm::ladder
