// Candidate space, resource filter and ranking (planner.hpp). The cost model is cost_model.cpp.
#include "plan/planner.hpp"

#include <algorithm>
#include <string>
#include <tuple>

#include "plan/smem_layout.hpp"

namespace tilegemm::plan {

namespace {

constexpr int kBk = 64;                        // BF16: one 128-B swizzle row of K per stage
constexpr int kSplitKFactors[] = {2, 3, 4, 6, 8};
constexpr int kGroups[] = {8, 16};             // seed: G from 8 / 16
constexpr int64_t kMaxExtent = (int64_t{1} << 31) - 1;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }

// Swizzle span (bytes) of a TMA box whose contiguous extent is `inner_bytes`: the largest of
// 128/64/32/16 that divides it (DeepGEMM's get_swizzle_mode rule, research/deepgemm.md §4.1).
int swizzle_for(int inner_bytes) {
  for (int s : {128, 64, 32, 16})
    if (inner_bytes % s == 0) return s;
  return 0;
}

// Fill every field that follows from (bm, bn, cluster, mapping, persistent, swap_ab, split_k).
void complete_config(const Problem& p, const DeviceProfile& d, Config& c) {
  c.bk = kBk;
  c.multicast = c.cluster_n == 2 ? Multicast::a : c.cluster_m == 2 ? Multicast::b : Multicast::none;
  c.consumer_wgs = std::max(64, c.bm) <= 64 ? 1 : 2;
  c.threads = 128 * (1 + c.consumer_wgs);
  // Registers (HOPPER_NOTES §8): the entry cap is what __launch_bounds__(threads, 1) leaves per
  // thread, rounded down to 8 and at most 255; the producer drops to 40 and the consumers share
  // what is left, rounded down to 8.
  auto floor8 = [](int r) { return r / 8 * 8; };
  c.regs.entry = floor8(std::min(255, d.regs_per_sm / c.threads));
  c.regs.producer = 40;
  c.regs.consumer =
      floor8(std::min(255, (d.regs_per_sm - 128 * c.regs.producer) / (128 * c.consumer_wgs)));
  c.regs.accumulators = std::max(64, c.bm) * c.bn / (128 * c.consumer_wgs);
  c.a_major = c.swap_ab ? p.b_major : p.a_major;
  c.b_major = c.swap_ab ? p.a_major : p.b_major;
  // K-major tiles have a 128-B (BK x 2) inner extent; MN-major ones BM x 2 or BN x 2.
  c.swizzle_a = swizzle_for(c.a_major == Major::k_major ? c.bk * 2 : c.bm * 2);
  c.swizzle_b = swizzle_for(c.b_major == Major::k_major ? c.bk * 2 : c.bn * 2);
  // D is row-major [M, N]: its contiguous extent is BN, or BM for a swapped (transposed) tile.
  const int d_inner = (c.swap_ab ? c.bm : c.bn) * c.epilogue_elem_bytes();
  c.swizzle_d = std::min(128, swizzle_for(d_inner));
  c.out_dtype = p.out;
  c.accumulate = p.accumulate;
  const KernelShape ks = kernel_shape(p, c);
  const int64_t cs = c.cluster_size();
  const int64_t resident = d.sm_count - d.sm_count % cs;
  c.grid = static_cast<int>(c.persistent ? std::min(round_up(ks.blocks, cs), std::max<int64_t>(resident, cs))
                                         : round_up(ks.blocks, cs));
}

std::string tile_str(const Config& c) { return std::to_string(c.bm) + "x" + std::to_string(c.bn); }

// The resource filter, in Rule order. Sets c.stages / c.smem_bytes (as many stages as fit, unless
// the caller fixed them). Returns the first rule that fails, with its sentence.
std::pair<Rule, std::string> check_rules(const Problem& p, const DeviceProfile& d, Config& c,
                                         bool stages_given) {
  const KernelShape ks = kernel_shape(p, c);
  // Stages and smem first, so that candidates rejected by an earlier rule still show them.
  const int limit = d.smem_per_block_optin;
  const int d_elem = c.epilogue_elem_bytes();
  if (!stages_given) c.stages = std::max(kMinStages, max_stages_that_fit(c.bm, c.bn, c.bk, d_elem, limit));
  const SmemLayout layout = compute_smem_layout(c.bm, c.bn, c.bk, std::max(1, c.stages), d_elem);
  c.smem_bytes = layout.total_bytes;
  if (c.swizzle_a < 64 || c.swizzle_b < 64) {
    const bool a_bad = c.swizzle_a < 64;
    const int extent = a_bad ? c.bm : c.bn;
    return {Rule::swizzle_operand,
            std::string("operand ") + (a_bad ? "A" : "B") + " is MN-major and its tile is " +
                std::to_string(extent) + " elements = " + std::to_string(extent * 2) +
                " B wide, which gives a " + std::to_string(a_bad ? c.swizzle_a : c.swizzle_b) +
                "-B swizzle; MN-major tiles need a 64-B or 128-B swizzle (a multiple of 32 elements)"};
  }
  const int acc_limit = c.regs.consumer - kConsumerRegOverhead;
  if (c.regs.accumulators > acc_limit) {
    return {Rule::registers_accumulators,
            tile_str(c) + " needs " + std::to_string(c.regs.accumulators) +
                " fp32 accumulator registers per consumer thread (" + std::to_string(c.consumer_wgs) +
                " math warpgroup" + (c.consumer_wgs > 1 ? "s" : "") + "); the budget is setmaxnreg " +
                std::to_string(c.regs.consumer) + " - " + std::to_string(kConsumerRegOverhead) +
                " for addresses, descriptors and the epilogue = " + std::to_string(acc_limit)};
  }
  if (d.sm_count % c.cluster_size() != 0) {
    return {Rule::cluster_sm_count, "cluster " + std::to_string(c.cluster_m) + "x" +
                                        std::to_string(c.cluster_n) + " needs the SM count (" +
                                        std::to_string(d.sm_count) + ") to be a multiple of " +
                                        std::to_string(c.cluster_size())};
  }
  if ((c.cluster_m == 2 && ks.m_blocks < 2) || (c.cluster_n == 2 && ks.n_blocks < 2)) {
    const bool along_m = c.cluster_m == 2;
    return {Rule::cluster_no_peer,
            std::string("cluster ") + (along_m ? "2x1 pairs M" : "1x2 pairs N") + "-neighbours, but there is only " +
                std::to_string(along_m ? ks.m_blocks : ks.n_blocks) + " " + (along_m ? "m" : "n") +
                "-block: the peer tile never exists, so " + (along_m ? "B" : "A") +
                " multicast never happens (the seed's bytes_L2_AB would still halve it)"};
  }
  if (c.split_k > 1 && ceil_div(p.k, c.bk) < int64_t{kMinKBlocksPerSplit} * c.split_k) {
    return {Rule::split_k_depth, "split_k=" + std::to_string(c.split_k) + " gives slices of " +
                                     std::to_string(ceil_div(ceil_div(p.k, c.bk), c.split_k)) +
                                     " k-blocks (K=" + std::to_string(p.k) + ", BK=" +
                                     std::to_string(c.bk) + "); each slice needs >= " +
                                     std::to_string(kMinKBlocksPerSplit)};
  }
  if (stages_given && (c.stages < kMinStages || c.stages > kMaxStages)) {
    return {Rule::stages_range, "stages=" + std::to_string(c.stages) + " is outside [" +
                                    std::to_string(kMinStages) + ", " + std::to_string(kMaxStages) + "]"};
  }
  if (!layout.fits(limit)) {
    return {Rule::smem_fit,
            tile_str(c) + " with " + std::to_string(c.stages) + " stages needs " +
                std::to_string(layout.total_bytes) + " B of smem (" + std::to_string(c.stages) + " x " +
                std::to_string(layout.a_stage_stride + layout.b_stage_stride) + " B stages + " +
                std::to_string(layout.d_bytes) + " B epilogue tile + barriers + 1024 B alignment slack) > " +
                std::to_string(limit) + " B per block"};
  }
  return {Rule::none, {}};
}

void add_flags(const Problem& p, Candidate& cand) {
  const Config& c = cand.config;
  const KernelShape ks = kernel_shape(p, c);
  auto& f = cand.flags;
  if (c.bm < 64)
    f.push_back("wgmma computes 64 rows per pass; " + std::to_string(64 - c.bm) + " of them are discarded");
  if (c.bm > ks.m || c.bn > ks.n)
    f.push_back("the seed's bytes count " + tile_str(c) + " rows per tile; only " +
                std::to_string(std::min<int64_t>(c.bm, ks.m)) + "x" + std::to_string(std::min<int64_t>(c.bn, ks.n)) +
                " exist (TMA zero-fills the rest without reading): the time model counts those");
  if ((c.cluster_n == 2 && ks.n_blocks % 2) || (c.cluster_m == 2 && ks.m_blocks % 2))
    f.push_back("odd tile count along the cluster axis: the last tile has no peer and loads alone");
  if (cand.time.b_reread > 1)
    f.push_back("the streamed operand does not fit in half the L2: read " +
                std::to_string(static_cast<int>(cand.time.b_reread)) + "x from HBM (once per strip)");
  using sched::MappingKind;
  if (c.mapping.kind == MappingKind::morton || c.mapping.kind == MappingKind::hilbert ||
      c.mapping.kind == MappingKind::box)
    f.push_back("HBM re-reads for this mapping are approximated as grouped_m");
  if (c.swap_ab) f.push_back("swap-AB: the kernel computes D^T = B*A^T and stores each tile transposed");
  if (c.split_k > 1)
    f.push_back("split-K: " + std::to_string(c.split_k - 1) + " of " + std::to_string(c.split_k) +
                " slices write FP32 partials, the owner sums them in fixed order (deterministic)");
}

Candidate finish(const Problem& p, const DeviceProfile& d, Config c, bool stages_given) {
  complete_config(p, d, c);
  Candidate cand;
  auto [rule, reason] = check_rules(p, d, c, stages_given);
  cand.rule = rule;
  cand.reason = std::move(reason);
  cand.config = c;
  cand.seed = seed_terms(p, c, d);
  cand.time = time_terms(p, c, d, cand.seed);
  add_flags(p, cand);
  return cand;
}

// Stated tie-break among configs: no swap before swap, smaller split-K, cluster 1x1 < 2x1 < 1x2,
// larger BM, larger BN, smaller G, persistent before static, more stages, mapping kind.
auto config_key(const Config& c) {
  const int cluster_order = c.cluster_size() == 1 ? 0 : c.cluster_m == 2 ? 1 : 2;
  return std::make_tuple(c.swap_ab, c.split_k, cluster_order, -c.bm, -c.bn, c.mapping.group,
                         !c.persistent, -c.stages, static_cast<int>(c.mapping.kind));
}

// Seed candidate space for one transform (swap_ab, split_k). Space rules (not rejections):
// BM 16 / 32 only when the kernel M fits in them; BM 128 only when M > 64 and 256 only when M > 128
// (a bigger tile over the same single block only adds bytes); BN multiples of 16 up to
// max(64, N rounded up to 16) and 256 for the same reason; G = 16 only with more than 8 blocks
// along the grouped axis (else it is G = 8 again); mapping grouped_n for 1x2 clusters (A
// multicast pairs are N-neighbours), grouped_m otherwise.
void enumerate(const Problem& p, const DeviceProfile& d, bool swap, int split, std::vector<Candidate>& out) {
  const int64_t km = swap ? p.n : p.m, kn = swap ? p.m : p.n;
  std::vector<int> bms;
  if (km <= 16) bms.push_back(16);
  if (km <= 32) bms.push_back(32);
  bms.push_back(64);
  if (km > 64) bms.push_back(128);
  if (km > 128) bms.push_back(256);
  const int64_t bn_max = std::min<int64_t>(256, std::max<int64_t>(64, round_up(kn, 16)));
  const int clusters[3][2] = {{1, 1}, {2, 1}, {1, 2}};
  for (int bm : bms) {
    for (int bn = 16; bn <= bn_max; bn += 16) {
      const int64_t tiles = ceil_div(km, bm) * ceil_div(kn, bn);
      if (split > 1 && tiles >= d.sm_count) continue;  // split-K only when the tiles leave SMs idle
      for (const auto& cl : clusters) {
        const bool along_n = cl[1] == 2;
        const int64_t grouped_blocks = along_n ? ceil_div(kn, bn) : ceil_div(km, bm);
        for (int g : kGroups) {
          if (g > 8 && grouped_blocks <= 8) continue;
          Config c;
          c.bm = bm;
          c.bn = bn;
          c.cluster_m = cl[0];
          c.cluster_n = cl[1];
          c.mapping.kind = along_n ? sched::MappingKind::grouped_n : sched::MappingKind::grouped_m;
          c.mapping.group = g;
          c.persistent = true;
          c.swap_ab = swap;
          c.split_k = split;
          out.push_back(finish(p, d, c, /*stages_given=*/false));
        }
      }
    }
  }
}

void add_alignment_notes(const Problem& p, Plan& plan) {
  const int64_t lda = p.lda ? p.lda : (p.a_major == Major::k_major ? p.k : p.m);
  const int64_t ldb = p.ldb ? p.ldb : (p.b_major == Major::k_major ? p.k : p.n);
  const int64_t ldd = p.ldd ? p.ldd : p.n;
  const int out_bytes = dtype_bytes(p.out);
  auto check = [&](const char* name, int64_t ld, int elem_bytes) {
    if (ld * elem_bytes % 16 != 0)
      plan.notes.push_back(std::string(name) + "=" + std::to_string(ld) + " is not a multiple of " +
                           std::to_string(16 / elem_bytes) +
                           " elements (TMA needs 16-B row strides): this GEMM runs on the general "
                           "fallback path; the TMA configurations below are what it would use otherwise");
  };
  check("lda", lda, 2);
  check("ldb", ldb, 2);
  check("ldd", ldd, out_bytes);
}

}  // namespace

const char* rule_id(Rule r) {
  switch (r) {
    case Rule::none: return "none";
    case Rule::swizzle_operand: return "swizzle.operand";
    case Rule::registers_accumulators: return "registers.accumulators";
    case Rule::cluster_sm_count: return "cluster.sm_count";
    case Rule::cluster_no_peer: return "cluster.no_peer";
    case Rule::split_k_depth: return "split_k.depth";
    case Rule::stages_range: return "stages.range";
    case Rule::smem_fit: return "smem.fit";
  }
  return "unknown";
}

bool is_blind_spot_rule(Rule r) { return r == Rule::cluster_no_peer; }

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
    if (v > kMaxExtent)
      return bad(name, std::string(name) + "=" + std::to_string(v) +
                           ": must be < 2^31 (TMA coordinates are signed 32-bit)");
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

bool ranks_before(const Candidate& a, const Candidate& b, Ranking ranking) {
  const double a1 = ranking == Ranking::time ? a.time.predicted_us : a.seed.score;
  const double b1 = ranking == Ranking::time ? b.time.predicted_us : b.seed.score;
  if (a1 != b1) return a1 < b1;
  const double a2 = ranking == Ranking::time ? a.seed.score : a.time.predicted_us;
  const double b2 = ranking == Ranking::time ? b.seed.score : b.time.predicted_us;
  if (a2 != b2) return a2 < b2;
  if (a.time.hbm_bytes != b.time.hbm_bytes) return a.time.hbm_bytes < b.time.hbm_bytes;
  return config_key(a.config) < config_key(b.config);
}

Plan make_plan(const Problem& p, const DeviceProfile& d, const PlanOptions& options) {
  Plan result;
  result.problem = p;
  result.device = d;
  result.options = options;
  std::vector<Candidate> all;
  std::vector<bool> swaps = {false};
  if (options.allow_swap_ab && p.m <= kSmallM) swaps.push_back(true);
  for (bool swap : swaps) {
    enumerate(p, d, swap, 1, all);
    if (options.allow_split_k)
      for (int s : kSplitKFactors) enumerate(p, d, swap, s, all);
  }
  result.num_considered = static_cast<int64_t>(all.size());
  for (auto& c : all) (c.feasible() ? result.ranked : result.rejected).push_back(std::move(c));
  std::stable_sort(result.ranked.begin(), result.ranked.end(),
                   [&](const Candidate& a, const Candidate& b) { return ranks_before(a, b, options.ranking); });
  add_alignment_notes(p, result);
  if (result.ranked.empty()) return result;  // not reached with the built-in profiles (see header)
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

Candidate evaluate_config(const Problem& p, const DeviceProfile& d, Config c, bool stages_given) {
  return finish(p, d, c, stages_given);
}

size_t rank_of(const Plan& plan, const Candidate& c) {
  if (!c.feasible()) return 0;
  size_t before = 0;
  for (const auto& r : plan.ranked)
    if (ranks_before(r, c, plan.options.ranking)) ++before;
  return before + 1;
}

}  // namespace tilegemm::plan
