// F(i) -> (m_block, n_block): every mapping is a bijection onto every grid, hand-computed small
// cases (seed 1's 8 x 8 grouped-M example among them), and the structural identities between them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "schedule/mapping_names.hpp"
#include "schedule/tile_mapping.hpp"

namespace tilegemm::sched {
namespace {

// Compile-time evaluation: the header is constexpr all the way down.
static_assert(map_tile(Mapping{MappingKind::grouped_m, 4}, TileGrid{8, 8}, 5) == TileCoord{1, 1});
static_assert(map_tile(Mapping{MappingKind::hilbert}, TileGrid{4, 4}, 15) == TileCoord{0, 3});
static_assert(map_tile(Mapping{MappingKind::morton}, TileGrid{4, 4}, 6) == TileCoord{1, 2});

std::vector<Mapping> all_mappings() {
  std::vector<Mapping> v = {{MappingKind::linear_n}, {MappingKind::linear_m}, {MappingKind::morton},
                            {MappingKind::hilbert}};
  for (int g : {1, 2, 3, 4, 7, 8, 16, 300, 1000}) {
    v.push_back({MappingKind::grouped_m, g});
    v.push_back({MappingKind::grouped_n, g});
  }
  for (auto [bm, bn] : {std::pair{1, 1}, {2, 2}, {3, 5}, {8, 1}, {1, 8}, {16, 16}, {7, 3}, {400, 2}})
    v.push_back({MappingKind::box, 8, bm, bn});
  return v;
}

std::vector<TileGrid> many_grids() {
  std::vector<TileGrid> v;
  for (int m = 1; m <= 24; ++m)
    for (int n = 1; n <= 24; ++n) v.push_back({m, n});
  const int primes[] = {29, 31, 37, 61, 67, 97, 127, 131, 251, 257, 293};
  for (int p : primes) {
    v.push_back({p, p});
    v.push_back({1, p});
    v.push_back({p, 1});
    v.push_back({p, 64});
    v.push_back({5, p});
  }
  for (int n : {100, 255, 256, 299, 300}) {
    v.push_back({1, n});
    v.push_back({n, 1});
    v.push_back({2, n});
    v.push_back({n, 3});
  }
  for (auto [m, n] : {std::pair{300, 300}, {299, 300}, {256, 256}, {128, 300}, {300, 17}, {64, 64},
                      {33, 65}, {96, 57}})
    v.push_back({m, n});
  return v;
}

// Returns "" if `mapping` is a bijection from [0, tiles) onto `grid`, else what went wrong.
std::string check_bijection(const Mapping& mapping, TileGrid grid) {
  std::vector<char> hit(static_cast<size_t>(grid.num_tiles()), 0);
  for (int i = 0; i < grid.num_tiles(); ++i) {
    const TileCoord t = map_tile(mapping, grid, i);
    if (!grid.contains(t))
      return "F(" + std::to_string(i) + ") = (" + std::to_string(t.m_block) + "," +
             std::to_string(t.n_block) + ") is outside the grid";
    char& h = hit[static_cast<size_t>(t.m_block) * grid.num_n_blocks + t.n_block];
    if (h) return "tile (" + std::to_string(t.m_block) + "," + std::to_string(t.n_block) + ") twice";
    h = 1;
  }
  return "";
}

TEST(TileMapping, EveryMappingIsABijectionOnManyGrids) {
  const auto grids = many_grids();
  ASSERT_GT(grids.size(), 600u);
  for (const Mapping& mapping : all_mappings())
    for (TileGrid g : grids)
      ASSERT_EQ(check_bijection(mapping, g), "")
          << mapping_name(mapping) << " on " << g.num_m_blocks << "x" << g.num_n_blocks;
}

// The task index i of every tile, row by row: the inverse of F, what `tilegemm map` prints.
std::vector<std::vector<int>> index_table(const Mapping& mapping, TileGrid g) {
  std::vector<std::vector<int>> t(g.num_m_blocks, std::vector<int>(g.num_n_blocks, -1));
  for (int i = 0; i < g.num_tiles(); ++i) {
    const TileCoord c = map_tile(mapping, g, i);
    t[c.m_block][c.n_block] = i;
  }
  return t;
}

using Table = std::vector<std::vector<int>>;

TEST(TileMapping, SeedOneGroupedMEightByEight) {
  // Seed 1: 8 x 8 tiles, grouped-M strip with G = 4; the first wave of 8 CTAs covers
  // m0..m3 x n0..n1 (4 A bands, 2 B bands).
  const Mapping mapping{MappingKind::grouped_m, 4};
  const TileGrid g{8, 8};
  const TileCoord first_wave[8] = {{0, 0}, {1, 0}, {2, 0}, {3, 0}, {0, 1}, {1, 1}, {2, 1}, {3, 1}};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(map_tile(mapping, g, i), first_wave[i]) << "i = " << i;
  const Table expected = {
      {0, 4, 8, 12, 16, 20, 24, 28},     {1, 5, 9, 13, 17, 21, 25, 29},
      {2, 6, 10, 14, 18, 22, 26, 30},    {3, 7, 11, 15, 19, 23, 27, 31},
      {32, 36, 40, 44, 48, 52, 56, 60},  {33, 37, 41, 45, 49, 53, 57, 61},
      {34, 38, 42, 46, 50, 54, 58, 62},  {35, 39, 43, 47, 51, 55, 59, 63}};
  EXPECT_EQ(index_table(mapping, g), expected);
}

TEST(TileMapping, HandComputedSmallGrids) {
  EXPECT_EQ(index_table({MappingKind::linear_n}, {2, 3}), (Table{{0, 1, 2}, {3, 4, 5}}));
  EXPECT_EQ(index_table({MappingKind::linear_m}, {2, 3}), (Table{{0, 2, 4}, {1, 3, 5}}));
  // Grouped-M, G = 2 on 5 x 3: strips {m0,m1}, {m2,m3} and the partial strip {m4}.
  EXPECT_EQ(index_table({MappingKind::grouped_m, 2}, {5, 3}),
            (Table{{0, 2, 4}, {1, 3, 5}, {6, 8, 10}, {7, 9, 11}, {12, 13, 14}}));
  // Grouped-N, G = 2 on 3 x 5: strips {n0,n1}, {n2,n3}, {n4}; n fastest inside.
  EXPECT_EQ(index_table({MappingKind::grouped_n, 2}, {3, 5}),
            (Table{{0, 1, 6, 7, 12}, {2, 3, 8, 9, 13}, {4, 5, 10, 11, 14}}));
  // Box 2 x 3 on 5 x 5: boxes n fastest, n fastest inside; right and bottom boxes clipped.
  EXPECT_EQ(index_table({MappingKind::box, 8, 2, 3}, {5, 5}),
            (Table{{0, 1, 2, 6, 7},
                   {3, 4, 5, 8, 9},
                   {10, 11, 12, 16, 17},
                   {13, 14, 15, 18, 19},
                   {20, 21, 22, 23, 24}}));
  // Morton 4 x 4: n in the even bits, m in the odd bits.
  EXPECT_EQ(index_table({MappingKind::morton}, {4, 4}),
            (Table{{0, 1, 4, 5}, {2, 3, 6, 7}, {8, 9, 12, 13}, {10, 11, 14, 15}}));
  // Morton 3 x 3: the 4 x 4 Z-order with row/column 3 skipped.
  EXPECT_EQ(index_table({MappingKind::morton}, {3, 3}), (Table{{0, 1, 4}, {2, 3, 5}, {6, 7, 8}}));
  // Hilbert 2 x 2 and 4 x 4: starts at C00, ends at C0,last (next square continues at n = side).
  EXPECT_EQ(index_table({MappingKind::hilbert}, {2, 2}), (Table{{0, 3}, {1, 2}}));
  EXPECT_EQ(index_table({MappingKind::hilbert}, {4, 4}),
            (Table{{0, 1, 14, 15}, {3, 2, 13, 12}, {4, 7, 8, 11}, {5, 6, 9, 10}}));
  // 1 x N and N x 1: every mapping is the identity order.
  for (const Mapping& mapping : all_mappings()) {
    for (int i = 0; i < 37; ++i) {
      EXPECT_EQ(map_tile(mapping, {1, 37}, i), (TileCoord{0, i})) << mapping_name(mapping);
      EXPECT_EQ(map_tile(mapping, {37, 1}, i), (TileCoord{i, 0})) << mapping_name(mapping);
    }
  }
}

TEST(TileMapping, IdentitiesBetweenMappings) {
  for (TileGrid g : many_grids()) {
    const int nm = g.num_m_blocks, nn = g.num_n_blocks;
    for (int i = 0; i < g.num_tiles(); ++i) {
      const TileCoord ln = map_linear_n(g, i), lm = map_linear_m(g, i);
      ASSERT_EQ(map_grouped_m(g, 1, i), ln);   // strips of one row = row-major
      ASSERT_EQ(map_grouped_n(g, 1, i), lm);   // strips of one column = column-major
      ASSERT_EQ(map_grouped_m(g, nm, i), lm);  // one strip = column-major
      ASSERT_EQ(map_grouped_n(g, nn, i), ln);
      ASSERT_EQ(map_box(g, 3, 1, i), map_grouped_m(g, 3, i));  // one-column boxes = grouped-M
      ASSERT_EQ(map_box(g, 1, 5, i), ln);                      // one-row boxes = row-major
      ASSERT_EQ(map_box(g, nm, nn, i), ln);                    // one box = row-major
    }
  }
}

int manhattan(TileCoord x, TileCoord y) {
  return std::abs(x.m_block - y.m_block) + std::abs(x.n_block - y.n_block);
}

TEST(TileMapping, HilbertStepsAreNeighboursOnPowerOfTwoSquaresAndTheirChains) {
  // side x (k * side) grids, either orientation: every step moves to an adjacent tile.
  for (int side : {1, 2, 4, 8, 16, 64})
    for (int k : {1, 2, 3, 5}) {
      for (TileGrid g : {TileGrid{side, k * side}, TileGrid{k * side, side}}) {
        for (int i = 1; i < g.num_tiles(); ++i)
          ASSERT_EQ(manhattan(map_hilbert(g, i - 1), map_hilbert(g, i)), 1)
              << g.num_m_blocks << "x" << g.num_n_blocks << " step " << i;
      }
    }
}

TEST(TileMapping, MortonIsBitInterleaveOnPowerOfTwoGrids) {
  for (int a = 0; a <= 5; ++a)
    for (int b = 0; b <= 5; ++b) {
      const TileGrid g{1 << a, 1 << b};
      const int low = a < b ? a : b;
      for (int i = 0; i < g.num_tiles(); ++i) {
        int m = 0, n = 0;
        for (int bit = 0; bit < low; ++bit) {
          n |= ((i >> (2 * bit)) & 1) << bit;
          m |= ((i >> (2 * bit + 1)) & 1) << bit;
        }
        const int high = i >> (2 * low);  // the longer dimension's remaining bits
        if (a > b) m |= high << low; else n |= high << low;
        ASSERT_EQ(map_morton(g, i), (TileCoord{m, n})) << g.num_m_blocks << "x" << g.num_n_blocks;
      }
    }
}

TEST(TileMapping, BoxOfWaveSizeIsOneRectanglePerWave) {
  // 12 x 11 boxes on the 64 x 64 grid, 132 CTAs: wave w is exactly box w while boxes are whole.
  const TileGrid g{64, 64};
  for (int wave = 0; wave < 5; ++wave) {
    int min_m = 1 << 30, max_m = -1, min_n = 1 << 30, max_n = -1;
    for (int i = wave * 132; i < (wave + 1) * 132; ++i) {
      const TileCoord t = map_box(g, 12, 11, i);
      min_m = std::min(min_m, t.m_block), max_m = std::max(max_m, t.m_block);
      min_n = std::min(min_n, t.n_block), max_n = std::max(max_n, t.n_block);
    }
    EXPECT_EQ(max_m - min_m + 1, 12) << wave;
    EXPECT_EQ(max_n - min_n + 1, 11) << wave;
    EXPECT_EQ(min_n, wave * 11) << wave;
  }
}

TEST(TileMapping, GroupedMWaveTouchesGroupRows) {
  // 132 consecutive tasks of grouped-M G=8 on the 8192^3 / 128x128 grid: 8 A bands, 17 B bands.
  const TileGrid g{64, 64};
  std::vector<char> rows(64, 0), cols(64, 0);
  for (int i = 0; i < 132; ++i) {
    const TileCoord t = map_grouped_m(g, 8, i);
    rows[t.m_block] = cols[t.n_block] = 1;
  }
  int r = 0, c = 0;
  for (int x = 0; x < 64; ++x) r += rows[x], c += cols[x];
  EXPECT_EQ(r, 8);
  EXPECT_EQ(c, 17);
}

TEST(TileMapping, MakeTileGridRoundsUp) {
  EXPECT_EQ(make_tile_grid(1, 1, 128, 128).num_tiles(), 1);
  const TileGrid g = make_tile_grid(1000, 257, 128, 64);
  EXPECT_EQ(g.num_m_blocks, 8);
  EXPECT_EQ(g.num_n_blocks, 5);
  EXPECT_FALSE(is_valid(Mapping{MappingKind::grouped_m, 0}));
  EXPECT_FALSE(is_valid(Mapping{MappingKind::box, 8, 2, 0}));
  EXPECT_TRUE(is_valid(Mapping{MappingKind::hilbert, 0, 0, 0}));
}

}  // namespace
}  // namespace tilegemm::sched
