// The traced kernel's recorder: TraceLane<Config::trace>, one per warp role of a CTA (the
// producer's elected thread, each consumer warpgroup), appending fixed-size events to that lane's
// slice of the trace buffer (layout: trace/event.hpp).
//
//   TraceLane<C.trace> rec(p, lane, lanes, writer);   // writer: the thread that stores
//   const TraceMark t = rec.now();                     // %clock64
//   mbar_wait(&full[s], parity);
//   rec.record(t, trace::EventKind::wait_full, s, kb); // one 32-B event
//
// TraceLane<false> (every untraced kernel) is an empty struct whose calls are empty inline
// functions: no timer read, no store, no register, so the untraced kernel's SASS is the same as
// without the hooks (tests/cpu/jit/test_trace_kernel.cpp compares it).
#pragma once

#include "schedule/tile_mapping.hpp"
#include "sm90/gemm/params.hpp"
#include "sm90/gemm/scheduler.cuh"
#include "sm90/ptx.cuh"
#include "trace/event.hpp"

namespace tilegemm::sm90 {

// A point in time on this SM: the global timer (ns) and the SM's cycle counter (low 32 bits).
struct TraceMark {
  uint64_t ns;
  uint32_t clk;
};

template <bool kOn>
struct TraceLane;

template <>
struct TraceLane<false> {
  __device__ __forceinline__ TraceLane(const GemmParams&, uint32_t, uint32_t, bool) {}
  __device__ __forceinline__ TraceMark now() const { return TraceMark{0, 0}; }
  __device__ __forceinline__ void record(const TraceMark&, trace::EventKind, int, int, uint8_t = 0) {}
  __device__ __forceinline__ TraceMark unit_begin(const UnitWork&) { return TraceMark{0, 0}; }
  __device__ __forceinline__ void unit_end(const TraceMark&, const UnitWork&) {}
  __device__ __forceinline__ void finish() {}
};

// NOTES: the steps are timed by the SM's cycle counter alone. A %globaltimer read costs far more
// than a %clock64 read: with both at every step the traced kernel ran 22% (4096^3) and 75%
// (128x7168x2048) slower than the untraced one on the H200, and the global timer stepped in
// 32-64 ns there (docs/TRACE.md). It is read where the SM clock is placed on the global axis: at
// each lane's begin and end and at each work unit's start and end (its TILE event).
template <>
struct TraceLane<true> {
  trace::Event* events = nullptr;  // this lane's slice; null: no buffer
  trace::LaneHeader* header = nullptr;
  uint32_t capacity = 0, count = 0, units = 0;
  uint32_t lane = 0;
  int tile_m = 0, tile_n = 0;
  bool writer = false;
  uint64_t begin_ns = 0, begin_clk = 0;

  // GemmParams::trace and ::trace_capacity: the host sized the buffer for this grid (trace_capture.cpp).
  __device__ __forceinline__ TraceLane(const GemmParams& p, uint32_t lane_index, uint32_t lanes, bool is_writer)
      : capacity(p.trace_capacity), lane(lane_index), writer(is_writer) {
    if (writer && p.trace != nullptr) {
      uint8_t* base = static_cast<uint8_t*>(p.trace);
      header = reinterpret_cast<trace::LaneHeader*>(base + trace::lane_header_offset(lanes, blockIdx.x, lane));
      events = reinterpret_cast<trace::Event*>(base + trace::lane_events_offset(gridDim.x, lanes, capacity, blockIdx.x, lane));
    }
    begin_ns = global_timer_ns();
    begin_clk = sm_clock64();
  }

  __device__ __forceinline__ TraceMark now() const { return TraceMark{0, uint32_t(sm_clock64())}; }

  // Appends the step that began at `start` and ends now; with a %globaltimer start (start.ns != 0,
  // unit_begin) the end is read from it too. Past the lane's capacity it only counts.
  __device__ __forceinline__ void append(const TraceMark& start, uint64_t end_ns, trace::EventKind kind, int stage,
                                         int k_block, uint8_t flags) {
    const uint32_t end_clk = uint32_t(sm_clock64());
    if (writer && events != nullptr) {
      if (count < capacity) {
        uint32_t* e = reinterpret_cast<uint32_t*>(events + count);
        const bool wide = (tile_m | tile_n) >= 65536;
        store_global_streaming_16(e, uint32_t(start.ns), uint32_t(start.ns >> 32), uint32_t(end_ns - start.ns), start.clk);
        store_global_streaming_16(e + 4, end_clk - start.clk,
                                  uint32_t(kind) | (lane << 8) | (uint32_t(stage & 0xff) << 16) |
                                      (uint32_t(flags | (wide ? trace::kFlagWideTile : 0)) << 24),
                                  uint32_t(k_block), (uint32_t(tile_m) & 0xffffu) | (uint32_t(tile_n) << 16));
      }
      ++count;
    }
  }
  __device__ __forceinline__ void record(const TraceMark& start, trace::EventKind kind, int stage, int k_block,
                                         uint8_t flags = 0) {
    append(start, 0, kind, stage, k_block, flags);
  }

  // A work unit: its tile becomes the context of the events until unit_end records the unit's
  // span (stage = its piece of a shared tile, k_block = its first k-block), timed by both clocks.
  __device__ __forceinline__ TraceMark unit_begin(const UnitWork& unit) {
    tile_m = unit.work.tile.m_block;
    tile_n = unit.work.tile.n_block;
    return TraceMark{global_timer_ns(), uint32_t(sm_clock64())};
  }
  __device__ __forceinline__ void unit_end(const TraceMark& start, const UnitWork& unit) {
    append(start, global_timer_ns(), trace::EventKind::tile, unit.piece, unit.kb0, 0);
    ++units;
  }

  // The lane's header: who ran where, how many events it tried to append, and its two time anchors
  // (the CTA's entry, its last 8 B, trace_entry wrote at the start).
  __device__ __forceinline__ void finish() {
    if (!writer || header == nullptr) return;
    const uint64_t end_ns = global_timer_ns(), end_clk = sm_clock64();
    uint32_t* h = reinterpret_cast<uint32_t*>(header);
    store_global_streaming_16(h, trace::kLaneMagic, blockIdx.x, sm_id(), lane);
    store_global_streaming_16(h + 4, count, units, uint32_t(begin_ns), uint32_t(begin_ns >> 32));
    store_global_streaming_16(h + 8, uint32_t(end_ns), uint32_t(end_ns >> 32), uint32_t(begin_clk),
                              uint32_t(begin_clk >> 32));
    store_global_streaming_8(h + 12, uint32_t(end_clk), uint32_t(end_clk >> 32));
  }
};

// The CTA's entry (%globaltimer read at its first instruction, kernel.cuh) into every lane header of
// the CTA (LaneHeader::entry_ns; finish() leaves those 8 B alone). One thread, right after the
// prologue, so that the stamp is not held in a register through the roles (a 64-bit value live
// across the traced stream-K kernels made them spill: tests/cpu/jit/test_trace_kernel.cpp).
template <bool kOn>
__device__ __forceinline__ void trace_entry(const GemmParams& p, uint32_t lanes, uint64_t entry_ns) {
  if constexpr (kOn) {
    if (p.trace == nullptr) return;
    uint8_t* base = static_cast<uint8_t*>(p.trace);
    for (uint32_t l = 0; l < lanes; ++l)
      store_global_streaming_8(base + trace::lane_header_offset(lanes, blockIdx.x, l) + trace::kLaneEntryOffset,
                               uint32_t(entry_ns), uint32_t(entry_ns >> 32));
  }
}

}  // namespace tilegemm::sm90
