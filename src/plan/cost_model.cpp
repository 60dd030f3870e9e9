// Seed 1's cost model and tilegemm's time model (cost_model.hpp states both formulas).
#include "plan/cost_model.hpp"

#include <algorithm>
#include <cmath>

#include "core/math.hpp"

namespace tilegemm::plan {

using ::tilegemm::ceil_div;  // core/math.hpp

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

// What one k-block of an operand's tile costs the per-SM TMA feed, in in-bounds 128-B lines, averaged
// over the operand's `blocks` tiles of `tile_rows` rows (`extent` rows exist). A line whose start
// lies inside a 32-B sector costs unsectored_row_factor; a line past the matrix edge, which TMA
// zero-fills, oob_row_factor.
//  - K-major: the tile's lines are its rows; those past `extent` are zero-filled.
//  - MN-major: the lines run along MN, BK of them (the tile's K) per 64-element chunk of the tile's
//    rows. A chunk that the edge cuts is read and zero-filled in every one of its lines: each such
//    line costs oob_row_factor, times unsectored_row_factor where lines start inside sectors (a
//    chunk of 8 rows is BK lines of 16 B, not 8/64 of the chunk's lines). NOTES: measured on the
//    H200 (docs/PERF.md, twenty-seventh session), 111 (shape, config) pairs of TN and TT with M = 2
//    to 56 read in place: counting M/64 of a cut chunk's lines predicted the unsplit tiles of M = 8
//    and 24 at 0.67-0.80 of their time (8x6144x4096 64x64: 21.6 us, measured 32.0); with these
//    costs the predictions are 0.96 (lines off sectors: M = 2, 8, 12, 24, 40, 56) and 0.98 (on
//    sectors: M = 16, 32, 48) of the measured times (geomeans; rms of the log ratio 0.11, 0.05).
//  - MN-major chunks narrower than 64 elements (`chunk` 32 or 16: sm90/swizzle.hpp) have lines of
//    2·chunk bytes, each costing what a 128-B line does (with the same factors): a 16-wide chunk
//    of 8 rows costs 64 lines, and a tile's rows 64/chunk times what 64-wide chunks' do. NOTES:
//    measured on the H100 (docs/PERF.md, twenty-ninth session), counting such lines by their bytes
//    (chunk/64 of a line) let the planner give NN and TN 128x176 and 64x112 tiles in 16-wide
//    chunks that ran 1.3-2.4x slower than the 64-wide tiles it passed over (4096x7168x16384 2897
//    us against 1190); priced per line, the llm suite in NN and TN keeps its 64-wide tiles and the
//    option's picks over 136 TT/TN/NN shapes went from 1.038 (TT), 1.231 and 1.249 (NN and TN
//    llm) of the default's times to 0.986, 0.997 and 0.998.
double tile_line_cost(int tile_rows, int64_t extent, int64_t blocks, Major major, int chunk, bool sectored,
                      const DeviceProfile& d) {
  const double in_line = sectored ? 1.0 : d.unsectored_row_factor;
  const double rows = static_cast<double>(blocks) * tile_rows;
  if (major == Major::k_major) {
    const double in = static_cast<double>(extent) / rows;
    return tile_rows * (in * in_line + (1 - in) * d.oob_row_factor);
  }
  // (chunk elements per MN-major box row; the tile is whole chunks. A chunk's BK lines of 2·chunk
  // bytes are 64 / chunk times as many as a 64-wide chunk's per row and chunk / 64 the size: per
  // tile row, the same count of 128-B line equivalents.)
  if (chunk <= 0) chunk = 64;  // (a tile the template rejects, priced as 64-wide chunks)
  const int64_t chunks_per_tile = ceil_div(int64_t(tile_rows), int64_t(chunk));
  const int64_t last_rows = extent - (blocks - 1) * tile_rows;  // rows of the last tile, 1..tile_rows
  const int64_t full = (blocks - 1) * chunks_per_tile + last_rows / chunk;
  const int64_t cut = last_rows % chunk != 0 ? 1 : 0;
  const int64_t empty = blocks * chunks_per_tile - full - cut;
  const double per_chunk = (static_cast<double>(full) * in_line + static_cast<double>(cut) * in_line * d.oob_row_factor +
                            static_cast<double>(empty) * d.oob_row_factor) /
                           static_cast<double>(blocks * chunks_per_tile);
  return tile_rows * per_chunk * (64.0 / chunk);
}

}  // namespace

Problem kernel_problem(const Problem& p, const Config& c) {
  if (!c.d_col_major) return p;
  Problem t = p;
  t.m = p.n;
  t.n = p.m;
  t.a_major = p.b_major;
  t.b_major = p.a_major;
  t.lda = p.ldb;
  t.ldb = p.lda;
  t.a_rows_sectored = p.b_rows_sectored;
  t.b_rows_sectored = p.a_rows_sectored;
  t.a_rows_lined = p.b_rows_lined;
  t.b_rows_lined = p.a_rows_lined;
  return t;
}

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
  // Tiles narrower than 128 columns fall off faster than the per-k-block cost explains: linearly
  // from 1 at BN = 128 to kNarrowFactor at BN = 64 (and below). A BM = 256 consumer issues two
  // 64-row blocks per k-block, so its per-k-block cost is spread over 2 x BN columns: it counts as
  // that wide. NOTES: measured on the H100 (docs/PERF.md, forty-second session), 256x112 swap-AB at
  // 777x4608x4096 took 41.3 us, predicted 47.9 counted at BN = 112 and 42.7 at 224; 256x128 at
  // 8192^3 1381.6, predicted 1414.1 at BN = 128 and 1363.2 at 256 (128x224 there: 1349.8 for 1393.7).
  const int cols = c.bm == 256 && !c.pingpong ? 2 * c.bn : c.bn;
  const double narrow = cols >= 128 ? 1.0 : kNarrowFactor + (1.0 - kNarrowFactor) * std::max(0, cols - 64) / 64.0;
  const double width = kMainloopPeak * static_cast<double>(cols) / (cols + kBnOverhead) * narrow;
  // (Ping-pong: what the cooperative kernel of the same tile sustains -- two 64-row blocks in
  // flight per k-block for BM = 128, one for BM = 64; measured, docs/PERF.md.)
  return c.bm >= 128 ? width : width * kOneConsumerFactor;
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
  const bool acc = p.accumulate && c.split_k == 1;  // split-K partials are written without C
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

KSplitWork ksplit_work(const Problem& p, const Config& c, const DeviceProfile& d) {
  KSplitWork w;
  const sched::KSplit split = sm90::config_k_split(c, p.m, p.n, p.k, d.sm_count);
  w.split = split;
  const int64_t kb = split.k_blocks, tiles = split.tiles;
  // A k-split runs 1x1 and persistent (sm90::check_kernel_config): every SM one CTA.
  w.grid = split.launch_ctas(d.sm_count);
  const sched::CtaShare busiest = sched::busiest_cta(split, w.grid);
  w.cta_kb = busiest.k_blocks;
  w.cta_stores = busiest.units;
  if (split.workers > 0) {
    const int64_t workers_per_cta = ceil_div(int64_t(split.workers), w.grid);
    // A worker writes about one partial (the piece of the tile its range starts inside; the piece
    // it ends inside is that tile's piece 0, which sums and writes none); piece 0 of a tile reads
    // the others: max_pieces - 1.
    if (split.tiles - split.dp_tiles <= sm90::kKSplitCounters) {  // else rejected (split_k.tiles)
      for (int slot = split.dp_tiles; slot < split.tiles; ++slot)
        w.max_pieces = std::max<int64_t>(w.max_pieces, split.pieces(slot));
      // Units of a worker that share their tile: the tile its range starts in and the one it ends
      // in (one when they are the same), each shared unless a single worker holds it whole.
      auto shared = [&](int slot) { return split.last_worker(slot) > split.first_worker(slot); };
      for (int v = 0; v < split.workers; ++v) {
        const int first = split.first_slot(v), last = split.last_slot(v);
        w.shared_units =
            std::max<int64_t>(w.shared_units, int64_t(shared(first)) + int64_t(last != first && shared(last)));
      }
    } else {
      w.max_pieces = std::max(2, c.split_k);
      w.shared_units = 1;
    }
    w.shared_units *= workers_per_cta;
    w.cta_partials = workers_per_cta + (w.max_pieces - 1);
  }
  w.balance = static_cast<double>(tiles * kb) / (static_cast<double>(w.grid) * static_cast<double>(w.cta_kb));
  return w;
}

double short_k_norm_p(int64_t k, int bk, const DeviceProfile& d) {
  if (d.short_k_norm_p <= 0 || d.short_k_blocks <= 0) return 0;
  const int64_t kb = ceil_div(k, int64_t(std::max(1, bk)));
  if (kb >= d.short_k_blocks) return 0;
  if (kb <= d.short_k_full_blocks) return d.short_k_norm_p;
  const double f = static_cast<double>(kb - d.short_k_full_blocks) /
                   static_cast<double>(d.short_k_blocks - d.short_k_full_blocks);
  return d.short_k_norm_p + (d.limit_norm_p - d.short_k_norm_p) * f;
}

TimeTerms time_terms(const Problem& p, const Config& c, const DeviceProfile& d, const SeedTerms& s) {
  const KernelShape ks = kernel_shape(p, c);
  TimeTerms t;
  const bool cluster = c.cluster_size() > 1;
  // (A k-split over more tiles than an int counts is rejected, split_k.tiles; no work is computed.)
  const bool ksplit = c.stream_k && ks.tiles <= kMaxKSplitTiles;
  const KSplitWork work = ksplit ? ksplit_work(p, c, d) : KSplitWork{};

  // The seed's L2 bytes with multicast counted only where the peer tile exists (kept for explain).
  const double a_eff = c.bm * multicast_factor(c.cluster_n, ks.n_blocks);
  const double b_eff = c.bn * multicast_factor(c.cluster_m, ks.m_blocks);
  t.bytes_L2_AB_eff = static_cast<int64_t>(static_cast<double>(ks.k_split) * (a_eff + b_eff) * kAbBytes);
  // The seed's SM-local cycles (every block's bytes over the whole GPU), spread as the work is: the
  // seed's wave_eff without k-splitting, the balance of the k-split otherwise.
  t.local_us = cycles_to_us(s.cycles_local / (ksplit ? work.balance : s.wave_eff), d);

  // HBM: operands (strip model), D once, C once when accumulating.
  const HbmAb ab = hbm_ab_bytes(c, ks, d);
  // Byte counts in double: M, N, K up to 2^31 each (validate_problem) make products past int64.
  const double mn = static_cast<double>(p.m) * static_cast<double>(p.n);
  const int out_bytes = dtype_bytes(p.out);
  // (The k-split's partial tiles are written and read back within the kernel: L2, charged below.)
  double hbm = ab.bytes + mn * out_bytes + (p.accumulate ? mn * out_bytes : 0);
  // NOTES: stream-K's workers start their ranges at different k, so in the shared phase the CTAs
  // no longer read the same k-slice of a band at the same time and L2 stops serving the bands'
  // re-reads: measured on the H200 (build afc9ae8) the shared phase of 4096x7168x16384 (128x256)
  // ran about 2.3x slower than its tensor time, 512x8192x28672 took 557 us where the unsplit
  // 128 tiles take 302. Unless A and B fit in the L2 share, its every k-block comes from HBM.
  // That phase comes after the data-parallel one, so its HBM time is charged on its own (below:
  // what it takes beyond its tensor time).
  const bool sk_from_hbm =
      c.stream_k && c.split_k == 1 && work.split.workers > 0 &&
      static_cast<double>(p.m + p.n) * static_cast<double>(p.k) * kAbBytes > static_cast<double>(d.l2_bytes) / 2.0;
  // Only a tile's rows inside the matrix come from HBM (TMA zero-fills the others without reading
  // them, as hbm_ab_bytes counts; with BM + BN, 8x8xK's one 64x16 tile was charged 80 rows for 16),
  // and only those of an operand too large to stay in L2 beside the other's stream (a quarter of
  // it: 64x57344x8192's A, 1 MB, was charged 64 rows of every shared k-block; measured on the H200,
  // bench/measurements tune-m1-64, its 64x48 stream-K took 257.5 us, predicted 317.1).
  const auto sk_operand_rows = [&](int tile_rows, int64_t rows, int64_t blocks) {
    const bool in_l2 = static_cast<double>(rows) * static_cast<double>(p.k) * kAbBytes <= static_cast<double>(d.l2_bytes) / 4.0;
    return in_l2 ? 0.0 : std::min<double>(tile_rows, static_cast<double>(rows) / static_cast<double>(blocks));
  };
  // With runs (Config::sk_runs, KSplit::group > 1) a run's members read the operand they share side
  // by side, as a data-parallel wave does: only the other one is charged.
  const bool runs = work.split.group > 1;
  const bool runs_share_b = runs && sched::stream_k_run_shares_b(c.mapping);
  const bool runs_share_a = runs && !runs_share_b;
  const double sk_rows = (runs_share_a ? 0.0 : sk_operand_rows(c.bm, ks.m, ks.m_blocks)) +
                         (runs_share_b ? 0.0 : sk_operand_rows(c.bn, ks.n, ks.n_blocks));
  const double sk_hbm_us = sk_from_hbm ? static_cast<double>(work.split.iterations()) * sk_rows * c.bk *
                                             kAbBytes / d.hbm_bytes_per_s * 1e6
                                       : 0.0;
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
  // The k-blocks the busiest CTA runs: num_waves units of K_slice (padded to BK) each, or with
  // stream-K its data-parallel tiles plus its share of the rest (ksplit_work).
  const double cta_kb = ksplit ? static_cast<double>(work.cta_kb)
                                   : static_cast<double>(s.num_waves) * static_cast<double>(ceil_div(ks.k_split, c.bk));
  // (The chunks of an MN-major operand as the kernel stores them: its majors are the problem's.)
  const int a_chunk = sm90::mn_chunk_elems(sm90::a_load_rows(c)), b_chunk = sm90::mn_chunk_elems(sm90::b_load_rows(c));
  // Rows off 32-B sectors cost the CTA that issues their loads (unsectored_row_factor), not the SMs
  // that receive them: in a 2-CTA cluster each CTA issues half of the operand it multicasts, so that
  // operand's rows cost half as much each, but never less than receiving every line on its own
  // rows (sectored rows: the receiving SM's rate binds, and a cluster gains nothing). NOTES:
  // measured on the H100 (docs/PERF.md, forty-seventh session; bench/measurements
  // h100-2026-12-07-tune-mid-e2d676a.json), with both operands off sectors (K = 296, 776, 1000,
  // 3000): 256-row tiles in 2x1 or 1x2 clusters ran 12-20 % faster than the same tiles alone
  // (3000^3 256x144 93.5 against 111.1 us, 5000x5000x1000 256x160 1x2 90.0 against 113.1,
  // 1504x7000x1000 1x2 38.4 against 45.5), about as much as halving the shared operand's issue
  // predicts (3000^3 2x1: (256 + 72) / (256 + 144) = 0.82); on sectored rows 2x1 clusters ran
  // 0-2 % slower (4096^3, 8192^3, device_profile.cpp cluster_factor). The picks this rule moves
  // (256- and 128-row tiles in clusters, operands read in place instead of copied), measured against
  // the build before it in one process: 2-33 % faster on 23 of 24 shapes with K = 8 mod 16, 17 of
  // them outside the tune records (2000x6000x1000 49.0 -> 40.6 us, 4096x4096x4008 244.6 -> 182.8
  // where A was copied before, 2000x2000x5000 85.8 -> 57.1), 3 % slower on 1000x9000x3000 (A was
  // copied: 89.2, in place in a cluster 91.8).
  const auto feed_lines = [&](int tile_rows, int64_t extent, int64_t blocks, Major major, int chunk, bool sectored,
                              int cluster_along, int64_t other_blocks) {
    const double lines = tile_line_cost(tile_rows, extent, blocks, major, chunk, sectored, d);
    if (sectored || cluster_along < 2) return lines;
    const double received = tile_line_cost(tile_rows, extent, blocks, major, chunk, true, d);
    return std::max(received, lines * multicast_factor(cluster_along, other_blocks));
  };
  const double a_cta =
      feed_lines(c.bm, ks.m, ks.m_blocks, p.a_major, a_chunk, p.a_rows_sectored, c.cluster_n, ks.n_blocks);
  const double b_cta =
      feed_lines(c.bn, ks.n, ks.n_blocks, p.b_major, b_chunk, p.b_rows_sectored, c.cluster_m, ks.m_blocks);
  const double cta_us = cta_kb * (a_cta + b_cta) * line / d.tma_bytes_per_s_per_sm * 1e6;
  // A third limit, of the whole GPU: the L2 lines the loads touch. A 128-B box row on a line
  // boundary touches one line, one off it (Problem::a_rows_lined) two; a narrow MN-major chunk's
  // shorter lines (one sector or two) stay inside one. Every in-bounds line of every tile's k-blocks
  // counts (zero-filled rows are not read); a line multicast to a CTA pair counts 3/4 for each:
  // measured on the H100 (docs/PERF.md, thirty-third session), 2x1 clusters ran such problems
  // 0-4 % faster than 1x1 with narrow tiles (128x176 ping-pong, 4000x4000x2000 103.0 against
  // 105.0 us, 8192x1024x3024 83.6 against 86.8) and 1-2 % slower with 128x256 (98.5 against 97.5,
  // 2048x2048x16016 174.4 against 171.5): counting such a line once per pair had predicted them
  // 8-15 % faster, counting it fully slower than measured (512x4000x4000 128x128 1x2 36.6 us,
  // measured 31.7); 3/4 puts those within 5 %. Measured, with the rate, in
  // device_profile.cpp: it binds the narrow tiles of operands off lines, and never whole lines
  // (the per-SM feed limits them first).
  double touch_us = 0;
  if (d.l2_line_touch_bytes_per_s > 0) {
    // Lines per k-block of the operand's `rows` (in bounds) for one tile across: rows (K-major, or
    // MN-major in 64-wide chunks: BK lines per 64 rows), 64 / chunk times as many for narrower chunks.
    const auto touches = [&](int64_t rows, int64_t other_blocks, int cluster_along, Major major, int chunk, bool lined) {
      const bool narrow = major == Major::mn_major && chunk > 0 && chunk < 64;
      const double per_row = narrow ? 64.0 / chunk : lined ? 1.0 : 2.0;
      const double shared = 1.0 - multicast_factor(cluster_along, other_blocks);  // 0.5: every line paired
      return static_cast<double>(rows) * static_cast<double>(other_blocks) * per_row * (1.0 - shared / 2.0);
    };
    const double a_touch = touches(ks.m, ks.n_blocks, c.cluster_n, p.a_major, a_chunk, p.a_lined());
    const double b_touch = touches(ks.n, ks.m_blocks, c.cluster_m, p.b_major, b_chunk, p.b_lined());
    touch_us = (a_touch + b_touch) * static_cast<double>(kb_total) * line / d.l2_line_touch_bytes_per_s * 1e6;
  }
  t.l2_us = std::max({fill_us, cta_us, touch_us});
  // The last partial wave of a kernel that streams from HBM: its r tiles run on r SMs, each at the
  // per-SM feed rate, and cannot take the GPU's whole HBM bandwidth when r is small. So the HBM
  // term is the full waves' share of the bytes at the HBM rate plus the last wave's, which takes
  // the longer of its share at the HBM rate and one tile at the per-SM rate (cta_us over the
  // busiest CTA's waves). The same as before when the last wave is full. Measured on the H200
  // (docs/PERF.md, 2026-12-03 twelfth session): 8x10240x8192 with 64x16 swap-AB (160 tiles, the
  // second wave 28) took 58.0 us where 128x16 (80 tiles) took 49.4; 8x57344x8192 with 64x176
  // (326 tiles, the third wave 62) 258.0 where 64x16 (896 tiles) took 229.9; the flat HBM term
  // saw each pair equal.
  if (!ksplit && s.num_waves > 1) {
    const double blocks = static_cast<double>(s.num_blocks);
    const double last = blocks - static_cast<double>((s.num_waves - 1) * d.sm_count);
    const double full_share = (blocks - last) / blocks, last_share = last / blocks;
    t.hbm_us = full_share * t.hbm_us + std::max(last_share * t.hbm_us, cta_us / static_cast<double>(s.num_waves));
  }

  // Tensor cores: the busiest SM's k-blocks, each BM x BN x BK of wgmma work, at the config's
  // mainloop efficiency.
  const double kblock_flops = 2.0 * c.bm * c.bn * c.bk;
  t.efficiency = mainloop_efficiency(c);
  // A shallow ring under an HBM-heavy feed: a 128-row tile whose ring holds less than ring_bytes
  // in flight ((stages - 1) stages: one is being read), when at least ring_hbm_share of the bytes
  // its TMA loads come from HBM (the rest hit L2), and whose units are long enough (32 k-blocks)
  // that a narrower epilogue staging costs nothing, runs its mainloop at ring_shallow_factor.
  // Measured on the H200 (device_profile.cpp): one more stage, bought by staging the epilogue 64
  // columns at a time, made such tiles 0.7-2.8 % faster and changed nothing where less of the
  // feed comes from HBM. A ping-pong tile whose D the threads copy out (smem_stores) gains the
  // stage whatever its HBM share: its long copy-out runs beside the other consumer's mainloop,
  // which the ring must feed while it also fills for the next tile. NOTES: measured on the H100
  // (docs/PERF.md, thirty-fourth and thirty-fifth sessions), 128x144 ping-pong smem_stores with 6
  // stages (staged 64 columns) against 5 (staged whole) at HBM shares of 2-4 %: faster in all 9
  // pairs timed, 1-11 % (0.9-3.4 % once tiles past M or N stopped paying for zero-filled boxes,
  // 4 pairs: 4001x3999x2001 121.4 -> 118.5 us, 2500x7001x1999 142.2 -> 137.5); with the TMA-store
  // epilogue the same trade measured even (H200: 128x176 ping-pong 4 stages against 5 staged 64,
  // 4096x7168x2048 155.6 / 156.5, 4096x2112x7168 160.8 / 160.8).
  // In a single wave (unsplit, every CTA one tile) the shallow ring is charged whatever the HBM
  // share, from 24 k-blocks: no next mainloop waits on the epilogue, so the narrower staging has
  // nothing to delay. NOTES: measured (bench/measurements, the tune records of both GPUs; docs/PERF.md
  // forty-second session), the same tile with one more stage staged 64 columns at a time was never
  // slower in a single wave, 12 pairs at 24-172 k-blocks, 0-6.8 % faster (H100: 640x4096x1536
  // 128x160 15.0 -> 14.3 us, 250x11008x4096 128x176 45.2 -> 43.6; H200: 160x14336x4096 128x160
  // swap-AB, 128x24576x1536 128x192 even), where the 4-stage tile had been ranked first on equal
  // predictions wherever the HBM share or the 32-k-block floor left it uncharged; over several
  // waves the same trade measured -3.3..+11.8 %.
  {
    const double tma_bytes = static_cast<double>(ks.m_blocks * ks.n_blocks) * static_cast<double>(kb_total) *
                             static_cast<double>(c.bm + c.bn) * line;
    const double in_flight = static_cast<double>(c.stages - 1) * static_cast<double>(c.bm + c.bn) * line;
    const int64_t unit_kb = ceil_div(ks.k_split, c.bk);
    const bool single_wave = !ksplit && s.num_waves == 1;
    const bool fed_from_hbm = (c.pingpong && c.epilogue == Epilogue::smem_stores) || ab.bytes >= d.ring_hbm_share * tma_bytes;
    if (c.bm >= 128 && in_flight < d.ring_bytes && (single_wave ? unit_kb >= 24 : unit_kb >= 32 && fed_from_hbm))
      t.efficiency *= d.ring_shallow_factor;
  }
  t.tc_us = cycles_to_us(cta_kb * kblock_flops / (d.tc_flops_per_cycle_per_sm() * t.efficiency), d);
  // A single wave of fewer tiles than SMs: the idle SMs leave power to the busy ones, which clock
  // higher under the power cap (device_profile.cpp, partial_grid_clock_limit).
  if (!ksplit && s.num_waves == 1 && s.wave_eff < 1.0 && d.partial_grid_clock_limit > 1.0)
    t.tc_us /= std::min(d.partial_grid_clock_limit, std::pow(s.wave_eff, -1.0 / d.partial_grid_power_exponent));

  // Epilogue the math warpgroups spend not issuing wgmma, once per unit: registers -> smem at the
  // SM-local rate (TMA store: the global write drains while the next mainloop runs), or straight
  // to global memory at the direct epilogue's measured store rate; a static launch also drains
  // each CTA's TMA store before it exits.
  // (Staged: every box, the overlapping last one whole: config.hpp, store_boxes; swap-AB's
  // transposed boxes with C end at BN.)
  const int staged_cols = sm90::staged_epilogue(c.epilogue) && !sm90::staged_trans_c(c)
                              ? sm90::whole_stage_cols(c.bn, p.out)
                              : c.bn;
  const double tile_bytes = static_cast<double>(c.bm) * staged_cols * dtype_bytes(p.out);
  // The direct epilogue stores only the elements inside D: a tile wider or taller than the problem
  // (M = 1 decode, swap-AB's narrow N) costs what it stores.
  const double direct_bytes = static_cast<double>(std::min<int64_t>(c.bm, p.m)) *
                              static_cast<double>(std::min<int64_t>(c.bn, p.n)) * dtype_bytes(p.out);
  // smem_stores: the stmatrix into the staging smem, then the threads' own copy of every box to D.
  const double staging_cycles = tile_bytes / (d.local_bytes_per_cycle / d.sm_count);
  // The direct stores' rate is one of 32-B sectors: a warp's store covers runs of 8 elements (4
  // lanes' pairs of a row, or 8 lanes' elements of a column-major D's row), 16 B in bf16 and a whole
  // sector in fp32, so fp32 stores twice the bytes per cycle (direct_store_bytes_per_cycle was
  // measured in bf16). NOTES: measured on the H200 (docs/PERF.md, sixteenth session), swap-AB's
  // column-major fp32 D: 300x14336x4096 128x160 63.0 us (predicted 70.0 at the bf16 rate, 64.6 at
  // this one), 400x4096x11008 128x208 split 2 57.0 (69.6, 62.6).
  const double direct_rate = c.cd_pairs ? d.direct_store_bytes_per_cycle * dtype_bytes(p.out) / 2.0
                                        : d.direct_scalar_store_bytes_per_cycle;
  const double epi_cycles = c.epilogue == Epilogue::direct ? direct_bytes / direct_rate
                            : c.epilogue == Epilogue::smem_stores
                                ? staging_cycles + tile_bytes / d.smem_store_bytes_per_cycle
                                : staging_cycles;
  const double stores = ksplit ? static_cast<double>(work.cta_stores) : static_cast<double>(s.num_waves);
  t.epilogue_us = cycles_to_us(epi_cycles * stores * (c.persistent ? 1 : 2), d);
  t.fixed_us = d.fixed_us;
  // The fix-up of shared tiles: the busiest CTA's partial tiles written and read through L2.
  t.fixup_us = ksplit ? static_cast<double>(work.shared_units) * d.fixup_latency_us +
                                static_cast<double>(work.cta_partials) * static_cast<double>(c.bm) * c.bn * 4.0 /
                                    d.fixup_bytes_per_s_per_sm * 1e6
                          : 0.0;
  // A k-split cluster (Config::cluster_k): slice 0 receives the other slices' partials in its shared
  // memory, one-way; one shared unit per CTA.
  if (ksplit && c.cluster_k > 1)
    t.fixup_us = d.cluster_fixup_latency_us + static_cast<double>(c.cluster_k - 1) * c.bm * c.bn * 4.0 /
                                                  d.cluster_fixup_bytes_per_s_per_sm * 1e6;
  // Stream-K's shared phase read from HBM (sk_hbm_us above): the part of it that neither its tensor
  // work nor the HBM limit already hides. The HBM limit counts every operand byte, the shared
  // phase's share (its iterations over all) included; charging sk_hbm_us beyond only the tensor
  // time counted those bytes twice where the kernel is HBM-bound: measured on the H200
  // (bench/measurements, tune-m1-64), 1x57344x8192 64x16 swap-AB stream-K took 234.0 us (unsplit
  // 231.7), predicted 329.6 with a 73-us fix-up; 64x57344x8192 64x48 stream-K 257.5, predicted 317.1.
  if (sk_hbm_us > 0) {
    const double range_kb = static_cast<double>(ceil_div(work.split.iterations(), int64_t(work.split.workers)));
    const double sk_tc_us = cycles_to_us(range_kb * kblock_flops / (d.tc_flops_per_cycle_per_sm() * t.efficiency), d);
    const double sk_share = static_cast<double>(work.split.iterations()) /
                            (static_cast<double>(work.split.tiles) * static_cast<double>(work.split.k_blocks));
    const double sk_in_hbm_limit_us = sk_share * ab.bytes / d.hbm_bytes_per_s * 1e6;
    t.fixup_us += std::max(0.0, sk_hbm_us - std::max(sk_tc_us, sk_in_hbm_limit_us));
  }

  // A floor per staged tile: however short its K, a tile holds its CTA tile_floor_us plus
  // tile_floor_row_us per row (the consumers' turn-taking, the staging and the store's issue;
  // measured with the TMA store, device_profile.cpp). It binds only where K is a few k-blocks and
  // the tiles are narrow: at K = 64 the model priced 64x64 and 128x64 ping-pong like 128x128
  // (HBM-bound, the same bytes), measured 1.2-1.7x slower. The threads' copy-out of an odd D
  // (smem_stores) takes a tile longer still, so the same floor holds there: measured on the H100
  // (build f77b052, tune), 3999x4001x128 with 64x64 ping-pong 27.9 us against 22.9 for 64x128,
  // 6001x2049x64 20.1 against 16.7 for 128x64, both priced 64x64 first without it.
  if (sm90::staged_epilogue(c.epilogue) && d.tile_floor_us > 0)
    t.tiles_us = stores * (d.tile_floor_us + d.tile_floor_row_us * c.bm);

  struct Term { const char* name; double us; };
  const Term terms[] = {{"l2", t.l2_us}, {"local", t.local_us}, {"hbm", t.hbm_us}, {"tensor", t.tc_us},
                        {"tiles", t.tiles_us}};
  const double short_p = short_k_norm_p(p.k, c.bk, d);
  // (Without a short K the tiles' floor is not one of the norm's terms: below.)
  const int n_terms = short_p > 0 ? 5 : 4;
  const Term* worst = &terms[0];
  for (int i = 0; i < n_terms; ++i)
    if (terms[i].us > worst->us) worst = &terms[i];
  t.bound = worst->name;
  // The limits overlap, but not perfectly: near two of them at once a kernel runs slower than either
  // alone (an SM whose TMA feed runs near its per-SM rate cannot keep enough loads in flight once
  // HBM's latency rises near saturation). So they combine as their p-norm (p = limit_norm_p,
  // device_profile.cpp): the largest when the others are well below it, up to 2^(1/p) times it
  // when two are equal. A limit under 3/4 of the largest adds nothing: at p = 16 it would add under
  // 0.06 %, too little to mean anything but enough to break exact ties (e.g. two tile orders whose
  // HBM terms differ far below the tensor term) that the planner's stated tie-break should decide.
  // A short K (a few k-blocks per tile, short_k_norm_p): a tile's loads, math and store barely
  // overlap, so every limit adds, the tiles' floor among them, at a lower p and without the floor.
  const double norm_p = short_p > 0 ? short_p : d.limit_norm_p;
  constexpr double kNormFloor = 0.75;
  const double norm_floor = short_p > 0 ? 0.0 : kNormFloor;
  double norm = 0;
  if (worst->us > 0) {
    for (int i = 0; i < n_terms; ++i)
      if (terms[i].us >= norm_floor * worst->us) norm += std::pow(terms[i].us / worst->us, norm_p);
    norm = worst->us * std::pow(norm, 1.0 / norm_p);
  }
  t.limits_us = norm;
  t.norm_p = norm_p;
  t.short_k = short_p > 0;
  // Otherwise the floor is a floor: it binds where it is above the norm.
  if (short_p == 0 && t.tiles_us > t.limits_us) {
    t.limits_us = t.tiles_us;
    t.bound = "tiles";
  }
  // C's read (accumulating; a k-split's partials are written without it, piece 0 stores with it):
  // not hidden by the mainloop as the HBM term assumes. NOTES: measured on the H200 (docs/PERF.md,
  // nineteenth session), the same configs with and without C: a staged tile's C cost about 1 us
  // whatever its mainloop (at 128x32768x512, 64x64 ping-pong tiles, 8 per CTA, took 28.0 us with C
  // and 16.4 without); a tile whose slots hold fewer boxes than it has reloads the rest after the
  // stores (8192^3 fp32 128x224 stage32: 106 us of C against 6.3 for ping-pong 128x176 stage64,
  // whose reloads mostly run while the other consumer computes -- not everywhere: at
  // 4096x24576x1536 fp32 both paid ~90 us); one slot per consumer serializes the reloads. The
  // reloads are part of a tile's epilogue: the cooperative kernel pays them, a ping-pong
  // consumer's run while the other consumer's mainloop does (below).
  double c_reload_us = 0;  // per stored tile
  if (p.accumulate && stores >= 1) {
    double per_tile = d.c_tile_us;
    if (c.epilogue == Epilogue::smem_stores) {
      // C by the threads (cp.async, or in k-split kernels their loads as they store): per 64 x 64
      // elements of the boxes a consumer loads and combines (an fp32 box is 32 columns wide), its
      // reloads included. A ping-pong consumer's tile is row_blocks() 64-row blocks, and the two
      // consumers' epilogues run side by side. At least the staged tiles' c_tile_us: a tile of a
      // few columns still pays a tile's worth (measured: 4001x3999x256 fp32 with C, 64x32
      // ping-pong 157.9 us against 69.6 for 128x128 ping-pong, docs/PERF.md twenty-second session).
      const int box_cols = sm90::store_box_cols(p.out);
      per_tile = std::max(d.c_tile_us, static_cast<double>(sm90::store_boxes(c.bn, p.out) * box_cols) / 64.0 *
                                           c.row_blocks() * d.c_thread_box_us / (c.pingpong ? 2.0 : 1.0));
    } else if (sm90::staged_epilogue(c.epilogue)) {
      // A cooperative consumer of two 64-row blocks (BM = 256) loads the second block's C into its
      // slots only as the first block stores its last boxes (epilogue.cuh, c_rows_follow), so most
      // of that load's round trip is exposed once more per tile; a ping-pong consumer's next block
      // loads while the other consumer computes. NOTES: measured on the H100 (docs/PERF.md,
      // forty-eighth session; records h100-2026-12-07-tune-big-c, -map-c): with C minus without, per
      // stored tile, at 4096^2x8192 ... 8192^3, 256x128 and 256x112 cooperative 1.9-3.0 us, 128-row cooperative tiles whose
      // slots hold all of C 1.2-1.6, ping-pong 0.5-0.9. The picks this moved, measured against the
      // charge of one round trip (forty-ninth session): 18 with bf16 C 1.9 % faster in geomean
      // (4096x32768x512 300.1 -> 263.6 us, 8192x8960x1536 337.8 -> 309.3; 12288x1024x128 23.7 ->
      // 25.8 the worst), 17 with fp32 C even. c_rows_follow (fifty-first session) took 0.2-0.4 us
      // per tile off forced 256x128 tiles (1.4 at 6144^3) and moved none of those picks back
      // (4096x32768x512 289 us against ping-pong's 258), so the charge stays twice.
      per_tile = d.c_tile_us * (c.pingpong ? 1 : c.row_blocks());
      const int box_cols = sm90::store_box_cols(p.out);
      const int boxes = sm90::store_boxes(c.bn, p.out);
      const int slots = std::max(1, c.stage_cols / box_cols);
      if (boxes > slots) {
        const double reload_bytes = static_cast<double>(boxes - slots) * box_cols * c.bm * dtype_bytes(p.out);
        c_reload_us = reload_bytes / d.c_reload_bytes_per_s_per_sm * 1e6 +
                      (slots == 1 ? (boxes - 1) * d.c_slot_round_us : 0.0);
      }
    } else {
      // Direct: each thread loads its C elements from global memory; per row of C a consumer reads
      // inside D. A column-major tile (swap-AB) is charged per tile only: measured at M = 1 ... 8
      // (one to eight columns), not where it has more; the sixteenth session's picks stand there.
      const int64_t c_rows = c.d_col_major ? 0 : std::min<int64_t>(64, p.m);
      per_tile = d.c_tile_direct_us + static_cast<double>(c_rows) * d.c_direct_line_us;
    }
    t.c_us = stores * (per_tile + (c.pingpong ? 0.0 : c_reload_us));
  }
  // A cooperative tile of one consumer (BM = 64) whose D the threads copy out (smem_stores), one
  // k-block per tile (below): while its warpgroup copies a tile out, the producer loads the next
  // tile's k-block into the freed ring, so of each epilogue but the last only what the next tile's
  // memory time cannot cover is exposed; the consumer's own work (its wgmma and every copy-out,
  // one after the other) stays a floor. NOTES: measured on the H100 (bench/measurements,
  // the odd and small-K tune records of the thirty-third to thirty-fifth sessions; docs/PERF.md
  // forty-fourth session): at K = 64-256 with an odd D, 64-row cooperative tiles ran 5-27 % below
  // the serial sum (6001x2049x64 64x192 16.0 / 16.5 us against 22.0 predicted, its ping-pong 18.9 /
  // 19.6 against 18.6; 3999x4001x128 64x256 22.8 / 23.3 against 27.7), while 128-row cooperative
  // tiles (two warpgroups copying out at once) ran from 10 % below the serial sum to 5 % above it
  // (6001x2049x64 128x192 19.7 / 20.1 against 22.0; 3001x7001x96 128x128 35.6 against 33.9), so
  // the overlap is charged to one consumer only. Why two consumers do not show it is not
  // established (their copy-outs may compete for the SM's store path). Charged to every
  // cooperative tile, the overlap put the H100 records' regret geomean from 1.65 % to 3.5 % (the
  // TMA store's short epilogue has little to hide, and it ranked 128x256 ahead of the ping-pong
  // tiles that measured faster at K = 64-256); to every cooperative tile with smem_stores, 1.8 %
  // (128-row tiles picked at 3999x4001x128 and 3001x7001x96, 17-22 % behind); to one consumer,
  // 1.33 %: five picks moved, three 1.5-16 % faster, two 0.5 % slower.
  // Measured since on the H100 (docs/PERF.md, forty-sixth session: the rule's picks against the
  // ping-pong tiles it displaced, one process): with one k-block per tile it held (6001x2049x64,
  // 5001x3001x64, 8191x1999x64: 64x192 cooperative 4-15 % faster than 64x128 / 64x192 ping-pong);
  // with two it did not (7001x2501x128 and 2999x6001x96: 64x128 cooperative 17-18 % slower than
  // the same tile ping-pong; 3999x4001x128: 64x256 2 % slower than 64x128 ping-pong). So it is
  // charged to units of one k-block only, whose next tile the freed ring takes whole.
  if (c.bm == 64 && c.epilogue == Epilogue::smem_stores && !c.pingpong && c.persistent && !ksplit && stores > 1 &&
      ceil_div(ks.k_split, c.bk) == 1) {
    const double epi = cycles_to_us(epi_cycles, d), mem = t.limits_us / stores;  // per tile
    const double exposed = std::max(0.0, epi - mem);
    t.epilogue_us = std::max(epi + (stores - 1) * exposed, t.tc_us + stores * epi - t.limits_us);
  }
  // Ping-pong: a consumer's epilogue runs while the other consumer's mainloop runs. Each consumer
  // takes a tile's mainloop (ml) and its epilogue (epi) in turn, two consumers in flight, so a
  // tile costs max(ml, (ml + epi) / 2): only the last tile's epilogue, and the part of the others'
  // that one mainloop cannot cover (short K), are exposed.
  // A ping-pong tile's epilogue is done by one warpgroup instead of two: twice as long (the
  // stores and the staging go at a rate per warp: docs/PERF.md, the copy warps), plus
  // its C reloads.
  if (c.pingpong && stores >= 1) {
    const double epi_us = 2.0 * cycles_to_us(epi_cycles, d) + c_reload_us;
    const double ml_us = t.limits_us / stores;
    t.epilogue_us = epi_us + (stores - 1) * std::max(0.0, (epi_us - ml_us) / 2.0);
  }
  // A 2-CTA cluster runs its two rings in lock-step: measured slower in every regime tried
  // (device_profile.cpp, cluster_factor), so its whole kernel time is divided by the factor; with
  // one consumer (64-row tiles) by a larger one, larger still when A is the multicast operand.
  const double cluster_factor = !cluster         ? 1.0
                                : c.bm >= 128    ? d.cluster_factor
                                : c.cluster_n > 1 ? d.one_consumer_cluster_factor_1x2
                                                  : d.one_consumer_cluster_factor_2x1;
  t.predicted_us = (t.limits_us + t.epilogue_us + t.c_us + t.fixed_us + t.fixup_us) / cluster_factor;
  t.tflops = 2.0 * static_cast<double>(p.m) * p.n * p.k / (t.predicted_us * 1e-6) / 1e12;
  return t;
}

}  // namespace tilegemm::plan
