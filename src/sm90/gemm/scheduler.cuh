// The production kernel's scheduler hook: the work units CTA `cta` of `num_ctas` walks, in order,
// over the tile mapping and the persistent/static assignment of schedule/tile_mapping.hpp.
//   without k-splitting (kKSplit = false): unit = output tile, CTA p takes slots p, p + P, ...
//     (all k-blocks); a static launch is the same walk with P = the number of slots (one each);
//   with k-splitting (Config::stream_k): the data-parallel slots p, p + P, ... whole, then the
//     stream-K workers p, p + P, ... (a split in one wave: worker KSplit::worker_of(p),
//     slice-major), each range cut at tile boundaries into (tile, k-blocks) units
//     (schedule/stream_k.hpp; with runs, a range is cut at run boundaries and the worker takes its
//     member of each run). A unit knows how many pieces its tile has and which one it
//     is, so the consumer knows whether to store the tile or take part in its fix-up.
// The producer and every consumer walk their own copy of the same sequence, so they stay in step.
// Plain integer code (TG_HD): the CPU tests walk it for every CTA (tests/cpu/schedule/test_stream_k.cpp).
#pragma once

#include "schedule/stream_k.hpp"
#include "schedule/tile_mapping.hpp"

namespace tilegemm::sm90 {

// One work unit: the tile, and the k-blocks [kb0, kb1) of it.
struct UnitWork {
  sched::TileWork work;
  int slot = 0;          // the tile's index in mapping order
  int kb0 = 0, kb1 = 0;
  int pieces = 1;        // units (workers) sharing this tile: 1 = the whole tile is here
  int piece = 0;         // this unit's index among them, 0 = the tile's lowest k-blocks
  int first_worker = 0;  // the worker of piece 0 (pieces > 1)
};

template <bool kKSplit>
struct UnitScheduler {
  sched::Schedule schedule;
  int num_kb = 0;        // k-blocks of the whole K
  sched::KSplit split;   // kKSplit only: the decomposition the host chose
  bool slice_major = true;  // KSplit::worker_of; false for a k-split cluster (a tile's slices are one cluster)
  // Walk state.
  int next_slot = 0;     // the next data-parallel slot (or plain slot) of this CTA
  int next_worker = 0;   // the next stream-K worker of this CTA
  int worker = 0;        // the worker whose range is being cut into units
  int64_t it = 0, it_end = 0;  // the rest of that range, in iterations

  TG_HD void begin(int cta) {
    next_slot = cta;
    next_worker = cta;
    it = it_end = 0;
  }

  // The next unit of this CTA into `u`; false when there is none. Without clusters every unit has
  // a tile; with clusters a unit may be the missing half of an edge pair (u.work.has_tile false).
  TG_HD bool next(UnitWork& u, int num_ctas) {
    // Whole tiles: every slot without k-splitting, the data-parallel ones with it.
    const int whole = kKSplit ? split.dp_tiles : sched::num_slots(schedule);
    if (next_slot < whole) {
      u.work = sched::slot_work(schedule, next_slot);
      u.slot = next_slot;
      u.kb0 = 0;
      u.kb1 = num_kb;
      u.pieces = 1;
      u.piece = 0;
      next_slot += num_ctas;
      return true;
    }
    if constexpr (!kKSplit) {
      return false;
    } else {
      if (it >= it_end) {  // this worker's range is done: the CTA's next worker
        if (next_worker >= split.workers) return false;
        worker = split.worker_of(next_worker, num_ctas, slice_major);
        next_worker += num_ctas;
        it = split.begin(worker);
        it_end = split.end(worker);
      }
      // `it` counts run iterations: the run among the stream-K slots, and this worker's member of it.
      const int run = int(it / num_kb);
      const int64_t tile_begin = int64_t(run) * num_kb;
      u.slot = split.dp_tiles + run * split.group + worker % split.group;
      u.work = sched::slot_work(schedule, u.slot);
      u.kb0 = int(it - tile_begin);
      u.kb1 = it_end - tile_begin < num_kb ? int(it_end - tile_begin) : num_kb;
      u.first_worker = split.first_worker(u.slot);
      u.pieces = split.pieces(u.slot);
      u.piece = (worker - u.first_worker) / split.group;
      it = tile_begin + u.kb1;
      return true;
    }
  }
};

}  // namespace tilegemm::sm90
