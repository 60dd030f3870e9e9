// The names of the CTA <-> output-tile mappings (seed 1, "CTA ↔ output tile"). The math lives in
// tile_mapping.hpp; this header only names them so the planner and the CLI can refer to them.
// Text names ("grouped-m:8", "box:2x4", ...) are parsed in mapping_names.hpp. docs/MAPPING.md has
// a picture of each.
#pragma once

namespace tilegemm::sched {

enum class MappingKind : int {
  linear_n = 0,   // row-major over tiles: n fastest
  linear_m = 1,   // column-major over tiles: m fastest
  grouped_m = 2,  // strips of `group` m-blocks; inside a strip m fastest (Triton GROUP_SIZE_M)
  grouped_n = 3,  // strips of `group` n-blocks; inside a strip n fastest
  box = 4,        // 2-D boxes of box_m x box_n tiles; boxes n fastest, n fastest inside a box
  morton = 5,     // Z-order (bit interleave, n bit below m bit)
  hilbert = 6,    // Hilbert curve
};

// The one name table of MappingKind: the enumerator's own spelling ("grouped_m"). explain's JSON and
// the JIT's generated source use it as is; the CLI writes it with '-' ("grouped-m:8",
// mapping_names.hpp), and parses that spelling back.
constexpr const char* mapping_kind_id(MappingKind k) {
  switch (k) {
    case MappingKind::linear_n: return "linear_n";
    case MappingKind::linear_m: return "linear_m";
    case MappingKind::grouped_m: return "grouped_m";
    case MappingKind::grouped_n: return "grouped_n";
    case MappingKind::box: return "box";
    case MappingKind::morton: return "morton";
    case MappingKind::hilbert: return "hilbert";
  }
  return "unknown";
}
inline constexpr MappingKind kMappingKinds[] = {MappingKind::linear_n, MappingKind::linear_m, MappingKind::grouped_m,
                                                MappingKind::grouped_n, MappingKind::box,      MappingKind::morton,
                                                MappingKind::hilbert};

struct Mapping {
  MappingKind kind = MappingKind::grouped_m;
  int group = 8;   // grouped_m / grouped_n strip width in tiles
  int box_m = 2;   // box: tiles per box along m
  int box_n = 2;   // box: tiles per box along n
};

// 2-CTA thread-block clusters (cluster dims (2,1,1) at launch; the pairing is a property of the
// tiles, see cluster_peer in tile_mapping.hpp).
enum class ClusterAxis : int {
  none = 0,     // 1 CTA per cluster, no multicast
  along_n = 1,  // cluster (m=1, n=2): the pair shares m_block -> TMA multicast of A
  along_m = 2,  // cluster (m=2, n=1): the pair shares n_block -> TMA multicast of B
};

}  // namespace tilegemm::sched
