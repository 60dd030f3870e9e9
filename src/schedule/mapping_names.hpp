// Text names of mappings, tile shapes and cluster axes, as the CLI and tools write them, with
// parsers whose error message names the option, the value and the rule (host only).
//   mappings: linear-n, linear-m, grouped-m:G, grouped-n:G, box:BMxBN, morton, hilbert
//   tiles:    BLOCK_MxBLOCK_N, e.g. 128x128
//   clusters: none (or 1x1), n (or 1x2: cluster m=1, n=2, multicast A), m (or 2x1, multicast B)
#pragma once

#include <string>
#include <string_view>

#include "schedule/mapping.hpp"

namespace tilegemm::sched {

// A parsed value or, when `error` is not empty, the reason it could not be parsed.
template <typename T>
struct Parsed {
  T value{};
  std::string error;
  bool ok() const { return error.empty(); }
};

struct TileShape {
  int block_m = 128;
  int block_n = 128;
};

Parsed<Mapping> parse_mapping(std::string_view text, std::string_view option = "--mapping");
Parsed<TileShape> parse_tile_shape(std::string_view text, std::string_view option = "--tile");
Parsed<ClusterAxis> parse_cluster_axis(std::string_view text, std::string_view option = "--cluster");

// The inverse of the parsers: parse_mapping(mapping_name(x)).value == x for a valid x.
std::string mapping_name(const Mapping& mapping);
std::string cluster_name(ClusterAxis axis);

}  // namespace tilegemm::sched
