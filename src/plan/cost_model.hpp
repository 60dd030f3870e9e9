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

// Fraction of the SM's tensor-core peak one CTA of this config sustains in its mainloop (0..1]:
// kMainloopPeak x BN / (BN + kBnOverhead). A per-k-block cost that does not scale with BN (barrier
// waits, descriptor and issue work, the wgmma pipeline drain at wait_group) makes wide tiles more
// efficient. One consumer warpgroup (BM = 64) cannot keep the tensor cores busy while it also
// waits: x kOneConsumerFactor. Ping-pong consumers sustain what the cooperative kernel of the same
// tile does (measured on the H200: 128x176 at 4096x2112x7168 160.1 us against 160.8, 128x256-class
// rates at K = 16384; 64x256 ping-pong 195.4 us at 4096^3 against one consumer's 197.7): BM
// decides, not the number of consumers. kMainloopPeak and kBnOverhead are refitted
// (scripts/fit_time_model.py, docs/PERF.md 2026-12-02 "seventh session") to 112 measured (shape,
// config) pairs, ping-pong and cooperative: 128x128 .. 128x256 tiles run within 5% of each other at
// long K (128x176 ping-pong 1171.9 us = 128x256 1171.7 at 4096x7168x16384), which BN / (BN + 55)
// (the earlier fit, 0.70 against 0.82) did not see. kOneConsumerFactor is from the 477-pair fit
// before; the new data does not constrain it (the 64-row tiles there are bound by the TMA feed).
// Below 128 columns the rate falls further (4096^3: 128x64 300.3 us against 128x256's 179.1 for the
// same work, 0.60 of it where BN / (BN + 10) says 0.90): x kNarrowFactor at BN <= 64, rising
// linearly to 1 at BN = 128 (128x96, 226 us of mainloop: 0.82, the line gives 0.83).
inline constexpr double kMainloopPeak = 0.88;
inline constexpr double kNarrowFactor = 0.66;
inline constexpr double kBnOverhead = 10.0;
inline constexpr double kOneConsumerFactor = 0.85;
double mainloop_efficiency(const Config& c);

// Predicted time (microseconds):
//   predicted = (limits + epilogue + c + fixed + fixup) / cluster factor
//   limits    = the limit_norm_p-norm of (l2, local, hbm, tc) over those within 3/4 of the largest,
//               at least tiles; with a short K (short_k_norm_p) the lower-p norm of all five
// (the cluster factor, measured, only for 2-CTA clusters: their two rings run in lock-step).
// The busiest CTA's k-blocks ("cta_kb"): waves * the k-blocks of a unit without k-splitting; with
// stream_k its data-parallel tiles plus its workers' ranges (KSplitWork).
// l2:   the TMA feed: max((HBM bytes of A and B + lines zero-filled past the edges) / tma_fill rate,
//   cta_kb * the lines of one k-block / the per-SM TMA rate), both measured (device_profile.cpp).
// local: the seed's cycles_local / wave_eff (with stream_k: / the k-split's balance).
// hbm:  HBM bytes / the streaming HBM bandwidth; A and B with a strip re-read model of the grouped
//   mapping, D written once, C read once when accumulating.
// tc:   cta_kb * (2 * BM * BN * BK) / (tensor FLOP per cycle per SM * efficiency), with the
//   mainloop efficiency of the config (mainloop_efficiency below: what one CTA of this tile shape
//   sustains, measured on the H200), x ring_shallow_factor for a shallow ring under an HBM-heavy
//   feed (cost_model.cpp).
// epilogue: per stored tile, the part of the epilogue that does not overlap a mainloop: the
//   stmatrix into the staging smem (TMA store), or the stores from registers at the measured
//   direct-store rate (direct epilogue: only the elements inside D); twice for a static launch.
//   Ping-pong: a tile costs max(ml, (ml + epi) / 2), only the last tile's epilogue whole.
// c: with C read (accumulate), what reading it costs the busiest CTA beyond its HBM bytes (counted
//   in hbm): per tile it stores, c_tile_us (staged epilogues) or c_tile_direct_us (direct) +
//   c_direct_line_us per row of C a consumer reads inside D (row-major D); for a
//   cooperative staged tile whose boxes outnumber its staging slots, the boxes reloaded after a
//   store at c_reload_bytes_per_s_per_sm, plus c_slot_round_us per reload when a consumer has one
//   slot; the smem_stores epilogue (C loaded by the threads) c_thread_box_us per 64 x 64 elements
//   of C a consumer combines instead (ping-pong: its two consumers side by side). Fitted on the H200 (device_profile.cpp).
// fixup: per unit of the busiest CTA whose tile is shared, the fix-up's latency (the counter and
//   fence round trips, measured), plus the fp32 partials it writes and reads back (through L2) at
//   fixup_bytes_per_s_per_sm.
struct TimeTerms {
  double l2_us = 0, local_us = 0, hbm_us = 0, tc_us = 0;
  double tiles_us = 0;          // the staged tiles' floor: the busiest CTA's tiles x the least time of one
  double limits_us = 0;         // the four above combined (their p-norm, DeviceProfile::limit_norm_p),
                                // at least tiles_us; with a short K the norm of all five (short_k_norm_p)
  double norm_p = 0;            // the p of the limits' norm: limit_norm_p, or short_k_norm_p's
  bool short_k = false;         // a short K: the norm is of all five, the tiles' floor among them
  double epilogue_us = 0, c_us = 0, fixed_us = 0, fixup_us = 0;
  double efficiency = 1;        // mainloop_efficiency(config)
  double predicted_us = 0;
  double tflops = 0;            // 2 * M * N * K / predicted
  double hbm_bytes = 0;         // double: it can exceed int64 for M, N, K near 2^31
  int64_t bytes_L2_AB_eff = 0;  // the seed's bytes_L2_AB with multicast only where the peer exists
  double b_reread = 1;          // times the streamed operand is read from HBM (1 = once)
  std::string bound;            // "l2", "local", "hbm" or "tensor": the largest of the four; "tiles"
                                // where the tiles' floor is above their norm
};
TimeTerms time_terms(const Problem& p, const Config& c, const DeviceProfile& d, const SeedTerms& s);

// The p of the limits' norm for a short K (fewer than DeviceProfile::short_k_blocks k-blocks of
// bk): short_k_norm_p up to short_k_full_blocks, rising linearly to limit_norm_p; there every limit
// and the tiles' floor add, none under a floor. 0 where K is not short (the norm as above).
double short_k_norm_p(int64_t k, int bk, const DeviceProfile& d);

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
