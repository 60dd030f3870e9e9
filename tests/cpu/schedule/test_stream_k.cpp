// The k-split decompositions (schedule/stream_k.hpp) and the kernel's unit walk over them
// (sm90/gemm/scheduler.cuh, plain integer code): every k-block of every tile is computed exactly
// once, the pieces of a shared tile are numbered in k order, and their partial slots never collide.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "schedule/stream_k.hpp"
#include "sm90/gemm/scheduler.cuh"

namespace tilegemm {
namespace {

using sched::KSplit;

struct Walked {
  int cta;
  sm90::UnitWork u;
};

// Every unit every CTA of a `ctas`-CTA grid walks, for a grid of m x n tiles (grouped_m G=8).
std::vector<Walked> walk(const KSplit& split, int m_blocks, int n_blocks, int ctas) {
  sm90::UnitScheduler<true> s;
  s.schedule = sched::Schedule{sched::TileGrid{m_blocks, n_blocks}, sched::Mapping{sched::MappingKind::grouped_m, 8, 2, 2},
                               sched::ClusterAxis::none};
  s.num_kb = split.k_blocks;
  s.split = split;
  std::vector<Walked> all;
  for (int cta = 0; cta < ctas; ++cta) {
    sm90::UnitScheduler<true> mine = s;
    mine.begin(cta);
    for (sm90::UnitWork u; mine.next(u, ctas);) all.push_back({cta, u});
  }
  return all;
}

void check_cover(const KSplit& split, int m_blocks, int n_blocks, int ctas) {
  SCOPED_TRACE(testing::Message() << "tiles " << split.tiles << " kb " << split.k_blocks << " dp " << split.dp_tiles
                                  << " workers " << split.workers << " ctas " << ctas);
  ASSERT_TRUE(split.valid());
  const std::vector<Walked> units = walk(split, m_blocks, n_blocks, ctas);
  std::vector<int> covered(size_t(split.tiles) * split.k_blocks, 0);
  std::map<int, std::vector<sm90::UnitWork>> by_slot;
  std::set<std::pair<int, int>> tiles_seen;
  for (const Walked& w : units) {
    const sm90::UnitWork& u = w.u;
    ASSERT_TRUE(u.work.has_tile);
    ASSERT_LT(u.kb0, u.kb1);
    ASSERT_LE(u.kb1, split.k_blocks);
    for (int kb = u.kb0; kb < u.kb1; ++kb) ++covered[size_t(u.slot) * split.k_blocks + kb];
    by_slot[u.slot].push_back(u);
    tiles_seen.insert({u.work.tile.m_block, u.work.tile.n_block});
  }
  for (int c : covered) ASSERT_EQ(c, 1) << "a k-block computed other than once";
  // No CTA walks more than busiest_cta says (the time model and the trace buffer are sized by it).
  std::map<int, std::pair<int64_t, int64_t>> per_cta;  // cta -> (k-blocks, units)
  for (const Walked& w : units) {
    per_cta[w.cta].first += w.u.kb1 - w.u.kb0;
    per_cta[w.cta].second += 1;
  }
  const sched::CtaShare bound = sched::busiest_cta(split, ctas);
  for (const auto& [cta, walked] : per_cta) {
    EXPECT_LE(walked.first, bound.k_blocks) << "cta " << cta;
    EXPECT_LE(walked.second, bound.units) << "cta " << cta;
  }
  EXPECT_EQ(int(tiles_seen.size()), split.tiles);
  std::set<int> partials;
  for (auto& [slot, pieces] : by_slot) {
    std::sort(pieces.begin(), pieces.end(), [](const auto& a, const auto& b) { return a.kb0 < b.kb0; });
    ASSERT_EQ(int(pieces.size()), pieces.front().pieces) << "slot " << slot;
    if (slot < split.dp_tiles) ASSERT_EQ(pieces.size(), 1u);
    // What the time model counts (cost_model.cpp, ksplit_work) is what the kernel walks.
    if (slot >= split.dp_tiles && split.workers > 0) ASSERT_EQ(split.pieces(slot), int(pieces.size())) << "slot " << slot;
    for (size_t i = 0; i < pieces.size(); ++i) {
      ASSERT_EQ(pieces[i].piece, int(i));  // pieces in k order
      ASSERT_EQ(pieces[i].pieces, int(pieces.size()));
      if (pieces.size() > 1) {
        ASSERT_EQ(pieces[i].first_worker, pieces[0].first_worker);
        // The fix-up reads piece i >= 1 at partial_index(first_worker + i): one place per piece, and
        // that worker's range starts in this tile (so no worker has two partials to write).
        if (i >= 1) {
          const int w = split.piece_worker(pieces[i].first_worker, int(i));
          EXPECT_EQ(split.first_slot(w), slot) << "worker " << w;
          EXPECT_TRUE(partials.insert(split.partial_index(w)).second);
          EXPECT_LT(split.partial_index(w), split.workers);
        }
      }
    }
  }
}

TEST(StreamK, SplitKIsTheSlicesOfEachTile) {
  // Worker t*S + s is slice s of tile t: k-blocks [floor(s KB / S), floor((s+1) KB / S)).
  for (int tiles : {1, 7, 36})
    for (int kb : {3, 9, 112})
      for (int s : {2, 3, 8}) {
        const KSplit split = sched::split_k_decomposition(tiles, kb, s);
        const int slices = std::min(s, kb);
        ASSERT_EQ(split.workers, tiles * slices);
        for (int t = 0; t < tiles; ++t)
          for (int i = 0; i < slices; ++i) {
            EXPECT_EQ(split.begin(t * slices + i), int64_t(t) * kb + int64_t(i) * kb / slices);
            EXPECT_EQ(split.first_worker(t), t * slices);
            EXPECT_EQ(split.last_worker(t), t * slices + slices - 1);
          }
      }
}

TEST(StreamK, AOneWaveSplitRunsSliceMajor) {
  // A split in one wave (a CTA per worker) is launched slice-major: CTA c takes slice c / T of the
  // tile in mapping slot c % T, so tiles that are mapping neighbours run on neighbouring CTAs
  // (KSplit::worker_of). With fewer CTAs than workers, for stream-K, and for a k-split
  // cluster (slice_major off) CTA c is worker c. Coverage of every case: EveryKBlockOnce... below.
  for (int tiles : {1, 7, 18, 36})
    for (int s : {2, 3, 7}) {
      const KSplit split = sched::split_k_decomposition(tiles, 112, s);
      const int workers = split.workers;
      for (int ctas : {workers, workers + 5, 132}) {
        if (ctas < workers) continue;
        for (int cta = 0; cta < workers; ++cta) EXPECT_EQ(split.worker_of(cta, ctas), (cta % tiles) * s + cta / tiles);
        const std::vector<Walked> units = walk(split, 1, tiles, ctas);
        ASSERT_EQ(units.size(), size_t(workers));
        for (const Walked& w : units) {
          EXPECT_EQ(w.u.slot, w.cta % tiles) << "cta " << w.cta;
          EXPECT_EQ(w.u.piece, w.cta / tiles) << "cta " << w.cta;
        }
      }
      EXPECT_EQ(split.worker_of(3, workers - 1), 3);           // two waves' worth: worker-major
      EXPECT_EQ(split.worker_of(3, workers, /*slice_major=*/false), 3);
    }
  const KSplit sk = sched::stream_k_decomposition(200, 40, 132, 4);  // data-parallel tiles first
  for (int cta = 0; cta < 132; ++cta) EXPECT_EQ(sk.worker_of(cta, 132), cta);
}

TEST(StreamK, EveryKBlockOnceAndPiecesInOrder) {
  const std::tuple<int, int> grids[] = {{1, 4}, {1, 36}, {1, 75}, {3, 40}, {16, 22}, {32, 16}, {32, 11}, {9, 17}};
  for (const auto& [mb, nb] : grids)
    for (int kb : {1, 2, 5, 32, 112})
      for (int ctas : {1, 7, 132}) {
        const int tiles = mb * nb;
        check_cover(sched::stream_k_decomposition(tiles, kb, ctas, 4), mb, nb, ctas);
        check_cover(sched::stream_k_decomposition(tiles, kb, ctas, 1), mb, nb, ctas);
        for (int s : {2, 3, 8}) check_cover(sched::split_k_decomposition(tiles, kb, s), mb, nb, ctas);
      }
}

TEST(StreamK, SplitKOfOneKBlockKeepsEveryTileWhole) {
  // K <= 64 has one k-block: no slice to cut, so every tile is computed whole (with dp_tiles = 0
  // and no workers the kernel would walk no unit and never write D).
  const KSplit s = sched::split_k_decomposition(36, 1, 8);
  EXPECT_EQ(s.workers, 0);
  EXPECT_EQ(s.dp_tiles, 36);
  check_cover(s, 1, 36, 132);
}

TEST(StreamK, WholeWavesStayDataParallelAndTheRestIsEven) {
  // 352 tiles on 132 CTAs: 2 whole waves and 88 over. The first wave stays whole; the last whole
  // wave joins the 88 (220 tiles shared by 132 workers, 1.67 tiles' worth each).
  const KSplit s = sched::stream_k_decomposition(352, 112, 132, 4);
  EXPECT_EQ(s.dp_tiles, 132);
  EXPECT_EQ(s.workers, 132);
  EXPECT_EQ(s.iterations(), int64_t(220) * 112);
  int64_t shortest = s.iterations(), longest = 0;
  for (int w = 0; w < s.workers; ++w) {
    shortest = std::min(shortest, s.begin(w + 1) - s.begin(w));
    longest = std::max(longest, s.begin(w + 1) - s.begin(w));
  }
  EXPECT_LE(longest - shortest, 1);
  // A whole number of waves shares nothing; too little work for min_iters per worker uses fewer.
  EXPECT_EQ(sched::stream_k_decomposition(264, 64, 132, 4).workers, 0);
  EXPECT_EQ(sched::stream_k_decomposition(264, 64, 132, 4).dp_tiles, 264);
  EXPECT_EQ(sched::stream_k_decomposition(4, 16, 132, 4).workers, 16);
  EXPECT_EQ(sched::stream_k_decomposition(1, 4, 132, 4).workers, 0);  // one worker: nothing to share
}

TEST(StreamK, RunLengthFollowsTheMapping) {
  using sched::MappingKind;
  const auto run = [](int mb, int nb, MappingKind kind, int g, sched::ClusterAxis axis = sched::ClusterAxis::none) {
    return sched::stream_k_run(sched::Schedule{sched::TileGrid{mb, nb}, sched::Mapping{kind, g, 2, 2}, axis});
  };
  EXPECT_EQ(run(2, 112, MappingKind::grouped_m, 8), 2);    // one strip: every m-block of an n-block
  EXPECT_EQ(run(16, 30, MappingKind::grouped_m, 8), 8);    // strips of 8
  EXPECT_EQ(run(12, 30, MappingKind::grouped_m, 8), 1);    // a partial last strip
  EXPECT_EQ(run(112, 2, MappingKind::grouped_n, 8), 2);    // the mirror image (swap-AB's weights)
  EXPECT_EQ(run(112, 2, MappingKind::grouped_m, 8), 8);
  EXPECT_EQ(run(5, 9, MappingKind::linear_m, 8), 5);
  EXPECT_EQ(run(5, 9, MappingKind::linear_n, 8), 9);
  EXPECT_EQ(run(40, 9, MappingKind::linear_m, 8), 1);      // longer than kMaxStreamKRun
  EXPECT_EQ(run(5, 9, MappingKind::morton, 8), 1);
  EXPECT_EQ(run(2, 112, MappingKind::grouped_m, 8, sched::ClusterAxis::along_m), 1);
  EXPECT_TRUE(sched::stream_k_run_shares_b(sched::Mapping{MappingKind::grouped_m, 8, 2, 2}));
  EXPECT_FALSE(sched::stream_k_run_shares_b(sched::Mapping{MappingKind::grouped_n, 8, 2, 2}));
}

TEST(StreamK, RunsCoverEveryKBlockOnceAndTheirMembersWalkSideBySide) {
  // Stream-K over runs (KSplit::group = E): every k-block once, pieces in k order at
  // piece_worker(first, i), and each shared unit of a run's member j done by worker r*E + j
  // together with the same k-blocks of every other member (the same range r).
  const std::tuple<int, int> grids[] = {{2, 112}, {3, 50}, {5, 26}, {7, 18}, {2, 7}, {4, 33}, {8, 40}, {2, 1}};
  int runs_seen = 0;
  for (const auto& [mb, nb] : grids) {
    const int tiles = mb * nb;
    const sched::Schedule sch{sched::TileGrid{mb, nb}, sched::Mapping{sched::MappingKind::grouped_m, 8, 2, 2},
                              sched::ClusterAxis::none};
    const int e = sched::stream_k_run(sch);
    ASSERT_EQ(e, mb);
    for (int kb : {1, 5, 32, 64})
      for (int ctas : {7, 100, 132}) {
        const KSplit split = sched::stream_k_decomposition(tiles, kb, ctas, 4, e);
        SCOPED_TRACE(testing::Message() << mb << "x" << nb << " kb " << kb << " ctas " << ctas);
        ASSERT_TRUE(split.valid());
        if (split.workers > 0) {
          EXPECT_EQ(split.workers % split.group, 0);
          EXPECT_EQ(split.dp_tiles % split.group, 0);
          EXPECT_LE(split.workers, ctas);
        }
        check_cover(split, mb, nb, ctas);
        check_cover(split, mb, nb, split.launch_ctas(ctas));
        if (split.group == 1 || split.workers == 0) continue;
        ++runs_seen;
        // (run, kb0, kb1) -> the members that walk it.
        std::map<std::tuple<int, int, int>, std::vector<int>> members;
        for (const Walked& w : walk(split, mb, nb, ctas)) {
          if (w.u.slot < split.dp_tiles) continue;
          const int local = w.u.slot - split.dp_tiles;
          members[{local / split.group, w.u.kb0, w.u.kb1}].push_back(local % split.group);
        }
        for (auto& [key, js] : members) {
          std::sort(js.begin(), js.end());
          ASSERT_EQ(int(js.size()), split.group) << "run " << std::get<0>(key) << " k-blocks " << std::get<1>(key);
          for (int j = 0; j < split.group; ++j) EXPECT_EQ(js[size_t(j)], j);
        }
      }
  }
  EXPECT_GT(runs_seen, 10);
  // Runs that cannot be cut: a tile count that is not whole runs, or too few CTAs for two ranges.
  EXPECT_EQ(sched::stream_k_decomposition(15, 64, 132, 4, 2).group, 1);
  EXPECT_EQ(sched::stream_k_decomposition(14, 64, 3, 4, 2).group, 1);
  // 224 tiles in runs of 2 on 132 CTAs: 66 ranges of 112 tiles' k-blocks, every worker 1.7 tiles.
  const KSplit s = sched::stream_k_decomposition(224, 64, 132, 4, 2);
  EXPECT_EQ(s.dp_tiles, 0);
  EXPECT_EQ(s.workers, 132);
  EXPECT_EQ(s.ranges(), 66);
  EXPECT_EQ(s.run_iterations(), int64_t(112) * 64);
}

}  // namespace
}  // namespace tilegemm
