// The smem ring that every pipelined SM90 kernel walks (ladder steps 5-9 and the production
// kernel): where a producer or a consumer stands, and how a consumer releases a stage.
//
// A ring of kStages smem stages, each guarded by two mbarriers: full[s] (the producer's TMA landed
// stage s) and empty[s] (every consumer warp is done reading it). Each pass around the ring
// completes one phase of every full[s] and every empty[s], so the parity flips when the index wraps:
//   consumer: wait full[stage] for parity `phase` (phase 0 = the first fill);
//   producer: wait empty[stage] for parity `phase ^ 1`: a fresh barrier counts its "previous"
//             phase (parity 1) as complete, so the first pass goes through without a release,
//             and pass p waits for the consumers' release of pass p - 1 (PTX ISA §9.7.13.15,
//             mbarrier phases and try_wait.parity).
// RingState is plain host/device code: tests/cpu/sm90/test_pipeline_ring.cu runs it against a host
// model of the barriers under random interleavings.
#pragma once

#include "core/host_device.hpp"
#include "core/int_types.hpp"

namespace tilegemm::sm90 {

template <int kStages>
struct RingState {
  int stage = 0;
  uint32_t phase = 0;
  TG_HD constexpr uint32_t full_parity() const { return phase; }
  TG_HD constexpr uint32_t empty_parity() const { return phase ^ 1u; }
  TG_HD constexpr void advance() {
    if (++stage == kStages) {
      stage = 0;
      phase ^= 1u;
    }
  }
  // n steps at once (n >= 0): a ping-pong consumer passing over the other consumer's k-blocks.
  TG_HD constexpr void advance_by(int n) {
    const int t = stage + n;
    if ((t / kStages) & 1) phase ^= 1u;
    stage = t % kStages;
  }
};

}  // namespace tilegemm::sm90

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#include "sm90/ptx.cuh"

namespace tilegemm::sm90 {

// "This warp is done reading stage s": one arrive on empty[s] of cluster CTA `cta_rank` (the
// local CTA when kClusterSize is 1). Relaxed on purpose: wgmma.wait_group has returned, nothing is
// left to order, and the .release.cluster form costs a MEMBAR per warp per k-block (ptx.cuh).
template <int kClusterSize>
__device__ __forceinline__ void release_stage(uint64_t* empty_bar, uint32_t cta_rank) {
  if constexpr (kClusterSize == 1) {
    (void)cta_rank;
    mbar_arrive_relaxed(empty_bar);
  } else {
    mbar_arrive_cluster(empty_bar, cta_rank);
  }
}

// Rounds the dynamic smem base up to 1024 B (compute_smem_layout budgets kSmemBaseSlack for it):
// every swizzled tile must start on a 1024-B boundary (the 128B swizzle uses absolute address bits).
__device__ __forceinline__ uint8_t* align_smem_1024(uint8_t* raw) {
  const uint32_t addr = smem_u32(raw);
  return raw + ((1024u - (addr & 1023u)) & 1023u);
}

}  // namespace tilegemm::sm90
#endif
