// Sources of the probe kernel (probe/probe_kernel.cuh): the smallest kernel that exercises the
// whole JIT path (embedded header, sm_90a-only instruction, struct parameter, cluster, dynamic smem).
// Used by the JIT tests and the compile-time benchmark; a self-check command may use it too.
#pragma once

#include "jit/jit.hpp"
#include "jit/probe/probe_params.h"

namespace tilegemm::jit {

// A probe that issues `k_steps` wgmma instructions (1 <= k_steps <= 64); each k_steps value is a
// different source, kernel name and cache key: "tg_probe_k<k_steps>".
KernelSource probe_source(int k_steps);

}  // namespace tilegemm::jit
