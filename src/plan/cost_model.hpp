// The planner's two models of one candidate (host only):
//   SeedTerms: seed 1's heuristic, term for term, exactly as the seed states it.
//   TimeTerms: tilegemm's predicted time, built on the seed's cycles plus an HBM term, a
//              tensor-core term and fixed costs, so swap-AB / split-K candidates and memory-bound
//              vs compute-bound shapes can be compared. docs/PLANNER.md states both models.
#pragma once

#include <cstdint>
#include <string>

#include "plan/config.hpp"
#include "plan/device_profile.hpp"
#include "plan/problem.hpp"

namespace tilegemm::plan {

// Seed 1 ("Kernel Configuration Heuristic"), with K = the slice's K and sizeof(C) = the epilogue
// element (FP32 for split-K partials):
//   bytes_L2_AB    = K * (BM / cluster_N + BN / cluster_M) * 2
//   bytes_local_AB = K * (BM + BN) * 2
//   bytes_TC       = K * (max(64, BM) + BN) * 2 + BM * BN * sizeof(C)
//   bytes_CD       = BM * BN * sizeof(C) * (accumulate ? 2 : 1)
//   cycles_L2      = (bytes_L2_AB + bytes_CD) * blocks / BW_L2
//   cycles_local   = (bytes_local_AB + bytes_TC + bytes_CD) * blocks / BW_local
//   wave_eff       = blocks / (waves * SMs),  waves = ceil(blocks / SMs)
//   score          = max(cycles_local, cycles_L2) / wave_eff          (lowest wins)
struct SeedTerms {
  int64_t num_blocks = 0;
  int64_t num_waves = 0;
  double wave_eff = 0;
  int sizeof_c = 0;
  int64_t bytes_L2_AB = 0;
  int64_t bytes_local_AB = 0;
  int64_t bytes_TC = 0;
  int64_t bytes_CD = 0;
  double cycles_L2 = 0;
  double cycles_local = 0;
  double score = 0;
};
SeedTerms seed_terms(const Problem& p, const Config& c, const DeviceProfile& d);

// Fraction of the SM's tensor-core peak one CTA of this config sustains in its mainloop (0..1].
// A per-k-block cost that does not scale with BN (barrier waits, descriptor and issue work, the
// wgmma pipeline drain at wait_group) makes wide tiles more efficient: BN / (BN + kBnOverhead).
// One consumer warpgroup (BM = 64) cannot keep the tensor cores busy while it also waits:
// x kOneConsumerFactor. Ping-pong consumers sustain what the cooperative kernel of the same tile
// does (measured on the H200: 128x176 at 4096x2112x7168 160.1 us against 160.8, 128x256-class
// rates at K = 16384; 64x256 ping-pong 195.4 us at 4096^3 against one consumer's 197.7): BM
// decides, not the number of consumers. Both constants are fitted to the per-tile efficiencies measured on the
// H200 for 64x128, 128x128, 128x144, 128x176, 128x192 and 128x256 (docs/PLANNER.md, "mainloop
// efficiency"); the measured autotuner (issue 10) is meant to replace them.
inline constexpr double kBnOverhead = 55.0;
inline constexpr double kOneConsumerFactor = 0.85;
double mainloop_efficiency(const Config& c);

// Predicted time (microseconds):
//   predicted = (max(l2, local, hbm, tc) + epilogue + fixed + fixup) / cluster_factor
// (cluster_factor, measured, only for 2-CTA clusters: their two rings run in lock-step).
// The busiest CTA's k-blocks ("cta_kb"): waves * the k-blocks of a unit without k-splitting; with
// stream_k its data-parallel tiles plus its workers' ranges (KSplitWork).
// l2:   the TMA feed: max((HBM bytes of A and B + lines zero-filled past the edges) / tma_fill rate,
//   cta_kb * the lines of one k-block / the per-SM TMA rate), both measured (device_profile.cpp).
// local: the seed's cycles_local / wave_eff (with stream_k: / the k-split's balance).
// hbm:  HBM bytes / achievable HBM bandwidth; A and B with a strip re-read model of the grouped
//   mapping, D written once, C read once when accumulating.
// tc:   cta_kb * (2 * BM * BN * BK) / (tensor FLOP per cycle per SM * efficiency), with the
//   mainloop efficiency of the config (mainloop_efficiency below: what one CTA of this tile shape
//   sustains, measured on the H200).
// epilogue: per stored tile, the part of the epilogue that does not overlap a mainloop: the
//   stmatrix into the staging smem (TMA store), or the stores from registers at the measured
//   direct-store rate (direct epilogue: only the elements inside D); twice for a static launch.
//   Ping-pong: a tile costs max(ml, (ml + epi) / 2), only the last tile's epilogue whole.
// fixup: per unit of the busiest CTA whose tile is shared, the fix-up's latency (the counter and
//   fence round trips, measured), plus the fp32 partials it writes and reads back (through L2) at
//   fixup_bytes_per_s_per_sm.
struct TimeTerms {
  double l2_us = 0, local_us = 0, hbm_us = 0, tc_us = 0;
  double epilogue_us = 0, fixed_us = 0, fixup_us = 0;
  double efficiency = 1;        // mainloop_efficiency(config)
  double predicted_us = 0;
  double tflops = 0;            // 2 * M * N * K / predicted
  double hbm_bytes = 0;         // double: it can exceed int64 for M, N, K near 2^31
  int64_t bytes_L2_AB_eff = 0;  // the seed's bytes_L2_AB with multicast only where the peer exists
  double b_reread = 1;          // times the streamed operand is read from HBM (1 = once)
  std::string bound;            // "l2", "local", "hbm" or "tensor": the largest of the four
};
TimeTerms time_terms(const Problem& p, const Config& c, const DeviceProfile& d, const SeedTerms& s);

// The work of the busiest CTA under a config's k-split (sm90::config_k_split on the profile's
// SM count), for the time model and explain.
struct KSplitWork {
  sched::KSplit split;       // dp_tiles, workers (0: every tile whole)
  int64_t grid = 0;          // CTAs launched
  int64_t cta_kb = 0;        // k-blocks of the busiest CTA
  int64_t cta_stores = 0;    // tiles it stores (at most)
  int64_t cta_partials = 0;  // fp32 partial tiles it writes or reads (at most)
  int64_t max_pieces = 1;    // the most units sharing one tile
  int64_t shared_units = 0;  // units of the busiest CTA whose tile is shared (each pays the fix-up's latency)
  double balance = 1;        // all k-blocks / (grid * cta_kb): 1 = no CTA idles
};
KSplitWork ksplit_work(const Problem& p, const Config& c, const DeviceProfile& d);
// The most tiles a k-split is planned over (the decomposition counts them in int).
inline constexpr int64_t kMaxKSplitTiles = int64_t{1} << 30;

}  // namespace tilegemm::plan
