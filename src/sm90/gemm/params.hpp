// The run-time parameters of the production kernel: one struct passed by value as a
// `__grid_constant__` kernel parameter (so the tensor maps' addresses are in parameter space, which
// TMA accepts: PTX ISA §9.7.9.25, tensormap operand). The host (src/api/launch.cpp) fills it and
// hands the driver a pointer to it (kernelParams = {&params}); the layout must be the same under
// g++ and NVRTC, hence plain fixed-width fields only and static_asserts on the offsets.
#pragma once

#include "core/host_device.hpp"
#include "core/int_types.hpp"

namespace tilegemm::sm90 {

// Opaque 128-byte TMA descriptor: the layout of the driver's CUtensorMap (cuda.h of CUDA 13 aligns
// it to 128 bytes; TMA needs at least 64), which the host encodes (sm90/tensor_map.hpp) and copies
// here bit for bit. The kernels cannot include cuda.h (NVRTC has no toolkit headers), so they see
// it as this.
struct alignas(128) TmaDescriptor {
  uint64_t opaque[16];
};

struct GemmParams {
  TmaDescriptor tmap_a;  // A [M, K] K-major: boxes of 64 k x bm rows (bm / 2 with A multicast)
  TmaDescriptor tmap_b;  // B [N, K] K-major: boxes of 64 k x bn rows (bn / 2 with B multicast)
  TmaDescriptor tmap_d;  // D [M, N & ~7] row-major, stride ldd: boxes of 64 x 64 (tma_store)
  int32_t m = 0, n = 0, k = 0;
  float alpha = 1.0f;
  void* d = nullptr;     // D again, for plain stores: the direct epilogue and the < 8 tail columns
  int64_t ldd = 0;       // elements
  float* workspace = nullptr;  // split-K: [splits][M][n_pad] fp32 partial tiles
  int32_t splits = 1;          // split-K slices S >= 1, <= the number of k-blocks
  int32_t n_pad = 0;           // split-K: n-blocks · bn, the workspace row length
  void* trace = nullptr;       // traced kernels (Config::trace): the event buffer (trace/event.hpp),
  uint32_t trace_capacity = 0;  // sized by the host for the grid: this many events per lane
};
static_assert(sizeof(TmaDescriptor) == 128 && alignof(TmaDescriptor) == 128, "CUtensorMap layout");
static_assert(sizeof(GemmParams) == 512, "GemmParams layout is shared by g++ and NVRTC");

// The split-K reduction's parameters and block size (splitk_reduce.cuh).
inline constexpr int kReduceThreads = 256;
struct ReduceParams {
  const float* workspace = nullptr;  // [splits][M][n_pad]
  void* d = nullptr;                 // D [M, N] row-major bf16, stride ldd
  int64_t ldd = 0;
  int32_t m = 0, n = 0, n_pad = 0, splits = 1;
  float alpha = 1.0f;
};
static_assert(sizeof(ReduceParams) == 48, "ReduceParams layout is shared by g++ and NVRTC");

}  // namespace tilegemm::sm90
