// The trace buffer's layout: one fact, one place for the traced kernel (which writes it,
// src/sm90/gemm/trace_lane.cuh) and the host (which sizes, decodes and draws it, src/trace/).
// Plain data, no std: compiled by g++, nvcc and NVRTC (it is one of the JIT's embedded headers).
//
// A traced kernel (Config::trace) gets one device buffer (GemmParams::trace, sized for its grid and
// GemmParams::trace_capacity events per lane):
//
//   BufferHeader                                     64 B, written by the host before the launch
//   LaneHeader[ctas][lanes]                          64 B each, written by the kernel at the end
//   Event[ctas][lanes][lane_capacity]                32 B each, appended by the kernel
//
// A lane is one warp role of one CTA: lane 0 the producer (its elected TMA thread), lane 1 + c
// consumer warpgroup c (its thread 0). Each lane appends to its own slice, so no atomics: the
// writer keeps its count in a register, stores event i only while i < lane_capacity, keeps
// counting past it, and at the end writes the count it attempted into its LaneHeader. The host
// decodes min(attempted, capacity) events and reports attempted - capacity as dropped; nothing is
// ever written past a lane's slice (the host fills the slots with kUnwrittenByte and checks that
// the unused ones still hold it, docs/TRACE.md).
//
// Times: every event has its start and length on the SM's cycle counter (%clock64: start_clk,
// dur_clk). %globaltimer (PTX ISA, special registers: a global nanosecond timer that every SM reads
// alike) is read where it is cheap enough: at each lane's begin and end (LaneHeader) and at each
// work unit's start and end (the TILE event's start_ns, dur_ns). The host places each SM's cycles
// on the global axis from those anchors (decode.hpp), so events of different SMs share one axis
// and the steps keep cycle resolution.
#pragma once

#include "core/host_device.hpp"
#include "core/int_types.hpp"

namespace tilegemm::trace {

inline constexpr uint32_t kBufferMagic = 0x52544754u;  // "TGTR" little-endian
inline constexpr uint32_t kLaneMagic = 0x4c544754u;    // "TGTL"
inline constexpr uint32_t kLayoutVersion = 1;
inline constexpr uint8_t kUnwrittenByte = 0xA5;  // the host's fill of every event slot before a launch

// What one event says happened. Spans unless noted; the k-block events carry stage and k_block.
enum class EventKind : uint8_t {
  tile = 0,         // one work unit (tile, or a piece of its k-blocks with split-K/stream-K) on this lane, start to end
  wait_empty,       // producer: mbarrier wait until every consumer warp released the stage
  tma_issue,        // producer: arrive.expect_tx + the TMA loads of the stage's A and B tiles
  wait_full,        // consumer: mbarrier wait until the stage's TMA bytes have landed
  wgmma_issue,      // consumer: wgmma.fence, 4 x wgmma.mma_async over the stage, commit
  wgmma_wait,       // consumer: wgmma.wait_group that retired k-block `k_block`
  stage_release,    // consumer: arrive on empty[stage] (warp 0's; every warp arrives)
  epilogue,         // consumer: accumulators -> D (or the k-split workspace), the whole step
  stmatrix,         // consumer, TMA-store epilogue: alpha·acc -> bf16 -> stmatrix into a staging box
  tma_store_issue,  // consumer, TMA-store epilogue: the TMA stores of the staged boxes + commit
  tma_store_wait,   // consumer, TMA-store epilogue: wait until earlier stores have read the staging smem
  direct_store,     // consumer, direct epilogue: bounds-checked stores from registers
  splitk_partial,   // consumer, split-K/stream-K: the fp32 partial tile written to the workspace and counted
  splitk_fixup,     // consumer, split-K/stream-K: piece 0 of a shared tile waits for the count and sums the partials in piece order
  count
};
inline constexpr int kEventKinds = static_cast<int>(EventKind::count);

// The one name table of EventKind: the id (JSON args, tests) and the label the timelines show.
TG_HD constexpr const char* event_kind_id(EventKind k) {
  switch (k) {
    case EventKind::tile: return "tile";
    case EventKind::wait_empty: return "wait_empty";
    case EventKind::tma_issue: return "tma_issue";
    case EventKind::wait_full: return "wait_full";
    case EventKind::wgmma_issue: return "wgmma_issue";
    case EventKind::wgmma_wait: return "wgmma_wait";
    case EventKind::stage_release: return "stage_release";
    case EventKind::epilogue: return "epilogue";
    case EventKind::stmatrix: return "stmatrix";
    case EventKind::tma_store_issue: return "tma_store_issue";
    case EventKind::tma_store_wait: return "tma_store_wait";
    case EventKind::direct_store: return "direct_store";
    case EventKind::splitk_partial: return "splitk_partial";
    case EventKind::splitk_fixup: return "splitk_fixup";
    case EventKind::count: break;
  }
  return "unknown";
}
TG_HD constexpr const char* event_kind_label(EventKind k) {
  switch (k) {
    case EventKind::tile: return "TILE";
    case EventKind::wait_empty: return "WAIT EMPTY";
    case EventKind::tma_issue: return "TMA issue";
    case EventKind::wait_full: return "WAIT FULL";
    case EventKind::wgmma_issue: return "WGMMA issue";
    case EventKind::wgmma_wait: return "WGMMA wait";
    case EventKind::stage_release: return "release";
    case EventKind::epilogue: return "epilogue";
    case EventKind::stmatrix: return "stmatrix";
    case EventKind::tma_store_issue: return "TMA store issue";
    case EventKind::tma_store_wait: return "TMA store wait";
    case EventKind::direct_store: return "direct store";
    case EventKind::splitk_partial: return "split-K partial";
    case EventKind::splitk_fixup: return "split-K fix-up";
    case EventKind::count: break;
  }
  return "unknown";
}

// Event::flags bits.
inline constexpr uint8_t kFlagDrain = 1u << 0;      // tma_store_wait: the final wait before the CTA exits
inline constexpr uint8_t kFlagWideTile = 1u << 1;   // the tile's m- or n-block is >= 65536: only its low 16 bits

struct Event {           // 32 B, two 16-B stores
  uint64_t start_ns;     // %globaltimer at the start: TILE events; 0 for steps (timed by the SM clock)
  uint32_t dur_ns;       // %globaltimer at the end - start_ns (TILE events)
  uint32_t start_clk;    // %clock64 at the start, low 32 bits (SM cycles)
  uint32_t dur_clk;      // %clock64 at the end - at the start
  uint8_t kind;          // EventKind
  uint8_t lane;          // 0 producer, 1 + c consumer c (the lane it was appended to)
  uint8_t stage;         // smem ring stage (k-block events), staging box (epilogue events), else 0
  uint8_t flags;         // kFlag*
  int32_t k_block;       // k-block index within K (k-block events; tile: the unit's first k-block)
  uint16_t tile_m;       // m-block of the tile the lane works on (low 16 bits: kFlagWideTile)
  uint16_t tile_n;       // n-block
};
static_assert(sizeof(Event) == 32, "Event is 32 bytes on every compiler");

struct LaneHeader {      // 64 B
  uint32_t magic;        // kLaneMagic once the lane finished (0 or the fill: the CTA never ended)
  uint32_t cta;          // blockIdx.x
  uint32_t smid;         // %smid of the SM the CTA ran on
  uint32_t lane;         // 0 producer, 1 + c consumer c
  uint32_t attempted;    // events the lane tried to append (> lane_capacity: overflow)
  uint32_t units;        // work units the lane walked
  uint64_t begin_ns;     // %globaltimer when the role began (after the barrier set-up)
  uint64_t end_ns;       // %globaltimer when it finished
  uint64_t begin_clk;    // %clock64 at the same two points (clock rate = d clk / d ns)
  uint64_t end_clk;
  uint64_t entry_ns;     // %globaltimer at the CTA's first instruction, before the barrier set-up (the
                         // same for every lane of a CTA; 0: not recorded, as in buffers written before it)
};
static_assert(sizeof(LaneHeader) == 64, "LaneHeader is 64 bytes on every compiler");
// Where entry_ns sits in a header (its last 8 bytes): the kernel stamps it alone, before the rest
// (trace_lane.cuh). A literal, as NVRTC takes no offsetof here; tests/cpu/trace checks it.
inline constexpr uint32_t kLaneEntryOffset = 56;

struct BufferHeader {    // 64 B
  uint32_t magic;        // kBufferMagic
  uint32_t version;      // kLayoutVersion
  uint32_t ctas;         // CTAs the buffer has lanes for: the grid (the kernel takes gridDim.x)
  uint32_t lanes;        // lanes per CTA (= 1 + consumers of the config)
  uint32_t lane_capacity;  // events per lane
  uint32_t event_bytes;  // sizeof(Event)  (the kernel reads none of this header: it is for the host)
  uint32_t stages;       // the config's ring depth (for the viewer's stage lanes)
  uint32_t flags;        // kBufferPingpong: the consumers take turns, a tile each (0 in older buffers)
  uint32_t reserved[8];
};
// BufferHeader::flags: ping-pong consumers (Config::pingpong): consumer c records only every other
// of the CTA's tiles (units 0, 2, ... for consumer 0), passing over the other's k-blocks in the ring.
inline constexpr uint32_t kBufferPingpong = 1u;
static_assert(sizeof(BufferHeader) == 64, "BufferHeader is 64 bytes on every compiler");

// Offsets into the buffer (bytes).
TG_HD constexpr uint64_t lane_header_offset(uint32_t lanes, uint32_t cta, uint32_t lane) {
  return sizeof(BufferHeader) + (uint64_t(cta) * lanes + lane) * sizeof(LaneHeader);
}
TG_HD constexpr uint64_t lane_events_offset(uint32_t ctas, uint32_t lanes, uint32_t capacity, uint32_t cta,
                                            uint32_t lane) {
  return sizeof(BufferHeader) + uint64_t(ctas) * lanes * sizeof(LaneHeader) +
         (uint64_t(cta) * lanes + lane) * capacity * sizeof(Event);
}
TG_HD constexpr uint64_t buffer_bytes(uint32_t ctas, uint32_t lanes, uint32_t capacity) {
  return lane_events_offset(ctas, lanes, capacity, ctas, 0);
}

// The header the host writes before a launch for `ctas` CTAs of `lanes` lanes.
TG_HD constexpr BufferHeader make_buffer_header(uint32_t ctas, uint32_t lanes, uint32_t lane_capacity,
                                                uint32_t stages, bool pingpong = false) {
  BufferHeader h{};
  h.magic = kBufferMagic;
  h.version = kLayoutVersion;
  h.ctas = ctas;
  h.lanes = lanes;
  h.lane_capacity = lane_capacity;
  h.event_bytes = sizeof(Event);
  h.stages = stages;
  h.flags = pingpong ? kBufferPingpong : 0u;
  return h;
}

}  // namespace tilegemm::trace
