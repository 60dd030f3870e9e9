// Seed 1's cost model and tilegemm's time model (cost_model.hpp states both formulas).
#include "plan/cost_model.hpp"

#include <algorithm>

namespace tilegemm::plan {

namespace {

constexpr int kAbBytes = 2;  // BF16 operands

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

double cycles_to_us(double cycles, const DeviceProfile& d) { return cycles / (d.clock_ghz * 1e3); }

// Fraction of an operand's upstream reads left after multicast inside 2-CTA pairs along an axis
// with `blocks` tiles: only pairs that exist share (an odd last tile has no peer).
double multicast_factor(int cluster_along, int64_t blocks) {
  if (cluster_along < 2 || blocks < 2) return 1.0;
  const double paired = static_cast<double>(2 * (blocks / 2)) / static_cast<double>(blocks);
  return 1.0 - paired / 2.0;
}

// HBM reads of A and B (kernel operands) for the mapping, with L2 holding `l2_reuse` bytes of
// reusable bands. Grouped strips: the strip operand's G bands are reused by every wave of the
// strip while they fit in L2 (else re-read once per wave of the strip); the other operand is
// streamed once per strip unless all of it fits in L2. linear_n/linear_m are one strip spanning
// the whole n/m range. Box, Morton and Hilbert are approximated as grouped_m (flagged).
struct HbmAb {
  int64_t bytes = 0;
  double stream_reread = 1;  // times the streamed operand is read
};
HbmAb hbm_ab_bytes(const Config& c, const KernelShape& ks, const DeviceProfile& d) {
  const double a_bytes = static_cast<double>(ks.m) * ks.k * kAbBytes;
  const double b_bytes = static_cast<double>(ks.n) * ks.k * kAbBytes;
  const double l2_reuse = static_cast<double>(d.l2_bytes) / 2.0;
  using sched::MappingKind;
  const MappingKind kind = c.mapping.kind;
  const bool strips_of_n = kind == MappingKind::grouped_n || kind == MappingKind::linear_n;
  // Strip operand: the one whose G bands make up a strip (A for strips of m-blocks).
  const int64_t strip_axis_blocks = strips_of_n ? ks.n_blocks : ks.m_blocks;
  const int64_t other_axis_blocks = strips_of_n ? ks.m_blocks : ks.n_blocks;
  int64_t g = c.mapping.group;
  if (kind == MappingKind::linear_n || kind == MappingKind::linear_m) g = strip_axis_blocks;
  if (kind == MappingKind::box) g = c.mapping.box_m;
  g = std::clamp<int64_t>(g, 1, strip_axis_blocks);
  const int64_t strips = ceil_div(strip_axis_blocks, g);
  const int band_rows = strips_of_n ? c.bn : c.bm;
  const double strip_bytes = static_cast<double>(g) * band_rows * ks.k_split * kAbBytes;
  const int64_t grid = std::max<int64_t>(1, std::min<int64_t>(ks.blocks, d.sm_count));
  const double waves_per_strip = std::max(1.0, static_cast<double>(ceil_div(g * other_axis_blocks, grid)));
  const double strip_op_bytes = strips_of_n ? b_bytes : a_bytes;
  const double stream_op_bytes = strips_of_n ? a_bytes : b_bytes;
  const double strip_reread = strip_bytes <= l2_reuse ? 1.0 : waves_per_strip;
  const double stream_reread = stream_op_bytes <= l2_reuse ? 1.0 : static_cast<double>(strips);
  HbmAb r;
  r.bytes = static_cast<int64_t>(strip_op_bytes * strip_reread + stream_op_bytes * stream_reread);
  r.stream_reread = stream_reread;
  return r;
}

}  // namespace

KernelShape kernel_shape(const Problem& p, const Config& c) {
  KernelShape ks;
  ks.m = c.swap_ab ? p.n : p.m;
  ks.n = c.swap_ab ? p.m : p.n;
  ks.k = p.k;
  ks.k_split = ceil_div(p.k, std::max(1, c.split_k));
  ks.m_blocks = ceil_div(ks.m, c.bm);
  ks.n_blocks = ceil_div(ks.n, c.bn);
  ks.tiles = ks.m_blocks * ks.n_blocks;
  ks.blocks = ks.tiles * std::max(1, c.split_k);
  return ks;
}

SeedTerms seed_terms(const Problem& p, const Config& c, const DeviceProfile& d) {
  const KernelShape ks = kernel_shape(p, c);
  const int64_t K = ks.k_split, BM = c.bm, BN = c.bn;
  SeedTerms s;
  s.num_blocks = ks.blocks;
  s.num_waves = ceil_div(ks.blocks, d.sm_count);
  s.wave_eff = static_cast<double>(s.num_blocks) / static_cast<double>(s.num_waves * d.sm_count);
  // The problem is the source of truth for the output; split-K partials are FP32 whatever it is.
  s.sizeof_c = c.split_k > 1 ? 4 : dtype_bytes(p.out);
  const bool acc = p.accumulate && c.split_k == 1;  // split-K reads C once, in the fix-up
  s.bytes_L2_AB = K * (BM / c.cluster_n + BN / c.cluster_m) * kAbBytes;
  s.bytes_local_AB = K * (BM + BN) * kAbBytes;
  s.bytes_TC = K * (std::max<int64_t>(64, BM) + BN) * kAbBytes + BM * BN * s.sizeof_c;
  s.bytes_CD = BM * BN * s.sizeof_c * (acc ? 2 : 1);
  const double blocks = static_cast<double>(s.num_blocks);
  s.cycles_L2 = static_cast<double>(s.bytes_L2_AB + s.bytes_CD) * blocks / d.l2_bytes_per_cycle;
  s.cycles_local =
      static_cast<double>(s.bytes_local_AB + s.bytes_TC + s.bytes_CD) * blocks / d.local_bytes_per_cycle;
  s.score = std::max(s.cycles_local, s.cycles_L2) / s.wave_eff;
  return s;
}

TimeTerms time_terms(const Problem& p, const Config& c, const DeviceProfile& d, const SeedTerms& s) {
  const KernelShape ks = kernel_shape(p, c);
  TimeTerms t;

  // L2 side, corrected: edge rows are not read, multicast only where the peer tile exists.
  const double rows_a = static_cast<double>(std::min<int64_t>(c.bm, ks.m));
  const double rows_b = static_cast<double>(std::min<int64_t>(c.bn, ks.n));
  const double a_eff = rows_a * multicast_factor(c.cluster_n, ks.n_blocks);
  const double b_eff = rows_b * multicast_factor(c.cluster_m, ks.m_blocks);
  t.bytes_L2_AB_eff = static_cast<int64_t>(static_cast<double>(ks.k_split) * (a_eff + b_eff) * kAbBytes);
  const double cycles_l2 =
      static_cast<double>(t.bytes_L2_AB_eff + s.bytes_CD) * s.num_blocks / d.l2_bytes_per_cycle;
  t.l2_us = cycles_to_us(cycles_l2 / s.wave_eff, d);
  t.local_us = cycles_to_us(s.cycles_local / s.wave_eff, d);

  // HBM: operands (strip model), D once, C once when accumulating, split-K partials out and back.
  const HbmAb ab = hbm_ab_bytes(c, ks, d);
  const int64_t mn = p.m * p.n;
  const int out_bytes = dtype_bytes(p.out);
  int64_t hbm = ab.bytes + mn * out_bytes + (p.accumulate ? mn * out_bytes : 0);
  if (c.split_k > 1) hbm += 2 * int64_t{c.split_k - 1} * ks.tiles * c.bm * c.bn * 4;
  t.hbm_bytes = hbm;
  t.b_reread = ab.stream_reread;
  t.hbm_us = static_cast<double>(hbm) / d.hbm_bytes_per_s * 1e6;

  // Tensor cores: each SM runs num_waves tiles back to back; a tile issues max(64, BM) x BN x
  // K_slice (padded to BK) of wgmma work.
  const double k_padded = static_cast<double>(ceil_div(ks.k_split, c.bk) * c.bk);
  const double tile_flops = 2.0 * std::max(64, c.bm) * c.bn * k_padded;
  t.tc_us = cycles_to_us(s.num_waves * tile_flops / d.tc_flops_per_cycle_per_sm(), d);

  // Epilogue the math warpgroups spend not issuing wgmma: registers -> smem at the SM-local
  // rate, once per tile; a static launch also drains each CTA's TMA store before it exits.
  const double epi_cycles = static_cast<double>(c.bm) * c.bn * s.sizeof_c /
                            (d.local_bytes_per_cycle / d.sm_count);
  t.epilogue_us = cycles_to_us(epi_cycles * s.num_waves * (c.persistent ? 1 : 2), d);
  t.fixed_us = d.fixed_us;
  t.splitk_us = c.split_k > 1 ? d.splitk_fixup_us : 0.0;

  struct Term { const char* name; double us; };
  const Term terms[] = {{"l2", t.l2_us}, {"local", t.local_us}, {"hbm", t.hbm_us}, {"tensor", t.tc_us}};
  const Term* worst = &terms[0];
  for (const Term& term : terms)
    if (term.us > worst->us) worst = &term;
  t.bound = worst->name;
  t.predicted_us = worst->us + t.epilogue_us + t.fixed_us + t.splitk_us;
  t.tflops = 2.0 * static_cast<double>(p.m) * p.n * p.k / (t.predicted_us * 1e-6) / 1e12;
  return t;
}

}  // namespace tilegemm::plan
