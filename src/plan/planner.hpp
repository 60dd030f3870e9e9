// The planner: seed 1's "Kernel Configuration Heuristic" made inspectable (host only).
//
//   candidate space  ->  resource filter (each rejection keeps its rule)  ->  cost model  ->  ranking
//
// make_plan() enumerates the candidate space for a problem on a device profile, rejects what cannot run
// (smem, registers, swizzle, cluster legality, split-K depth), scores the rest with the seed's model
// and with tilegemm's predicted time (cost_model.hpp), and ranks them by a stated total order.
// evaluate_config() scores one configuration a user gives. docs/PLANNER.md is the long form.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "plan/config.hpp"
#include "plan/cost_model.hpp"
#include "plan/device_profile.hpp"
#include "tilegemm/tilegemm.hpp"  // Status

namespace tilegemm::plan {

// Why a candidate was rejected. Checked in this order; the first that fails is kept.
enum class Rule : int {
  none = 0,
  kernel_template,    // outside what the kernel template instantiates (sm90::check_kernel_config)
  cluster_sm_count,   // SM count not a multiple of the cluster size
  cluster_pairs,      // 2-CTA cluster along an axis with an odd number of tiles (a tile without a peer)
  split_k_depth,      // a split-K slice shorter than kMinKBlocksPerSplit k-blocks
  split_k_tiles,      // a k-split sharing more tiles than the fix-up has counters
  stages_range,       // (user configs) stages outside [3, 16]
  smem_fit,           // fewer than 3 stages fit in the per-block smem limit
};
const char* rule_id(Rule r);  // stable id: "smem.fit", "cluster.pairs", ...
// True for rules that fix the seed's blind spots rather than a hardware limit: the seed's model
// alone would have scored (and maybe picked) such a candidate.
bool is_blind_spot_rule(Rule r);
// True for rules that state a performance preference of the planner (split_k.depth), not a
// requirement of the kernel: a forced configuration may waive them (tests, tools).
bool is_preference_rule(Rule r);

inline constexpr int kMinKBlocksPerSplit = 4;  // a split-K slice keeps the pipeline busy this long
// setmaxnreg plan of the two-consumer kernels: 128·56 + 256·224 = 64512 <= 65536. The producer
// keeps 56, not ladder step 9's 40: it evaluates the mapping (Hilbert and Morton descend a quadtree)
// and the cluster pairing per tile, and ptxas spilled at 40. One-consumer kernels do not rebalance.
inline constexpr int kProducerRegs = 56;
inline constexpr int kConsumerRegs = 224;
// The epilogue staging is narrowed (in whole 64-column boxes) only when the full tile would leave
// fewer stages than this: 128x256 stages 128 columns and gets 4 stages instead of 3.
inline constexpr int kComfortStages = 4;

struct Candidate {
  Config config;
  int grid = 0;        // CTAs the launch would use on this profile (persistent: <= resident CTAs)
  int smem_bytes = 0;  // dynamic smem: config_smem_layout(config).total_bytes
  SeedTerms seed;
  TimeTerms time;
  Rule rule = Rule::none;            // none = feasible
  std::string reason;                // for a rejection: the values and the rule, one sentence
  std::vector<std::string> flags;    // notes about this candidate (blind spots met, approximations)
  bool feasible() const { return rule == Rule::none; }
};

enum class Ranking : int {
  time = 0,  // lowest ranking_us (the predicted time; a k-split's raised by kKSplitMargin); ties: seed
             // score, HBM bytes, config order
  seed = 1,  // lowest seed score; ties: predicted time, HBM bytes, config order
};

struct PlanOptions {
  Ranking ranking = Ranking::time;
  bool allow_split_k = true;
  bool allow_static = true;  // also enumerate one-CTA-per-tile launches
  bool allow_pingpong = true;  // also enumerate ping-pong consumers (Config::pingpong)
  // Also enumerate MN-major operand tiles stored in chunks narrower than 64 elements (32 or 16:
  // 64-B or 32-B swizzled, sm90/swizzle.hpp): B widths in steps of 16 instead of 64, swap-AB's
  // narrow tiles over an MN-major A, multicast halves of 32 or 16 rows. Off by default: checked on
  // the H100, and measured 0.97-1.0 of the default's time in geomean but up to 1.3x slower on
  // two-tile swap-AB picks (docs/PERF.md, twenty-ninth session); a --config names them anyway.
  bool narrow_mn_chunks = false;
};

struct Plan {
  Problem problem;
  DeviceProfile device;
  PlanOptions options;
  std::vector<Candidate> ranked;    // feasible candidates, best first
  std::vector<Candidate> rejected;  // in enumeration order, each with its rule
  int64_t num_considered = 0;
  size_t seed_choice = 0;           // index in `ranked` of the lowest seed score
  // The seed's pick if the blind-spot rules were off, when that is a rejected candidate.
  std::optional<Candidate> seed_unfiltered_choice;
  std::vector<std::string> notes;   // plan-level facts
  const Candidate& chosen() const { return ranked.front(); }
};

// What gemm() runs: the best config and its predicted time, without building a Plan's text.
// Enumerates, filters and ranks exactly as make_plan (the same code), so
// select_config(p, d, o).config == make_plan(p, d, o).chosen().config (tests/cpu/plan checks it).
struct Selection {
  bool found = false;  // false only when no candidate passes (not with the built-in profiles)
  Config config;
  double predicted_us = 0;
};
Selection select_config(const Problem& p, const DeviceProfile& d, const PlanOptions& options = {});

// The predicted time of copies made before the kernel (route()'s packs, sm90/gemm/pack.cuh):
// `bytes` read and written at DeviceProfile::repack_bytes_per_s, plus repack_launch_us per launch.
double copy_us(const DeviceProfile& d, double bytes, int launches = 1);

// Copies of A and/or B made before the kernel when the model says they pay (route()): each way the
// model's best config's predicted time for the problem with the copies, plus copy_us of each copied
// operand's bytes (read + written, `a_bytes` / `b_bytes`); the fastest wins, a tie copies nothing.
struct OperandCopies {
  bool a = false, b = false;   // copy A / B
  double as_is_us = 0;         // predicted GEMM time as the operands are
  double chosen_us = 0;        // predicted GEMM time of the choice, copies excluded
  double copy_us = 0;          // predicted time of the chosen copies
};

// Whether to repack A and/or B, whose rows do not start on 128-B L2 line boundaries (Problem::
// a_rows_lined / b_rows_lined false; inside sectors or between lines), into aligned lines first.
// An operand whose rows are on line boundaries is never repacked.
OperandCopies choose_row_repack(const Problem& p, const DeviceProfile& d, double a_bytes, double b_bytes,
                                const PlanOptions& options = {});

// Whether to copy A and/or B, stored MN-major with fewer than kNarrowMnExtent rows along MN (M for
// A, N for B), into K-major lines first (route()). Such an operand's TMA box rows are 64 elements
// along MN, so every one of its K lines is read and zero-filled at once (tile_line_cost,
// cost_model.cpp), and swap-AB cannot give it a narrow tile (an MN-major tile is a multiple of 64
// along MN) unless `options` allow narrow chunks (PlanOptions::narrow_mn_chunks); K-major, it is
// read in rows of K like any other. `a` / `b`: the operands that may be.
inline constexpr int64_t kNarrowMnExtent = 64;
OperandCopies choose_narrow_transpose(const Problem& p, const DeviceProfile& d, bool a, bool b, double a_bytes,
                                      double b_bytes, const PlanOptions& options = {});

// CTAs of k-split clusters of `size` (Config::cluster_k: 2, 4 or 8) that are resident at once, one
// CTA per SM: the H200's measured counts for 132 SMs (pairs fill every SM, clusters of 4 and 8 fit
// in 120; planner.cpp); on other SM counts pairs fill every SM and 4 or 8 the same 120/132 share
// (assumed). The planner offers a k-split cluster only when all of its clusters fit.
int64_t cluster_k_resident_ctas(const DeviceProfile& d, int size);

// Problem checks before planning (M, N, K >= 1; leading dimensions >= the packed ones; BF16 or
// FP32 output). The message names the argument, the value and the rule.
Status validate_problem(const Problem& p);

// Plans a validated problem that the SM90 kernel can take (NT, bf16 out: src/api/route.hpp decides
// that). Deterministic: same inputs, same output. With a built-in profile `ranked` is never empty
// (64x64, cluster 1x1 passes every rule); a custom profile with, say, a tiny smem limit can leave
// it empty, so check before calling chosen().
Plan make_plan(const Problem& p, const DeviceProfile& d, const PlanOptions& options = {});

// What the user gave (tile, and whichever of stages, cluster, mapping, persistent, split_k were
// set): completes the derived fields (epilogue, staging width, registers, operand majors, stages =
// as many as fit when `stages_given` is false), runs the same rules, scores it. A rejected
// config still carries its terms when they can be computed.
Candidate evaluate_config(const Problem& p, const DeviceProfile& d, Config c, bool stages_given);

// The axis along which the planner groups an unswapped whole-tile config's tiles (make_plan's
// candidate space): N (grouped_n) for 1x2 clusters and for 1x1 256-row tiles under 128 columns over
// more than kWideMGroupedNBands A bands; M (grouped_m) otherwise.
bool groups_along_n(const Problem& p, const Config& c);

// 1-based rank `c` would have in plan.ranked (by plan.options.ranking), or 0 if rejected.
size_t rank_of(const Plan& plan, const Candidate& c);

// A k-split (Config::stream_k: split-K, stream-K, k-split clusters) ranks by time as if its
// predicted time were this share higher: it is chosen over an unsplit candidate only when
// predicted faster by more than the margin. The model favours k-splits where it compares them
// with unsplit tiles: in the H200 records of bench/measurements (re-evaluated by the model of
// build 6238201), of the 24 problems whose best k-split and best unsplit config were predicted
// within 5 % of each other, the split measured relatively slower than predicted in 20, by a
// median of 2.1 % (measured ratio over predicted ratio); and where the split was predicted faster
// by under 3 % it lost both times: 200x8192x8192 swap-AB 128x208 split 2 predicted 48.0 us,
// measured 51.1, against 128x112 unsplit 48.2 / 46.7; 72x4096x4096 64x80 split 2 16.8 / 16.6
// against unsplit 16.9 / 15.0 (docs/PERF.md, twenty-fourth session; docs/PLANNER.md §4.3). With the
// partial-wave clock term (twenty-fifth session) the records' bias is smaller (median +1.2 % over
// 29 such problems) and their near ties rank the measured-faster tile first without the margin;
// kept, as the bias remains and no record's pick changes with it.
inline constexpr double kKSplitMargin = 0.03;
// Stream-K over runs (Config::sk_runs) wins by kRunsMargin more: measured on the H100 (`tune`,
// bench/measurements/h100-2026-12-06-tune-runs-10ac70b.json, docs/PERF.md forty-second session),
// on 13 mid-M problems the model's best run was more optimistic than its best unsplit tile by
// 1.8-18.7 % (measured over predicted, the run's ratio over the tile's), 8.6 % on average, 6.8 %
// at the median. 3 % + 6 % = 9 % is that mean bias: runs measured faster on two of the 13
// (300x28672x8192 by 4.6 %, 300x28672x14336 by 3.7 %, predicted 9.8 % and 11.8 % ahead) and slower
// on eleven, of which none was predicted more than 8.4 % ahead (300x11008x14336, 777x14336x8192),
// so the ranking puts the faster first on all 13 (MeasuredPicks.StreamKOverRunsGoesFirstOnlyWhereItMeasuredFaster).
inline constexpr double kRunsMargin = 0.06;
// BM = 256 tiles (two consumers of 128 rows, sm90 wide_m) win by kWideMMargin: measured so far on
// the H100 only, on 13 problems (docs/PERF.md, forty-second session: 6-9 % faster than the 128-row
// picks at 300x14336x4096 and 777x4608x4096, within 1 % on the squares, far slower where their
// tiles leave SMs idle), so a near tie stays with the 128-row tile that the records measured.
inline constexpr double kWideMMargin = 0.03;
// The widest BM = 256 tile the planner offers: 176 (the template's limit) keeps only 3 stages,
// measured 1-3 % slower than 256x128 (4096^3 184.1 against 179.0 us, 8192^3 1388.1 against 1381.6).
inline constexpr int kWideMMaxBn = 160;
// 1x1 256-row tiles narrower than 128 columns are mapped grouped_n (their A band's readers side by
// side) over more than this many A bands; over fewer, grouped_m G = 8 puts them at most this many
// CTAs apart, which measured as fast or 1-2 % faster (planner.cpp, enumerate).
inline constexpr int kWideMGroupedNBands = 4;

// The fraction Ranking::time adds to a config's predicted time: kKSplitMargin for a k-split,
// kRunsMargin more for stream-K over runs, kWideMMargin for a BM = 256 tile, 0 otherwise.
double ranking_margin(const Config& c);
// What Ranking::time orders by: predicted_us, times 1 + ranking_margin.
double ranking_us(const Candidate& c);

// Strict total order used for ranking (true when a goes first).
bool ranks_before(const Candidate& a, const Candidate& b, Ranking ranking);

}  // namespace tilegemm::plan
