// summarize, summary_text, summary_json (summary.hpp).
#include "trace/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace tilegemm::trace {
namespace {

EventKind kind_of(const Event& e) { return static_cast<EventKind>(e.kind); }
uint64_t end_of(const Event& e) { return e.start_ns + e.dur_ns; }

// For every event of a lane, the index of the tile (work unit) whose span contains its start, in
// the order the lane walked them; -1 outside every tile (the final store drain).
std::vector<int> unit_of_events(const LaneTrace& lane, std::vector<const Event*>* tiles) {
  tiles->clear();
  for (const Event& e : lane.events)
    if (kind_of(e) == EventKind::tile) tiles->push_back(&e);
  std::sort(tiles->begin(), tiles->end(), [](const Event* a, const Event* b) { return a->start_ns < b->start_ns; });
  std::vector<int> unit(lane.events.size(), -1);
  for (size_t i = 0; i < lane.events.size(); ++i) {
    const Event& e = lane.events[i];
    if (kind_of(e) == EventKind::tile) continue;
    auto it = std::upper_bound(tiles->begin(), tiles->end(), e.start_ns,
                               [](uint64_t t, const Event* tile) { return t < tile->start_ns; });
    if (it == tiles->begin()) continue;
    --it;
    if (e.start_ns <= end_of(**it)) unit[i] = int(it - tiles->begin());
  }
  return unit;
}

void add_lane(RoleSummary& r, const LaneTrace& lane) {
  double blocked = 0;
  for (const Event& e : lane.events) {
    r.steps[e.kind].add(double(e.dur_ns));
    const EventKind k = kind_of(e);
    if (k == EventKind::wait_full || k == EventKind::wait_empty || k == EventKind::tma_store_wait)
      blocked += double(e.dur_ns);
  }
  const double active = lane.end_ns > lane.begin_ns ? double(lane.end_ns - lane.begin_ns) : 0.0;
  r.busy_pct += active > 0 ? 100.0 * (1.0 - blocked / active) : 0.0;
  r.active_ns += active;
  ++r.lanes;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

TraceSummary summarize(const DecodedTrace& t) {
  TraceSummary s;
  s.ctas = t.header.ctas;
  s.consumers = t.consumers();
  s.stages = t.header.stages;
  s.events = t.events;
  s.dropped = t.dropped;
  s.problems = t.problems.size();
  s.producer.role = "producer";
  s.consumer.role = "consumers";
  s.first_ns = std::numeric_limits<uint64_t>::max();
  double ghz_sum = 0;
  int ghz_lanes = 0;
  for (const LaneTrace& lane : t.lanes) {
    if (!lane.finished) continue;
    s.first_ns = std::min(s.first_ns, lane.begin_ns);
    s.last_ns = std::max(s.last_ns, lane.end_ns);
    if (const double g = lane.clock_ghz(); g > 0) {
      ghz_sum += g;
      ++ghz_lanes;
    }
    add_lane(lane.is_producer() ? s.producer : s.consumer, lane);
  }
  if (s.first_ns == std::numeric_limits<uint64_t>::max()) s.first_ns = 0;
  s.timer_tick_ns = t.timer_tick_ns;
  s.time_base = time_base_name(t.time_base);
  s.clock_ghz = ghz_lanes ? ghz_sum / ghz_lanes : 0.0;
  for (RoleSummary* r : {&s.producer, &s.consumer})
    if (r->lanes) {
      r->busy_pct /= r->lanes;
      r->active_ns /= r->lanes;
    }
  s.tiles = s.producer.of(EventKind::tile).count;

  // Each CTA's entry (every lane of a CTA carries the same stamp) to the first of its roles' begin.
  double prologue_sum = 0;
  for (uint32_t cta = 0; cta < t.header.ctas; ++cta) {
    uint64_t entry = 0, begin = std::numeric_limits<uint64_t>::max();
    for (uint32_t l = 0; l < t.header.lanes; ++l) {
      const LaneTrace& lane = t.lane(cta, l);
      if (!lane.finished || lane.entry_ns == 0) continue;
      entry = lane.entry_ns;
      begin = std::min(begin, lane.begin_ns);
    }
    if (entry == 0 || begin < entry) continue;
    const double prologue = double(begin - entry);
    s.first_entry_ns = s.entry_ctas ? std::min(s.first_entry_ns, entry) : entry;
    s.last_entry_ns = std::max(s.last_entry_ns, entry);
    prologue_sum += prologue;
    s.prologue_max_ns = std::max(s.prologue_max_ns, prologue);
    ++s.entry_ctas;
  }
  if (s.entry_ctas) s.prologue_mean_ns = prologue_sum / s.entry_ctas;

  // Steps between WGMMA issues inside a tile, the fill of each tile, and the epilogue overlap.
  std::vector<double> steps;
  double fill_sum = 0, overlap_sum = 0, next_sum = 0;
  uint64_t fills = 0;
  std::vector<const Event*> tiles, producer_tiles;
  for (uint32_t cta = 0; cta < t.header.ctas; ++cta) {
    const LaneTrace& producer = t.lane(cta, 0);
    const std::vector<int> producer_unit = unit_of_events(producer, &producer_tiles);
    for (uint32_t c = 0; c < s.consumers; ++c) {
      const LaneTrace& lane = t.lane(cta, 1 + c);
      if (!lane.finished) continue;
      const std::vector<int> unit = unit_of_events(lane, &tiles);
      std::vector<uint64_t> first_issue(tiles.size(), 0), last_issue(tiles.size(), 0);
      const Event* prev = nullptr;
      int prev_unit = -1;
      for (size_t i = 0; i < lane.events.size(); ++i) {
        const Event& e = lane.events[i];
        if (kind_of(e) != EventKind::wgmma_issue || unit[i] < 0) continue;
        const int u = unit[i];
        if (first_issue[u] == 0) first_issue[u] = e.start_ns;
        last_issue[u] = e.start_ns;
        if (prev != nullptr && prev_unit == u && e.k_block == prev->k_block + 1)
          steps.push_back(double(e.start_ns - prev->start_ns));
        prev = &e;
        prev_unit = u;
      }
      for (size_t u = 0; u < tiles.size(); ++u) {
        if (first_issue[u] == 0) continue;
        fill_sum += double(first_issue[u] - tiles[u]->start_ns);
        ++fills;
        s.mainloop_ns += double(last_issue[u] - first_issue[u]);
      }
      for (size_t i = 0; i < lane.events.size(); ++i) {
        const Event& e = lane.events[i];
        if (kind_of(e) != EventKind::epilogue || unit[i] < 0 || e.dur_ns == 0) continue;
        const int next = unit[i] + 1;
        if (next >= int(producer_tiles.size())) continue;  // the CTA's last tile
        uint64_t first_load = std::numeric_limits<uint64_t>::max();
        int loaded = 0;
        for (size_t j = 0; j < producer.events.size(); ++j) {
          const Event& p = producer.events[j];
          if (kind_of(p) != EventKind::tma_issue || producer_unit[j] != next) continue;
          first_load = std::min(first_load, p.start_ns);
          if (p.start_ns < end_of(e)) ++loaded;
        }
        const uint64_t from = std::max(e.start_ns, first_load == std::numeric_limits<uint64_t>::max() ? end_of(e) : first_load);
        overlap_sum += from < end_of(e) ? double(end_of(e) - from) / double(e.dur_ns) : 0.0;
        next_sum += loaded;
        ++s.epilogues_followed;
      }
    }
  }
  s.kblock_step_ns = median(steps);
  for (double d : steps)
    if (d > kBubbleFactor * s.kblock_step_ns) {
      ++s.bubbles;
      s.bubble_ns += d - s.kblock_step_ns;
    }
  s.fill_ns = fills ? fill_sum / double(fills) : 0.0;
  if (s.epilogues_followed) {
    s.epilogue_overlap_pct = 100.0 * overlap_sum / double(s.epilogues_followed);
    s.next_kblocks_in_epilogue = next_sum / double(s.epilogues_followed);
  }
  return s;
}

std::string summary_text(const TraceSummary& s, double host_to_first_ns) {
  const auto us = [](double ns) { return fmt::format("{:.3f} us", ns * 1e-3); };
  const auto mean = [&](const RoleSummary& r, EventKind k) {
    return r.of(k).count ? us(r.of(k).mean_ns()) : std::string("-");
  };
  std::string out;
  out += fmt::format("device: {} CTAs x (1 producer + {} consumer{}), {} stages; {} events, {} dropped; {} from the "
                     "first role's start to the last one's end\n",
                     s.ctas, s.consumers, s.consumers == 1 ? "" : "s", s.stages, s.events, s.dropped,
                     us(double(s.last_ns - s.first_ns)));
  out += fmt::format("timers: %globaltimer steps of {:.0f} ns seen; SM clock {:.3f} GHz (from %clock64); step times "
                     "from {}\n",
                     s.timer_tick_ns, s.clock_ghz,
                     s.time_base == std::string("sm_clock") ? "the SM cycle counter (the global timer is coarse)"
                                                             : "%globaltimer");
  out += fmt::format("{:<10} {:>6} {:>7} {:>14} {:>14} {:>12} {:>12} {:>12} {:>12}\n", "role", "lanes", "busy",
                     "WAIT FULL", "WAIT EMPTY", "TMA issue", "WGMMA issue", "WGMMA wait", "epilogue");
  for (const RoleSummary* r : {&s.producer, &s.consumer})
    out += fmt::format("{:<10} {:>6} {:>6.1f}% {:>14} {:>14} {:>12} {:>12} {:>12} {:>12}\n", r->role, r->lanes,
                       r->busy_pct, mean(*r, EventKind::wait_full), mean(*r, EventKind::wait_empty),
                       mean(*r, EventKind::tma_issue), mean(*r, EventKind::wgmma_issue),
                       mean(*r, EventKind::wgmma_wait), mean(*r, EventKind::epilogue));
  out += fmt::format("(mean per step; busy = lane time not blocked in WAIT FULL / WAIT EMPTY / TMA store waits)\n");
  out += fmt::format("pipeline: steady k-block {} (median WGMMA issue step); {} bubble{} (steps > {:.1f}x the median) "
                     "adding {} = {:.2f}% of the mainloop; tile fill (start -> first WGMMA) {}\n",
                     us(s.kblock_step_ns), s.bubbles, s.bubbles == 1 ? "" : "s", kBubbleFactor, us(s.bubble_ns),
                     s.mainloop_ns > 0 ? 100.0 * s.bubble_ns / s.mainloop_ns : 0.0, us(s.fill_ns));
  if (s.epilogues_followed)
    out += fmt::format("epilogue overlap: {:.1f}% of each epilogue ran after the next tile's first TMA load; {:.2f} of "
                       "the next tile's k-blocks issued before it ended (of {} stages); mean TMA store wait {}\n",
                       s.epilogue_overlap_pct, s.next_kblocks_in_epilogue, s.stages,
                       mean(s.consumer, EventKind::tma_store_wait));
  else
    out += "epilogue overlap: no CTA ran a second tile, so no epilogue had a next tile to overlap\n";
  if (s.entry_ctas)
    out += fmt::format("prologue (a CTA's first instruction -> its first role's begin): mean {}, max {} over {} CTA{}; "
                       "the CTAs entered within {} of each other\n",
                       us(s.prologue_mean_ns), us(s.prologue_max_ns), s.entry_ctas, s.entry_ctas == 1 ? "" : "s",
                       us(double(s.last_entry_ns - s.first_entry_ns)));
  if (host_to_first_ns >= 0) out += fmt::format("host call -> first kernel instruction: {}\n", us(host_to_first_ns));
  return out;
}

nlohmann::json summary_json(const TraceSummary& s) {
  auto role = [](const RoleSummary& r) {
    nlohmann::json steps = nlohmann::json::object();
    for (int k = 0; k < kEventKinds; ++k)
      if (r.steps[k].count)
        steps[event_kind_id(EventKind(k))] = {{"count", r.steps[k].count}, {"mean_ns", r.steps[k].mean_ns()},
                                              {"total_ns", r.steps[k].total_ns}};
    return nlohmann::json{{"lanes", r.lanes}, {"busy_pct", r.busy_pct}, {"active_ns", r.active_ns}, {"steps", steps}};
  };
  return {{"ctas", s.ctas}, {"consumers", s.consumers}, {"stages", s.stages}, {"events", s.events},
          {"dropped", s.dropped}, {"problems", s.problems}, {"device_span_ns", s.last_ns - s.first_ns},
          {"timer_tick_ns", s.timer_tick_ns}, {"time_base", s.time_base}, {"clock_ghz", s.clock_ghz}, {"producer", role(s.producer)},
          {"consumers_role", role(s.consumer)}, {"kblock_step_ns", s.kblock_step_ns}, {"bubbles", s.bubbles},
          {"bubble_ns", s.bubble_ns}, {"mainloop_ns", s.mainloop_ns}, {"fill_ns", s.fill_ns},
          {"epilogues_followed", s.epilogues_followed}, {"epilogue_overlap_pct", s.epilogue_overlap_pct},
          {"next_kblocks_in_epilogue", s.next_kblocks_in_epilogue}, {"tiles", s.tiles},
          {"entry", {{"ctas", s.entry_ctas}, {"prologue_mean_ns", s.prologue_mean_ns},
                     {"prologue_max_ns", s.prologue_max_ns},
                     {"entry_spread_ns", s.entry_ctas ? s.last_entry_ns - s.first_entry_ns : 0}}}};
}

}  // namespace tilegemm::trace
