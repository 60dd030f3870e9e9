// Tensor-parallel chunk schedules (issue 14: a collective overlapped with the GEMM, tile by tile):
// which output m-blocks a rank can compute at which step of a chunked collective, so that a
// persistent kernel takes its tiles in the order their inputs arrive (all-gather + GEMM) or their
// outputs leave (GEMM + reduce-scatter). Plain integer code (TG_HD) for the host, the kernels and
// the CPU tests (tests/cpu/schedule/test_tp_chunks.cpp); nothing here talks to NCCL.
//
// Rows are cut into W chunks, chunk c = rows [floor(c·M/W), floor((c+1)·M/W)): the rows of A that
// rank c holds (all-gather), or the rows of D that rank c receives (reduce-scatter). An m-block is
// BM rows; it "touches" every chunk its rows meet (several when a chunk is shorter than BM).
//
// All-gather + GEMM (column-parallel layer): rank r holds chunk r; the others land one per step,
// chunk (r + i) mod W at step i (step 0: its own, already there). An m-block can be computed once
// the last chunk it touches has landed: step(mb) = max of arrival(c) over its chunks.
// GEMM + reduce-scatter (row-parallel layer): rank r computes a partial of every row of D and
// sends chunk c to rank c. It computes the chunks in the order r + 1, r + 2, ..., r (its own last:
// that one is not sent), so the first send can start after about 1/W of the work: an m-block is
// computed at step(mb) = min of departure(c) over its chunks, and chunk c is complete, and can be
// sent, after step departure(c).
// Either way the m-blocks of one step are one contiguous range (the tests check it for every M,
// BM, W and r in a range): a kernel can walk the steps in order and, inside a step, that range's
// sub-grid in any tile mapping.
#pragma once

#include "core/host_device.hpp"
#include "core/int_types.hpp"

namespace tilegemm::sched {

// M rows cut into `parts` chunks of floor-divided sizes (some empty when M < parts).
struct RowChunks {
  int64_t rows = 0;
  int parts = 1;
  TG_HD constexpr int64_t begin(int c) const { return int64_t(c) * rows / parts; }
  TG_HD constexpr int64_t end(int c) const { return begin(c + 1); }
  // The chunk that holds row `row` (0 <= row < rows): the largest c with begin(c) <= row.
  TG_HD constexpr int of_row(int64_t row) const { return int(((row + 1) * parts - 1) / rows); }
};

enum class TpCollective : int { all_gather = 0, reduce_scatter = 1 };

struct TpChunkSchedule {
  RowChunks chunks;  // parts = W, the world size
  int rank = 0;      // 0 <= rank < W
  int block_m = 128;
  TpCollective kind = TpCollective::all_gather;

  TG_HD constexpr int world() const { return chunks.parts; }
  TG_HD constexpr int num_blocks() const { return int((chunks.rows + block_m - 1) / block_m); }
  // The step at which chunk c lands (all-gather) or is complete and sent (reduce-scatter).
  TG_HD constexpr int chunk_step(int c) const {
    const int w = world();
    return kind == TpCollective::all_gather ? (c - rank + w) % w : (c - rank - 1 + 2 * w) % w;
  }
  // The step at which m-block mb is computed: the last arrival of its chunks (all-gather), the
  // first departure (reduce-scatter). Empty chunks are touched by no block.
  TG_HD constexpr int block_step(int mb) const {
    const int64_t r0 = int64_t(mb) * block_m;
    const int64_t r1 = (r0 + block_m < chunks.rows ? r0 + block_m : chunks.rows) - 1;
    const int first = chunks.of_row(r0), last = chunks.of_row(r1);
    int step = chunk_step(first);
    for (int c = first + 1; c <= last; ++c) {
      if (chunks.begin(c) == chunks.end(c)) continue;
      const int s = chunk_step(c);
      if (kind == TpCollective::all_gather ? s > step : s < step) step = s;
    }
    return step;
  }
};

// The m-blocks of each step, [first[s], end[s]) for s < W (empty: first == end); false if some
// step's blocks are not one contiguous range (never, for the two collectives above). Host and
// tests: O(blocks) per call, run once per launch.
template <int kMaxWorld>
struct TpStepRanges {
  int first[kMaxWorld] = {};
  int end[kMaxWorld] = {};
};
template <int kMaxWorld>
TG_HD constexpr bool tp_step_ranges(const TpChunkSchedule& s, TpStepRanges<kMaxWorld>& out) {
  const int w = s.world();
  if (w < 1 || w > kMaxWorld) return false;
  for (int i = 0; i < w; ++i) out.first[i] = out.end[i] = -1;
  for (int mb = 0; mb < s.num_blocks(); ++mb) {
    const int st = s.block_step(mb);
    if (out.first[st] < 0) {
      out.first[st] = mb;
    } else if (out.end[st] != mb) {
      return false;  // a gap: this step's blocks are not contiguous
    }
    out.end[st] = mb + 1;
  }
  for (int i = 0; i < w; ++i)
    if (out.first[i] < 0) out.first[i] = out.end[i] = 0;
  return true;
}

}  // namespace tilegemm::sched
