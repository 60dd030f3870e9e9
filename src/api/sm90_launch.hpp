// The sm90 path's launch: a Config -> its JIT-compiled kernel on the current device -> tensor
// maps and GemmParams -> cuLaunchKernelEx (and the split-K reduce kernel after it).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "plan/config.hpp"
#include "schedule/tile_mapping.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm::jit {
class Kernel;
}

namespace tilegemm::detail {

// A Config's kernel, ready on one device: compiled (or loaded from the cache), its dynamic smem
// limit raised, and the persistent grid size known.
struct PreparedKernel {
  plan::Config config;
  const jit::Kernel* kernel = nullptr;
  int resident_ctas = 0;  // CTAs of this kernel resident at once on the device, in whole clusters
};

// Get-or-compile the kernel of `config` and size its persistent grid on `device` (the current
// device). Cached per (device, kernel source): the second call for the same code is a map lookup.
Status prepare_kernel(const plan::Config& config, int device, PreparedKernel* out);

// The tile grid and order of `config` for an M x N output (what the kernel walks).
sched::Schedule config_schedule(const plan::Config& config, int m, int n);
// Split-K slices that run: config.split_k, at most one per k-block.
int effective_splits(const plan::Config& config, int64_t k);
// Bytes of fp32 partials a split-K config writes for `args` (0 without split-K).
size_t splitk_workspace_bytes(const GemmArgs& args, const plan::Config& config);

// Enqueues the copies of r.packs (route.hpp) into `workspace` (r.pack_bytes, 256-B aligned) on
// `stream`: the operands the kernel then reads (launch_args).
Status launch_packs(const struct Route& r, void* workspace, cudaStream_t stream);

// CTAs launch_sm90 launches: every work unit (tile, or tile x split-K slice), at most the resident
// CTAs when persistent.
int64_t launch_grid(const GemmArgs& args, const PreparedKernel& prepared);

// Enqueues D = alpha · A·Bᵀ (+ beta · C) for an sm90-routed call (route.hpp) with a prepared kernel. With
// split-K, `workspace` (splitk_workspace_bytes of it, splitk_workspace.hpp) receives the fp32
// partials and the reduce kernel follows on the same stream. A traced config (Config::trace) gets
// its event buffer as `trace` (trace_capture.hpp).
struct TraceTarget {
  void* buffer = nullptr;      // trace/event.hpp layout, sized for launch_grid() CTAs
  uint32_t lane_capacity = 0;  // events per lane
};
Status launch_sm90(const GemmArgs& args, const PreparedKernel& prepared, float* workspace, TraceTarget trace = {});

}  // namespace tilegemm::detail
