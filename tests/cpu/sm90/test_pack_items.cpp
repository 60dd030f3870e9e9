// The line copies' work split (sm90/gemm/params.hpp: append_pack_job, pack_item, PackLaneWalk), the
// host side of pack_rows_body (sm90/gemm/pack.cuh): every 16-B chunk of every job's dst lines
// belongs to exactly one (item, lane, step) of the launch, and none outside them does. The bulk
// ring's unit split and its slot protocol likewise.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "sm90/gemm/params.hpp"

namespace tilegemm::sm90 {
namespace {

// A job of `rows` lines of `cols` elements, src_row apart in the source, into lines of ld_dst.
PackParams strided_job(int64_t rows, int64_t cols, int64_t src_row, int64_t ld_dst) {
  PackParams p;
  p.rows = rows;
  p.cols = cols;
  p.src_row = src_row;
  p.ld_dst = ld_dst;
  return p;
}
PackParams line_job(int64_t rows, int64_t cols, int64_t ld_dst) { return strided_job(rows, cols, cols, ld_dst); }

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

namespace tilegemm::sm90 {
namespace {

// The bulk ring's unit split (append_pack_bulk_job, pack_bulk_unit; pack.cuh, pack_rows_bulk_body):
// every dst chunk of every job in exactly one unit, and every unit's source span (its first
// element to its last, widened to 16-B blocks, the kernel's arithmetic from a 16-B aligned base
// plus `offset` elements) fits a slot.
void expect_every_chunk_once_bulk(const std::vector<PackParams>& jobs, int elem, int64_t offset,
                                  int64_t max_lines = int64_t(1) << 40) {
  PackBulkParams pb;
  for (const PackParams& j : jobs) ASSERT_TRUE(append_pack_bulk_job(pb, j, elem, max_lines));
  const int per = 16 / elem;
  std::vector<std::vector<int>> writes(jobs.size());
  for (size_t j = 0; j < jobs.size(); ++j) writes[j].assign(static_cast<size_t>(jobs[j].rows * (jobs[j].ld_dst / per)), 0);
  for (int64_t u = 0; u < pb.unit_begin[kPackJobs]; ++u) {
    const PackBulkUnit un = pack_bulk_unit(pb, u, elem);
    ASSERT_GE(un.job, 0);
    ASSERT_LT(un.job, pb.jobs);
    const PackParams& p = jobs[static_cast<size_t>(un.job)];
    const int64_t chunks = p.ld_dst / per;
    ASSERT_GE(un.lines, 1);
    ASSERT_LE(un.row0 + un.lines, p.rows);
    ASSERT_LT(un.chunk0, un.chunk1);
    ASSERT_LE(un.chunk1, chunks);
    if (un.chunk0 * per < p.cols) {
      const int64_t last = std::min(un.chunk1 * per, p.cols);
      const int64_t first_byte = (offset + un.row0 * p.src_row + un.chunk0 * per) * elem;
      const int64_t end_byte = (offset + (un.row0 + un.lines - 1) * p.src_row + last) * elem;
      const int64_t lo = first_byte / 16 * 16, hi = (end_byte + 15) / 16 * 16;
      EXPECT_LE(hi - lo, kPackBulkSlotBytes) << "unit " << u;
    }
    for (int64_t l = 0; l < un.lines; ++l)
      for (int64_t c = un.chunk0; c < un.chunk1; ++c) ++writes[static_cast<size_t>(un.job)][static_cast<size_t>((un.row0 + l) * chunks + c)];
  }
  for (size_t j = 0; j < jobs.size(); ++j)
    for (size_t i = 0; i < writes[j].size(); ++i) ASSERT_EQ(writes[j][i], 1) << "job " << j << " chunk " << i;
}

TEST(PackBulkUnits, EveryChunkOnceAndEverySpanFitsASlot) {
  for (int64_t offset : {0, 1, 7}) {
    SCOPED_TRACE(offset);
    // Dense odd lines, several to a unit (12-KB slots: 2047: two; 513: eleven; 7: hundreds).
    expect_every_chunk_once_bulk({strided_job(1023, 2047, 2047, 2048), strided_job(300, 513, 513, 576)}, 2, offset);
    expect_every_chunk_once_bulk({strided_job(65, 7, 7, 64)}, 2, offset);
    expect_every_chunk_once_bulk({strided_job(301, 513, 513, 576)}, 2, offset, 4);  // capped at 4 lines a unit
    // Lines longer than a slot (runs of one line), and lines behind a wide gap (one per unit).
    expect_every_chunk_once_bulk({strided_job(5, 10001, 10001, 10048), strided_job(9, 513, 813, 576)}, 2, offset);
    // fp32 (C), three jobs.
    expect_every_chunk_once_bulk({strided_job(33, 131, 131, 160), strided_job(2, 5000, 5003, 5024), strided_job(1, 1, 1, 32)},
                                 4, offset);
  }
  EXPECT_EQ(pack_bulk_shape(strided_job(1023, 2047, 2047, 2048), 2).lines_per_unit, 2);
  EXPECT_EQ(pack_bulk_shape(strided_job(9, 513, 813, 576), 2).lines_per_unit, 1);  // gap > a quarter line
  // A cap on a unit's lines (launch_packs: a ring's worth of units per block) binds below the fit.
  EXPECT_EQ(pack_bulk_shape(strided_job(6007, 513, 513, 576), 2).lines_per_unit, 11);
  EXPECT_EQ(pack_bulk_shape(strided_job(6007, 513, 513, 576), 2, 4).lines_per_unit, 4);
  EXPECT_EQ(pack_bulk_shape(strided_job(6007, 513, 513, 576), 2, 4).units, 1502);
  EXPECT_EQ(pack_bulk_shape(strided_job(1023, 2047, 2047, 2048), 2, 5).lines_per_unit, 2);
  EXPECT_EQ(pack_bulk_shape(strided_job(6007, 513, 513, 576), 2, 1).lines_per_unit, 1);
}

// The bulk ring's protocol (pack.cuh, pack_rows_bulk_body) walked on the CPU under random
// interleavings, with the kernel's slot and parity functions (pack_ring_slot, pack_ring_parity):
// the issuing lane loads the block's unit j into slot pack_ring_slot(j) once empty[slot] has passed
// the phase of parity pack_ring_parity(j) ^ 1; loads land in any order, each completing a phase of
// full[slot]; copying warp w takes units w, w + warps, ..., waits full[slot] for parity
// pack_ring_parity(i), copies, and arrives on empty[slot]. A parity wait is modelled as
// mbarrier.try_wait.parity behaves: it returns at once unless the barrier's current (incomplete)
// phase has that parity. Returns the first unit a warp would copy from a slot holding other bytes
// (or none yet), -2 on a deadlock, -1 when every unit was copied from its own bytes.
int64_t walk_ring(int slots, int warps, int64_t units, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> full_done(size_t(slots), 0), empty_done(size_t(slots), 0), holds(size_t(slots), -1);
  std::vector<int64_t> in_flight;
  std::vector<int64_t> next_unit(static_cast<size_t>(warps));
  std::vector<bool> copying(static_cast<size_t>(warps), false);
  for (int w = 0; w < warps; ++w) next_unit[size_t(w)] = w;
  int64_t issued = 0, copied = 0;
  auto passed = [](int64_t done_phases, uint32_t parity) { return (uint32_t(done_phases) & 1u) != parity; };
  while (copied < units) {
    // The enabled steps: 0 = issue, 1 + k = land in_flight[k], then each warp's next step.
    std::vector<int> steps;
    if (issued < units && passed(empty_done[size_t(pack_ring_slot(issued, slots))], pack_ring_parity(issued, slots) ^ 1u))
      steps.push_back(0);
    for (size_t k = 0; k < in_flight.size(); ++k) steps.push_back(1 + int(k));
    for (int w = 0; w < warps; ++w) {
      const int64_t i = next_unit[size_t(w)];
      if (i >= units) continue;
      if (copying[size_t(w)] || passed(full_done[size_t(pack_ring_slot(i, slots))], pack_ring_parity(i, slots)))
        steps.push_back(1000 + w);
    }
    if (steps.empty()) return -2;
    const int step = steps[size_t(rng() % steps.size())];
    if (step == 0) {
      in_flight.push_back(issued++);
    } else if (step < 1000) {
      const int64_t j = in_flight[size_t(step - 1)];
      in_flight.erase(in_flight.begin() + (step - 1));
      const int s = pack_ring_slot(j, slots);
      holds[size_t(s)] = j;
      ++full_done[size_t(s)];
    } else {
      const int w = step - 1000;
      const int64_t i = next_unit[size_t(w)];
      const int s = pack_ring_slot(i, slots);
      if (!copying[size_t(w)]) {  // the wait returned: the warp reads the slot
        if (holds[size_t(s)] != i) return i;
        copying[size_t(w)] = true;
      } else {  // done: the slot is free again
        ++empty_done[size_t(s)];
        copying[size_t(w)] = false;
        next_unit[size_t(w)] += warps;
        ++copied;
      }
    }
  }
  return -1;
}

TEST(PackBulkRing, EveryWarpCopiesItsOwnUnitUnderAnyInterleaving) {
  for (uint64_t seed = 1; seed <= 3000; ++seed)
    ASSERT_EQ(walk_ring(kPackBulkSlots, kPackBulkCopyWarps, 5 + int64_t(seed % 97), seed), -1) << "seed " << seed;
  // The walk has teeth: with 12 slots for 8 warps (146bbd6) a warp can wait on a slot a phase
  // behind, when another warp's unit has not yet landed there, and the parity wait returns at once.
  int caught = 0;
  for (uint64_t seed = 1; seed <= 3000; ++seed) caught += walk_ring(12, 8, 5 + int64_t(seed % 97), seed) >= 0;
  EXPECT_GT(caught, 0);
}

// The fast chunks of a line: exactly the full chunks of [chunk0, chunk1) whose 16 source bytes lie
// in the span — and then the kernel's two aligned 16-B loads of such a chunk stay in the span too.
TEST(PackBulkUnits, FastRangeIsExactlyTheChunksInsideTheSpan) {
  for (int64_t rel = -40; rel <= 40; rel += 2)
    for (int64_t span : {0, 16, 48, 4096, 4112})
      for (int64_t cols : {1, 7, 8, 9, 255, 2047})
        for (auto [c0, c1] : {std::pair<int64_t, int64_t>{0, 256}, {3, 9}, {250, 256}}) {
          const PackFastRange f = pack_bulk_fast_range(rel, span, cols, 8, c0, c1);
          ASSERT_LE(f.first, f.second);
          for (int64_t c = c0; c < c1; ++c) {
            const bool inside = span > 0 && c < cols / 8 && rel + 16 * c >= 0 && rel + 16 * c + 16 <= span;
            const bool fast = c >= f.first && c < f.second;
            ASSERT_EQ(fast, inside) << "rel " << rel << " span " << span << " cols " << cols << " chunk " << c;
            if (fast) {
              const int64_t sh = ((rel % 16) + 16) % 16, q = rel + 16 * c - sh;
              ASSERT_GE(q, 0);
              ASSERT_LE(q + (sh != 0 ? 32 : 16), span);
            }
          }
        }
}

}  // namespace
}  // namespace tilegemm::sm90
