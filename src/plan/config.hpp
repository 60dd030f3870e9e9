// The planner's view of THE configuration type. Config itself lives with the kernel
// (src/sm90/gemm/config.hpp): the planner enumerates, filters and scores exactly the values the
// kernel template instantiates, and gemm() launches the one it picks. This header adds the
// host-side names the planner, explain and the JIT share.
#pragma once

#include "sm90/gemm/config.hpp"
#include "sm90/gemm/traits.cuh"  // config_smem_layout, staging_elem_bytes (TG_HD)

namespace tilegemm::plan {

using sm90::Config;
using sm90::ConfigRule;
using sm90::Epilogue;

// Which operand a 2-CTA cluster shares through TMA multicast (seed: cluster_N = 2 halves A's
// upstream reads, cluster_M = 2 halves B's).
enum class Multicast : int { none = 0, a = 1, b = 2 };
inline constexpr Multicast multicast_of(const Config& c) {
  return c.cluster_n == 2 ? Multicast::a : c.cluster_m == 2 ? Multicast::b : Multicast::none;
}

}  // namespace tilegemm::plan
