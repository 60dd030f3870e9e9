// A trace buffer as the traced kernel would fill it, made on the host: a small model of the
// producer/consumer ring (the producer waits until every consumer released a stage, a consumer
// waits until the stage's load landed, one wgmma group in flight) that appends the same events in
// the same order as src/sm90/gemm/{kernel,mainloop,epilogue}.cuh and writes them in the layout of
// trace/event.hpp. The decode, summary, invariant and JSON tests run on it and on broken copies;
// tests/cpu/trace/fixtures/ holds buffers recorded on the H200 for the same tests.
#pragma once

#include <algorithm>
#include <cstring>
#include <vector>

#include "trace/event.hpp"

namespace tilegemm::trace::test {

struct SyntheticSpec {
  uint32_t ctas = 2, consumers = 2, stages = 4;
  uint32_t tiles_per_cta = 3, kblocks = 6;  // every CTA: this many tiles of this many k-blocks
  uint32_t capacity = 0;                    // 0: exactly enough
  uint64_t t0 = 1'700'000'000'000'000'000ull;  // ns, the %globaltimer range
  uint64_t load_ns = 700, mma_ns = 500, epilogue_ns = 900;
  uint32_t slow_kblock = UINT32_MAX;        // this ring slot's load takes 10x longer (a bubble)
  uint64_t tick_ns = 1;                     // the global timer's step (the SM clock is exact: 2 GHz)
  bool clock_only_steps = false;            // as the kernel records: %globaltimer on TILE events only
  bool pingpong = false;                    // two consumers taking turns: tile t is consumer t % 2's
  uint64_t entry_lead_ns = 0;               // > 0: the headers carry CTA i's entry stamp, this long
                                            // minus 11 i ns before its lanes begin (0: none, as before it)
};

// Whether consumer lane c (1-based) computes tile t of its CTA.
inline bool synthetic_owns(const SyntheticSpec& s, uint32_t c, uint32_t tile) {
  return !s.pingpong || tile % 2 == c - 1;
}
// Tiles consumer lane c (1-based) computes.
inline uint32_t synthetic_tiles_of(const SyntheticSpec& s, uint32_t c) {
  return s.pingpong ? (s.tiles_per_cta + (c == 1 ? 1 : 0)) / 2 : s.tiles_per_cta;
}

// The SM clock of the synthetic trace at time `ns`: 2 GHz, 5000 at the lanes' begin.
inline uint64_t synthetic_clock(const SyntheticSpec& s, uint64_t ns) { return 5000 + 2 * (ns - (s.t0 + 900)); }

inline uint32_t events_per_lane(const SyntheticSpec& s, uint32_t lane) {
  return lane == 0 ? s.tiles_per_cta * (1 + 2 * s.kblocks) : synthetic_tiles_of(s, lane) * (1 + 4 * s.kblocks + 4) + 1;
}

inline std::vector<uint8_t> make_synthetic_trace(const SyntheticSpec& s) {
  const uint32_t lanes = 1 + s.consumers;
  uint32_t capacity = s.capacity;
  if (capacity == 0) capacity = std::max(events_per_lane(s, 0), events_per_lane(s, 1));
  std::vector<uint8_t> buf(buffer_bytes(s.ctas, lanes, capacity), kUnwrittenByte);
  const BufferHeader h = make_buffer_header(s.ctas, lanes, capacity, s.stages, s.pingpong);
  std::memcpy(buf.data(), &h, sizeof(h));
  for (uint32_t cta = 0; cta < s.ctas; ++cta) {
    std::vector<std::vector<Event>> ev(lanes);
    std::vector<uint64_t> clock(lanes, s.t0 + 1000 + 37 * cta);
    const uint32_t total = s.tiles_per_cta * s.kblocks;
    std::vector<uint64_t> landed(total, 0);
    std::vector<std::vector<uint64_t>> released(lanes, std::vector<uint64_t>(total, 0)), retired = released;
    std::vector<uint64_t> tile_start(lanes, 0), epi_start(lanes, 0);
    auto add = [&](uint32_t lane, EventKind k, uint64_t start, uint64_t end, int stage, int kb, int tile, uint8_t flags = 0) {
      Event e{};
      if (!s.clock_only_steps || k == EventKind::tile) {
        e.start_ns = start / s.tick_ns * s.tick_ns;  // what a timer of this step reads
        e.dur_ns = uint32_t(end / s.tick_ns * s.tick_ns - e.start_ns);
      }
      e.start_clk = uint32_t(synthetic_clock(s, start));
      e.dur_clk = uint32_t((end - start) * 2);
      e.kind = uint8_t(k);
      e.lane = uint8_t(lane);
      e.stage = uint8_t(stage);
      e.flags = flags;
      e.k_block = kb;
      e.tile_m = uint16_t((cta + s.ctas * uint32_t(tile)) / 2);
      e.tile_n = uint16_t((cta + s.ctas * uint32_t(tile)) % 2);
      ev[lane].push_back(e);
      clock[lane] = end + 3;
    };
    uint32_t consumer_next = 0;
    // Consumer c's k-block g (ring slot g): WAIT FULL, WGMMA issue, then the wait/release of g-1,
    // and at a tile's end the last wait/release, the epilogue and the tile.
    auto consume = [&](uint32_t g) {
      const int tile = int(g / s.kblocks), kb = int(g % s.kblocks), stage = int(g % s.stages);
      for (uint32_t c = 1; c < lanes; ++c) {
        if (!synthetic_owns(s, c, uint32_t(tile))) continue;  // ping-pong: the other's k-blocks pass by
        uint64_t& t = clock[c];
        if (kb == 0) tile_start[c] = t;
        add(c, EventKind::wait_full, t, std::max(t, landed[g]) + 4, stage, kb, tile);
        add(c, EventKind::wgmma_issue, t, t + 40, stage, kb, tile);
        retired[c][g] = std::max(t, kb ? retired[c][g - 1] : 0) + s.mma_ns;
        if (kb > 0) {
          add(c, EventKind::wgmma_wait, t, std::max(t, retired[c][g - 1]), int((g - 1) % s.stages), kb - 1, tile);
          add(c, EventKind::stage_release, t, t + 6, int((g - 1) % s.stages), kb - 1, tile);
          released[c][g - 1] = t - 9;
        }
        if (kb + 1 == int(s.kblocks)) {
          add(c, EventKind::wgmma_wait, t, std::max(t, retired[c][g]), stage, kb, tile);
          add(c, EventKind::stage_release, t, t + 6, stage, kb, tile);
          released[c][g] = t - 9;
          epi_start[c] = t;
          add(c, EventKind::tma_store_wait, t, t + 20, 0, -1, tile);
          add(c, EventKind::stmatrix, t, t + s.epilogue_ns, 0, -1, tile);
          add(c, EventKind::tma_store_issue, t, t + 30, 0, -1, tile);
          add(c, EventKind::epilogue, epi_start[c], t, 0, -1, tile);
          add(c, EventKind::tile, tile_start[c], t, 0, 0, tile);
        }
      }
    };
    for (uint32_t g = 0; g < total; ++g) {
      // The producer needs the release of slot g - S: run the consumers up to the k-block after it.
      while (g >= s.stages && consumer_next < std::min(total, g - s.stages + 2)) consume(consumer_next++);
      const int tile = int(g / s.kblocks), kb = int(g % s.kblocks), stage = int(g % s.stages);
      uint64_t& t = clock[0];
      if (kb == 0) tile_start[0] = t;
      uint64_t free_at = t;
      if (g >= s.stages)
        for (uint32_t c = 1; c < lanes; ++c)
          if (synthetic_owns(s, c, (g - s.stages) / s.kblocks)) free_at = std::max(free_at, released[c][g - s.stages] + 6);
      add(0, EventKind::wait_empty, t, free_at + 5, stage, kb, tile);
      add(0, EventKind::tma_issue, t, t + 25, stage, kb, tile);
      landed[g] = t + (g == s.slow_kblock ? 10 * s.load_ns : s.load_ns);
      if (kb + 1 == int(s.kblocks)) add(0, EventKind::tile, tile_start[0], t, 0, 0, tile);
    }
    while (consumer_next < total) consume(consumer_next++);
    for (uint32_t c = 1; c < lanes; ++c)
      add(c, EventKind::tma_store_wait, clock[c], clock[c] + 200, 0, -1, int(s.tiles_per_cta) - 1, kFlagDrain);
    for (uint32_t l = 0; l < lanes; ++l) {
      LaneHeader lh{};
      lh.magic = kLaneMagic;
      lh.cta = cta;
      lh.smid = 2 * cta + 1;
      lh.lane = l;
      lh.attempted = uint32_t(ev[l].size());
      lh.units = l == 0 ? s.tiles_per_cta : synthetic_tiles_of(s, l);
      lh.begin_clk = synthetic_clock(s, s.t0 + 900);
      lh.end_clk = synthetic_clock(s, clock[l] + 10);
      lh.begin_ns = (s.t0 + 900) / s.tick_ns * s.tick_ns;
      lh.end_ns = (clock[l] + 10) / s.tick_ns * s.tick_ns;
      if (s.entry_lead_ns > 0) lh.entry_ns = (s.t0 + 900 - s.entry_lead_ns + 11 * cta) / s.tick_ns * s.tick_ns;
      std::memcpy(buf.data() + lane_header_offset(lanes, cta, l), &lh, sizeof(lh));
      const size_t n = std::min<size_t>(ev[l].size(), capacity);
      std::memcpy(buf.data() + lane_events_offset(s.ctas, lanes, capacity, cta, l), ev[l].data(), n * sizeof(Event));
    }
  }
  return buf;
}

// The events of lane (cta, lane) in `buf`, in place.
inline Event* lane_events(std::vector<uint8_t>& buf, uint32_t cta, uint32_t lane) {
  BufferHeader h;
  std::memcpy(&h, buf.data(), sizeof(h));
  return reinterpret_cast<Event*>(buf.data() + lane_events_offset(h.ctas, h.lanes, h.lane_capacity, cta, lane));
}

}  // namespace tilegemm::trace::test
