// check_invariants (invariants.hpp).
#include "trace/invariants.hpp"

#include <algorithm>

namespace tilegemm::trace {
namespace {

constexpr uint64_t kMaxStepNs = 10'000'000'000ull;

EventKind kind_of(const Event& e) { return static_cast<EventKind>(e.kind); }
uint64_t end_of(const Event& e) { return e.start_ns + e.dur_ns; }
bool is_container(EventKind k) { return k == EventKind::tile || k == EventKind::epilogue; }

// One k-block's steps on one lane, by index into the lane's events (-1: missing).
struct KbSteps {
  int kb = 0;
  int wait = -1, issue = -1, retire = -1, release = -1;  // producer: wait = WAIT EMPTY, issue = TMA
};

struct Unit {
  int tile = -1;                // index of its TILE event
  std::vector<KbSteps> kblocks;  // in k-block order
  int epilogues = 0;
};

struct Checker {
  InvariantReport& r;
  size_t limit;
  void fail(const std::string& s) {
    if (r.violations.size() < limit) r.violations.push_back(s);
    ++r.count;
  }
};

std::string at(const LaneTrace& l, const std::string& what) {
  return "CTA " + std::to_string(l.cta) + " " + lane_role(l.lane) + ": " + what;
}

// Splits a lane into units (a TILE event closes each) and checks its own order and nesting, and
// with check_stages (the producer, which walks every k-block of the ring) each step's stage.
std::vector<Unit> parse_lane(const LaneTrace& l, uint32_t stages, Checker& c, bool check_stages) {
  std::vector<Unit> units;
  Unit cur;
  int prev = -1;  // the last non-container event
  int unit_first = -1, epi_first = -1;
  uint64_t g = 0;  // ring position: k-blocks the lane walked before this unit
  auto kb_entry = [&](int kb) -> KbSteps& {
    for (KbSteps& s : cur.kblocks)
      if (s.kb == kb) return s;
    cur.kblocks.push_back(KbSteps{kb});
    return cur.kblocks.back();
  };
  for (int i = 0; i < int(l.events.size()); ++i) {
    const Event& e = l.events[i];
    const EventKind k = kind_of(e);
    if (e.dur_ns > kMaxStepNs) c.fail(at(l, "event " + std::to_string(i) + " lasts " + std::to_string(e.dur_ns) + " ns"));
    if (!is_container(k)) {
      if (prev >= 0 && e.start_ns < end_of(l.events[prev]))
        c.fail(at(l, "event " + std::to_string(i) + " (" + event_kind_id(k) + ") starts before event " +
                         std::to_string(prev) + " ends"));
      prev = i;
      if (unit_first < 0) unit_first = i;
      if (epi_first < 0 && (k == EventKind::stmatrix || k == EventKind::tma_store_issue ||
                            (k == EventKind::tma_store_wait && !(e.flags & kFlagDrain)) ||
                            k == EventKind::direct_store || k == EventKind::splitk_partial || k == EventKind::splitk_fixup))
        epi_first = i;
    }
    switch (k) {
      case EventKind::wait_empty: kb_entry(e.k_block).wait = i; break;
      case EventKind::tma_issue: kb_entry(e.k_block).issue = i; break;
      case EventKind::wait_full: kb_entry(e.k_block).wait = i; break;
      case EventKind::wgmma_issue: kb_entry(e.k_block).issue = i; break;
      case EventKind::wgmma_wait: kb_entry(e.k_block).retire = i; break;
      case EventKind::stage_release: kb_entry(e.k_block).release = i; break;
      case EventKind::epilogue: {
        ++cur.epilogues;
        const int from = epi_first >= 0 ? epi_first : i;
        for (int j = from; j < i; ++j)
          if (l.events[j].start_ns < e.start_ns || end_of(l.events[j]) > end_of(e))
            c.fail(at(l, "epilogue event " + std::to_string(i) + " does not contain its part " + std::to_string(j)));
        epi_first = -1;
        break;
      }
      case EventKind::tile: {
        cur.tile = i;
        for (int j = std::max(unit_first, 0); j < i; ++j)
          if (l.events[j].start_ns < e.start_ns || end_of(l.events[j]) > end_of(e))
            c.fail(at(l, "TILE event " + std::to_string(i) + " does not contain event " + std::to_string(j)));
        std::sort(cur.kblocks.begin(), cur.kblocks.end(), [](const KbSteps& a, const KbSteps& b) { return a.kb < b.kb; });
        for (size_t j = 0; j < cur.kblocks.size(); ++j) {
          const KbSteps& s = cur.kblocks[j];
          const std::string kb = "k-block " + std::to_string(s.kb) + " of tile (" + std::to_string(e.tile_m) + ", " +
                                 std::to_string(e.tile_n) + ")";
          if (s.kb != e.k_block + int(j)) c.fail(at(l, kb + ": k-blocks not consecutive from " + std::to_string(e.k_block)));
          const bool producer = l.lane == 0;
          const std::vector<int> steps = producer ? std::vector<int>{s.wait, s.issue}
                                                  : std::vector<int>{s.wait, s.issue, s.retire, s.release};
          if (std::find(steps.begin(), steps.end(), -1) != steps.end()) {
            c.fail(at(l, kb + (producer ? ": missing WAIT EMPTY or TMA issue" : ": missing one of WAIT FULL, WGMMA "
                                                                                "issue, WGMMA wait, release")));
            continue;
          }
          if (!std::is_sorted(steps.begin(), steps.end()))
            c.fail(at(l, kb + (producer ? ": TMA issue before WAIT EMPTY" : ": not WAIT FULL -> WGMMA -> wait -> release")));
          const uint32_t stage = uint32_t((g + j) % stages);
          if (check_stages)
            for (int idx : steps)
              if (l.events[idx].stage != stage)
                c.fail(at(l, kb + ": on stage " + std::to_string(l.events[idx].stage) + ", the ring says " +
                                 std::to_string(stage)));
        }
        g += cur.kblocks.size();
        if (l.lane != 0 && cur.epilogues != 1)
          c.fail(at(l, "tile (" + std::to_string(e.tile_m) + ", " + std::to_string(e.tile_n) + ") has " +
                           std::to_string(cur.epilogues) + " epilogues"));
        units.push_back(std::move(cur));
        cur = Unit{};
        unit_first = -1;
        break;
      }
      default: break;
    }
  }
  return units;
}

}  // namespace

InvariantReport check_invariants(const DecodedTrace& t, size_t limit) {
  InvariantReport r;
  Checker c{r, limit};
  const uint32_t stages = std::max(t.header.stages, 1u);
  const bool pingpong = (t.header.flags & kBufferPingpong) != 0;
  for (uint32_t cta = 0; cta < t.header.ctas; ++cta) {
    bool complete = true;
    for (uint32_t l = 0; l < t.header.lanes; ++l) complete = complete && t.lane(cta, l).finished && !t.lane(cta, l).dropped();
    if (!complete) continue;
    const LaneTrace& p = t.lane(cta, 0);
    const std::vector<Unit> pu = parse_lane(p, stages, c, /*check_stages=*/true);
    r.tiles_checked += pu.size();
    for (const Unit& u : pu) r.kblocks_checked += u.kblocks.size();
    // The ring as the producer walked it: the position of each unit's first k-block, and its WAIT
    // EMPTY at every position (for the stage-reuse check).
    std::vector<uint64_t> p_first(pu.size());
    std::vector<const Event*> p_wait;
    for (size_t u = 0; u < pu.size(); ++u) {
      p_first[u] = p_wait.size();
      for (const KbSteps& s : pu[u].kblocks) p_wait.push_back(s.wait >= 0 ? &p.events[s.wait] : nullptr);
    }
    for (uint32_t l = 1; l < t.header.lanes; ++l) {
      const LaneTrace& q = t.lane(cta, l);
      const std::vector<Unit> cu = parse_lane(q, stages, c, /*check_stages=*/false);
      // The producer's units this consumer computed: every one, or with ping-pong consumers every
      // other one from its own index (the kernel gives unit u to consumer u % 2; the other passes).
      std::vector<size_t> mine;
      for (size_t u = 0; u < pu.size(); ++u)
        if (!pingpong || u % 2 == l - 1) mine.push_back(u);
      if (cu.size() != mine.size()) {
        c.fail(at(q, std::to_string(cu.size()) + " tiles, the producer " + std::to_string(mine.size()) +
                         (pingpong ? " for this ping-pong consumer" : "")));
        continue;
      }
      std::vector<std::pair<uint64_t, const Event*>> released;  // (ring position, the release there)
      for (size_t i = 0; i < mine.size(); ++i) {
        const size_t u = mine[i];
        const Event& pt = p.events[pu[u].tile];
        const Event& qt = q.events[cu[i].tile];
        if (pt.tile_m != qt.tile_m || pt.tile_n != qt.tile_n || pu[u].kblocks.size() != cu[i].kblocks.size()) {
          c.fail(at(q, "tile " + std::to_string(i) + " is (" + std::to_string(qt.tile_m) + ", " + std::to_string(qt.tile_n) +
                           "), the producer's (" + std::to_string(pt.tile_m) + ", " + std::to_string(pt.tile_n) + ")"));
          continue;
        }
        for (size_t j = 0; j < pu[u].kblocks.size(); ++j) {
          const KbSteps& ps = pu[u].kblocks[j];
          const KbSteps& qs = cu[i].kblocks[j];
          if (ps.issue < 0 || qs.wait < 0 || qs.issue < 0 || qs.retire < 0 || qs.release < 0 || ps.wait < 0)
            continue;  // reported
          const uint32_t stage = uint32_t((p_first[u] + j) % stages);  // the producer's ring position
          for (int idx : {qs.wait, qs.issue, qs.retire, qs.release})
            if (q.events[idx].stage != stage)
              c.fail(at(q, "k-block " + std::to_string(qs.kb) + " of tile (" + std::to_string(qt.tile_m) + ", " +
                               std::to_string(qt.tile_n) + "): on stage " + std::to_string(q.events[idx].stage) +
                               ", the ring says " + std::to_string(stage)));
          const Event& tma = p.events[ps.issue];
          const Event& full = q.events[qs.wait];
          const std::string kb = "k-block " + std::to_string(qs.kb) + " of tile " + std::to_string(i);
          if (tma.start_ns > end_of(full)) c.fail(at(q, kb + ": WAIT FULL ended before the TMA issue began"));
          if (q.events[qs.issue].start_ns < end_of(full)) c.fail(at(q, kb + ": WGMMA issued before WAIT FULL ended"));
          released.emplace_back(p_first[u] + j, &q.events[qs.release]);
        }
      }
      for (const auto& [g, release] : released)
        if (g + stages < p_wait.size() && p_wait[g + stages] != nullptr &&
            end_of(*p_wait[g + stages]) < release->start_ns)
          c.fail(at(q, "ring slot " + std::to_string(g) + ": the producer's WAIT EMPTY " + std::to_string(stages) +
                           " k-blocks later ended before this consumer released the stage"));
    }
  }
  return r;
}

}  // namespace tilegemm::trace
