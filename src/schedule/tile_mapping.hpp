// CTA <-> output tile (seed 1, "CTA ↔ output tile"), in two separate steps:
//   1. the mapping F(i) -> (m_block, n_block): which C tile is the i-th task;
//   2. the assignment: which CTA takes which task i. Static: CTA i takes i. Persistent: CTA p of P
//      takes i = p + iter * P, iter = 0, 1, ... Persistence is not another mapping.
// With 2-CTA clusters the mapping walks pairs of tiles instead of tiles (see "Clusters" below).
//
// One header for the kernels (nvcc and NVRTC) and the host (planner, `tilegemm map`, CPU tests):
// no standard-library includes, no allocation, no exceptions, plain ints. Cost per call: O(1) for
// every mapping except Morton and Hilbert, which descend a quadtree: log2(side) levels, side = the
// smaller grid dimension rounded up to a power of two, at most 4 quadrant tests per level (for a
// 64 x 64 grid: 6 levels, about 100 integer ops). Callers must pass a valid Mapping (is_valid) and
// 0 <= i < num_tiles; the host checks both before launching.
#pragma once

#include "core/host_device.hpp"
#include "core/math.hpp"
#include "schedule/mapping.hpp"

namespace tilegemm::sched {

struct TileCoord {
  int m_block = 0;
  int n_block = 0;
};
TG_HD constexpr bool operator==(TileCoord x, TileCoord y) {
  return x.m_block == y.m_block && x.n_block == y.n_block;
}

// The C tile grid: ceil(M / BLOCK_M) x ceil(N / BLOCK_N) tiles; the last row/column may be partial.
struct TileGrid {
  int num_m_blocks = 0;
  int num_n_blocks = 0;
  TG_HD constexpr int num_tiles() const { return num_m_blocks * num_n_blocks; }
  TG_HD constexpr bool contains(TileCoord t) const {
    return t.m_block >= 0 && t.m_block < num_m_blocks && t.n_block >= 0 && t.n_block < num_n_blocks;
  }
};

using ::tilegemm::ceil_div;  // core/math.hpp
TG_HD constexpr int min_int(int a, int b) { return a < b ? a : b; }
TG_HD constexpr int max_int(int a, int b) { return a > b ? a : b; }

TG_HD constexpr TileGrid make_tile_grid(int m, int n, int block_m, int block_n) {
  return TileGrid{ceil_div(m, block_m), ceil_div(n, block_n)};
}

TG_HD constexpr bool is_valid(const Mapping& mapping) {
  switch (mapping.kind) {
    case MappingKind::grouped_m:
    case MappingKind::grouped_n: return mapping.group >= 1;
    case MappingKind::box: return mapping.box_m >= 1 && mapping.box_n >= 1;
    case MappingKind::linear_n:
    case MappingKind::linear_m:
    case MappingKind::morton:
    case MappingKind::hilbert: return true;
  }
  return false;
}

// ---- 1. The mappings F(i) ---------------------------------------------------------------------

TG_HD constexpr TileCoord map_linear_n(TileGrid grid, int i) {  // C00 -> C01 -> ... -> C10
  return TileCoord{i / grid.num_n_blocks, i % grid.num_n_blocks};
}

TG_HD constexpr TileCoord map_linear_m(TileGrid grid, int i) {  // C00 -> C10 -> ... -> C01
  return TileCoord{i % grid.num_m_blocks, i / grid.num_m_blocks};
}

// Strips of `group` m-blocks taken one after another; inside a strip m is fastest, so P
// consecutive tasks touch `group` A bands and about P / group B bands. The last strip holds
// num_m_blocks % group rows when that is not 0 (a partial strip, walked the same way).
TG_HD constexpr TileCoord map_grouped_m(TileGrid grid, int group, int i) {
  const int tiles_per_strip = group * grid.num_n_blocks;  // full strips only precede strip `strip`
  const int strip = i / tiles_per_strip;
  const int first_m = strip * group;
  const int rows = min_int(group, grid.num_m_blocks - first_m);  // < group in the last strip
  const int in_strip = i - strip * tiles_per_strip;
  return TileCoord{first_m + in_strip % rows, in_strip / rows};
}

// The mirror image: strips of `group` n-blocks, n fastest inside a strip.
TG_HD constexpr TileCoord map_grouped_n(TileGrid grid, int group, int i) {
  const int tiles_per_strip = group * grid.num_m_blocks;
  const int strip = i / tiles_per_strip;
  const int first_n = strip * group;
  const int cols = min_int(group, grid.num_n_blocks - first_n);
  const int in_strip = i - strip * tiles_per_strip;
  return TileCoord{in_strip / cols, first_n + in_strip % cols};
}

// Boxes of box_m x box_n tiles: the tasks of one box form a compact rectangle (seed 1: "press the
// active CTAs into a local rectangle, then move the box"). Boxes go n fastest (a row of boxes, then
// the next row of boxes); inside a box n is fastest too. Edge boxes are clipped to the grid and
// walked the same way. box_m x box_n near the wave size P puts one box in each wave;
// box (G x 1) is grouped_m(G) and box (1 x anything) is linear_n.
TG_HD constexpr TileCoord map_box(TileGrid grid, int box_m, int box_n, int i) {
  const int tiles_per_box_row = box_m * grid.num_n_blocks;  // every earlier box row is full height
  const int box_row = i / tiles_per_box_row;
  const int first_m = box_row * box_m;
  const int rows = min_int(box_m, grid.num_m_blocks - first_m);
  const int in_row = i - box_row * tiles_per_box_row;
  const int box_col = in_row / (box_n * rows);  // every earlier box in this row is rows x box_n
  const int first_n = box_col * box_n;
  const int cols = min_int(box_n, grid.num_n_blocks - first_n);
  const int in_box = in_row - box_col * box_n * rows;
  return TileCoord{first_m + in_box / cols, first_n + in_box % cols};
}

namespace detail {

// Position of a sub-square of a space-filling curve: canonical (u, v) in [0, size)^2 maps to
// (a, b) = offset + matrix * (u, v), the matrix being a rotation/reflection (entries -1, 0, 1).
struct SquareFrame {
  int off_a = 0, off_b = 0;
  int aa = 1, ab = 0, ba = 0, bb = 1;
  TG_HD constexpr int a_at(int u, int v) const { return off_a + aa * u + ab * v; }
  TG_HD constexpr int b_at(int u, int v) const { return off_b + ba * u + bb * v; }
};

struct CurveCell {
  int a = 0;
  int b = 0;
};

// Cells of [lo, hi] (inclusive) that fall inside [0, extent).
TG_HD constexpr int overlap(int lo, int hi, int extent) {
  return max_int(0, min_int(hi + 1, extent) - max_int(lo, 0));
}

// The `index`-th cell, in curve order, among the cells of the side x side square (side a power of
// two) that lie in the region [0, extent_a) x [0, extent_b). Cells outside the region are skipped,
// so this is a bijection from [0, extent_a * extent_b) onto the region that keeps the order in which
// the full curve visits them. Descent: at each level count the region cells of the 4 quadrants in
// curve order and enter the one that holds `index`.
//   Morton : quadrants (a,b) = (0,0) (0,1) (1,0) (1,1), b fastest, no rotation.
//   Hilbert: canonical curve from (0,0) to (side-1, 0) along a; quadrants (u,v) = (0,0) transposed,
//            (0,1), (1,1), (1,0) anti-transposed, so each sub-curve ends next to where the next starts.
TG_HD constexpr CurveCell curve_cell(bool hilbert, int side, int extent_a, int extent_b, int index) {
  SquareFrame frame;
  for (int half = side / 2; half >= 1; half /= 2) {
    for (int q = 0; q < 4; ++q) {
      int qu = 0, qv = 0;
      int turn = 0;  // 0: none, 1: transpose, 2: anti-transpose
      if (hilbert) {
        qu = (q >= 2) ? 1 : 0;
        qv = (q == 1 || q == 2) ? 1 : 0;
        turn = (q == 0) ? 1 : (q == 3) ? 2 : 0;
      } else {
        qu = q >> 1;
        qv = q & 1;
      }
      const int u0 = qu * half, v0 = qv * half, u1 = u0 + half - 1, v1 = v0 + half - 1;
      const int a0 = frame.a_at(u0, v0), a1 = frame.a_at(u1, v1);
      const int b0 = frame.b_at(u0, v0), b1 = frame.b_at(u1, v1);
      const int count = overlap(min_int(a0, a1), max_int(a0, a1), extent_a) *
                        overlap(min_int(b0, b1), max_int(b0, b1), extent_b);
      if (index >= count && q < 3) {
        index -= count;
        continue;
      }
      SquareFrame child = frame;
      if (turn == 2) {  // (u, v) -> (half-1-v, half-1-u) inside the quadrant
        child.off_a = frame.a_at(u1, v1);
        child.off_b = frame.b_at(u1, v1);
        child.aa = -frame.ab;
        child.ab = -frame.aa;
        child.ba = -frame.bb;
        child.bb = -frame.ba;
      } else {
        child.off_a = a0;
        child.off_b = b0;
        if (turn == 1) {  // (u, v) -> (v, u)
          child.aa = frame.ab;
          child.ab = frame.aa;
          child.ba = frame.bb;
          child.bb = frame.ba;
        }
      }
      frame = child;
      break;
    }
  }
  return CurveCell{frame.off_a, frame.off_b};
}

TG_HD constexpr int next_pow2(int x) {
  int p = 1;
  while (p < x) p *= 2;
  return p;
}

// Morton and Hilbert on any grid: cut the grid along its longer dimension into squares of
// side = next_pow2(shorter dimension), walk the squares in order along the longer dimension, and
// inside each square take the curve restricted to the grid (curve_cell). On a 2^a x 2^b grid this
// is exactly the bit-interleaved Z-order / the chained Hilbert curve; elsewhere the order among
// the grid's cells is the curve's order, and a step may jump where the curve leaves the grid.
TG_HD constexpr TileCoord map_curve(bool hilbert, TileGrid grid, int i) {
  const bool m_is_short = grid.num_m_blocks <= grid.num_n_blocks;
  const int short_ext = m_is_short ? grid.num_m_blocks : grid.num_n_blocks;
  const int long_ext = m_is_short ? grid.num_n_blocks : grid.num_m_blocks;
  const int side = next_pow2(short_ext);
  const int per_square = short_ext * side;  // every square but the last is full along `long`
  const int square = i / per_square;
  const int long0 = square * side;
  const int long_in_square = min_int(side, long_ext - long0);
  const int j = i - square * per_square;
  if (hilbert) {  // a = long (the direction the curve advances, so squares chain), b = short
    const CurveCell c = curve_cell(true, side, long_in_square, short_ext, j);
    return m_is_short ? TileCoord{c.b, long0 + c.a} : TileCoord{long0 + c.a, c.b};
  }
  // Morton: a = m, b = n inside the square (n is the fast bit).
  const int m_ext = m_is_short ? short_ext : long_in_square;
  const int n_ext = m_is_short ? long_in_square : short_ext;
  const CurveCell c = curve_cell(false, side, m_ext, n_ext, j);
  return m_is_short ? TileCoord{c.a, long0 + c.b} : TileCoord{long0 + c.a, c.b};
}

}  // namespace detail

TG_HD constexpr TileCoord map_morton(TileGrid grid, int i) { return detail::map_curve(false, grid, i); }
TG_HD constexpr TileCoord map_hilbert(TileGrid grid, int i) { return detail::map_curve(true, grid, i); }

// F(i) for 0 <= i < grid.num_tiles(): a bijection onto the grid for every valid mapping.
TG_HD constexpr TileCoord map_tile(const Mapping& mapping, TileGrid grid, int i) {
  switch (mapping.kind) {
    case MappingKind::linear_n: return map_linear_n(grid, i);
    case MappingKind::linear_m: return map_linear_m(grid, i);
    case MappingKind::grouped_m: return map_grouped_m(grid, mapping.group, i);
    case MappingKind::grouped_n: return map_grouped_n(grid, mapping.group, i);
    case MappingKind::box: return map_box(grid, mapping.box_m, mapping.box_n, i);
    case MappingKind::morton: return map_morton(grid, i);
    case MappingKind::hilbert: return map_hilbert(grid, i);
  }
  return map_linear_n(grid, i);
}

// ---- Clusters ---------------------------------------------------------------------------------
// The rule: with 2-CTA clusters the tiles are paired once and for all, independent of the mapping.
//   along_n: tiles (m, 2j) and (m, 2j+1) pair; they share m_block, so A[m,*] is multicast.
//            The CTA of (m, n) has %cluster_ctarank = n % 2.
//   along_m: tiles (2j, n) and (2j+1, n) pair; they share n_block, so B[*,n] is multicast.
//            The CTA of (m, n) has %cluster_ctarank = m % 2.
// The mapping F then walks the grid of pairs (cluster_tile_grid), and the two CTAs of cluster c
// take the two tiles of pair F(c). When the grid is odd along the cluster axis, the last pair of
// every row (along_n) / column (along_m) has one tile only: its rank-1 CTA gets no tile for that
// step and the rank-0 CTA loads without multicast. Both CTAs see the same thing (peer_exists).

TG_HD constexpr int cluster_size(ClusterAxis axis) { return axis == ClusterAxis::none ? 1 : 2; }

TG_HD constexpr TileGrid cluster_tile_grid(TileGrid grid, ClusterAxis axis) {
  if (axis == ClusterAxis::along_n) return TileGrid{grid.num_m_blocks, ceil_div(grid.num_n_blocks, 2)};
  if (axis == ClusterAxis::along_m) return TileGrid{ceil_div(grid.num_m_blocks, 2), grid.num_n_blocks};
  return grid;
}

struct ClusterPeer {
  int rank = 0;          // %cluster_ctarank of the CTA that computes the tile (0 without clusters)
  TileCoord peer;        // the other tile of the pair (the tile itself without clusters)
  bool peer_exists = false;  // peer inside the grid: multicast allowed. Always false without clusters
};

TG_HD constexpr ClusterPeer cluster_peer(TileGrid grid, ClusterAxis axis, TileCoord tile) {
  ClusterPeer p;
  p.peer = tile;
  if (axis == ClusterAxis::along_n) {
    p.rank = tile.n_block & 1;
    p.peer.n_block = tile.n_block ^ 1;
  } else if (axis == ClusterAxis::along_m) {
    p.rank = tile.m_block & 1;
    p.peer.m_block = tile.m_block ^ 1;
  } else {
    return p;
  }
  p.peer_exists = grid.contains(p.peer);
  return p;
}

// ---- 2. Assignment ----------------------------------------------------------------------------
// Work is numbered in slots: slot = pair * cluster_size + rank (without clusters slot == task i).
// Static: CTA blockIdx.x takes slot blockIdx.x; launch num_slots CTAs. Persistent: CTA p of P takes
// slots p + iter * P; P must be a multiple of cluster_size (the cluster launch rule) and then both
// CTAs of a cluster get the same pair at every step and the same iteration count.

struct Schedule {
  TileGrid grid;       // C tiles
  Mapping mapping;     // F, applied to cluster_tile_grid(grid, cluster)
  ClusterAxis cluster = ClusterAxis::none;
};

TG_HD constexpr int num_slots(const Schedule& s) {
  return cluster_size(s.cluster) * cluster_tile_grid(s.grid, s.cluster).num_tiles();
}

// Stream-K's run length (schedule/stream_k.hpp): the consecutive slots, laid end to end, that read
// the same rows of one operand. grouped_m walks each strip m fastest, so the m-blocks of one
// n-block follow each other (they read the same B rows): a run is a strip's height when every
// strip is `group` tall or one strip holds every m-block. grouped_n mirrors it; linear_m is one
// strip of every m-block, linear_n of every n-block. Runs longer than kMaxStreamKRun, other
// mappings, partial last strips and clusters: 1 (no runs).
inline constexpr int kMaxStreamKRun = 16;
TG_HD constexpr int stream_k_run(const Schedule& s) {
  if (s.cluster != ClusterAxis::none) return 1;
  const int m = s.grid.num_m_blocks, n = s.grid.num_n_blocks, g = s.mapping.group;
  int run = 1;
  switch (s.mapping.kind) {
    case MappingKind::grouped_m: run = m <= g ? m : m % g == 0 ? g : 1; break;
    case MappingKind::grouped_n: run = n <= g ? n : n % g == 0 ? g : 1; break;
    case MappingKind::linear_m: run = m; break;
    case MappingKind::linear_n: run = n; break;
    default: break;
  }
  return run >= 1 && run <= kMaxStreamKRun ? run : 1;
}
// Which operand a run's members share: B's rows (the m-blocks of one n-block: grouped_m, linear_m)
// or A's (grouped_n, linear_n).
TG_HD constexpr bool stream_k_run_shares_b(const Mapping& m) {
  return m.kind == MappingKind::grouped_m || m.kind == MappingKind::linear_m;
}

struct TileWork {
  TileCoord tile;          // the C tile to compute; meaningful only when has_tile
  bool has_tile = false;   // false: slot past the end, or the missing half of an edge pair
  int cluster_rank = 0;    // equals the CTA's %cluster_ctarank
  TileCoord peer;          // the other tile of the pair
  bool multicast = false;  // has_tile and the peer tile exists: multicast the shared operand
};

TG_HD constexpr TileWork slot_work(const Schedule& s, int slot) {
  TileWork w;
  if (slot < 0 || slot >= num_slots(s)) return w;
  const int size = cluster_size(s.cluster);
  const int pair_index = slot / size;
  const int rank = slot - pair_index * size;
  const TileCoord pair = map_tile(s.mapping, cluster_tile_grid(s.grid, s.cluster), pair_index);
  w.cluster_rank = rank;
  w.tile = pair;
  w.peer = pair;
  if (s.cluster == ClusterAxis::along_n) {
    w.tile.n_block = 2 * pair.n_block + rank;
    w.peer.n_block = 2 * pair.n_block + (rank ^ 1);
  } else if (s.cluster == ClusterAxis::along_m) {
    w.tile.m_block = 2 * pair.m_block + rank;
    w.peer.m_block = 2 * pair.m_block + (rank ^ 1);
  }
  w.has_tile = s.grid.contains(w.tile);
  w.multicast = size == 2 && w.has_tile && s.grid.contains(w.peer);
  return w;
}

// Static assignment: grid = num_slots(s) CTAs, CTA `cta` (= blockIdx.x) does slot `cta`.
TG_HD constexpr TileWork static_work(const Schedule& s, int cta) { return slot_work(s, cta); }

// Persistent assignment: how many steps CTA `cta` of `num_ctas` runs (0 if it has none).
TG_HD constexpr int persistent_iterations(const Schedule& s, int cta, int num_ctas) {
  const int slots = num_slots(s);
  return cta < slots ? ceil_div(slots - cta, num_ctas) : 0;
}

// The work of CTA `cta` at step `iter`: slot cta + iter * num_ctas ("none" = has_tile false).
//   for (int it = 0; it < persistent_iterations(s, p, P); ++it) {
//     TileWork w = persistent_work(s, p, it, P);
//     if (!w.has_tile) continue;  // edge pair with one tile: the peer works alone this step
//     ...
//   }
TG_HD constexpr TileWork persistent_work(const Schedule& s, int cta, int iter, int num_ctas) {
  return slot_work(s, cta + iter * num_ctas);
}

// Waves: `num_ctas` CTAs run at once, so wave w is slots [w * num_ctas, (w + 1) * num_ctas) for
// both assignments (persistent: iteration w; static: the w-th batch of resident blocks).
TG_HD constexpr int num_waves(const Schedule& s, int num_ctas) { return ceil_div(num_slots(s), num_ctas); }

}  // namespace tilegemm::sched
