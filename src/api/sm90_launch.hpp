// The sm90 path's launch: a Config -> its JIT-compiled kernel on the current device -> tensor
// maps and GemmParams -> cuLaunchKernelEx: one launch (k-splits are summed inside the kernel).
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
// The k-split fix-up's workspace (Config::stream_k, sm90/gemm/fixup.cuh): partial tiles, and
// counters that are 0 between launches. The counters sit at a fixed place (the start of the call
// workspace, gemm.cpp), zeroed when that is allocated; every launch leaves them 0 again.
inline constexpr size_t kKSplitCounterBytes = size_t(sm90::kKSplitCounters) * sizeof(uint32_t);
struct KSplitWorkspace {
  float* partials = nullptr;
  uint32_t* counters = nullptr;
};
// The problem a config's kernel computes for `args`: M x N x K of D, or N x M x K with swap-AB
// (Config::d_col_major: the kernel computes Dᵀ = B·Aᵀ, A and B trade places).
struct KernelExtents {
  int64_t m = 0, n = 0, k = 0;
};
KernelExtents kernel_extents(const GemmArgs& args, const plan::Config& config);
// The k-split a prepared config launches with for `args` (sm90::config_k_split).
sched::KSplit launch_k_split(const GemmArgs& args, const PreparedKernel& prepared);
// The partial tiles of decomposition `ks` (one per worker) in bytes (its grid: KSplit::launch_ctas,
// its counters: sm90::ksplit_counters).
size_t ksplit_partial_bytes(const sched::KSplit& ks, const plan::Config& config);
// The partial bytes a prepared config writes for `args` (0 without stream_k).
size_t ksplit_workspace_bytes(const GemmArgs& args, const PreparedKernel& prepared);

// Enqueues the copies of r.packs (route.hpp) into `workspace` (r.pack_bytes, 256-B aligned) on
// `stream`: the operands the kernel then reads (launch_args). `programmatic`: each copy launched
// with programmatic dependent launch (jit::LaunchDims::programmatic; the copy waits for the kernel
// before it, and the next kernel starts as its CTAs complete). `pinned_ctas` > 0: the line copies
// run in at most that many blocks of sm90::kPackPinnedThreads, one per SM (sm90/gemm/params.hpp),
// instead of spreading over the GPU; transposes are unaffected.
Status launch_packs(const struct Route& r, void* workspace, cudaStream_t stream, bool programmatic = false,
                    int pinned_ctas = 0);

// CTAs launch_sm90 launches: one per tile (static), or at most the resident CTAs (persistent; with
// stream_k: KSplit::launch_ctas).
int64_t launch_grid(const GemmArgs& args, const PreparedKernel& prepared);

// Enqueues D = alpha · A·Bᵀ (+ beta · C) for an sm90-routed call (route.hpp) with a prepared kernel,
// one kernel launch. With stream_k, `workspace` holds the fix-up's partials
// (ksplit_workspace_bytes) and counters. A traced config (Config::trace) gets its event buffer as
// `trace` (trace_capture.hpp). `programmatic`: launched with programmatic dependent launch (the
// kernel's prologue overlaps the kernel before it, which it waits for before touching memory).
struct TraceTarget {
  void* buffer = nullptr;      // trace/event.hpp layout, sized for launch_grid() CTAs
  uint32_t lane_capacity = 0;  // events per lane
};
Status launch_sm90(const GemmArgs& args, const PreparedKernel& prepared, KSplitWorkspace workspace = {},
                   TraceTarget trace = {}, bool programmatic = false);

}  // namespace tilegemm::detail
