// The A/B working set of each wave of concurrent CTAs, and an estimate of how much of A and B is
// read from HBM more than once for a given L2 size (host only). Seed 1's view: "Unique A bands 4,
// Unique B bands 2, A+B logical working set 6 MiB".
//
// Terms. A row-band is A[m_block * BLOCK_M : +BLOCK_M, 0:K]: every tile of row m_block reads all of
// it. A B column-band is B[n_block * BLOCK_N : +BLOCK_N, 0:K]. Edge bands hold only the rows that
// exist (TMA fills the rest with zeros without reading memory).
//
// Waves. With P CTAs resident at once, wave w is slots [w*P, (w+1)*P) (tile_mapping.hpp): the
// persistent kernel's iteration w, or the w-th batch of blocks of a static launch. The model treats
// both the same; it ignores the drift between CTAs that makes real waves overlap.
//
// L2 model (estimate_hbm). The CTAs of a wave are assumed to walk K in lockstep, k-slice by k-slice
// (k_slice elements, BLOCK_K by default). At each k-slice the wave reads that slice of each of its
// unique bands once from L2 (CTAs sharing a band share the read). L2 is an LRU cache of these
// band-slices with capacity l2_bytes. A slice not in the cache is read from HBM. So reuse inside a
// wave is always caught; reuse across waves only when the bands streamed in between fit in L2 —
// about one wave's working set for neighbouring waves. Not modelled: C/D traffic (it also evicts),
// the two L2 halves of H100/H200 (a line may live in both: pass a smaller effective l2_bytes to
// model that), prefetch, and the hardware's non-LRU replacement.
#pragma once

#include <cstdint>
#include <vector>

#include "schedule/tile_mapping.hpp"

namespace tilegemm::sched {

struct GemmExtent {
  int64_t m = 0, n = 0, k = 0;
  int block_m = 128, block_n = 128;
  int element_bytes = 2;  // BF16
  TileGrid grid() const {
    return TileGrid{static_cast<int>((m + block_m - 1) / block_m),
                    static_cast<int>((n + block_n - 1) / block_n)};
  }
  int64_t a_band_bytes(int m_block) const;  // rows that exist * K * element_bytes
  int64_t b_band_bytes(int n_block) const;
};

struct WaveStats {
  int wave = 0;
  int first_slot = 0;      // slots [first_slot, first_slot + num_ctas)
  int num_tiles = 0;       // CTAs of the wave that have a tile
  int unique_a_bands = 0;  // distinct m_block among the wave's tiles
  int unique_b_bands = 0;  // distinct n_block
  int64_t a_bytes = 0;     // bytes of those A bands
  int64_t b_bytes = 0;
  int64_t hbm_bytes = 0;     // estimated HBM reads of A and B during the wave (estimate_hbm)
  int64_t reread_bytes = 0;  // the part of hbm_bytes for bands some earlier wave had read already
  // How far apart the CTAs that read the same band run: the mean slot distance between consecutive
  // readers of one band within the wave (1 = side by side), over every band read by two or more
  // tiles; 0 when no band of that operand is shared in the wave. NOTES: not an L2-model term, a
  // launch-order one: measured on the H200 (docs/PERF.md, 2026-12-03 fifteenth session), weight-
  // streaming tiles whose shared band was read 8 slots apart ran 13-48 % slower than side by side
  // (the same bytes, the same L2 model), so the planner keeps such readers adjacent.
  double a_sharer_gap = 0.0;
  double b_sharer_gap = 0.0;
  int64_t working_set_bytes() const { return a_bytes + b_bytes; }
};

struct WorkingSetOptions {
  int num_ctas = 132;                     // P: CTAs resident at once (SMs x CTAs per SM)
  int64_t l2_bytes = int64_t{60} << 20;   // H200: 60 MiB (H100: 50 MiB)
  int k_slice = 64;                       // elements per lockstep step (BLOCK_K for BF16)
  bool estimate_hbm = true;               // run the L2 model (false: hbm/reread fields stay 0)
};

struct WorkingSetReport {
  std::vector<WaveStats> waves;
  int num_ctas = 0;
  int k_slice = 0;               // the slice the L2 model used (coarsened on huge problems)
  int64_t cta_read_bytes = 0;    // L2 -> SM: every tile reads its A band and its B band
  int64_t touched_bytes = 0;     // sum over waves of the wave working set
  int64_t compulsory_bytes = 0;  // A and B read once: (M + N) * K * element_bytes
  int64_t hbm_bytes = 0;         // estimated HBM reads of A and B
  int64_t reread_bytes = 0;      // hbm_bytes - first reads
  double reread_factor() const {  // HBM reads / compulsory reads (1 = each byte read once)
    return compulsory_bytes > 0 ? static_cast<double>(hbm_bytes) / compulsory_bytes : 0.0;
  }
};

// The sharers' gaps of wave `wave` alone (WaveStats::a_sharer_gap, b_sharer_gap), in O(P log P)
// for the wave's P slots whatever the grid's size (the planner's explain notes call it per candidate).
struct SharerGaps {
  double a = 0.0, b = 0.0;
};
SharerGaps wave_sharer_gaps(const Schedule& s, int num_ctas, int wave);

// Unique bands and bytes of wave `wave` only (no L2 model).
WaveStats wave_working_set(const Schedule& s, const GemmExtent& e, int num_ctas, int wave);

// Every wave, the totals and, if options.estimate_hbm, the L2 model.
// Precondition: s.grid == e.grid(), options.num_ctas >= 1.
WorkingSetReport analyze_working_set(const Schedule& s, const GemmExtent& e,
                                     const WorkingSetOptions& options);

}  // namespace tilegemm::sched
