// The mapping explorer behind `tilegemm map` (host only): for a GEMM shape, tile, mapping, cluster
// and SM count, which CTA takes which C tile wave by wave and the A/B working set of each wave, as
// a text table, a task grid, JSON and SVG. The CLI only parses options and prints these.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "schedule/mapping_names.hpp"
#include "schedule/tile_mapping.hpp"
#include "schedule/working_set.hpp"

namespace tilegemm::sched {

struct MapRequest {
  int64_t m = 0, n = 0, k = 0;
  TileShape tile;
  Mapping mapping;
  ClusterAxis cluster = ClusterAxis::none;
  int sms = 132;          // resident CTAs = sms * ctas_per_sm
  int ctas_per_sm = 1;
  bool persistent = false;
  int wave = 0;           // the wave whose A/B bands the SVG highlights
  double l2_mib = 60.0;   // L2 capacity for the re-read estimate (H200)
  int element_bytes = 2;  // BF16
};

// Limits that keep the explorer's output readable and its arithmetic in int.
inline constexpr int64_t kMaxMapTiles = int64_t{1} << 22;
inline constexpr int64_t kMaxSvgTiles = int64_t{1} << 16;
inline constexpr int kMaxTaskGridSide = 32;  // render_task_grid prints grids up to 32 x 32

// "" when the request is valid; otherwise one message naming the option, the value and the rule.
std::string check_map_request(const MapRequest& r);

struct MapResult {
  MapRequest request;
  Schedule schedule;
  GemmExtent extent;
  int resident_ctas = 0;  // P: CTAs running at once, the wave size
  int launch_ctas = 0;    // static: num_slots; persistent: min(P, num_slots)
  WorkingSetReport report;
  // The CTA (blockIdx.x) that runs `slot`: static slot, persistent slot % launch_ctas.
  int cta_of_slot(int slot) const { return request.persistent ? slot % launch_ctas : slot; }
};

// Precondition: check_map_request(r).empty().
MapResult build_map(const MapRequest& r);

// The per-wave table: tiles, unique A/B bands, working set, estimated HBM reads; then totals.
std::string render_table(const MapResult& result);
// The task index i (slot) of every tile, one row per m_block; "" for grids over 32 x 32.
std::string render_task_grid(const MapResult& result);
// Everything above plus one entry per tile, for tools.
nlohmann::json render_json(const MapResult& result);
// The C tile grid colored by wave with CTA numbers, A and B bands beside it, the bands of
// request.wave highlighted (map_svg.cpp). Precondition: grid has at most kMaxSvgTiles tiles.
std::string render_svg(const MapResult& result);

}  // namespace tilegemm::sched
