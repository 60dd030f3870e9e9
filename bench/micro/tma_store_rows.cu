// Micro-benchmark (docs/PERF.md, 2026-12-02 fifth session): how fast can 132 CTAs write a 4096-row
// bf16 matrix whose leading dimension is, or is not, a multiple of 8 elements (16 B)?
//   tma        one 64 x 64 TMA store box per step (the aligned production epilogue's box)
//   classes    row-class maps (the epilogue of commits 030098b–461b2e5, measured slower and reverted): rows
//              r = j mod 8 form a tensor with stride 8·ld from their first 16-B-aligned column;
//              8 stores of 8 rows x 128 B per step
//   thr4       the threads: 4 B per lane, one 128-B row segment per warp store (smem_stores)
//   thr16      the threads: 16 B per lane (aligned ld only)
// Every CTA stores the same 8-KiB smem box over and over to its share of the matrix; L2 is flushed
// before each timed launch; median of 15 (CUDA events). The data written is not checked.
// Build: cmake --build --preset release --target tilegemm_micro_tma_store_rows
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "sm90/ptx.cuh"
#include "sm90/tensor_map.hpp"
#include "micro_common.hpp"

namespace {

using namespace tilegemm::sm90;

struct Maps {
  CUtensorMap m[8];
};

// One box stored, at most 5 stores in flight per issuing thread.
__device__ __forceinline__ void store_box(const CUtensorMap* map, const void* src, int x, int y) {
  tma_store_2d(map, src, x, y);
  tma_store_commit();
  tma_store_wait_read<4>();
}

enum Mode { kTma, kClasses, kThreads4, kThreads16 };

__global__ void store_kernel(const __grid_constant__ Maps maps, Mode mode, uint16_t* d, int64_t ld, int m_boxes,
                             int n_boxes) {
  extern __shared__ uint8_t smem_raw[];
  uint8_t* box = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  for (int i = threadIdx.x; i < 8192; i += blockDim.x) box[i] = uint8_t(i * 7);
  fence_proxy_async_smem();
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int b = blockIdx.x; b < m_boxes * n_boxes; b += gridDim.x) {
    const int row0 = (b / n_boxes) * 64, col0 = (b % n_boxes) * 64;
    if (mode == kTma) {
      if (threadIdx.x == 0) store_box(&maps.m[0], box, col0, row0);
    } else if (mode == kClasses) {
      if (threadIdx.x < 8) store_box(&maps.m[threadIdx.x], box + threadIdx.x * 1024, col0, row0 / 8);
    } else if (mode == kThreads4) {
      for (int r = 0; r < 16; ++r) {  // warp w: rows 16w .. 16w + 15; lane: 4 B of the row
        const int row = 16 * warp + r;
        const uint32_t v = *reinterpret_cast<const uint32_t*>(box + row * 128 + lane * 4);
        uint16_t* g = d + int64_t(row0 + row) * ld + col0 + 2 * lane;
        if ((reinterpret_cast<uintptr_t>(g) & 3u) == 0) {
          *reinterpret_cast<uint32_t*>(g) = v;
        } else {
          g[0] = uint16_t(v);
          g[1] = uint16_t(v >> 16);
        }
      }
    } else {
      for (int s = 0; s < 4; ++s) {  // 8 lanes per row, 4 rows per warp store
        const int row = 16 * warp + 4 * s + lane / 8;
        const uint4 v = *reinterpret_cast<const uint4*>(box + row * 128 + (lane % 8) * 16);
        *reinterpret_cast<uint4*>(d + int64_t(row0 + row) * ld + col0 + 8 * (lane % 8)) = v;
      }
    }
  }
  if (threadIdx.x < 8) tma_store_wait_all<0>();
}

}  // namespace

int main() {
  MICRO_CHECK(cudaFree(nullptr));
  constexpr int kRows = 4096, kCols = 4032;  // 63 boxes of 64 columns per row
  constexpr int kMaxLd = 4104;
  uint16_t* d = nullptr;
  void* flush = nullptr;
  MICRO_CHECK(cudaMalloc(&d, size_t(kRows) * kMaxLd * 2));
  MICRO_CHECK(cudaMalloc(&flush, size_t(256) << 20));
  const int smem = 8192 + 1024;
  MICRO_CHECK(cudaFuncSetAttribute(store_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  const char* names[] = {"tma", "classes", "thr4", "thr16"};
  std::printf("%-8s %6s %10s %8s\n", "mode", "ld", "median_us", "TB/s");
  for (int ld : {4096, 4104, 4095, 4097, 4100}) {
    for (Mode mode : {kTma, kClasses, kThreads4, kThreads16}) {
      if ((mode == kTma || mode == kThreads16) && ld % 8 != 0) continue;  // TMA and 16-B stores need 16-B rows
      Maps maps{};
      if (mode == kTma)
        tilegemm::micro::encode_bf16_map(&maps.m[0], d, kCols, kRows, uint64_t(ld), 64, /*no_promotion=*/true);
      if (mode == kClasses)
        for (int j = 0; j < 8; ++j) {
          const uintptr_t row_j = reinterpret_cast<uintptr_t>(d) + uintptr_t(j) * uintptr_t(ld) * 2;
          const uint64_t shift = ((16 - row_j % 16) % 16) / 2;
          tilegemm::micro::encode_bf16_map(&maps.m[j], reinterpret_cast<void*>(row_j + shift * 2),
                                           (kCols - shift) / 8 * 8, kRows / 8, uint64_t(ld) * 8, 8,
                                           /*no_promotion=*/true);
        }
      const double us = tilegemm::micro::median_launch_us(
          15, [&](int it) { MICRO_CHECK(cudaMemsetAsync(flush, it, size_t(256) << 20)); },
          [&] { store_kernel<<<132, 128, smem>>>(maps, mode, d, ld, kRows / 64, kCols / 64 - 1); });
      const double bytes = double(kRows) * (kCols - 64) * 2;
      std::printf("%-8s %6d %10.1f %8.2f\n", names[mode], ld, us, bytes / (us * 1e-6) / 1e12);
    }
  }
  return 0;
}
