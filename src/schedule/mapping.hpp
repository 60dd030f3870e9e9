// The names of the CTA <-> output-tile mappings (seed 1, "CTA ↔ output tile"). The math lives in
// tile_mapping.hpp; this header only names them so the planner and the CLI can refer to them.
#pragma once

namespace tilegemm::sched {

enum class MappingKind : int {
  linear_n = 0,   // row-major over tiles: n fastest
  linear_m = 1,   // column-major over tiles: m fastest
  grouped_m = 2,  // strips of `group` m-blocks, n-major inside a strip (Triton GROUP_M)
  grouped_n = 3,  // strips of `group` n-blocks, m-major inside a strip
  box = 4,        // 2-D boxes of box_m x box_n tiles
  morton = 5,     // Z-order (bit interleave)
  hilbert = 6,    // Hilbert curve
};

struct Mapping {
  MappingKind kind = MappingKind::grouped_m;
  int group = 8;   // grouped_m / grouped_n strip width in tiles
  int box_m = 2;   // box: tiles per box along m
  int box_n = 2;   // box: tiles per box along n
};

}  // namespace tilegemm::sched
