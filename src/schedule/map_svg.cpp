// render_svg (declared in map_render.hpp): seed 1's picture of one GEMM's schedule.
//
//                 B [K, N]: one column per n_block, bands of the chosen wave filled
//   A [M, K]      C tiles: color = wave, number = CTA, chosen wave outlined
//   one row per
//   m_block
//
// Every C tile is exactly one <rect class="tile ..."> with data-m/data-n/data-slot/data-cta/
// data-wave attributes, so tools (and the tests) can read the picture back.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "schedule/map_render.hpp"

namespace tilegemm::sched {
namespace {

std::string xml_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

// A light color per wave: hues a golden angle apart, so neighbouring waves differ.
std::string wave_color(int wave) {
  const double h = std::fmod(wave * 137.508, 360.0) / 60.0, s = 0.55, l = 0.80;
  const double c = (1 - std::fabs(2 * l - 1)) * s, x = c * (1 - std::fabs(std::fmod(h, 2.0) - 1));
  double r = 0, g = 0, b = 0;
  switch (static_cast<int>(h)) {
    case 0: r = c, g = x; break;
    case 1: r = x, g = c; break;
    case 2: g = c, b = x; break;
    case 3: g = x, b = c; break;
    case 4: r = x, b = c; break;
    default: r = c, b = x; break;
  }
  const double m = l - c / 2;
  auto byte = [&](double v) { return static_cast<int>(std::lround((v + m) * 255)); };
  return fmt::format("#{:02x}{:02x}{:02x}", byte(r), byte(g), byte(b));
}

double mib(int64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

}  // namespace

std::string render_svg(const MapResult& res) {
  const MapRequest& r = res.request;
  const TileGrid g = res.schedule.grid;
  const int chosen = r.wave;
  const WaveStats& ws = res.report.waves.at(static_cast<size_t>(chosen));

  // Which bands the chosen wave reads, and every tile's slot.
  std::vector<char> a_used(static_cast<size_t>(g.num_m_blocks), 0), b_used(static_cast<size_t>(g.num_n_blocks), 0);
  struct Placed {
    TileWork work;
    int slot;
  };
  std::vector<Placed> tiles;
  tiles.reserve(static_cast<size_t>(g.num_tiles()));
  for (int slot = 0; slot < num_slots(res.schedule); ++slot) {
    const TileWork w = slot_work(res.schedule, slot);
    if (!w.has_tile) continue;
    tiles.push_back({w, slot});
    if (slot / res.resident_ctas == chosen) {
      a_used[static_cast<size_t>(w.tile.m_block)] = 1;
      b_used[static_cast<size_t>(w.tile.n_block)] = 1;
    }
  }
  // The chosen wave last, so its outlines are not painted over by neighbours.
  std::stable_partition(tiles.begin(), tiles.end(),
                        [&](const Placed& p) { return p.slot / res.resident_ctas != chosen; });

  const int cell = std::clamp(720 / std::max(g.num_m_blocks, g.num_n_blocks), 4, 40);
  const int pad = 16, header = 90, band = 48, gap = 8;
  const int x_grid = pad + band + gap, y_grid = header + band + gap;
  const int legend_y = y_grid + g.num_m_blocks * cell + 24;
  const int width = std::max(x_grid + g.num_n_blocks * cell + pad, 840);
  const int height = legend_y + 40;
  const bool show_numbers = cell >= 16;
  const double font = std::min(12.0, cell * 0.42);

  std::string out;
  out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
                     "viewBox=\"0 0 {} {}\" font-family=\"sans-serif\">\n",
                     width, height, width, height);
  out += fmt::format("<rect class=\"background\" x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n",
                     width, height);
  const std::string lines[3] = {
      fmt::format("M x N x K = {} x {} x {}, tile {}x{} ({} x {} tiles), mapping {}, cluster {}", r.m,
                  r.n, r.k, r.tile.block_m, r.tile.block_n, g.num_m_blocks, g.num_n_blocks,
                  mapping_name(r.mapping), cluster_name(r.cluster)),
      r.persistent ? fmt::format("persistent: {} CTAs, CTA p takes slot p + iter*{}; color = wave "
                                 "(iteration), number = CTA",
                                 res.launch_ctas, res.launch_ctas)
                   : fmt::format("static: {} CTAs, {} resident at a time; color = wave, number = CTA",
                                 res.launch_ctas, res.resident_ctas),
      fmt::format("wave {} (outlined): {} tiles, {} unique A bands, {} unique B bands, working set "
                  "{:.2f} MiB ({:.2f} MiB A + {:.2f} MiB B)",
                  chosen, ws.num_tiles, ws.unique_a_bands, ws.unique_b_bands,
                  mib(ws.working_set_bytes()), mib(ws.a_bytes), mib(ws.b_bytes))};
  for (int i = 0; i < 3; ++i)
    out += fmt::format("<text class=\"title\" x=\"{}\" y=\"{}\" font-size=\"13\">{}</text>\n", pad,
                       pad + 14 + 18 * i, xml_escape(lines[i]));
  out += fmt::format("<text class=\"label\" x=\"{}\" y=\"{}\" font-size=\"11\">A [M, K]</text>\n", pad,
                     y_grid - 4);
  out += fmt::format("<text class=\"label\" x=\"{}\" y=\"{}\" font-size=\"11\">B [K, N]</text>\n",
                     x_grid, header - 4);

  // A row-bands (left) and B column-bands (top).
  for (int m = 0; m < g.num_m_blocks; ++m) {
    const bool used = a_used[static_cast<size_t>(m)];
    out += fmt::format("<rect class=\"a-band{}\" data-m=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
                       "fill=\"{}\" stroke=\"#ffffff\" stroke-width=\"0.5\"/>\n",
                       used ? " used" : "", m, pad, y_grid + m * cell, band, cell,
                       used ? "#e07b39" : "#e8e8e8");
    if (cell >= 12)
      out += fmt::format("<text class=\"band-label\" x=\"{}\" y=\"{}\" font-size=\"{:.1f}\">m{}</text>\n",
                         pad + 4, y_grid + m * cell + cell * 0.7, font, m);
  }
  for (int n = 0; n < g.num_n_blocks; ++n) {
    const bool used = b_used[static_cast<size_t>(n)];
    out += fmt::format("<rect class=\"b-band{}\" data-n=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
                       "fill=\"{}\" stroke=\"#ffffff\" stroke-width=\"0.5\"/>\n",
                       used ? " used" : "", n, x_grid + n * cell, header, cell, band,
                       used ? "#3987e0" : "#e8e8e8");
    if (cell >= 24)
      out += fmt::format("<text class=\"band-label\" x=\"{}\" y=\"{}\" font-size=\"{:.1f}\">n{}</text>\n",
                         x_grid + n * cell + 3, header + band - 6, font, n);
  }

  // C tiles.
  for (const Placed& p : tiles) {
    const int wave = p.slot / res.resident_ctas;
    const bool current = wave == chosen;
    const int x = x_grid + p.work.tile.n_block * cell, y = y_grid + p.work.tile.m_block * cell;
    const int cta = res.cta_of_slot(p.slot);
    out += fmt::format("<rect class=\"tile{}\" data-m=\"{}\" data-n=\"{}\" data-slot=\"{}\" data-cta=\"{}\" "
                       "data-wave=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" "
                       "stroke=\"{}\" stroke-width=\"{}\"><title>C[{},{}] slot {} CTA {} wave {}{}</title></rect>\n",
                       current ? " current" : "", p.work.tile.m_block, p.work.tile.n_block, p.slot, cta,
                       wave, x, y, cell, cell, wave_color(wave), current ? "#000000" : "#ffffff",
                       current ? 2 : 0.5, p.work.tile.m_block, p.work.tile.n_block, p.slot, cta, wave,
                       p.work.multicast ? ", multicast" : "");
    if (show_numbers)
      out += fmt::format("<text class=\"cta\" x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"{:.1f}\" "
                         "text-anchor=\"middle\">{}</text>\n",
                         x + cell / 2.0, y + cell / 2.0 + font * 0.35, font, cta);
  }

  // Legend: the first waves' colors.
  const int shown = std::min<int>(static_cast<int>(res.report.waves.size()), 12);
  for (int w = 0; w < shown; ++w) {
    const int x = pad + w * 60;
    out += fmt::format("<rect class=\"legend\" x=\"{}\" y=\"{}\" width=\"14\" height=\"14\" fill=\"{}\"/>\n",
                       x, legend_y, wave_color(w));
    out += fmt::format("<text class=\"legend\" x=\"{}\" y=\"{}\" font-size=\"11\">wave {}</text>\n",
                       x + 18, legend_y + 11, w);
  }
  if (static_cast<int>(res.report.waves.size()) > shown)
    out += fmt::format("<text class=\"legend\" x=\"{}\" y=\"{}\" font-size=\"11\">... {} waves</text>\n",
                       pad + shown * 60, legend_y + 11, res.report.waves.size());
  out += "</svg>\n";
  return out;
}

}  // namespace tilegemm::sched
