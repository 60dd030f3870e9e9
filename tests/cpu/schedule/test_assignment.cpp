// Static and persistent assignment, and the 2-CTA cluster rule: every tile is computed exactly
// once for any CTA count, and both CTAs of a cluster agree on the pair, the ranks and multicast.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "schedule/mapping_names.hpp"
#include "schedule/tile_mapping.hpp"

namespace tilegemm::sched {
namespace {

const Mapping kMappings[] = {{MappingKind::linear_n},     {MappingKind::linear_m},
                             {MappingKind::grouped_m, 8}, {MappingKind::grouped_n, 3},
                             {MappingKind::box, 8, 2, 5}, {MappingKind::morton},
                             {MappingKind::hilbert}};
const ClusterAxis kAxes[] = {ClusterAxis::none, ClusterAxis::along_n, ClusterAxis::along_m};
const TileGrid kGrids[] = {{1, 1},  {1, 2},  {2, 1},  {1, 7},  {7, 1},   {3, 3},  {5, 8},
                           {8, 5},  {13, 17}, {16, 16}, {31, 2}, {64, 64}, {29, 37}, {2, 131}};

std::string describe(const Schedule& s) {
  return mapping_name(s.mapping) + " cluster " + cluster_name(s.cluster) + " on " +
         std::to_string(s.grid.num_m_blocks) + "x" + std::to_string(s.grid.num_n_blocks);
}

TEST(Assignment, StaticCoversEachTileOnce) {
  for (const Mapping& mapping : kMappings)
    for (ClusterAxis axis : kAxes)
      for (TileGrid g : kGrids) {
        const Schedule s{g, mapping, axis};
        std::vector<int> count(static_cast<size_t>(g.num_tiles()), 0);
        EXPECT_EQ(num_slots(s) % cluster_size(axis), 0);
        for (int cta = 0; cta < num_slots(s); ++cta) {
          const TileWork w = static_work(s, cta);
          if (w.has_tile) ++count[static_cast<size_t>(w.tile.m_block) * g.num_n_blocks + w.tile.n_block];
        }
        for (int c : count) ASSERT_EQ(c, 1) << describe(s);
        EXPECT_FALSE(static_work(s, num_slots(s)).has_tile);
        EXPECT_FALSE(static_work(s, -1).has_tile);
      }
}

TEST(Assignment, PersistentCoversEachTileOnceForAnyP) {
  for (const Mapping& mapping : kMappings)
    for (ClusterAxis axis : kAxes)
      for (TileGrid g : kGrids)
        for (int p : {1, 2, 3, 4, 5, 7, 8, 16, 17, 64, 131, 132, 133, 264, 4096, 5000}) {
          const Schedule s{g, mapping, axis};
          if (p % cluster_size(axis) != 0) continue;  // not a legal cluster launch
          std::vector<int> count(static_cast<size_t>(g.num_tiles()), 0);
          int steps = 0;
          for (int cta = 0; cta < p; ++cta) {
            const int iters = persistent_iterations(s, cta, p);
            steps += iters;
            for (int it = 0; it < iters; ++it) {
              const TileWork w = persistent_work(s, cta, it, p);
              if (w.has_tile) ++count[static_cast<size_t>(w.tile.m_block) * g.num_n_blocks + w.tile.n_block];
            }
            EXPECT_FALSE(persistent_work(s, cta, iters, p).has_tile);  // nothing after the last step
          }
          EXPECT_EQ(steps, num_slots(s));
          for (int c : count) ASSERT_EQ(c, 1) << describe(s) << " P=" << p;
        }
}

TEST(Assignment, ClusterPairIsConsistentOnBothCtas) {
  for (const Mapping& mapping : kMappings)
    for (ClusterAxis axis : {ClusterAxis::along_n, ClusterAxis::along_m})
      for (TileGrid g : kGrids)
        for (int p : {2, 8, 132}) {
          const Schedule s{g, mapping, axis};
          for (int cta = 0; cta < p; cta += 2) {
            // The two CTAs of one cluster run the same number of steps, in lockstep.
            ASSERT_EQ(persistent_iterations(s, cta, p), persistent_iterations(s, cta + 1, p));
            for (int it = 0; it < persistent_iterations(s, cta, p); ++it) {
              const TileWork r0 = persistent_work(s, cta, it, p), r1 = persistent_work(s, cta + 1, it, p);
              ASSERT_EQ(r0.cluster_rank, 0);
              ASSERT_EQ(r1.cluster_rank, 1);
              ASSERT_TRUE(r0.has_tile) << describe(s);  // rank 0 always holds the first tile
              ASSERT_EQ(r0.peer, r1.tile);
              ASSERT_EQ(r1.peer, r0.tile);
              ASSERT_EQ(r0.multicast, r1.has_tile);  // multicast exactly when the peer exists
              ASSERT_EQ(r1.multicast, r1.has_tile);
              if (axis == ClusterAxis::along_n) {  // share m_block, adjacent n_block -> A multicast
                ASSERT_EQ(r0.tile.m_block, r1.tile.m_block);
                ASSERT_EQ(r1.tile.n_block, r0.tile.n_block + 1);
                ASSERT_EQ(r0.tile.n_block % 2, 0);
              } else {  // share n_block, adjacent m_block -> B multicast
                ASSERT_EQ(r0.tile.n_block, r1.tile.n_block);
                ASSERT_EQ(r1.tile.m_block, r0.tile.m_block + 1);
                ASSERT_EQ(r0.tile.m_block % 2, 0);
              }
              // The tile-level rule gives the same answer as the schedule.
              const ClusterPeer c0 = cluster_peer(g, axis, r0.tile);
              ASSERT_EQ(c0.rank, 0);
              ASSERT_EQ(c0.peer, r1.tile);
              ASSERT_EQ(c0.peer_exists, r1.has_tile);
              if (r1.has_tile) {
                const ClusterPeer c1 = cluster_peer(g, axis, r1.tile);
                ASSERT_EQ(c1.rank, 1);
                ASSERT_EQ(c1.peer, r0.tile);
                ASSERT_TRUE(c1.peer_exists);
              }
            }
          }
        }
}

TEST(Assignment, ClusterHandCase) {
  // 2 x 3 tiles, cluster along N, linear-n over the 2 x 2 grid of pairs:
  // pairs {(0,0),(0,1)} {(0,2),--} {(1,0),(1,1)} {(1,2),--}.
  const Schedule s{{2, 3}, {MappingKind::linear_n}, ClusterAxis::along_n};
  EXPECT_EQ(num_slots(s), 8);
  const struct {
    bool has;
    TileCoord tile;
    bool multicast;
  } expected[8] = {{true, {0, 0}, true}, {true, {0, 1}, true}, {true, {0, 2}, false}, {false, {0, 3}, false},
                   {true, {1, 0}, true}, {true, {1, 1}, true}, {true, {1, 2}, false}, {false, {1, 3}, false}};
  for (int slot = 0; slot < 8; ++slot) {
    const TileWork w = slot_work(s, slot);
    EXPECT_EQ(w.has_tile, expected[slot].has) << slot;
    EXPECT_EQ(w.tile, expected[slot].tile) << slot;
    EXPECT_EQ(w.multicast, expected[slot].multicast) << slot;
  }
  // Without clusters there is no peer and no multicast.
  const ClusterPeer none = cluster_peer({2, 3}, ClusterAxis::none, {1, 1});
  EXPECT_FALSE(none.peer_exists);
  EXPECT_EQ(none.rank, 0);
  // Cluster along M on an odd number of m-blocks: the last row's tiles have no peer.
  EXPECT_FALSE(cluster_peer({5, 4}, ClusterAxis::along_m, {4, 2}).peer_exists);
  EXPECT_TRUE(cluster_peer({5, 4}, ClusterAxis::along_m, {3, 2}).peer_exists);
  EXPECT_EQ(cluster_peer({5, 4}, ClusterAxis::along_m, {3, 2}).peer, (TileCoord{2, 2}));
}

TEST(Assignment, WavesAndIterations) {
  const Schedule s{{8, 8}, {MappingKind::grouped_m, 4}, ClusterAxis::none};
  EXPECT_EQ(num_waves(s, 8), 8);
  EXPECT_EQ(num_waves(s, 132), 1);
  EXPECT_EQ(num_waves(s, 63), 2);
  EXPECT_EQ(persistent_iterations(s, 0, 63), 2);   // slots 0 and 63
  EXPECT_EQ(persistent_iterations(s, 1, 63), 1);
  EXPECT_EQ(persistent_iterations(s, 70, 132), 0);  // more CTAs than tiles
  EXPECT_EQ(persistent_work(s, 3, 1, 8).tile, map_tile(s.mapping, s.grid, 11));
}

}  // namespace
}  // namespace tilegemm::sched
