// The production kernel's scheduler hook: which work unit CTA `cta` takes at step `iter`, over the
// tile mapping and the persistent/static assignment of schedule/tile_mapping.hpp.
//   without split-K: unit = output tile, CTA p takes slots p, p + P, ... (all k-blocks);
//   with split-K (S slices): unit u = (slot u / S, slice u % S), covering k-blocks
//   [slice·KB/S, (slice+1)·KB/S); CTA p takes units p, p + P, ...
// A static launch is the same walk with P = the number of units (one each).
#pragma once

#include "schedule/tile_mapping.hpp"

namespace tilegemm::sm90 {

// One work unit: the tile, and the k-blocks [kb0, kb1) of it (slice `split` of S).
struct UnitWork {
  sched::TileWork work;
  int kb0 = 0, kb1 = 0, split = 0;
};

template <bool kSplitK>
struct UnitScheduler {
  sched::Schedule schedule;
  int num_kb = 0;  // k-blocks of the whole K
  int splits = 1;  // S (1 without split-K)

  // Units this CTA walks (the loop bound of both roles, so they stay in step).
  __device__ __forceinline__ int iterations(int cta, int num_ctas) const {
    if constexpr (kSplitK) {
      const int units = sched::num_slots(schedule) * splits;
      return cta < units ? sched::ceil_div(units - cta, num_ctas) : 0;
    } else {
      return sched::persistent_iterations(schedule, cta, num_ctas);
    }
  }

  __device__ __forceinline__ UnitWork unit(int cta, int iter, int num_ctas) const {
    UnitWork u;
    if constexpr (kSplitK) {
      const int index = cta + iter * num_ctas;
      const int slot = index / splits;
      u.split = index - slot * splits;
      u.work = sched::slot_work(schedule, slot);
      u.kb0 = int(int64_t(u.split) * num_kb / splits);
      u.kb1 = int(int64_t(u.split + 1) * num_kb / splits);
    } else {
      u.work = sched::persistent_work(schedule, cta, iter, num_ctas);
      u.kb0 = 0;
      u.kb1 = num_kb;
    }
    return u;
  }
};

}  // namespace tilegemm::sm90
