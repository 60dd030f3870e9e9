// Candidate space, resource filter and ranking (planner.hpp). The cost model is cost_model.cpp.
#include "plan/planner.hpp"

#include "plan/config_spec.hpp"
#include "schedule/mapping_names.hpp"
#include "schedule/working_set.hpp"

#include <algorithm>
#include <cstdio>

#include "core/math.hpp"
#include <string>
#include <tuple>

#include <fmt/format.h>

namespace tilegemm::plan {

using ::tilegemm::ceil_div;  // core/math.hpp
using ::tilegemm::round_up;

namespace {

constexpr int kGroups[] = {8, 16};  // seed: G from 8 / 16
// Split-K factors tried when the tiles leave SMs idle, besides floor(SMs / tiles) (one full wave),
// each only while its units (tiles x S) fit one wave: split-K is there to fill idle SMs. Measured
// on the H200 (build 4f74eb4, 4096x576x7168 NN and TN): 128x192 split 4, 384 units, took 70.7 us
// and split 2, 192 units, 68.2, where the 96 unsplit tiles took 55.3 -- though split 4's busiest
// CTA runs 84 k-blocks against 112; the time model does not see why (the fix-up's partial traffic
// and pieces waiting on later waves are the suspects), so such splits are not offered. The k-splits
// the model picks for the llm suite's shapes are all one wave; stream-K covers several waves.
constexpr int kSplitKFactors[] = {2, 3, 4, 6, 8, 12, 16, 24, 32};
// Swap-AB is enumerated for M up to this with every BN (the transposed tile's BN covers M in at
// most 64), and up to kSwapAbMidMaxM with the BN that pads M least for each count of column tiles
// up to kSwapAbMidMaxTiles (enumerate, below).
constexpr int64_t kSwapAbMaxM = 64;
constexpr int64_t kSwapAbMidMaxM = 1024;
constexpr int64_t kSwapAbMidMaxTiles = 8;
// The batch (M) up to which swap-AB also offers BN = 8, wgmma's narrowest N.
constexpr int kSwapAbNarrowestM = 8;
// k-split cluster sizes the planner offers (Config::cluster_k): 2, 4, 8. Measured on the H200
// (cudaOccupancyMaxActiveClusters, one CTA per SM; test Sm90PathGpu.ClusterKResidentClusters): 66
// clusters of 2 (132 CTAs), 39 of 3 (117), 30 of 4 (120), 22 of 5, 17 of 6, 15 of 7 (105), 15 of 8
// (120): the GPCs hold whole clusters of 4 and 8 in 120 of the 132 SMs, of 3, 5, 6, 7 in fewer.
constexpr int kClusterKSizes[] = {2, 4, 8};

// The staging width of a TMA-store epilogue: every box of the tile, unless that leaves fewer than
// kComfortStages stages; then the most slots that divide the tile's boxes and give the most stages.
int choose_stage_cols(const Config& c, int limit) {
  const int box = sm90::store_box_cols(c.out_dtype);  // 64 bf16 / 32 fp32 columns
  const int boxes = sm90::store_boxes(c.bn, c.out_dtype);
  auto stages_with = [&](int cols) {
    Config t = c;
    t.stage_cols = cols;
    return sm90::config_max_stages(t, limit);
  };
  int best = boxes * box, best_stages = stages_with(best);
  if (best_stages >= kComfortStages) return best;
  for (int slots = boxes - 1; slots >= 1; --slots) {
    if (boxes % slots != 0) continue;
    const int cols = slots * box;
    const int s = stages_with(cols);
    if (s > best_stages) {
      best = cols;
      best_stages = s;
    }
  }
  return best;
}

// Whether swap-AB's D goes through the transposed TMA store (epilogue.cuh, store_tile, and
// store_tile_staged's kTrans with C) for the kernel problem `kp` (kernel_problem: kp.m is D's row
// length, kp.n the batch): a batch past decode (> kSwapAbMaxM) in bf16 whose D rows (and C's, read
// by TMA into the same boxes) are whole 16-B chunks. Decode keeps the direct stores it was
// measured with (its D is small, and the staging would cost a k-split cluster ring stages).
bool swap_tma_store(const Problem& kp) {
  return kp.d_tma && kp.out == DType::bf16 && (!kp.accumulate || kp.c_tma) && kp.m % 8 == 0 && kp.n > kSwapAbMaxM;
}

// Whether a mid-size batch is offered swap-AB (enumerate; `kp` as above): with the transposed TMA
// store, or, where that store cannot take D (fp32 out, or C read in the epilogue), with the direct
// epilogue's column-major stores, D's rows 16-B aligned. NOTES: measured on the H200 (docs/PERF.md,
// sixteenth session): fp32 out, 300x14336x4096 128x160 swap-AB 63.0 us against the unswapped
// pick's 76.2, 400x4096x11008 128x208 swap-AB split 2 57.0 against 81.2.
bool swap_mid_m(const Problem& kp) {
  return swap_tma_store(kp) || (kp.d_tma && (kp.out == DType::fp32 || kp.accumulate));
}

// Fill every field that follows from (bm, bn, cluster, mapping, persistent, split_k) and the problem.
void complete_config(const Problem& p, const DeviceProfile& d, Config& c, bool stages_given) {
  c.bk = sm90::kBlockK;
  if (c.fixed_n == kBakeFromProblem) c.fixed_n = static_cast<int>(p.n);  // a `bake` spec (config_spec.hpp)
  if (c.fixed_k == kBakeFromProblem) c.fixed_k = static_cast<int>(p.k);
  c.a_major = p.a_major;
  c.b_major = p.b_major;
  c.out_dtype = p.out;
  c.with_c = p.accumulate;
  c.cd_pairs = p.cd_pairs || c.d_col_major;  // (column-major D: element by element anyway)
  // The staged epilogues take 128-B boxes (64 bf16 / 32 fp32 columns), the last one overlapping
  // its neighbour where the box does not divide BN (config.hpp, store_boxes; with C only where C is
  // not D: the overlapping box reads C's columns after its neighbour stored them), or partial
  // (swap-AB's transposed boxes with C): TMA stores D (and loads C) when TMA can describe them, the
  // threads otherwise (smem_stores); tiles narrower than a box, and other widths with C in place,
  // are stored from registers (direct).
  const int box = sm90::store_box_cols(p.out);
  const bool boxes_fit =
      c.bn % box == 0 || (c.bn > box && (!p.accumulate || c.d_col_major || !p.c_in_place));
  const bool tma_ok = p.d_tma && (!p.accumulate || p.c_tma);
  // Swap-AB (a column-major D for the kernel): transposed staging boxes stored by TMA where
  // swap_tma_store says (p is the kernel's problem), else from the registers.
  c.epilogue = !boxes_fit                     ? Epilogue::direct
               : c.d_col_major                ? (swap_tma_store(p) ? Epilogue::tma_store : Epilogue::direct)
               : tma_ok                       ? Epilogue::tma_store
                                              : Epilogue::smem_stores;  // staged, then written (and C read) by the threads
  if (c.split_k > 1) c.stream_k = true;  // split-K is a k-split (the in-kernel fix-up)
  c.producer_regs = c.consumers() >= 2 ? kProducerRegs : 0;
  c.consumer_regs = c.consumers() >= 2 ? kConsumerRegs : 0;
  // A staging width already set (a `stage=` spec, a completed config given again) is kept, and
  // check_kernel_config judges it; otherwise the widest that leaves room for enough stages.
  c.stage_cols = !sm90::staged_epilogue(c.epilogue) ? 0
                 : c.stage_cols > 0                 ? c.stage_cols
                                                    : choose_stage_cols(c, d.smem_per_block_optin);
  if (!stages_given) c.stages = std::max(sm90::kMinStages, sm90::config_max_stages(c, d.smem_per_block_optin));
  // Two accumulator sets where the template allows them and the problem streams its operands: the
  // smaller of M and N below the device's ridge point (tensor FLOP per HBM byte: with the weights
  // read once, a GEMM does about min(M, N) FLOP per byte). Measured on the H200 (docs/PERF.md,
  // 2026-12-02 eighth session): 2-6 % off decode and M = 128 shapes; compute-bound, one consumer
  // with two sets was 8-10 % slower (64x64 and 64x32 at 4096^3), two consumers unchanged.
  if (c.acc_sets == 0) {
    const double ridge = d.tc_peak_flops / d.hbm_bytes_per_s;
    const bool streams = static_cast<double>(std::min(p.m, p.n)) < ridge;
    c.acc_sets = streams ? sm90::auto_acc_sets(c) : 1;  // (an `accsets=` spec is kept)
  }
}

int launch_grid(const KernelShape& ks, const Config& c, const DeviceProfile& d) {
  const int64_t cs = c.cluster_size();
  const int64_t resident = std::max<int64_t>(cs, d.sm_count - d.sm_count % cs);
  const int64_t units = round_up(ks.blocks, cs);
  return static_cast<int>(c.persistent ? std::min(units, resident) : units);
}

std::string tile_str(const Config& c) { return std::to_string(c.bm) + "x" + std::to_string(c.bn); }

// The resource filter, in Rule order: the first rule that fails, and (when `why` is given) its
// sentence with the values.
Rule check_rules(const Problem& p, const DeviceProfile& d, const Config& c, bool stages_given, std::string* why) {
  const KernelShape ks = kernel_shape(p, c);
  auto fail = [&](Rule r, auto&& sentence) {
    if (why) *why = sentence();
    return r;
  };
  Config shape = c;  // the template's shape rules; stage counts have their own rules below
  shape.stages = std::clamp(shape.stages, sm90::kMinStages, sm90::kMaxStages);
  if (const ConfigRule r = sm90::check_kernel_config(shape); r != ConfigRule::ok)
    return fail(Rule::kernel_template, [&] {
      return tile_str(c) + ": " + sm90::config_rule_text(r) + " (the kernel template, src/sm90/gemm/config.hpp)";
    });
  if (d.sm_count % c.cluster_size() != 0)
    return fail(Rule::cluster_sm_count, [&] {
      return "cluster " + std::to_string(c.cluster_m) + "x" + std::to_string(c.cluster_n) +
             " needs the SM count (" + std::to_string(d.sm_count) + ") to be a multiple of " +
             std::to_string(c.cluster_size());
    });
  if ((c.cluster_m == 2 && ks.m_blocks % 2 != 0) || (c.cluster_n == 2 && ks.n_blocks % 2 != 0)) {
    const bool along_m = c.cluster_m == 2;
    return fail(Rule::cluster_pairs, [&] {
      return std::string("cluster ") + (along_m ? "2x1 pairs M" : "1x2 pairs N") + "-neighbours, but there are " +
             std::to_string(along_m ? ks.m_blocks : ks.n_blocks) + " " + (along_m ? "m" : "n") +
             "-blocks: the last tile has no peer, and the kernel keeps the two CTAs' rings in lock-step, so every "
             "pair must be complete (the seed's bytes_L2_AB would still halve " + (along_m ? "B" : "A") + ")";
    });
  }
  if (c.stream_k && c.split_k > 1 && ceil_div(p.k, c.bk) < int64_t{kMinKBlocksPerSplit} * c.split_k)
    return fail(Rule::split_k_depth, [&] {
      return "split_k=" + std::to_string(c.split_k) + " gives slices of " +
             std::to_string(ceil_div(ceil_div(p.k, c.bk), c.split_k)) + " k-blocks (K=" + std::to_string(p.k) +
             ", BK=" + std::to_string(c.bk) + "); each slice needs >= " + std::to_string(kMinKBlocksPerSplit);
    });
  if (c.stream_k) {
    const sched::KSplit split = ks.tiles <= kMaxKSplitTiles ? sm90::config_k_split(c, p.m, p.n, p.k, d.sm_count)
                                                            : sched::KSplit{};
    const int64_t counters = ks.tiles > kMaxKSplitTiles ? ks.tiles * c.consumers() : sm90::ksplit_counters(split, c);
    if (counters > sm90::kKSplitCounters)
      return fail(Rule::split_k_tiles, [&] {
        return std::string(c.split_k > 1 ? "split-K" : "stream-K") + " shares " +
               std::to_string(ks.tiles > kMaxKSplitTiles ? ks.tiles : int64_t(split.shared_tiles())) +
               " tiles of " + tile_str(c) + " (" +
               std::to_string(counters) + " fix-up counters, one per tile and consumer); the workspace has " +
               std::to_string(sm90::kKSplitCounters);
      });
  }
  if (stages_given && (c.stages < sm90::kMinStages || c.stages > sm90::kMaxStages))
    return fail(Rule::stages_range, [&] {
      return "stages=" + std::to_string(c.stages) + " is outside [" + std::to_string(sm90::kMinStages) + ", " +
             std::to_string(sm90::kMaxStages) + "]";
    });
  const sm90::SmemLayout layout = sm90::config_smem_layout(c);
  if (!layout.fits(d.smem_per_block_optin))
    return fail(Rule::smem_fit, [&] {
      return tile_str(c) + " with " + std::to_string(c.stages) + " stages needs " +
             std::to_string(layout.total_bytes) + " B of smem (" + std::to_string(c.stages) + " x " +
             std::to_string(layout.a_stage_stride + layout.b_stage_stride) + " B stages + " +
             std::to_string(layout.d_bytes) + " B epilogue staging + barriers + 1024 B alignment slack) > " +
             std::to_string(d.smem_per_block_optin) + " B per block";
    });
  return Rule::none;
}

void add_flags(const Problem& p, const DeviceProfile& d, Candidate& cand) {
  const Config& c = cand.config;
  auto& f = cand.flags;
  if (c.bm > p.m || c.bn > p.n)
    f.push_back("the seed's bytes count " + tile_str(c) + " rows per tile; only " +
                std::to_string(std::min<int64_t>(c.bm, p.m)) + "x" + std::to_string(std::min<int64_t>(c.bn, p.n)) +
                " exist; TMA zero-fills the rest, and those lines still cost TMA time (the time model's l2 term charges them)");
  if (cand.time.b_reread > 1)
    f.push_back("the streamed operand does not fit in half the L2: read " +
                std::to_string(static_cast<int>(cand.time.b_reread)) + "x from HBM (once per strip)");
  // The operand as the caller stores it for the kernel's A or B (swap-AB trades them).
  const auto stored_operand = [&](char kernel_operand) {
    return c.d_col_major ? (kernel_operand == 'A' ? 'B' : 'A') : kernel_operand;
  };
  // Narrow MN-major chunks (sm90/swizzle.hpp): which operand, how wide, and that it is unmeasured.
  for (const auto& [chunk, kernel_operand, rows] :
       {std::tuple{sm90::a_mn_chunk(c), 'A', sm90::a_load_rows(c)}, std::tuple{sm90::b_mn_chunk(c), 'B', sm90::b_load_rows(c)}}) {
    if (chunk == 0 || chunk == 64) continue;
    const char stored = stored_operand(kernel_operand);
    f.push_back(std::string("the MN-major ") + stored + " is stored in smem in chunks of " + std::to_string(chunk) +
                " elements along " + (stored == 'A' ? "M" : "N") + " (" + std::to_string(2 * chunk) +
                "-B swizzle, " + std::to_string(rows / chunk) + " TMA box" + (rows / chunk > 1 ? "es" : "") +
                " of " + std::to_string(chunk) + " x 64 per stage); the time model prices each of its lines as a whole "
                "128-B line (measured: narrow lines cost TMA about what full ones do)");
  }
  // Rows off 32-B sectors in a 2-CTA cluster (cost_model.cpp, the per-SM feed): the multicast
  // operand's slow loads are issued half by each CTA.
  const bool a_shared = c.cluster_n > 1 && !p.a_rows_sectored, b_shared = c.cluster_m > 1 && !p.b_rows_sectored;
  if (a_shared || b_shared) {
    const char stored = stored_operand(a_shared ? 'A' : 'B');
    f.push_back(std::string(1, stored) + "'s rows start inside 32-B sectors, which TMA reads at about half speed " +
                "per issuing CTA; the " + (a_shared ? "1x2" : "2x1") + " cluster multicasts " + stored +
                ", each CTA issuing half of its loads, so the time model charges its rows half the extra cost " +
                "(measured on the H100: 23 of 24 such shapes 2-33 % faster than the picks without it, docs/PERF.md)");
  }
  using sched::MappingKind;
  if (!c.d_col_major && c.cluster_size() == 1 && c.mapping.kind == MappingKind::grouped_n && groups_along_n(p, c))
    f.push_back("launch order: the " + std::to_string(ceil_div(p.n, int64_t{c.bn})) + " tiles of each 256-row A band " +
                "(over twice as tall as a " + std::to_string(c.bn) + "-column B strip is wide) run side by side " +
                "(grouped_n): under grouped_m G = 8 such tiles measured 1-29 % slower over more than " +
                std::to_string(kWideMGroupedNBands) + " A bands (on the H100, docs/PERF.md)");
  if (c.mapping.kind == MappingKind::morton || c.mapping.kind == MappingKind::hilbert ||
      c.mapping.kind == MappingKind::box)
    f.push_back("HBM re-reads for this mapping are approximated as grouped_m");
  if (c.d_col_major)
    f.push_back("swap-AB: the kernel computes Dᵀ = B·Aᵀ (" + std::to_string(p.m) + " x " + std::to_string(p.n) +
                "): the batch's " + std::to_string(p.n) + " rows are wgmma's N (BN = " + std::to_string(c.bn) +
                ") and the weights' rows fill BM = " + std::to_string(c.bm) +
                (c.epilogue == Epilogue::direct
                     ? std::string("; D is stored column-major, element by element, from the registers") +
                           (c.with_c ? " (C read the same way, a chunk ahead of the stores)" : "")
                     : std::string("; D is staged transposed (stmatrix .trans) in 64 x 64 boxes of its own rows and "
                                   "stored by TMA") +
                           (c.with_c ? " (C loaded into the same boxes by TMA and read back with ldmatrix .trans)" : "")) +
                (c.mapping.kind == sched::MappingKind::grouped_n && ceil_div(p.n, int64_t{c.bn}) > 1
                     ? "; its " + std::to_string(ceil_div(p.n, int64_t{c.bn})) +
                           " column tiles stream the same weight rows and run side by side (grouped_n)"
                     : std::string()));
  // The launch order (docs/MAPPING.md, the sharers' gap): on a memory-bound problem the tiles that
  // stream the same band of the larger operand should run side by side. Whole-tile schedules only
  // (a k-split's units are not slots). Measured on the H200 (docs/PERF.md, 2026-12-03 fifteenth
  // session): 8 CTAs apart, 13-48 % slower than side by side; the time model does not price it.
  if (!c.stream_k && (cand.time.bound == "hbm" || cand.time.bound == "l2") && cand.grid > 0) {
    const sched::Schedule s{sched::make_tile_grid(static_cast<int>(p.m), static_cast<int>(p.n), c.bm, c.bn), c.mapping,
                            sm90::cluster_axis(c)};
    // The CTAs that run at once (one per SM): a static launch's grid is every tile.
    const sched::SharerGaps w = sched::wave_sharer_gaps(s, std::min(cand.grid, d.sm_count), 0);
    const bool a_larger = p.m >= p.n;
    const double gap = a_larger ? w.a : w.b;
    if (gap > 1.5) {
      char g[16];
      std::snprintf(g, sizeof g, "%.1f", gap);
      f.push_back(std::string("launch order: the tiles that read the same ") + (a_larger ? "A" : "B") + " band run " +
                  g + " CTAs apart in the first wave (mapping " + sched::mapping_name(c.mapping) +
                  "); memory-bound tiles streaming one band measured 13-48 % slower than side by side, which the "
                  "time model does not price (docs/MAPPING.md)");
    }
  }
  const int box = sm90::store_box_cols(c.out_dtype);
  if (c.epilogue == Epilogue::direct && !c.d_col_major) {
    f.push_back(std::string("direct epilogue: ") +
                (c.bn < box ? "BN is narrower than one 128-B store box"
                            : "BN is not a whole number of 128-B store boxes and C is D (in place)") +
                ", so the tile is stored from registers (no staging smem, no overlap with the next mainloop)" +
                (p.accumulate ? "; C's tile lines are prefetched into L2 as the mainloop starts" : ""));
  }
  if (c.epilogue == Epilogue::smem_stores)
    f.push_back(std::string("smem_stores epilogue: TMA cannot describe ") + (!p.d_tma ? "D" : "C") +
                " (leading dimension or base), so the staged boxes are written" +
                (p.accumulate && c.stream_k ? " and C read" : "") + " by the threads, row by row" +
                (p.accumulate && !c.stream_k ? ", and C's boxes loaded by their cp.async, the first ones while the "
                                               "tile's mainloop runs"
                                             : ""));
  if (sm90::staged_epilogue(c.epilogue) && c.bn % box != 0) {
    if (sm90::staged_trans_c(c)) {  // (C may be D: no box may store what another still reads)
      f.push_back("the epilogue's last transposed box holds only " + std::to_string(c.bn % box) + " of its " +
                  std::to_string(box) + " rows (BN " + std::to_string(c.bn) + "); C and D move in sub-boxes of " +
                  std::to_string(sm90::trans_sub_box_cols(c.bn)) + " rows");
    } else {
      f.push_back("the epilogue's last store box overlaps its neighbour (BN " + std::to_string(c.bn) +
                  " is not a whole number of " + std::to_string(box) + "-column boxes): both write the same values to " +
                  std::to_string(box - c.bn % box) + " columns" +
                  (c.with_c ? ", each having read C's (C is not D, so no box reads what another stored)" : ""));
    }
  }
  if (sm90::partly_staged(c))
    f.push_back("the epilogue stages " + std::to_string(c.stage_cols) + " columns at a time (of " +
                std::to_string(sm90::store_boxes(c.bn, c.out_dtype) * box) + " in its boxes), which makes room for " +
                std::to_string(c.stages) + " stages");
  if (c.stream_k) {
    const KSplitWork w = ksplit_work(p, c, d);
    const std::string how =
        c.split_k > 1 ? "split-K: every tile in " + std::to_string(c.split_k) + " k-slices"
                      : "stream-K: " + std::to_string(w.split.dp_tiles) + " tiles whole, the k-blocks of the other " +
                            std::to_string(w.split.tiles - w.split.dp_tiles) + " shared evenly by " +
                            std::to_string(w.split.workers) + " CTAs" +
                            (w.split.group > 1 ? " in " + std::to_string(w.split.ranges()) + " ranges over runs of " +
                                                     std::to_string(w.split.group) +
                                                     " tiles that read the same operand rows (each range's " +
                                                     std::to_string(w.split.group) + " workers side by side)"
                                               : std::string());
    f.push_back(how + (w.split.workers > 0
                           ? "; a shared tile (up to " + std::to_string(w.max_pieces) +
                                 " pieces) is summed in the kernel by its piece 0, in piece order "
                                 "(deterministic)"
                           : "; the tiles fill whole waves, so nothing is shared"));
    if (c.cluster_k > 1)
      f.push_back("k-split cluster: the " + std::to_string(c.cluster_k) + " slices of a tile are one thread-block "
                  "cluster; slices 1.. send their fp32 partials into slice 0's shared memory (st.async), no "
                  "workspace, no counters");
  }
}

// Everything about a candidate is judged on the problem its kernel computes (kernel_problem: the
// transposed one with swap-AB).
Candidate finish(const Problem& problem, const DeviceProfile& d, Config c, bool stages_given, bool with_text) {
  const Problem p = kernel_problem(problem, c);
  complete_config(p, d, c, stages_given);
  Candidate cand;
  cand.rule = check_rules(p, d, c, stages_given, with_text ? &cand.reason : nullptr);
  cand.config = c;
  cand.grid = c.stream_k ? static_cast<int>(ksplit_work(p, c, d).grid) : launch_grid(kernel_shape(p, c), c, d);
  cand.smem_bytes = sm90::config_smem_layout(c).total_bytes;
  cand.seed = seed_terms(p, c, d);
  cand.time = time_terms(p, c, d, cand.seed);
  if (with_text) add_flags(p, d, cand);
  return cand;
}

// Stated tie-break among configs: not swapped before swap-AB, no k-split before a k-split, smaller split-K,
// the workspace fix-up before a k-split cluster,
// cooperative before ping-pong, cluster 1x1 < 2x1 < 1x2, larger BM, larger BN,
// smaller G (G = 8 measured 0.5-0.8% faster than 16 for 128x256 at 4096^3 and 8192^3 on the H200,
// where the HBM model, not binding there, favours 16), persistent before static, the wider epilogue
// staging (measured: one box at a time cost 4096x32768x512 2.8 % where its extra stage bought
// nothing), more stages, mapping kind.
auto config_key(const Config& c) {
  const int cluster_order = c.cluster_size() == 1 ? 0 : c.cluster_m == 2 ? 1 : 2;
  return std::make_tuple(c.d_col_major, c.stream_k, c.split_k, c.sk_runs, c.cluster_k, c.pingpong, cluster_order, -c.bm, -c.bn,
                         c.mapping.group, !c.persistent, -c.stage_cols, -c.stages, static_cast<int>(c.mapping.kind));
}

// The candidate space: exactly the Configs the kernel template instantiates, minus values that
// cannot help. BM 128 only when M > 64 (a bigger tile over the same single block only adds bytes);
// BN multiples of 16 (64 for an MN-major B) up to max(64, N rounded up to 16) and 256 for the same
// reason (swap-AB's two-consumer tiles take M in steps of 8, below); G = 16 only
// with more than 8 blocks along the grouped axis (else it is G = 8 again); mapping grouped_n for
// 1x2 clusters (A multicast pairs are N-neighbours) and 1x1 256-row tiles under 128 columns over
// more than kWideMGroupedNBands A bands (the tiles reading one A band side by side), grouped_m
// otherwise. Split-K (cluster 1x1,
// persistent, grouped_m G=8) only when the tiles leave SMs idle: S from kSplitKFactors and
// floor(SMs / tiles), at most sm90::kMaxSplitK. Stream-K (cluster 1x1, persistent, grouped_m G=8)
// whenever the tiles are not a whole number of waves. Ping-pong consumers (persistent, unsplit) for
// every tile whose accumulators fit (sm90::kMaxPingpongAccumulators).
template <typename VisitOne>
void enumerate(const Problem& p, const DeviceProfile& d, const PlanOptions& o, VisitOne&& visit_one) {
  // Each unswapped tile as it comes (its epilogue staged as wide as leaves kComfortStages stages),
  // and, for 128-row tiles, again with the epilogue staged one box at a time when that makes room
  // for more stages: the time model prices the deeper ring where the feed needs it (cost_model.cpp,
  // ring_bytes), and the tie-break keeps the wider staging where it does not.
  auto visit = [&](const Config& c) {
    if (!o.narrow_mn_chunks) {
      const Problem kp = kernel_problem(p, c);
      Config stored = c;
      stored.a_major = kp.a_major;
      stored.b_major = kp.b_major;
      if (sm90::narrow_mn_chunks(stored)) return;
    }
    visit_one(c);
    if (c.bm < 128 || c.stage_cols > 0) return;
    const Problem kp = kernel_problem(p, c);  // (swap-AB: the transposed problem, as finish() judges it)
    Config wide = c, narrow = c;
    complete_config(kp, d, wide, /*stages_given=*/false);
    if (!sm90::staged_epilogue(wide.epilogue)) return;
    narrow.stage_cols = sm90::store_box_cols(p.out);
    complete_config(kp, d, narrow, /*stages_given=*/false);
    if (narrow.stage_cols < wide.stage_cols && narrow.stages > wide.stages) {
      Config deeper = c;
      deeper.stage_cols = narrow.stage_cols;
      visit_one(deeper);
    }
  };
  // Stream-K, and stream-K over runs where the config's mapping lays its shared tiles out in runs
  // (schedule/stream_k.hpp: the members of a run read the operand they share side by side).
  auto visit_stream_k = [&](Config c) {
    visit(c);
    c.sk_runs = true;
    const Problem kp = kernel_problem(p, c);
    if (sm90::config_k_split(c, kp.m, kp.n, kp.k, d.sm_count).group > 1) visit(c);
  };
  std::vector<int> bms = {64};
  if (p.m > 64) bms.push_back(128);
  if (p.m > 128) bms.push_back(256);
  // An MN-major operand loads whole chunks of 64, 32 or 16 elements (sm90::check_kernel_config,
  // mn_chunk_elems): B MN-major steps BN by 64, or by 16 with narrow chunks, and a multicast half of
  // an MN-major tile must be whole chunks too.
  const bool a_mn = p.a_major == Major::mn_major, b_mn = p.b_major == Major::mn_major;
  const int b_mn_step = o.narrow_mn_chunks ? 16 : 64;
  const int64_t bn_max = std::min<int64_t>(256, std::max<int64_t>(64, round_up(p.n, b_mn ? b_mn_step : 16)));
  const int clusters[3][2] = {{1, 1}, {2, 1}, {1, 2}};
  // The same split-K as a k-split cluster (its slices summed in shared memory), for swap-AB tiles
  // only and when all its clusters fit at once: S in kClusterKSizes, tiles x S within
  // cluster_k_resident_ctas. NOTES: measured on the H200 (docs/PERF.md, 2026-12-03 twelfth
  // session), swap-AB decode splits (64x16, 64x32) whose clusters fit ran 0.3-0.9 us faster than
  // the same split through the workspace, every split-K of the unswapped M = 128 tiles (64x64,
  // 64x128, 128x64) 0.4-3 us slower even when they fit, and any split whose clusters did not all
  // fit about twice as slow (a second wave).
  auto visit_cluster_k = [&](Config c, int64_t tiles) {
    if (!c.d_col_major || c.bn > 64) return;  // (measured on decode tiles; wider ones lose stages)
    if (!o.allow_split_k || std::find(std::begin(kClusterKSizes), std::end(kClusterKSizes), c.split_k) ==
                                std::end(kClusterKSizes))
      return;
    if (tiles * c.split_k > cluster_k_resident_ctas(d, c.split_k)) return;
    c.cluster_k = c.split_k;
    visit(c);
  };
  // (Unswapped widths stay in steps of 16: measured on the H200 (docs/PERF.md, twenty-sixth session),
  // the 8-step widths the model preferred by a few tenths of a percent ran 1-10 % slower on large
  // shapes with C (2048x8960x1536 128x184: 88.3 us against 128x160 ping-pong's 81.2) and 1.2 % at
  // 8192^3 (128x200 1366 us, 128x192 1350); only swap-AB's widths over a small M gain.)
  const int bn_step = b_mn ? b_mn_step : 16;
  for (int bm : bms) {
    for (int bn = bn_step; bn <= bn_max; bn += bn_step) {
      // BM = 256: two consumers of two 64-row blocks each, cooperative and unsplit (wide_m), up to
      // kWideMMaxBn.
      if (bm == 256 && bn > kWideMMaxBn) break;
      for (const auto& cl : clusters) {
        if ((cl[1] == 2 && a_mn && sm90::mn_chunk_elems(bm / 2) == 0) ||
            (cl[0] == 2 && b_mn && sm90::mn_chunk_elems(bn / 2) == 0))
          continue;
        // Grouped along N for 1x2 clusters (A's multicast pairs are N-neighbours), and for 1x1
        // 256-row tiles under 128 columns over more than four A bands (kWideMGroupedNBands): their
        // A band is over twice as tall as their B strip is wide, and grouped_m G = 8 launches the
        // tiles reading one A band min(8, bands) CTAs apart where side by side runs best
        // (docs/MAPPING.md, "A gap"). NOTES: measured on the H100 (docs/PERF.md, forty-eighth
        // session), 256x112 and 256x96 under grouped_m G = 8 ran 9-29 % slower than under grouped_n
        // at 6144^3, 8192^3 and 3072x12288x6144 (6144^3 256x112: 647.2 us against 565.0), 1-5 % at
        // 4096^3, 2048x8192x8192 and 2048x11008x4096 (8 bands), but 1-2 % faster over four bands
        // or fewer (1024x18432x16384, 1024x11008x4096, 512x7168x2048 with C); 256x128 to 256x160
        // ran within 1 % either way, and 128x128 3-40 % slower grouped_n.
        Config shape;
        shape.bm = bm;
        shape.bn = bn;
        shape.cluster_m = cl[0];
        shape.cluster_n = cl[1];
        const bool along_n = groups_along_n(p, shape);
        const int64_t grouped_blocks = along_n ? ceil_div(p.n, bn) : ceil_div(p.m, bm);
        for (int g : kGroups) {
          if (g > 8 && grouped_blocks <= 8) continue;
          for (bool persistent : {true, false}) {
            if (!persistent && !o.allow_static) continue;
            Config c;
            c.bm = bm;
            c.bn = bn;
            c.cluster_m = cl[0];
            c.cluster_n = cl[1];
            c.mapping.kind = along_n ? sched::MappingKind::grouped_n : sched::MappingKind::grouped_m;
            c.mapping.group = g;
            c.persistent = persistent;
            visit(c);
            // Ping-pong consumers: persistent only (a CTA with one tile would leave one idle).
            c.pingpong = true;
            if (persistent && o.allow_pingpong && bm <= 128 && c.accumulators() <= sm90::kMaxPingpongAccumulators)
              visit(c);
          }
        }
      }
      const int64_t tiles = ceil_div(p.m, bm) * ceil_div(p.n, bn);
      if (!o.allow_split_k || bm == 256) continue;
      // Stream-K when the tiles do not fill whole waves (schedule/stream_k.hpp).
      if (tiles % d.sm_count != 0 && tiles <= kMaxKSplitTiles && ceil_div(p.k, int64_t{sm90::kBlockK}) >= 2) {
        Config c;
        c.bm = bm;
        c.bn = bn;
        c.stream_k = true;
        visit_stream_k(c);
      }
      if (tiles >= d.sm_count) continue;
      std::vector<int> splits(std::begin(kSplitKFactors), std::end(kSplitKFactors));
      splits.push_back(static_cast<int>(std::min<int64_t>(d.sm_count / tiles, sm90::kMaxSplitK)));
      std::sort(splits.begin(), splits.end());
      splits.erase(std::unique(splits.begin(), splits.end()), splits.end());
      for (int s : splits) {
        if (s < 2 || s > sm90::kMaxSplitK || tiles * s > d.sm_count) continue;  // one wave (kSplitKFactors)
        Config c;
        c.bm = bm;
        c.bn = bn;
        c.split_k = s;
        c.stream_k = true;
        visit(c);
        visit_cluster_k(c, tiles);
      }
    }
  }
  // Swap-AB (the transposed problem's BM over N, its BN over M), persistent 1x1, unsplit, stream-K
  // and split-K. A small M (decode, up to kSwapAbMaxM): every BN from 16 (and 8 where M <= 8) up to
  // the narrowest that covers M. A mid-size M (up to kSwapAbMidMaxM, N >= 2M), whose 128-row tiles
  // would pad M by up to 127 rows: for each count b of column tiles (at most kSwapAbMidMaxTiles, BN
  // from 64 up), the narrowest BN that covers M in b tiles, so that M pads by less than a step per
  // tile; only where D's rows are 16-B aligned (swap_mid_m). Steps of 8 for BM = 128 (M = 300: 152,
  // 104, 80, 64), 16 for BM = 64 (160, 112, 80, 64).
  if (p.m > kSwapAbMidMaxM || p.n < 2 * p.m) return;
  Config swapped;
  swapped.d_col_major = true;
  const bool mid_m = p.m > kSwapAbMaxM && swap_mid_m(kernel_problem(p, swapped));
  // The swap-AB widths over M in steps of `step`.
  const auto swap_widths = [&](int step) {
    std::vector<int> bns;
    if (p.m <= kSwapAbMaxM) {
      // A batch of at most 8 rows also takes wgmma's narrowest N, 8: half the zero-filled rows of
      // the 16-wide tile in every k-block's box, half its accumulators and its k-split partials.
      if (p.m <= kSwapAbNarrowestM) bns.push_back(kSwapAbNarrowestM);
      for (int bn = 16; bn <= std::min<int64_t>(64, std::max<int64_t>(16, round_up(p.m, step))); bn += step)
        bns.push_back(bn);
    } else if (mid_m) {
      for (int64_t b = 1; b <= kSwapAbMidMaxTiles; ++b) {
        const int64_t bn = round_up(ceil_div(p.m, b), step);
        if (bn > 256) continue;
        if (bn < 64) break;
        // Only where it pads M less than 128-row tiles do (M = 128, 640: never; measured, the
        // transposed tiles of the same padding were no faster, docs/PERF.md).
        if (b * bn >= round_up(p.m, 128)) continue;
        if (bns.empty() || bns.back() != bn) bns.push_back(static_cast<int>(bn));
      }
    }
    return bns;
  };
  for (int bm : {64, 128, 256}) {
    if (bm > 64 && p.n <= 64) continue;
    if (bm == 256 && (p.n <= 128 || p.m <= kSwapAbMaxM)) continue;  // (decode: unmeasured)
    // Two-consumer tiles take M in steps of 8 (wgmma's N step), one-consumer tiles in steps of 16.
    // NOTES: measured on the H200 (docs/PERF.md, twenty-sixth session), 128-row swap-AB tiles
    // whose width pads M by less than 8 ran 0.88-1.04x the time of the 16-step widths (geomean
    // about 0.96) on 60-odd midm-style shapes; 64-row ones lost up to 17 % (64x200 at
    // 200x8192x8192: 54.0 us against 128x112's 46.3), where the model's four near-equal limits
    // compound more than it predicts.
    const std::vector<int> swap_bns = swap_widths(bm >= 128 ? 8 : 16);
    for (int bn : swap_bns) {
      if (bm == 256 && bn > kWideMMaxBn) continue;
      Config c;
      c.bm = bm;
      c.bn = bn;
      c.d_col_major = true;
      // Where M takes several column tiles, they all stream the same weight rows: launched next
      // to each other (grouped_n, n fastest) they share the lines as they arrive. NOTES: measured
      // on the H200 (docs/PERF.md, 2026-12-03 fifteenth session), with grouped_m G = 8 the tiles
      // sharing a weight row are 8 CTAs apart and the same configs ran 13-48 % slower
      // (64x57344x8192 128x32: 351.8 us against 237.1; 37x4096x14336 64x32: 50.7 against 38.5).
      if (ceil_div(p.m, int64_t{bn}) > 1) c.mapping.kind = sched::MappingKind::grouped_n;
      visit(c);
      if (!o.allow_split_k || bm == 256) continue;
      const int64_t tiles = ceil_div(p.n, bm) * ceil_div(p.m, bn);
      c.stream_k = true;
      if (tiles % d.sm_count != 0) visit_stream_k(c);  // stream-K (and over runs)
      if (tiles >= d.sm_count) continue;
      for (int s : kSplitKFactors) {
        if (tiles * s > d.sm_count) break;  // one wave (kSplitKFactors)
        c.split_k = s;
        visit(c);
        visit_cluster_k(c, tiles);
      }
    }
  }
}

}  // namespace

int64_t cluster_k_resident_ctas(const DeviceProfile& d, int size) {
  if (size <= 2) return d.sm_count - d.sm_count % 2;
  const int64_t share = d.sm_count == 132 ? 120 : int64_t(d.sm_count) * 120 / 132;
  return share - share % size;
}

const char* rule_id(Rule r) {
  switch (r) {
    case Rule::none: return "none";
    case Rule::kernel_template: return "kernel.template";
    case Rule::cluster_sm_count: return "cluster.sm_count";
    case Rule::cluster_pairs: return "cluster.pairs";
    case Rule::split_k_depth: return "split_k.depth";
    case Rule::split_k_tiles: return "split_k.tiles";
    case Rule::stages_range: return "stages.range";
    case Rule::smem_fit: return "smem.fit";
  }
  return "unknown";
}

bool groups_along_n(const Problem& p, const Config& c) {
  return c.cluster_n == 2 || (c.cluster_size() == 1 && c.bm == 256 && c.bn < 128 &&
                              ceil_div(p.m, int64_t{c.bm}) > kWideMGroupedNBands);
}

bool is_blind_spot_rule(Rule r) { return r == Rule::cluster_pairs; }

bool is_preference_rule(Rule r) { return r == Rule::split_k_depth; }

Status validate_problem(const Problem& p) {
  auto bad = [](const char* arg, const std::string& msg) {
    Status s;
    s.code = ErrorCode::invalid_argument;
    s.argument = arg;
    s.message = msg;
    return s;
  };
  const std::pair<const char*, int64_t> dims[] = {{"M", p.m}, {"N", p.n}, {"K", p.k}};
  for (const auto& [name, v] : dims) {
    if (v < 1)
      return bad(name, std::string(name) + "=" + std::to_string(v) +
                           ": must be >= 1 (an empty GEMM launches no kernel, so there is nothing to plan)");
    if (v > kMaxKernelExtent)
      return bad(name, std::string(name) + "=" + std::to_string(v) + ": must be <= " +
                           std::to_string(kMaxKernelExtent) +
                           " (2^31 - 1024: the kernel's tile coordinates are signed 32-bit, a tile past the "
                           "matrix edge included)");
  }
  if (p.out != DType::bf16 && p.out != DType::fp32)
    return bad("out", "output dtype must be bf16 or fp32 (fp8 is not supported yet)");
  const std::tuple<const char*, int64_t, int64_t> lds[] = {
      {"lda", p.lda, p.a_major == Major::k_major ? p.k : p.m},
      {"ldb", p.ldb, p.b_major == Major::k_major ? p.k : p.n},
      {"ldd", p.ldd, p.n}};
  for (const auto& [name, ld, packed] : lds) {
    if (ld != 0 && ld < packed)
      return bad(name, std::string(name) + "=" + std::to_string(ld) + ": must be 0 (packed) or >= " +
                           std::to_string(packed) + " (the contiguous extent)");
  }
  return Status::success();
}

double ranking_margin(const Config& c) {
  if (c.bm == 256) return kWideMMargin;  // (never k-split: wide_m)
  return c.stream_k ? kKSplitMargin + (c.sk_runs ? kRunsMargin : 0.0) : 0.0;
}

double ranking_us(const Candidate& c) { return c.time.predicted_us * (1.0 + ranking_margin(c.config)); }

bool ranks_before(const Candidate& a, const Candidate& b, Ranking ranking) {
  const double a1 = ranking == Ranking::time ? ranking_us(a) : a.seed.score;
  const double b1 = ranking == Ranking::time ? ranking_us(b) : b.seed.score;
  if (a1 != b1) return a1 < b1;
  const double a2 = ranking == Ranking::time ? a.seed.score : a.time.predicted_us;
  const double b2 = ranking == Ranking::time ? b.seed.score : b.time.predicted_us;
  if (a2 != b2) return a2 < b2;
  return config_key(a.config) < config_key(b.config);
}

Plan make_plan(const Problem& p, const DeviceProfile& d, const PlanOptions& options) {
  Plan result;
  result.problem = p;
  result.device = d;
  result.options = options;
  std::vector<Candidate> all;
  enumerate(p, d, options, [&](const Config& c) { all.push_back(finish(p, d, c, false, /*with_text=*/true)); });
  result.num_considered = static_cast<int64_t>(all.size());
  for (auto& c : all) (c.feasible() ? result.ranked : result.rejected).push_back(std::move(c));
  std::stable_sort(result.ranked.begin(), result.ranked.end(),
                   [&](const Candidate& a, const Candidate& b) { return ranks_before(a, b, options.ranking); });
  if (result.ranked.empty()) return result;  // not reached with the built-in profiles (see header)
  if (options.ranking == Ranking::time && !result.ranked.front().config.stream_k) {
    // The margin decided: a k-split predicted faster than the pick, by less than kKSplitMargin.
    const Candidate& pick = result.ranked.front();
    for (const Candidate& c : result.ranked) {
      if (!c.config.stream_k || c.time.predicted_us >= pick.time.predicted_us) continue;
      result.notes.push_back(fmt::format(
          "k-split margin: {} is predicted {:.1f} us, {:.1f} % under the pick's {:.1f} us, less than the {:.0f} % a "
          "k-split must win by (the model has favoured k-splits where it compares them with unsplit tiles, "
          "measured: docs/PLANNER.md section 4.3)",
          describe(c.config), c.time.predicted_us, 100.0 * (1.0 - c.time.predicted_us / pick.time.predicted_us),
          pick.time.predicted_us, 100.0 * ranking_margin(c.config)));
      break;
    }
  }
  size_t best_seed = 0;
  for (size_t i = 1; i < result.ranked.size(); ++i)
    if (ranks_before(result.ranked[i], result.ranked[best_seed], Ranking::seed)) best_seed = i;
  result.seed_choice = best_seed;
  for (const auto& r : result.rejected) {
    if (!is_blind_spot_rule(r.rule) || !ranks_before(r, result.ranked[best_seed], Ranking::seed)) continue;
    if (!result.seed_unfiltered_choice || ranks_before(r, *result.seed_unfiltered_choice, Ranking::seed))
      result.seed_unfiltered_choice = r;
  }
  return result;
}

Selection select_config(const Problem& p, const DeviceProfile& d, const PlanOptions& options) {
  Selection sel;
  Candidate best;
  enumerate(p, d, options, [&](const Config& c) {
    Candidate cand = finish(p, d, c, false, /*with_text=*/false);
    if (!cand.feasible()) return;
    if (!sel.found || ranks_before(cand, best, options.ranking)) {
      best = std::move(cand);
      sel.found = true;
    }
  });
  if (sel.found) {
    sel.config = best.config;
    sel.predicted_us = best.time.predicted_us;
  }
  return sel;
}

double copy_us(const DeviceProfile& d, double bytes, int launches) {
  return launches * d.repack_launch_us + bytes / d.repack_bytes_per_s * 1e6;
}

namespace {

// The cheapest of copying A, B or both (as `may_a` / `may_b` allow) or nothing: `copied(q, a, b)`
// turns the problem into the one the kernel reads after the copies.
template <class Copied>
OperandCopies cheapest_copies(const Problem& p, const DeviceProfile& d, const PlanOptions& o, bool may_a, bool may_b,
                              double a_bytes, double b_bytes, Copied copied) {
  OperandCopies best;
  const Selection as_is = select_config(p, d, o);
  if (!as_is.found) return best;
  best.as_is_us = best.chosen_us = as_is.predicted_us;
  double best_total = as_is.predicted_us;
  for (int way = 1; way < 4; ++way) {
    const bool a = (way & 1) != 0, b = (way & 2) != 0;
    if ((a && !may_a) || (b && !may_b)) continue;
    Problem q = p;
    copied(q, a, b);
    const Selection sel = select_config(q, d, o);
    if (!sel.found) continue;
    const double copies = (a ? copy_us(d, a_bytes) : 0.0) + (b ? copy_us(d, b_bytes) : 0.0);
    if (sel.predicted_us + copies < best_total) {
      best_total = sel.predicted_us + copies;
      best.a = a;
      best.b = b;
      best.chosen_us = sel.predicted_us;
      best.copy_us = copies;
    }
  }
  return best;
}

}  // namespace

OperandCopies choose_row_repack(const Problem& p, const DeviceProfile& d, double a_bytes, double b_bytes,
                                const PlanOptions& options) {
  return cheapest_copies(p, d, options, !p.a_lined(), !p.b_lined(), a_bytes, b_bytes,
                         [](Problem& q, bool a, bool b) {
                           q.a_rows_sectored = q.a_rows_sectored || a;
                           q.b_rows_sectored = q.b_rows_sectored || b;
                           q.a_rows_lined = q.a_rows_lined || a;
                           q.b_rows_lined = q.b_rows_lined || b;
                         });
}

OperandCopies choose_narrow_transpose(const Problem& p, const DeviceProfile& d, bool may_a, bool may_b,
                                      double a_bytes, double b_bytes, const PlanOptions& options) {
  // The copy's lines: K elements padded to whole 128-B lines (route.cpp, add_pack).
  const int64_t ld = round_up(p.k, int64_t{64});
  return cheapest_copies(p, d, options, may_a, may_b, a_bytes, b_bytes, [ld](Problem& q, bool a, bool b) {
    if (a) {
      q.a_major = Major::k_major;
      q.lda = ld;
      q.a_rows_sectored = true;
      q.a_rows_lined = true;
    }
    if (b) {
      q.b_major = Major::k_major;
      q.ldb = ld;
      q.b_rows_sectored = true;
      q.b_rows_lined = true;
    }
  });
}

Candidate evaluate_config(const Problem& p, const DeviceProfile& d, Config c, bool stages_given) {
  return finish(p, d, c, stages_given, /*with_text=*/true);
}

size_t rank_of(const Plan& plan, const Candidate& c) {
  if (!c.feasible()) return 0;
  size_t before = 0;
  for (const auto& r : plan.ranked)
    if (ranks_before(r, c, plan.options.ranking)) ++before;
  return before + 1;
}

}  // namespace tilegemm::plan
