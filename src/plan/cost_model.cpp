// Seed 1's cost model and tilegemm's time model (cost_model.hpp states both formulas).
#include "plan/cost_model.hpp"

#include <algorithm>

#include "core/math.hpp"

namespace tilegemm::plan {

using ::tilegemm::ceil_div;  // core/math.hpp
using ::tilegemm::round_up;

namespace {

constexpr int kAbBytes = 2;  // BF16 operands


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
  double bytes = 0;  // double: re-read counts times operand sizes exceed int64 for extreme shapes
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
  r.bytes = strip_op_bytes * strip_reread + stream_op_bytes * stream_reread;
  r.stream_reread = stream_reread;
  return r;
}

}  // namespace

KernelShape kernel_shape(const Problem& p, const Config& c) {
  KernelShape ks;
  ks.m = p.m;
  ks.n = p.n;
  ks.k = p.k;
  ks.k_split = ceil_div(p.k, std::max(1, c.split_k));
  ks.m_blocks = ceil_div(ks.m, c.bm);
  ks.n_blocks = ceil_div(ks.n, c.bn);
  ks.tiles = ks.m_blocks * ks.n_blocks;
  ks.blocks = ks.tiles * std::max(1, c.split_k);
  return ks;
}

double mainloop_efficiency(const Config& c) {
  const double width = static_cast<double>(c.bn) / (c.bn + kBnOverhead);
  return c.consumers() >= 2 ? width : width * kOneConsumerFactor;
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
  const bool cluster = c.cluster_size() > 1;

  // The seed's L2 bytes with multicast counted only where the peer tile exists (kept for explain).
  const double a_eff = c.bm * multicast_factor(c.cluster_n, ks.n_blocks);
  const double b_eff = c.bn * multicast_factor(c.cluster_m, ks.m_blocks);
  t.bytes_L2_AB_eff = static_cast<int64_t>(static_cast<double>(ks.k_split) * (a_eff + b_eff) * kAbBytes);
  t.local_us = cycles_to_us(s.cycles_local / s.wave_eff, d);

  // HBM: operands (strip model), D once, C once when accumulating.
  const HbmAb ab = hbm_ab_bytes(c, ks, d);
  // Byte counts in double: M, N, K up to 2^31 each (validate_problem) make products past int64.
  const double mn = static_cast<double>(p.m) * static_cast<double>(p.n);
  const int out_bytes = dtype_bytes(p.out);
  double hbm = ab.bytes + mn * out_bytes + (p.accumulate ? mn * out_bytes : 0);
  // Split-K: the GEMM writes every slice's fp32 partial tile (rows < M only) instead of D; the
  // reduce kernel (splitk_us below) reads them back and writes D.
  const double partial_bytes =
      c.split_k > 1 ? static_cast<double>(c.split_k) * static_cast<double>(p.m) * ks.n_blocks * c.bn * 4 : 0.0;
  if (c.split_k > 1) hbm += partial_bytes - mn * out_bytes;
  t.hbm_bytes = hbm;
  t.b_reread = ab.stream_reread;
  t.hbm_us = hbm / d.hbm_bytes_per_s * 1e6;

  // The TMA feed ("l2"): every 128-B line a load box brings into smem costs, in bounds or
  // zero-filled past the edge. Two limits (measured, device_profile.cpp): lines that come from HBM
  // or are zero-filled, over the whole GPU; and every line one CTA loads, per SM.
  const int64_t kb_total = ceil_div(p.k, c.bk);
  const double line = static_cast<double>(c.bk) * kAbBytes;  // 128 B
  const double oob_lines = static_cast<double>((ks.m_blocks * c.bm - ks.m) * ks.n_blocks +
                                               (ks.n_blocks * c.bn - ks.n) * ks.m_blocks) *
                           static_cast<double>(kb_total);
  const double fill_us = (ab.bytes + oob_lines * line) / d.tma_fill_bytes_per_s * 1e6;
  const double kb_unit = static_cast<double>(ceil_div(ks.k_split, c.bk));
  const double cta_us = static_cast<double>(s.num_waves) * kb_unit * (c.bm + c.bn) * line / d.tma_bytes_per_s_per_sm * 1e6;
  t.l2_us = std::max(fill_us, cta_us);

  // Tensor cores: each SM runs num_waves units back to back; a unit issues BM x BN x K_slice
  // (padded to BK) of wgmma work at the config's mainloop efficiency.
  const double k_padded = static_cast<double>(ceil_div(ks.k_split, c.bk) * c.bk);
  const double tile_flops = 2.0 * c.bm * c.bn * k_padded;
  t.efficiency = mainloop_efficiency(c);
  t.tc_us = cycles_to_us(s.num_waves * tile_flops / (d.tc_flops_per_cycle_per_sm() * t.efficiency), d);

  // Epilogue the math warpgroups spend not issuing wgmma, once per unit: registers -> smem at the
  // SM-local rate (TMA store: the global write drains while the next mainloop runs), or straight
  // to global memory at the direct epilogue's measured store rate; a static launch also drains
  // each CTA's TMA store before it exits.
  const double tile_bytes = static_cast<double>(c.bm) * c.bn * s.sizeof_c;
  const double epi_cycles = c.epilogue == Epilogue::direct ? tile_bytes / d.direct_store_bytes_per_cycle
                                                           : tile_bytes / (d.local_bytes_per_cycle / d.sm_count);
  t.epilogue_us = cycles_to_us(epi_cycles * s.num_waves * (c.persistent ? 1 : 2), d);
  t.fixed_us = d.fixed_us;
  // The reduce kernel: its launch, then the partials read and D written at HBM speed.
  t.splitk_us = c.split_k > 1 ? d.splitk_reduce_us + (partial_bytes + mn * out_bytes) /
                                                        d.hbm_bytes_per_s * 1e6
                              : 0.0;

  struct Term { const char* name; double us; };
  const Term terms[] = {{"l2", t.l2_us}, {"local", t.local_us}, {"hbm", t.hbm_us}, {"tensor", t.tc_us}};
  const Term* worst = &terms[0];
  for (const Term& term : terms)
    if (term.us > worst->us) worst = &term;
  t.bound = worst->name;
  // A 2-CTA cluster runs its two rings in lock-step: measured slower in every regime tried
  // (device_profile.cpp, cluster_factor), so its whole kernel time is divided by the factor.
  t.predicted_us = (worst->us + t.epilogue_us + t.fixed_us) / (cluster ? d.cluster_factor : 1.0) + t.splitk_us;
  t.tflops = 2.0 * static_cast<double>(p.m) * p.n * p.k / (t.predicted_us * 1e-6) / 1e12;
  return t;
}

}  // namespace tilegemm::plan
