// Stream-K and split-K over the tile order: which k-blocks of which tiles each CTA computes, and
// which CTAs share a tile (host and device; the kernel's scheduler hook, the planner and the CPU
// tests all use these functions).
//
// The tiles are numbered in mapping order (slots, tile_mapping.hpp), each K / BK k-blocks deep.
//   slots [0, dp_tiles)        data-parallel: whole tiles, CTA p takes slots p, p + P, ...
//   slots [dp_tiles, tiles)    their k-blocks laid end to end, I = (tiles - dp_tiles) · KB
//                              "iterations", cut into `workers` contiguous ranges
//                              [floor(w·I/W), floor((w+1)·I/W)); CTA p takes workers p, p + P, ...
// A worker's range may start and end inside tiles, so a tile is shared by the consecutive workers
// first(t) .. last(t) (its "pieces", piece 0 holding the tile's lowest k-blocks). Every piece but
// piece 0 writes its fp32 partial tile to the workspace; piece 0 sums all of them in piece order
// (fixed, so the result is the same bits on every run) and stores the tile (sm90/gemm/fixup.cuh).
//   split-K (S slices per tile): dp_tiles = 0, workers = tiles · S — worker t·S + s is slice s of
//   tile t, k-blocks [floor(s·KB/S), floor((s+1)·KB/S)).
//   stream-K (P CTAs): whole waves stay data-parallel and the last one or two waves' worth of tiles
//   (P + tiles % P of them, or all when tiles < P) is shared evenly by the P CTAs, so no CTA idles
//   through a partial last wave (Osama et al., "Stream-K: Work-centric Parallel Decomposition for
//   Dense Matrix-Matrix Multiplication on the GPU", PPoPP 2023, the "DP + SK" hybrid).
// Rule: workers <= I, so that every worker has at least one k-block (a worker with none would be
// counted as a piece of some tile and never arrive).
// Runs (group E > 1, stream-K only): where the mapping lays the shared slots out in runs of E
// consecutive tiles that read the same rows of one operand (sched::stream_k_run: the m-blocks of
// one n-block under grouped_m when they all fit in one strip, and the mirror image), the runs are
// the unit: their k-blocks (I / E "run iterations") are cut into W / E ranges, and range r is
// walked by the E workers r·E + j, worker r·E + j taking member j of every run its range touches.
// The E members of a run then read the shared operand's k-slices side by side, as they do in a
// data-parallel wave, instead of at E different times (the L2 loses them in between); a tile's
// pieces are the workers first(t) + i·E.

#pragma once

#include "core/host_device.hpp"
#include "core/int_types.hpp"

namespace tilegemm::sched {

struct KSplit {
  int tiles = 0;     // T: slots in mapping order
  int k_blocks = 0;  // KB: k-blocks of one tile
  int dp_tiles = 0;  // D: slots [0, D) are computed whole
  int workers = 0;   // W: ranges of the iterations of slots [D, T); 0 = none (everything whole)
  int group = 1;     // E: run length (stream-K over runs, above); 1 = every worker its own range

  // All the k-blocks the workers share (every member of every run).
  TG_HD constexpr int64_t iterations() const { return int64_t(tiles - dp_tiles) * k_blocks; }
  // Ranges R = W / E and the run iterations they cut, I / E (E = 1: the workers and I).
  TG_HD constexpr int ranges() const { return workers / group; }
  TG_HD constexpr int64_t run_iterations() const { return iterations() / group; }
  // First run iteration of range r (r = R gives the end of the last range).
  TG_HD constexpr int64_t range_begin(int r) const { return int64_t(r) * run_iterations() / ranges(); }
  // First run iteration of worker w's range, and one past its last.
  TG_HD constexpr int64_t begin(int w) const { return range_begin(w / group); }
  TG_HD constexpr int64_t end(int w) const { return range_begin(w / group + 1); }
  // The range holding run iteration i: the largest r with range_begin(r) <= i, that is
  // r·I' < (i + 1)·R.
  TG_HD constexpr int owner(int64_t i) const {
    return int(((i + 1) * ranges() + run_iterations() - 1) / run_iterations()) - 1;
  }
  // Stream-K slot `slot` (>= dp_tiles): its run, its member index, and its first run iteration.
  TG_HD constexpr int member(int slot) const { return (slot - dp_tiles) % group; }
  TG_HD constexpr int64_t run_begin(int slot) const { return int64_t((slot - dp_tiles) / group) * k_blocks; }
  // The workers sharing stream-K slot `slot`: first, first + E, ..., last (its pieces in k order).
  TG_HD constexpr int first_worker(int slot) const { return owner(run_begin(slot)) * group + member(slot); }
  TG_HD constexpr int last_worker(int slot) const {
    return owner(run_begin(slot) + k_blocks - 1) * group + member(slot);
  }
  TG_HD constexpr int pieces(int slot) const { return (last_worker(slot) - first_worker(slot)) / group + 1; }
  // The worker of piece i of a tile whose piece 0 is worker `first`.
  TG_HD constexpr int piece_worker(int first, int i) const { return first + i * group; }
  // The slots worker w starts and ends in.
  TG_HD constexpr int first_slot(int w) const { return dp_tiles + int(begin(w) / k_blocks) * group + w % group; }
  TG_HD constexpr int last_slot(int w) const { return dp_tiles + int((end(w) - 1) / k_blocks) * group + w % group; }
  // Where the partial of a piece other than 0 goes: slot w of the workspace for worker w. Only such
  // pieces write one, and each is its worker's first unit (its range starts inside that tile; the
  // k-blocks before them are the earlier pieces'), so a worker writes at most one.
  TG_HD constexpr int partial_index(int w) const { return w; }
  // The worker behind walk index i of a `ctas`-CTA launch (CTA c walks i = c, c + ctas, ...). A
  // split in one wave (no data-parallel tiles, every tile in S = W / T equal slices, a CTA per
  // worker, so i = c) runs slice-major: CTAs 0 .. T-1 take slice 0 of the tiles in mapping order, T .. 2T-1 slice 1,
  // and so on, so that the tiles that read the same operand rows (the mapping's neighbours) run on
  // neighbouring CTAs as they do unsplit. NOTES: measured on the H200 (docs/PERF.md, 2026-12-03
  // fifteenth session), tiles streaming the same weight rows ran 13-48 % slower when 8 CTAs apart
  // than side by side; worker-major, the slices of one tile are neighbours and such tiles S apart.
  // Otherwise (stream-K, several workers per CTA, a k-split cluster) worker = i (with runs, the
  // members of a range are neighbouring workers already).
  TG_HD constexpr int worker_of(int i, int ctas, bool slice_major = true) const {
    const int shared = shared_tiles();
    if (!slice_major || group != 1 || dp_tiles != 0 || shared <= 0 || workers % shared != 0 || ctas < workers ||
        i >= workers)
      return i;
    const int slices = workers / shared;
    return (i % shared) * slices + i / shared;
  }
  // Tiles that workers share (each has one fix-up counter per consumer): 0 when there are none.
  TG_HD constexpr int shared_tiles() const { return workers > 0 ? tiles - dp_tiles : 0; }
  // CTAs of the persistent launch on a device with `resident` resident CTAs: the data-parallel
  // tiles and the workers both walk them.
  TG_HD constexpr int launch_ctas(int resident) const {
    const int want = workers > dp_tiles ? workers : dp_tiles;
    return want < resident ? want : resident;
  }
  TG_HD constexpr bool valid() const {
    if (tiles < 0 || k_blocks < 1 || dp_tiles < 0 || dp_tiles > tiles || workers < 0 || group < 1) return false;
    if (workers == 0) return true;
    return dp_tiles < tiles && workers % group == 0 && (tiles - dp_tiles) % group == 0 &&
           int64_t(ranges()) <= run_iterations();
  }
};

// What the busiest CTA of a `ctas`-CTA launch walks (at most): k-blocks, and units (whole tiles and
// pieces of tiles; a worker's range touches at most range / KB + 1 tiles).
struct CtaShare {
  int64_t k_blocks = 0;
  int64_t units = 0;
};
TG_HD constexpr CtaShare busiest_cta(const KSplit& s, int64_t ctas) {
  const auto up = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  if (s.workers == 0) {
    const int64_t tiles = up(s.tiles, ctas);
    return CtaShare{tiles * s.k_blocks, tiles};
  }
  const int64_t dp = up(s.dp_tiles, ctas), workers = up(s.workers, ctas);
  const int64_t range = up(s.run_iterations(), s.ranges());  // the longest range (k-blocks of one worker)
  return CtaShare{dp * s.k_blocks + workers * range, dp + workers * (up(range, s.k_blocks) + 1)};
}

// Split-K: every tile cut into `splits` slices (at most one per k-block; one slice: every tile whole).
TG_HD constexpr KSplit split_k_decomposition(int tiles, int k_blocks, int splits) {
  const int s = splits < k_blocks ? splits : k_blocks;
  return s > 1 ? KSplit{tiles, k_blocks, 0, tiles * s} : KSplit{tiles, k_blocks, tiles, 0};
}

// Stream-K for a persistent grid of `ctas`: tiles in whole waves stay data-parallel except the last
// whole wave, which joins the partial one (so each CTA's share is between one and two tiles' worth
// of k-blocks and no tile is cut into many pieces); with fewer tiles than CTAs all of them are
// shared. Workers: one per CTA, fewer when that would leave a worker under `min_iters` k-blocks.
// A tile count that is a multiple of the grid needs no sharing (workers = 0).
// With runs of `group` tiles (E > 1; the tiles a multiple of E, else E = 1), the grid is taken as
// the largest multiple of E that fits (so the data-parallel tiles end on a run boundary, and the
// ranges are W / E), and the decomposition is that of the runs.
TG_HD constexpr KSplit stream_k_decomposition(int tiles, int k_blocks, int ctas, int min_iters, int group = 1) {
  KSplit s{tiles, k_blocks, tiles, 0};
  const int e = group > 1 && tiles % group == 0 && ctas >= 2 * group ? group : 1;
  const int grid = ctas / e * e;
  if (grid < 1 || tiles % grid == 0) return s;
  const int full = tiles / grid;
  s.dp_tiles = full >= 1 ? (full - 1) * grid : 0;
  s.group = e;
  const int64_t run_iters = s.run_iterations();
  const int64_t cap = run_iters / (min_iters > 1 ? min_iters : 1);
  const int64_t r = cap < grid / e ? cap : grid / e;
  if (r <= 1) {  // too little to share: every tile whole
    s.dp_tiles = tiles;
    s.group = 1;
    return s;
  }
  s.workers = int(r) * e;
  return s;
}

}  // namespace tilegemm::sched
