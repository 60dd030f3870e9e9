// The working-set model: seed 1's example (4 A bands, 2 B bands, 6 MiB), band bytes at the edges,
// totals, and the L2 re-read estimate at its limits.
#include <gtest/gtest.h>

#include <cstdint>

#include "schedule/working_set.hpp"

namespace tilegemm::sched {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

TEST(WorkingSet, SharerGapIsHowFarApartTheReadersOfABandRun) {
  // A swap-AB-like grid: 64 row blocks (the weights) x 2 column blocks, one wave of 128. grouped_m
  // G = 8 launches the two readers of each row block 8 slots apart; grouped_n G = 8 side by side.
  const GemmExtent e{4096, 128, 4096, 64, 64, 2};
  const WaveStats m8 = wave_working_set(Schedule{e.grid(), {MappingKind::grouped_m, 8}, ClusterAxis::none}, e, 128, 0);
  EXPECT_DOUBLE_EQ(m8.a_sharer_gap, 8.0);
  const WaveStats n8 = wave_working_set(Schedule{e.grid(), {MappingKind::grouped_n, 8}, ClusterAxis::none}, e, 128, 0);
  EXPECT_DOUBLE_EQ(n8.a_sharer_gap, 1.0);
  EXPECT_DOUBLE_EQ(n8.b_sharer_gap, 2.0);  // each column block: every other slot
  // One column block: no row block has a second reader.
  const GemmExtent one{4096, 64, 4096, 64, 64, 2};
  const WaveStats o = wave_working_set(Schedule{one.grid(), {MappingKind::grouped_m, 8}, ClusterAxis::none}, one, 64, 0);
  EXPECT_DOUBLE_EQ(o.a_sharer_gap, 0.0);
  EXPECT_DOUBLE_EQ(o.b_sharer_gap, 1.0);
  // wave_sharer_gaps (O(wave), what the planner calls) is what the wave statistics report.
  for (const Mapping& mp : {Mapping{MappingKind::grouped_m, 8}, Mapping{MappingKind::grouped_n, 8},
                            Mapping{MappingKind::grouped_m, 1}, Mapping{MappingKind::hilbert, 8}})
    for (int ctas : {7, 64, 132})
      for (int wave : {0, 1}) {
        const Schedule s{e.grid(), mp, ClusterAxis::none};
        const WaveStats full = wave_working_set(s, e, ctas, wave);
        const SharerGaps g = wave_sharer_gaps(s, ctas, wave);
        EXPECT_DOUBLE_EQ(g.a, full.a_sharer_gap) << ctas << " " << wave;
        EXPECT_DOUBLE_EQ(g.b, full.b_sharer_gap) << ctas << " " << wave;
      }
}

TEST(WorkingSet, SeedOneFirstWave) {
  // BM = BN = 128, K = 4096, BF16, 8 x 8 tiles, grouped-M G = 4, 8 concurrent CTAs.
  const GemmExtent e{1024, 1024, 4096, 128, 128, 2};
  const Schedule s{e.grid(), {MappingKind::grouped_m, 4}, ClusterAxis::none};
  const WaveStats w0 = wave_working_set(s, e, 8, 0);
  EXPECT_EQ(w0.num_tiles, 8);
  EXPECT_EQ(w0.unique_a_bands, 4);
  EXPECT_EQ(w0.unique_b_bands, 2);
  EXPECT_EQ(w0.a_bytes, 4 * kMiB);
  EXPECT_EQ(w0.b_bytes, 2 * kMiB);
  EXPECT_EQ(w0.working_set_bytes(), 6 * kMiB);
  WorkingSetOptions opt;
  opt.num_ctas = 8;
  const WorkingSetReport rep = analyze_working_set(s, e, opt);
  ASSERT_EQ(rep.waves.size(), 8u);
  for (const WaveStats& w : rep.waves) {  // every wave of this schedule is a 4 x 2 block
    EXPECT_EQ(w.unique_a_bands, 4);
    EXPECT_EQ(w.unique_b_bands, 2);
    EXPECT_EQ(w.working_set_bytes(), 6 * kMiB);
  }
  EXPECT_EQ(rep.touched_bytes, 48 * kMiB);
  EXPECT_EQ(rep.compulsory_bytes, 16 * kMiB);
  EXPECT_EQ(rep.cta_read_bytes, 64 * 2 * kMiB);  // every tile reads 1 MiB of A and 1 MiB of B
  // 60 MiB of L2 holds the whole 16 MiB problem: everything is read from HBM once.
  EXPECT_EQ(rep.hbm_bytes, rep.compulsory_bytes);
  EXPECT_EQ(rep.reread_bytes, 0);
  EXPECT_DOUBLE_EQ(rep.reread_factor(), 1.0);
}

TEST(WorkingSet, EdgeBandsHoldOnlyExistingRows) {
  const GemmExtent e{1000, 200, 10, 128, 64, 2};
  EXPECT_EQ(e.grid().num_m_blocks, 8);
  EXPECT_EQ(e.grid().num_n_blocks, 4);
  EXPECT_EQ(e.a_band_bytes(0), 128 * 10 * 2);
  EXPECT_EQ(e.a_band_bytes(7), (1000 - 896) * 10 * 2);
  EXPECT_EQ(e.b_band_bytes(3), (200 - 192) * 10 * 2);
  const Schedule s{e.grid(), {MappingKind::hilbert}, ClusterAxis::none};
  WorkingSetOptions opt;
  opt.num_ctas = 5;
  const WorkingSetReport rep = analyze_working_set(s, e, opt);
  EXPECT_EQ(rep.compulsory_bytes, (1000 + 200) * 10 * 2);
  EXPECT_EQ(rep.hbm_bytes, rep.compulsory_bytes);  // tiny problem, big L2
  int tiles = 0;
  for (const WaveStats& w : rep.waves) tiles += w.num_tiles;
  EXPECT_EQ(tiles, 32);
}

TEST(WorkingSet, L2ModelLimits) {
  // linear-n on 8 x 8 with 8 CTAs: wave w = row w, 1 A band + all 8 B bands (9 MiB).
  const GemmExtent e{1024, 1024, 4096, 128, 128, 2};
  const Schedule s{e.grid(), {MappingKind::linear_n}, ClusterAxis::none};
  WorkingSetOptions opt;
  opt.num_ctas = 8;
  opt.l2_bytes = 9 * kMiB + kMiB / 2;  // B stays in L2 between waves: no re-reads
  WorkingSetReport rep = analyze_working_set(s, e, opt);
  EXPECT_EQ(rep.waves[0].working_set_bytes(), 9 * kMiB);
  EXPECT_EQ(rep.hbm_bytes, rep.compulsory_bytes);
  EXPECT_EQ(rep.reread_bytes, 0);
  opt.l2_bytes = 4 * kMiB;  // smaller than a wave: LRU thrashes, B is read again by every wave
  rep = analyze_working_set(s, e, opt);
  EXPECT_EQ(rep.hbm_bytes, rep.touched_bytes);
  EXPECT_EQ(rep.reread_bytes, rep.touched_bytes - rep.compulsory_bytes);
  EXPECT_EQ(rep.waves[1].reread_bytes, 8 * kMiB);
  opt.l2_bytes = 0;
  rep = analyze_working_set(s, e, opt);
  EXPECT_EQ(rep.hbm_bytes, rep.touched_bytes);
  opt.estimate_hbm = false;
  rep = analyze_working_set(s, e, opt);
  EXPECT_EQ(rep.hbm_bytes, 0);
}

TEST(WorkingSet, MoreL2NeverMeansMoreHbmReads) {
  // Uniform slice sizes (no edge bands, K a multiple of the slice): LRU's inclusion property.
  const GemmExtent e{4096, 6144, 2048, 128, 128, 2};
  for (Mapping mapping : {Mapping{MappingKind::linear_n}, Mapping{MappingKind::grouped_m, 8},
                          Mapping{MappingKind::hilbert}, Mapping{MappingKind::box, 8, 4, 8}}) {
    const Schedule s{e.grid(), mapping, ClusterAxis::none};
    int64_t previous = INT64_MAX;
    for (int64_t l2_mib : {0, 4, 16, 32, 50, 60, 128, 1024}) {
      WorkingSetOptions opt;
      opt.num_ctas = 132;
      opt.l2_bytes = l2_mib * kMiB;
      const WorkingSetReport rep = analyze_working_set(s, e, opt);
      EXPECT_LE(rep.hbm_bytes, previous) << "L2 " << l2_mib << " MiB";
      EXPECT_GE(rep.hbm_bytes, rep.compulsory_bytes);
      EXPECT_LE(rep.hbm_bytes, rep.touched_bytes);
      previous = rep.hbm_bytes;
    }
  }
}

TEST(WorkingSet, GroupedWavesAreSmallerThanLinearOnes) {
  // 8192^3, 128 x 128 tiles, 132 CTAs: a linear-n wave spans ~3 rows x all 64 columns (134 MiB),
  // a grouped-M G=8 wave 8 rows x 17 columns (50 MiB), so it fits a 60 MiB L2 and re-reads less.
  const GemmExtent e{8192, 8192, 8192, 128, 128, 2};
  WorkingSetOptions opt;
  opt.num_ctas = 132;
  const Schedule linear{e.grid(), {MappingKind::linear_n}, ClusterAxis::none};
  const Schedule grouped{e.grid(), {MappingKind::grouped_m, 8}, ClusterAxis::none};
  const WorkingSetReport a = analyze_working_set(linear, e, opt);
  const WorkingSetReport b = analyze_working_set(grouped, e, opt);
  EXPECT_EQ(b.waves[0].unique_a_bands, 8);
  EXPECT_EQ(b.waves[0].unique_b_bands, 17);
  EXPECT_EQ(b.waves[0].working_set_bytes(), 25 * 2 * kMiB);
  EXPECT_EQ(a.waves[0].unique_a_bands, 3);
  EXPECT_EQ(a.waves[0].unique_b_bands, 64);
  EXPECT_LT(b.touched_bytes, a.touched_bytes);
  EXPECT_LT(b.hbm_bytes, a.hbm_bytes);
}

TEST(WorkingSet, ClustersCountTilesNotEmptySlots) {
  // 3 x 3 tiles, cluster along N: 6 pairs = 12 slots, 9 tiles.
  const GemmExtent e{384, 384, 64, 128, 128, 2};
  const Schedule s{e.grid(), {MappingKind::linear_n}, ClusterAxis::along_n};
  WorkingSetOptions opt;
  opt.num_ctas = 4;
  const WorkingSetReport rep = analyze_working_set(s, e, opt);
  ASSERT_EQ(rep.waves.size(), 3u);
  int tiles = 0;
  for (const WaveStats& w : rep.waves) tiles += w.num_tiles;
  EXPECT_EQ(tiles, 9);
  EXPECT_EQ(rep.waves[0].num_tiles, 3);  // slots 0..3: (0,0) (0,1) (0,2) and an empty half
  EXPECT_EQ(rep.waves[0].unique_a_bands, 1);
  EXPECT_EQ(rep.waves[0].unique_b_bands, 3);
}

}  // namespace
}  // namespace tilegemm::sched
