// Proves tile_mapping.hpp and tp_chunks.hpp compile as device code under nvcc (sm_90a) and stay
// constexpr there.
// The kernel is never launched: the CPU tests cover the values, this file covers the compiler.
#include <gtest/gtest.h>

#include "schedule/tile_mapping.hpp"
#include "schedule/tp_chunks.hpp"

namespace tilegemm::sched {
namespace {

static_assert(map_tile(Mapping{MappingKind::grouped_m, 4}, TileGrid{8, 8}, 7) == TileCoord{3, 1});
static_assert(map_tile(Mapping{MappingKind::hilbert}, TileGrid{5, 7}, 34) .m_block >= 0);
static_assert(slot_work(Schedule{TileGrid{2, 3}, Mapping{MappingKind::linear_n}, ClusterAxis::along_n}, 3)
                  .has_tile == false);

// What a persistent kernel's scheduler does per tile, for every mapping and cluster axis.
__global__ void schedule_every_mapping(Schedule s, int* out) {
  int acc = 0;
  for (int kind = 0; kind <= static_cast<int>(MappingKind::hilbert); ++kind) {
    s.mapping.kind = static_cast<MappingKind>(kind);
    const int iters = persistent_iterations(s, blockIdx.x, gridDim.x);
    for (int it = 0; it < iters; ++it) {
      const TileWork w = persistent_work(s, blockIdx.x, it, gridDim.x);
      if (!w.has_tile) continue;
      const ClusterPeer peer = cluster_peer(s.grid, s.cluster, w.tile);
      acc += w.tile.m_block * 7 + w.tile.n_block + (w.multicast ? 1 : 0) + peer.rank;
    }
    const TileWork st = static_work(s, blockIdx.x);
    acc += st.has_tile ? map_tile(s.mapping, s.grid, 0).m_block : 0;
  }
  acc += num_waves(s, gridDim.x) + make_tile_grid(4096, 4096, 128, 128).num_tiles() +
         map_morton(s.grid, 0).n_block + map_hilbert(s.grid, 0).n_block + (is_valid(s.mapping) ? 1 : 0);
  out[blockIdx.x] = acc;
}

static_assert(TpChunkSchedule{RowChunks{1000, 4}, 1, 128, TpCollective::all_gather}.block_step(0) == 3);

// What a kernel walking a tensor-parallel step would ask per m-block.
__global__ void tp_steps(TpChunkSchedule s, int* out) {
  TpStepRanges<8> ranges;
  out[blockIdx.x] = tp_step_ranges(s, ranges) ? s.block_step(int(blockIdx.x) % s.num_blocks()) + ranges.end[0] : -1;
}

TEST(DeviceCompile, KernelUsingTheSchedulerBuilds) {
  // Taking the kernel's address keeps it in the binary; it is not launched (no GPU in CI).
  const void* kernel = reinterpret_cast<const void*>(&schedule_every_mapping);
  EXPECT_NE(kernel, nullptr);
  EXPECT_NE(reinterpret_cast<const void*>(&tp_steps), nullptr);
}

}  // namespace
}  // namespace tilegemm::sched
