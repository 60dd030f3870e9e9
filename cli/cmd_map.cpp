// `tilegemm map M N K`: the tile-mapping explorer (src/schedule/map_render.hpp, docs/MAPPING.md).
// Which CTA takes which C tile, wave by wave, and the A/B working set of each wave; --json for
// tools, --svg for seed 1's picture. Runs without a GPU.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

#include "commands.hpp"
#include "schedule/map_render.hpp"

namespace tilegemm::cli {

namespace {

struct MapArgs {
  int64_t m = 0, n = 0, k = 0;
  std::string tile = "128x128";
  std::string mapping = "grouped-m:8";
  std::string cluster = "none";
  int sms = 132;
  int ctas_per_sm = 1;
  bool persistent = false;
  int wave = 0;
  double l2_mib = 60.0;
  int elem_bytes = 2;
  bool json = false;
  std::string svg;
};

[[noreturn]] void fail(const std::string& message) { usage_error("map", message); }

void run_map(const MapArgs& a) {
  using namespace tilegemm::sched;
  MapRequest r;
  r.m = a.m;
  r.n = a.n;
  r.k = a.k;
  const Parsed<TileShape> tile = parse_tile_shape(a.tile);
  if (!tile.ok()) fail(tile.error);
  r.tile = tile.value;
  const Parsed<Mapping> mapping = parse_mapping(a.mapping);
  if (!mapping.ok()) fail(mapping.error);
  r.mapping = mapping.value;
  const Parsed<ClusterAxis> cluster = parse_cluster_axis(a.cluster);
  if (!cluster.ok()) fail(cluster.error);
  r.cluster = cluster.value;
  r.sms = a.sms;
  r.ctas_per_sm = a.ctas_per_sm;
  r.persistent = a.persistent;
  r.wave = a.wave;
  r.l2_mib = a.l2_mib;
  r.element_bytes = a.elem_bytes;
  if (const std::string why = check_map_request(r); !why.empty()) fail(why);

  const MapResult result = build_map(r);
  if (!a.svg.empty()) {
    const int64_t tiles = result.schedule.grid.num_tiles();
    if (tiles > kMaxSvgTiles)
      fail("--svg " + a.svg + ": the grid has " + std::to_string(tiles) + " tiles; the SVG draws at most " +
           std::to_string(kMaxSvgTiles) + " (choose a larger --tile, or use --json)");
    std::ofstream file(a.svg, std::ios::binary | std::ios::trunc);
    const std::string svg = render_svg(result);
    file.write(svg.data(), static_cast<std::streamsize>(svg.size()));
    file.close();
    if (!file) fail("--svg " + a.svg + ": cannot write the file (does its folder exist and is it writable?)");
  }
  std::string text;
  if (a.json) {
    text = render_json(result).dump(2) + "\n";
  } else {
    text = render_table(result);
    if (const std::string grid = render_task_grid(result); !grid.empty()) text += "\n" + grid;
    if (!a.svg.empty()) text += "\nSVG (wave " + std::to_string(r.wave) + " highlighted): " + a.svg + "\n";
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
}

}  // namespace

void add_map_command(CLI::App& app) {
  auto args = std::make_shared<MapArgs>();
  auto* cmd = app.add_subcommand(
      "map", "Show which CTA computes which C tile, wave by wave, and the A/B working set of each wave "
             "(unique A row-bands, B column-bands, bytes, estimated HBM re-reads)");
  cmd->add_option("M", args->m, "rows of A and D")->required()->check(whole_int64());
  cmd->add_option("N", args->n, "rows of B, columns of D")->required()->check(whole_int64());
  cmd->add_option("K", args->k, "the reduction dimension")->required()->check(whole_int64());
  cmd->add_option("--tile", args->tile, "BLOCK_MxBLOCK_N")->capture_default_str();
  cmd->add_option("--mapping", args->mapping,
                  "linear-n | linear-m | grouped-m:G | grouped-n:G | box:BMxBN | morton | hilbert")
      ->capture_default_str();
  cmd->add_option("--cluster", args->cluster, "none | n (1x2, multicast A) | m (2x1, multicast B)")
      ->capture_default_str();
  cmd->add_option("--sms", args->sms, "SMs (H200: 132)")->capture_default_str();
  cmd->add_option("--ctas-per-sm", args->ctas_per_sm, "resident CTAs per SM")->capture_default_str();
  cmd->add_flag("--persistent", args->persistent,
                "persistent assignment (CTA p takes p + iter*P) instead of one CTA per tile");
  cmd->add_option("--wave", args->wave, "the wave whose A/B bands the SVG highlights")->capture_default_str();
  cmd->add_option("--l2-mib", args->l2_mib, "L2 size for the re-read estimate, MiB")->capture_default_str();
  cmd->add_option("--elem-bytes", args->elem_bytes, "bytes per A/B element: 1, 2 (BF16) or 4")
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "print JSON instead of the table");
  cmd->add_option("--svg", args->svg, "write the tile grid picture to this SVG file");
  cmd->callback([args] { run_map(*args); });
}

}  // namespace tilegemm::cli
