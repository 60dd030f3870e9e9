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
  TmaDescriptor tmap_d;  // D [M, N rounded down to 16 B] row-major, stride ldd: boxes of 64 rows x 128 B (tma_store)
  TmaDescriptor tmap_c;  // C [M, N] row-major, stride ldc: the same boxes (tma_store with C)
  int32_t m = 0, n = 0, k = 0;
  float alpha = 1.0f;
  void* d = nullptr;     // D again, for plain stores: the direct epilogue and the < 8 tail columns
  int64_t ldd = 0;       // elements
  const void* c = nullptr;  // C [M, N] row-major, D's dtype (Config::with_c); may be D itself
  int64_t ldc = 0;
  float beta = 0.0f;
  float* workspace = nullptr;  // split-K: [splits][M][n_pad] fp32 partial tiles
  int32_t splits = 1;          // split-K slices S >= 1, <= the number of k-blocks
  int32_t n_pad = 0;           // split-K: n-blocks · bn, the workspace row length
  void* trace = nullptr;       // traced kernels (Config::trace): the event buffer (trace/event.hpp),
  uint32_t trace_capacity = 0;  // sized by the host for the grid: this many events per lane
};
static_assert(sizeof(TmaDescriptor) == 128 && alignof(TmaDescriptor) == 128, "CUtensorMap layout");
static_assert(sizeof(GemmParams) == 640, "GemmParams layout is shared by g++ and NVRTC");

// The split-K reduction's parameters and block size (splitk_reduce.cuh).
inline constexpr int kReduceThreads = 256;
struct ReduceParams {
  const float* workspace = nullptr;  // [splits][M][n_pad]
  void* d = nullptr;                 // D [M, N] row-major, stride ldd, bf16 (out_fp32 = 0) or fp32
  int64_t ldd = 0;
  const void* c = nullptr;           // C [M, N] row-major, D's dtype, stride ldc; nullptr: none
  int64_t ldc = 0;
  int32_t m = 0, n = 0, n_pad = 0, splits = 1;
  float alpha = 1.0f, beta = 0.0f;
  int32_t out_fp32 = 0;
  int32_t vectors = 1;  // 1: a full 4-column group of D is one aligned 8-B / 16-B store; 0: element by element
};
static_assert(sizeof(ReduceParams) == 72, "ReduceParams layout is shared by g++ and NVRTC");

// The operand repack (pack.cuh): rows x cols elements, (r, c) at src[r * src_row + c * src_col],
// into dst (256-B aligned) with lines of ld_dst elements (a multiple of 8), the rest zero.
struct PackParams {
  const void* src = nullptr;
  void* dst = nullptr;
  int64_t rows = 0, cols = 0;        // the logical matrix copied
  int64_t src_row = 0, src_col = 1;  // element strides of the source
  int64_t ld_dst = 0;                // elements, a multiple of 8
};
static_assert(sizeof(PackParams) == 56, "PackParams layout is shared by g++ and NVRTC");

inline constexpr int kPackThreads = 256;
inline constexpr int kPackTile = 32;  // transpose: 32 x 32 elements per block of 32 x 8 threads

}  // namespace tilegemm::sm90
