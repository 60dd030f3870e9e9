// Tensor-parallel chunk schedules (src/schedule/tp_chunks.hpp), checked row by row against what
// they promise: all-gather + GEMM computes an m-block only once every row it reads has landed;
// GEMM + reduce-scatter has computed every row of a chunk by the step it is sent; each step's
// m-blocks are one contiguous range; every m-block is computed exactly once.
#include <gtest/gtest.h>

#include <vector>

#include "schedule/tp_chunks.hpp"

namespace tilegemm::sched {
namespace {

constexpr int kMaxWorld = 16;

TEST(TpChunks, RowChunksPartitionTheRows) {
  for (int64_t rows : {1, 5, 7, 64, 100, 1000, 4097})
    for (int parts = 1; parts <= kMaxWorld; ++parts) {
      const RowChunks ch{rows, parts};
      EXPECT_EQ(ch.begin(0), 0);
      EXPECT_EQ(ch.end(parts - 1), rows);
      for (int c = 0; c < parts; ++c) {
        EXPECT_LE(ch.begin(c), ch.end(c));
        EXPECT_LE(ch.end(c) - ch.begin(c), rows / parts + 1);  // balanced: sizes differ by at most 1
      }
      for (int64_t row = 0; row < rows; ++row) {
        const int c = ch.of_row(row);
        ASSERT_TRUE(c >= 0 && c < parts);
        EXPECT_TRUE(ch.begin(c) <= row && row < ch.end(c)) << rows << " rows, " << parts << " parts, row " << row;
      }
    }
}

struct Case {
  int64_t rows;
  int block_m, world, rank;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (int64_t rows : {1, 3, 63, 64, 65, 127, 129, 200, 384, 1000, 1025, 4096, 8191})
    for (int block_m : {64, 128})
      for (int world : {1, 2, 3, 4, 5, 8, 16})
        for (int rank = 0; rank < world; ++rank) out.push_back({rows, block_m, world, rank});
  return out;
}

TpChunkSchedule schedule(const Case& c, TpCollective kind) {
  return TpChunkSchedule{RowChunks{c.rows, c.world}, c.rank, c.block_m, kind};
}

// Every m-block in exactly one step, each step's blocks one contiguous range.
void expect_ranges_partition(const TpChunkSchedule& s) {
  TpStepRanges<kMaxWorld> ranges;
  ASSERT_TRUE(tp_step_ranges(s, ranges)) << "a step's blocks are not contiguous";
  std::vector<int> seen(s.num_blocks(), 0);
  for (int st = 0; st < s.world(); ++st)
    for (int mb = ranges.first[st]; mb < ranges.end[st]; ++mb) {
      ASSERT_TRUE(mb >= 0 && mb < s.num_blocks());
      EXPECT_EQ(s.block_step(mb), st);
      ++seen[mb];
    }
  for (int mb = 0; mb < s.num_blocks(); ++mb) EXPECT_EQ(seen[mb], 1) << "m-block " << mb;
}

TEST(TpChunks, AllGatherComputesABlockOnlyAfterItsRowsLanded) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(testing::Message() << c.rows << " rows, BM " << c.block_m << ", W " << c.world << ", rank " << c.rank);
    const TpChunkSchedule s = schedule(c, TpCollective::all_gather);
    expect_ranges_partition(s);
    // Arrival order: own chunk first, then rank + 1, rank + 2, ...
    for (int i = 0; i < c.world; ++i) EXPECT_EQ(s.chunk_step((c.rank + i) % c.world), i);
    for (int mb = 0; mb < s.num_blocks(); ++mb) {
      const int step = s.block_step(mb);
      int latest = 0;
      for (int64_t row = int64_t(mb) * c.block_m; row < c.rows && row < int64_t(mb + 1) * c.block_m; ++row) {
        const int arrival = s.chunk_step(s.chunks.of_row(row));
        EXPECT_LE(arrival, step) << "m-block " << mb << " reads row " << row << " before it lands";
        latest = arrival > latest ? arrival : latest;
      }
      EXPECT_EQ(step, latest) << "m-block " << mb << " waits longer than its rows need";
    }
  }
}

TEST(TpChunks, ReduceScatterHasEveryRowOfAChunkBeforeItIsSent) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(testing::Message() << c.rows << " rows, BM " << c.block_m << ", W " << c.world << ", rank " << c.rank);
    const TpChunkSchedule s = schedule(c, TpCollective::reduce_scatter);
    expect_ranges_partition(s);
    // Departure order: rank + 1 first, its own chunk last.
    for (int i = 0; i < c.world; ++i) EXPECT_EQ(s.chunk_step((c.rank + 1 + i) % c.world), i);
    for (int mb = 0; mb < s.num_blocks(); ++mb) {
      const int step = s.block_step(mb);
      int earliest = c.world;
      for (int64_t row = int64_t(mb) * c.block_m; row < c.rows && row < int64_t(mb + 1) * c.block_m; ++row) {
        const int departure = s.chunk_step(s.chunks.of_row(row));
        EXPECT_LE(step, departure) << "row " << row << " is computed after its chunk is sent";
        earliest = departure < earliest ? departure : earliest;
      }
      EXPECT_EQ(step, earliest) << "m-block " << mb << " is computed later than its first chunk needs";
    }
  }
}

TEST(TpChunks, OneRankIsOneStep) {
  for (TpCollective kind : {TpCollective::all_gather, TpCollective::reduce_scatter}) {
    const TpChunkSchedule s{RowChunks{1000, 1}, 0, 128, kind};
    TpStepRanges<kMaxWorld> ranges;
    ASSERT_TRUE(tp_step_ranges(s, ranges));
    EXPECT_EQ(ranges.first[0], 0);
    EXPECT_EQ(ranges.end[0], 8);
  }
}

TEST(TpChunks, AWorldLargerThanTheTableIsRefused) {
  const TpChunkSchedule s{RowChunks{1000, kMaxWorld + 1}, 0, 128, TpCollective::all_gather};
  TpStepRanges<kMaxWorld> ranges;
  EXPECT_FALSE(tp_step_ranges(s, ranges));
}

}  // namespace
}  // namespace tilegemm::sched
