// The line copies' work split (sm90/gemm/params.hpp: append_pack_job, pack_item, PackLaneWalk), the
// host side of pack_rows_body (sm90/gemm/pack.cuh): every 16-B chunk of every job's dst lines
// belongs to exactly one (item, lane, step) of the launch, and none outside them does.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "sm90/gemm/params.hpp"

namespace tilegemm::sm90 {
namespace {

PackParams line_job(int64_t rows, int64_t cols, int64_t ld_dst) {
  PackParams p;
  p.rows = rows;
  p.cols = cols;
  p.src_row = cols;
  p.ld_dst = ld_dst;
  return p;
}

// Walks the launch as the kernel does and counts the writes of each (job, row, chunk).
void expect_every_chunk_once(const std::vector<PackParams>& jobs, int elem) {
  PackRowsParams pr;
  for (const PackParams& j : jobs) ASSERT_TRUE(append_pack_job(pr, j, elem));
  ASSERT_EQ(pr.jobs, static_cast<int>(jobs.size()));
  const int per = 16 / elem;
  std::vector<std::vector<int>> writes(jobs.size());
  int64_t total_chunks = 0;
  for (size_t j = 0; j < jobs.size(); ++j) {
    writes[j].assign(static_cast<size_t>(jobs[j].rows * (jobs[j].ld_dst / per)), 0);
    total_chunks += jobs[j].rows * (jobs[j].ld_dst / per);
  }
  const int64_t items = pr.item_begin[kPackJobs];
  int64_t written = 0;
  for (int64_t g = 0; g < items; ++g) {
    const PackItem it = pack_item(pr, g);
    ASSERT_GE(it.job, 0);
    ASSERT_LT(it.job, pr.jobs);
    const PackParams& p = jobs[static_cast<size_t>(it.job)];
    const int64_t chunks = p.ld_dst / per;
    ASSERT_LT(it.first_chunk, p.rows * chunks) << "an item wholly past its job";
    for (int lane = 0; lane < 32; ++lane) {
      PackLaneWalk walk(it.first_chunk, lane, pack_line_chunks(p, elem));
      for (int u = 0; u < kPackChunksPerLane; ++u, walk.step()) {
        if (walk.row >= p.rows) break;  // the kernel's break past the job's last line
        ASSERT_GE(walk.chunk, 0);
        ASSERT_LT(walk.chunk, chunks);
        ASSERT_EQ(walk.row * chunks + walk.chunk, it.first_chunk + lane + 32 * u) << "item " << g;
        ++writes[static_cast<size_t>(it.job)][static_cast<size_t>(walk.row * chunks + walk.chunk)];
        ++written;
      }
    }
  }
  EXPECT_EQ(written, total_chunks);
  for (size_t j = 0; j < jobs.size(); ++j)
    for (size_t i = 0; i < writes[j].size(); ++i) ASSERT_EQ(writes[j][i], 1) << "job " << j << " chunk " << i;
}

TEST(PackItems, EveryChunkOfEveryJobOnceBf16) {
  // K = 777 and 4097 (lines padded to whole 128-B lines: 784 and 4160), one-line and one-chunk jobs.
  expect_every_chunk_once({line_job(5, 777, 784), line_job(3, 777, 784)}, 2);
  expect_every_chunk_once({line_job(2, 4097, 4160), line_job(7, 4097, 4160)}, 2);
  expect_every_chunk_once({line_job(1, 7, 64)}, 2);
  expect_every_chunk_once({line_job(4, 512, 512), line_job(1, 1, 64), line_job(3, 1000, 1024)}, 2);
  // Lines shorter than an item (8 chunks: K <= 64) and just longer (72 chunks: K = 513).
  expect_every_chunk_once({line_job(37, 9, 64), line_job(11, 513, 576)}, 2);
}

TEST(PackItems, EveryChunkOfEveryJobOnceFp32) {
  expect_every_chunk_once({line_job(3, 33, 64), line_job(2, 2001, 2016)}, 4);
  expect_every_chunk_once({line_job(1, 256, 256)}, 4);
}

TEST(PackItems, ItemsPerJobAndTheJobLimit) {
  EXPECT_EQ(pack_job_items(line_job(1, 777, 784), 2), 1);     // 98 chunks
  EXPECT_EQ(pack_job_items(line_job(3, 777, 784), 2), 3);     // 294 chunks: items run across lines
  EXPECT_EQ(pack_job_items(line_job(6007, 513, 576), 2), 3379);  // 72 chunks a line
  EXPECT_EQ(pack_job_items(line_job(1, 512, 512), 4), 1);     // fp32: 128 chunks, exactly one item
  EXPECT_EQ(pack_job_items(line_job(2, 64, 64), 2), 1);       // 16 chunks
  PackRowsParams pr;
  for (int j = 0; j < kPackJobs; ++j) EXPECT_TRUE(append_pack_job(pr, line_job(2, 64, 64), 2));
  EXPECT_FALSE(append_pack_job(pr, line_job(2, 64, 64), 2)) << "a fourth job has no room";
  EXPECT_EQ(pr.jobs, kPackJobs);
  EXPECT_EQ(pr.item_begin[1], 1);
  EXPECT_EQ(pr.item_begin[kPackJobs], 3);
}

}  // namespace
}  // namespace tilegemm::sm90
