#include "schedule/map_render.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace tilegemm::sched {
namespace {

double mib(int64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

Schedule schedule_of(const MapRequest& r) {
  const GemmExtent e{r.m, r.n, r.k, r.tile.block_m, r.tile.block_n, r.element_bytes};
  return Schedule{e.grid(), r.mapping, r.cluster};
}

std::string assignment_line(const MapResult& res) {
  const int p = res.resident_ctas;
  if (res.request.persistent)
    return fmt::format("persistent: {} CTAs, CTA p takes slot p + iter*{} (wave = iter)",
                       res.launch_ctas, res.launch_ctas);
  return fmt::format("static: {} CTAs, CTA i takes slot i, {} resident at a time (wave = i / {})",
                     res.launch_ctas, p, p);
}

}  // namespace

std::string check_map_request(const MapRequest& r) {
  constexpr int64_t kMaxExtent = std::numeric_limits<int32_t>::max();
  const std::pair<const char*, int64_t> extents[] = {{"M", r.m}, {"N", r.n}, {"K", r.k}};
  for (const auto& [name, v] : extents)
    if (v < 1 || v > kMaxExtent)
      return fmt::format("{} = {}: the GEMM extents must be whole numbers from 1 to {}", name, v,
                         kMaxExtent);
  if (r.tile.block_m < 1 || r.tile.block_n < 1 || r.tile.block_m > 4096 || r.tile.block_n > 4096)
    return fmt::format("--tile {}x{}: BLOCK_M and BLOCK_N must be from 1 to 4096", r.tile.block_m,
                       r.tile.block_n);
  if (!is_valid(r.mapping))
    return fmt::format("--mapping {}: group and box sizes must be at least 1", mapping_name(r.mapping));
  const int64_t num_m = (r.m + r.tile.block_m - 1) / r.tile.block_m;
  const int64_t num_n = (r.n + r.tile.block_n - 1) / r.tile.block_n;
  if (num_m * num_n > kMaxMapTiles)
    return fmt::format("--tile {}x{}: M={} N={} gives {} x {} = {} tiles; the explorer handles at "
                       "most {} tiles (choose a larger tile)",
                       r.tile.block_m, r.tile.block_n, r.m, r.n, num_m, num_n, num_m * num_n,
                       kMaxMapTiles);
  if (r.sms < 1 || r.sms > 65536)
    return fmt::format("--sms {}: the SM count must be from 1 to 65536", r.sms);
  if (r.ctas_per_sm < 1 || r.ctas_per_sm > 64)
    return fmt::format("--ctas-per-sm {}: must be from 1 to 64", r.ctas_per_sm);
  const int resident = r.sms * r.ctas_per_sm;
  if (cluster_size(r.cluster) == 2 && resident % 2 != 0)
    return fmt::format("--sms {}: with --cluster {} the resident CTAs (sms x ctas-per-sm = {}) must "
                       "be even, clusters hold 2 CTAs",
                       r.sms, cluster_name(r.cluster), resident);
  if (!(r.l2_mib >= 0.0 && r.l2_mib <= 1e6))
    return fmt::format("--l2-mib {}: the L2 size must be from 0 to 1000000 MiB", r.l2_mib);
  if (r.element_bytes != 1 && r.element_bytes != 2 && r.element_bytes != 4)
    return fmt::format("--elem-bytes {}: must be 1 (FP8), 2 (BF16) or 4 (FP32)", r.element_bytes);
  const int waves = num_waves(schedule_of(r), resident);
  if (r.wave < 0 || r.wave >= waves)
    return fmt::format("--wave {}: this schedule has {} wave{}, so the wave is from 0 to {}", r.wave,
                       waves, waves == 1 ? "" : "s", waves - 1);
  return "";
}

MapResult build_map(const MapRequest& r) {
  MapResult res;
  res.request = r;
  res.schedule = schedule_of(r);
  res.extent = GemmExtent{r.m, r.n, r.k, r.tile.block_m, r.tile.block_n, r.element_bytes};
  res.resident_ctas = r.sms * r.ctas_per_sm;
  const int slots = num_slots(res.schedule);
  res.launch_ctas = r.persistent ? std::min(res.resident_ctas, slots) : slots;
  WorkingSetOptions opt;
  opt.num_ctas = res.resident_ctas;
  opt.l2_bytes = static_cast<int64_t>(std::llround(r.l2_mib * (1 << 20)));
  res.report = analyze_working_set(res.schedule, res.extent, opt);
  return res;
}

std::string render_table(const MapResult& res) {
  const MapRequest& r = res.request;
  const TileGrid g = res.schedule.grid;
  const WorkingSetReport& rep = res.report;
  std::string out;
  out += fmt::format("GEMM M={} N={} K={}, tile {}x{} -> {} x {} = {} tiles, {} B/element\n", r.m,
                     r.n, r.k, r.tile.block_m, r.tile.block_n, g.num_m_blocks, g.num_n_blocks,
                     g.num_tiles(), r.element_bytes);
  out += fmt::format("mapping {}, cluster {}, {}\n", mapping_name(r.mapping), cluster_name(r.cluster),
                     assignment_line(res));
  out += fmt::format("{} waves of {} resident CTAs ({} SMs x {}); L2 model: {:.1f} MiB LRU, k-slice {}\n\n",
                     rep.waves.size(), res.resident_ctas, r.sms, r.ctas_per_sm, r.l2_mib, rep.k_slice);
  out += fmt::format("{:>6} {:>6} {:>8} {:>8} {:>13} {:>13} {:>13} {:>6} {:>6}\n", "wave", "tiles", "A bands",
                     "B bands", "working set", "HBM (est.)", "re-read", "A gap", "B gap");
  // The sharers' gap (WaveStats::a_sharer_gap): "-" when no band of that operand is shared.
  auto gap = [](double g) { return g > 0.0 ? fmt::format("{:.1f}", g) : std::string("-"); };
  auto row = [&](const WaveStats& w) {
    out += fmt::format("{:>6} {:>6} {:>8} {:>8} {:>9.2f} MiB {:>9.2f} MiB {:>9.2f} MiB {:>6} {:>6}\n", w.wave,
                       w.num_tiles, w.unique_a_bands, w.unique_b_bands, mib(w.working_set_bytes()),
                       mib(w.hbm_bytes), mib(w.reread_bytes), gap(w.a_sharer_gap), gap(w.b_sharer_gap));
  };
  const size_t n = rep.waves.size();
  constexpr size_t kHead = 32, kTail = 8;  // long tables keep their ends; --json has every wave
  for (size_t i = 0; i < n; ++i) {
    if (n > kHead + kTail && i == kHead)
      out += fmt::format("{:>6} ({} waves not shown; --json lists all)\n", "...", n - kHead - kTail);
    if (n <= kHead + kTail || i < kHead || i >= n - kTail) row(rep.waves[i]);
  }
  out += fmt::format("{:>6} {:>6} {:>8} {:>8} {:>9.2f} MiB {:>9.2f} MiB {:>9.2f} MiB\n", "total",
                     g.num_tiles(), "", "", mib(rep.touched_bytes), mib(rep.hbm_bytes),
                     mib(rep.reread_bytes));
  out += fmt::format("\nA+B read once: {:.2f} MiB; estimated HBM reads {:.2f} MiB = {:.2f}x; "
                     "L2->SM operand reads {:.2f} MiB\n",
                     mib(rep.compulsory_bytes), mib(rep.hbm_bytes), rep.reread_factor(),
                     mib(rep.cta_read_bytes));
  out += "A gap / B gap: mean slot distance between the CTAs of a wave that read the same A / B band "
         "(1 = side by side; tiles streaming the same rows run best next to each other, docs/PERF.md)\n";
  return out;
}

std::string render_task_grid(const MapResult& res) {
  const TileGrid g = res.schedule.grid;
  if (g.num_m_blocks > kMaxTaskGridSide || g.num_n_blocks > kMaxTaskGridSide) return "";
  std::vector<int> slot_of(static_cast<size_t>(g.num_tiles()), -1);
  for (int slot = 0; slot < num_slots(res.schedule); ++slot) {
    const TileWork w = slot_work(res.schedule, slot);
    if (w.has_tile) slot_of[static_cast<size_t>(w.tile.m_block) * g.num_n_blocks + w.tile.n_block] = slot;
  }
  const int width = static_cast<int>(fmt::formatted_size("{}", std::max(num_slots(res.schedule), 10))) + 2;
  std::string out = fmt::format("slot of each tile ({}):\n", assignment_line(res));
  out += fmt::format("{:>5}", "");
  for (int n = 0; n < g.num_n_blocks; ++n) out += fmt::format("{:>{}}", fmt::format("n{}", n), width);
  out += "\n";
  for (int m = 0; m < g.num_m_blocks; ++m) {
    out += fmt::format("{:>5}", fmt::format("m{}", m));
    for (int n = 0; n < g.num_n_blocks; ++n)
      out += fmt::format("{:>{}}", slot_of[static_cast<size_t>(m) * g.num_n_blocks + n], width);
    out += "\n";
  }
  return out;
}

nlohmann::json render_json(const MapResult& res) {
  using nlohmann::json;
  const MapRequest& r = res.request;
  const TileGrid g = res.schedule.grid;
  const WorkingSetReport& rep = res.report;
  json j;
  j["shape"] = {{"m", r.m}, {"n", r.n}, {"k", r.k}};
  j["tile"] = {{"block_m", r.tile.block_m}, {"block_n", r.tile.block_n}};
  j["element_bytes"] = r.element_bytes;
  j["mapping"] = mapping_name(r.mapping);
  j["cluster"] = cluster_name(r.cluster);
  j["assignment"] = r.persistent ? "persistent" : "static";
  j["grid"] = {{"num_m_blocks", g.num_m_blocks}, {"num_n_blocks", g.num_n_blocks},
               {"num_tiles", g.num_tiles()}};
  j["num_slots"] = num_slots(res.schedule);
  j["resident_ctas"] = res.resident_ctas;
  j["launch_ctas"] = res.launch_ctas;
  j["l2_bytes"] = static_cast<int64_t>(std::llround(r.l2_mib * (1 << 20)));
  j["k_slice"] = rep.k_slice;
  j["highlight_wave"] = r.wave;
  json waves = json::array();
  for (const WaveStats& w : rep.waves)
    waves.push_back({{"wave", w.wave}, {"first_slot", w.first_slot}, {"tiles", w.num_tiles},
                     {"unique_a_bands", w.unique_a_bands}, {"unique_b_bands", w.unique_b_bands},
                     {"a_bytes", w.a_bytes}, {"b_bytes", w.b_bytes},
                     {"working_set_bytes", w.working_set_bytes()}, {"hbm_bytes", w.hbm_bytes},
                     {"reread_bytes", w.reread_bytes}, {"a_sharer_gap", w.a_sharer_gap},
                     {"b_sharer_gap", w.b_sharer_gap}});
  j["waves"] = std::move(waves);
  j["totals"] = {{"touched_bytes", rep.touched_bytes}, {"compulsory_bytes", rep.compulsory_bytes},
                 {"hbm_bytes", rep.hbm_bytes}, {"reread_bytes", rep.reread_bytes},
                 {"reread_factor", rep.reread_factor()}, {"cta_read_bytes", rep.cta_read_bytes}};
  json tiles = json::array();
  for (int slot = 0; slot < num_slots(res.schedule); ++slot) {
    const TileWork w = slot_work(res.schedule, slot);
    if (!w.has_tile) continue;
    tiles.push_back({{"slot", slot}, {"cta", res.cta_of_slot(slot)},
                     {"wave", slot / res.resident_ctas}, {"m_block", w.tile.m_block},
                     {"n_block", w.tile.n_block}, {"cluster_rank", w.cluster_rank},
                     {"multicast", w.multicast}});
  }
  j["tiles"] = std::move(tiles);
  return j;
}

}  // namespace tilegemm::sched
