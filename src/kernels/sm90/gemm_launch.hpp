// Host side of the SM90 fast path (kernel: gemm_kernel.cuh): which tile configurations exist, the
// rule that picks one, and the launch (tensor maps, smem size from plan/smem_layout.hpp, cluster
// launch through cudaLaunchKernelEx). Plain C++ header: gemm.cpp and the CLI include it.
//
// The caller (src/api/gemm.cpp, select_path) has already checked that TMA can describe the
// problem: NT layout, bf16 A/B/D, D row-major, lda/ldb/ldd multiples of 8 elements, pointers
// 16-B aligned, 1 <= M, N, K <= INT32_MAX, no C (or beta = 0).
#pragma once

#include <cstdint>
#include <string>

#include <cuda_runtime_api.h>

#include "schedule/mapping.hpp"

namespace tilegemm::sm90 {

// The instantiated configurations (BLOCK_M x BLOCK_N, BK = 64; stages = as many as fit the planner's
// smem layout with the config's epilogue staging: a full BLOCK_M x BLOCK_N bf16 tile, except
// 128x256, which stages 128 columns at a time (gemm_launch.cu, epilogue_stage_cols)).
enum class TileConfig : int {
  automatic = 0,  // choose_tile_config()
  t128x256 = 1,   // 2 consumers x 64x256, 4 stages (epilogue staged in halves); cluster 2 along M (B multicast) when m-blocks are even
  t128x128 = 2,   // 2 consumers x 64x128, 6 stages, no cluster
  t64x128 = 3,    // 1 consumer  x 64x128, 8 stages, no cluster (small M)
  t128x192 = 4,   // 2 consumers x 64x192, 4 stages; cluster 2 along M when m-blocks are even
  t128x176 = 5,   // 2 consumers x 64x176, 5 stages, direct epilogue (no staging); cluster 2 along M when even
  t128x144 = 6,   // 2 consumers x 64x144, 6 stages, direct epilogue (no staging); cluster 2 along M when even
};
const char* tile_config_name(TileConfig c);

inline int64_t ceil_div64(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The selection rule (a wave model, not the planner: the planner does not know which configs
// exist and its candidates include BN the kernel is not instantiated for):
//   M <= 64: 64x128 (a 128-row tile would compute mostly padding);
//   otherwise the config with the lowest  ceil(tiles / SMs) · BLOCK_M · BLOCK_N / efficiency,
//   i.e. the number of waves times the work of one tile, with a per-config efficiency for the
//   smaller tiles' lower math per smem byte and per wgmma (128x256 1.0, 128x192 0.95,
//   128x128 0.85, 64x128 0.5; rough, from ladder/measurements, not fitted). Ties: the order below.
//   128x176 (0.93) and 128x144 (0.90) exist for wave quantization at small N: 4096x2112 -> 384
//   tiles of 128x176 (3 waves of smaller tiles than 128x192's 352 = 3 waves), 4096x576 -> 128
//   tiles of 128x144 (one full wave; 128x192 leaves 36 of 132 SMs idle). Their efficiencies sit
//   between 128x128 and 128x192, so they win only where they cut the waves or the tile work per wave.
struct TileCandidate {
  TileConfig config;
  int block_m, block_n;
  double efficiency;
};
inline constexpr TileCandidate kTileCandidates[] = {{TileConfig::t128x256, 128, 256, 1.0},
                                                    {TileConfig::t128x192, 128, 192, 0.95},
                                                    {TileConfig::t128x176, 128, 176, 0.93},
                                                    {TileConfig::t128x144, 128, 144, 0.90},
                                                    {TileConfig::t128x128, 128, 128, 0.85},
                                                    {TileConfig::t64x128, 64, 128, 0.5}};

inline TileConfig choose_tile_config(int64_t m, int64_t n, int num_sms) {
  if (m <= 64) return TileConfig::t64x128;
  TileConfig best = TileConfig::t128x256;
  double best_cost = 0;
  for (const TileCandidate& c : kTileCandidates) {
    const int64_t tiles = ceil_div64(m, c.block_m) * ceil_div64(n, c.block_n);
    const double cost = double(ceil_div64(tiles, num_sms)) * c.block_m * c.block_n / c.efficiency;
    if (best_cost == 0 || cost < best_cost) {
      best = c.config;
      best_cost = cost;
    }
  }
  return best;
}

// 2-CTA clusters (B multicast along M) are used by the 128-row configs but 128x128 only when every pair of
// m-blocks is complete, so that every CTA multicasts at every step and the rings stay in lock-step.
inline bool uses_cluster_pair(TileConfig c, int64_t m) {
  return (c == TileConfig::t128x256 || c == TileConfig::t128x192 || c == TileConfig::t128x176 ||
          c == TileConfig::t128x144) &&
         ceil_div64(m, 128) % 2 == 0;
}

// Split-K (decode shapes: few output tiles, long K). Only the 64x128 and 128x128 configs have a
// split-K instantiation (no clusters); the others never split. The rule, for `tiles` output tiles
// on `ctas` resident CTAs and `num_kb` = ceil(K / 64) k-blocks:
//   tiles >= ctas / 2            -> S = 1 (at least half the GPU is busy already; the large shapes
//                                   keep exactly the unsplit kernel);
//   otherwise S = min(floor(ctas / tiles), floor(num_kb / 4)), and S = 1 if that is < 2.
// floor(ctas / tiles) keeps the S · tiles work units within one wave (rounding up would give some
// CTAs two units and double the time); num_kb / 4 keeps >= 4 k-blocks per split, so that the ring
// fills and the fp32 partials (S · M · N_pad · 4 B, written and read back once by the reduce
// kernel) stay small next to B. Examples on 132 SMs: 1x2112x7168 (64x128: 17 tiles, 112 k-blocks)
// -> S = 7; 1x576x7168 (5 tiles) -> S = 26; 128x4096x7168 (64 tiles) -> S = 2.
inline int choose_splits(int64_t tiles, int ctas, int64_t num_kb) {
  if (tiles < 1 || ctas < 2 || 2 * tiles >= ctas) return 1;
  int64_t s = ctas / tiles;
  if (s > num_kb / 4) s = num_kb / 4;
  return s >= 2 ? int(s) : 1;
}

struct GemmProblem {
  const void* a = nullptr;  // A [M, K] K-major bf16, row m at a + m * lda
  const void* b = nullptr;  // B [N, K] K-major bf16, row n at b + n * ldb
  void* d = nullptr;        // D [M, N] row-major bf16, row m at d + m * ldd
  int m = 0, n = 0, k = 0;
  int64_t lda = 0, ldb = 0, ldd = 0;  // elements
  float alpha = 1.0f;
  cudaStream_t stream = nullptr;
};

struct LaunchOptions {
  sched::Mapping mapping{sched::MappingKind::grouped_m, 8};  // tile order (any valid mapping)
  TileConfig config = TileConfig::automatic;
  // Split-K: 0 = the rule (choose_splits); n >= 1 = force n splits (clamped to the number of
  // k-blocks; 1 = never split). Configs without a split-K instantiation ignore it. Either way the
  // split runs only if the workspace can be had (below); otherwise the call runs unsplit.
  int splits = 0;
};

struct LaunchResult {
  cudaError_t error = cudaSuccess;
  std::string message;  // empty when ok; otherwise what failed, with values
  TileConfig config = TileConfig::automatic;  // what ran
  int splits = 1;                             // what ran: 1 = one kernel, S > 1 = split-K + reduce
  bool ok() const { return error == cudaSuccess && message.empty(); }
};

// Enqueues D = alpha · A·Bᵀ on problem.stream. With split-K, two kernels: the GEMM writing fp32
// partials into a workspace, then the reduce. The workspace is internal: one per (device, stream),
// allocated on first use with room for any split the rule can choose (SMs · 128 · 128 fp32), grown
// (after synchronizing that stream) only for larger forced splits, never freed; while the stream
// is being captured into a graph it is never allocated or grown (the call then runs unsplit).
// Calls on one stream share it in stream order; different streams never share one.
LaunchResult launch_gemm(const GemmProblem& problem, const LaunchOptions& options);

}  // namespace tilegemm::sm90
