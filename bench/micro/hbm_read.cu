// Micro-benchmark (docs/PERF.md, thirty-eighth session): how fast can the GPU read a weight matrix
// W [N, K] bf16 (K contiguous), the way a decode GEMM (M = 1) streams it, and the plain way?
//   seq        every byte once, 16-B loads by all threads (ld.global.nc.v4, 4 in flight per thread,
//              grid-stride): the read rate the access pattern cannot beat
//   tma        what the production kernel's producer does: persistent CTAs, each owning whole
//              blocks of R rows (and, split S ways, a 1/S share of K), streaming 64-K boxes of R
//              rows through a ring of `stages` slots (mbarrier full/empty); nothing is computed,
//              one warp waits on each slot and frees it. `boxes` consecutive k-blocks per slot
//              (1: the kernel's stage; 2 or 4: longer runs of each row per slot).
// L2 is flushed (a 256-MiB memset) before each timed launch; median of 11 (CUDA events).
// Usage: tilegemm_micro_hbm_read [N K]  (default 7168 16384, the llm suite's 1x7168x16384)
// Build: cmake --build --preset release --target tilegemm_micro_hbm_read
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

__global__ void seq_kernel(const uint4* __restrict__ w, int64_t n16, uint32_t* sink) {
  uint32_t acc = 0;
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n16; i += 4 * stride) {
    uint4 v[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) v[u] = __ldg(w + i + u * stride);
#pragma unroll
    for (int u = 0; u < 4; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  for (; i < n16; i += stride) {
    const uint4 v = __ldg(w + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u) sink[0] = acc;  // never (keeps the loads)
}

constexpr int kMaxStages = 24;

// Units: (row block rb, K share s) for rb < row_blocks, s < split; CTA p takes units p, p + P, ...
// Each slot holds `boxes` boxes of 64 K x R rows (R * 128 B each).
__global__ void tma_kernel(const __grid_constant__ CUtensorMap map, int rows, int row_blocks, int k_blocks, int split,
                           int stages, int boxes) {
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  __shared__ uint64_t full[kMaxStages], empty[kMaxStages];
  const uint32_t box_bytes = uint32_t(rows) * 128u, slot_bytes = box_bytes * uint32_t(boxes);
  if (threadIdx.x == 0) {
    for (int s = 0; s < stages; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], 1);
    }
    fence_barrier_init();
  }
  __syncthreads();
  const int units = row_blocks * split;
  const int kb_per_share = (k_blocks + split - 1) / split;
  if (threadIdx.x == 0) {  // producer
    int stage = 0;
    uint32_t phase = 0;
    for (int u = blockIdx.x; u < units; u += gridDim.x) {
      const int rb = u / split, share = u % split;
      const int kb0 = share * kb_per_share, kb1 = min(k_blocks, kb0 + kb_per_share);
      for (int kb = kb0; kb < kb1; kb += boxes) {
        mbar_wait(&empty[stage], phase ^ 1u);
        const int n = min(boxes, kb1 - kb);
        mbar_arrive_expect_tx(&full[stage], box_bytes * uint32_t(n));
        for (int b = 0; b < n; ++b)
          tma_load_2d(smem + stage * slot_bytes + b * box_bytes, &map, &full[stage], (kb + b) * 64, rb * rows);
        if (++stage == stages) {
          stage = 0;
          phase ^= 1u;
        }
      }
    }
  } else if (threadIdx.x == 32) {  // consumer: frees each slot once it is full
    int stage = 0;
    uint32_t phase = 0;
    for (int u = blockIdx.x; u < units; u += gridDim.x) {
      const int share = u % split;
      const int kb0 = share * kb_per_share, kb1 = min(k_blocks, kb0 + kb_per_share);
      for (int kb = kb0; kb < kb1; kb += boxes) {
        mbar_wait(&full[stage], phase);
        mbar_arrive(&empty[stage]);
        if (++stage == stages) {
          stage = 0;
          phase ^= 1u;
        }
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t n = argc > 2 ? std::atoll(argv[1]) : 7168, k = argc > 2 ? std::atoll(argv[2]) : 16384;
  if (n % 128 != 0 || k % 256 != 0) {
    std::fprintf(stderr, "N must be a multiple of 128 and K of 256\n");
    return 2;
  }
  MICRO_CHECK(cudaFree(nullptr));
  int sms = 0;
  MICRO_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const size_t bytes = size_t(n) * size_t(k) * 2;
  void* w = nullptr;
  void* flush = nullptr;
  uint32_t* sink = nullptr;
  MICRO_CHECK(cudaMalloc(&w, bytes));
  MICRO_CHECK(cudaMemset(w, 1, bytes));
  MICRO_CHECK(cudaMalloc(&flush, size_t(256) << 20));
  MICRO_CHECK(cudaMalloc(&sink, 4));
  bool read_flush = false;  // write: memset (dirty lines left in L2), read: the seq kernel over the buffer
  auto time_it = [&](auto&& launch) {
    return tilegemm::micro::median_launch_us(
        11,
        [&](int it) {
          if (read_flush) {
            seq_kernel<<<sms * 4, 256>>>(static_cast<const uint4*>(flush), int64_t((size_t(256) << 20) / 16), sink);
          } else {
            MICRO_CHECK(cudaMemsetAsync(flush, it, size_t(256) << 20));
          }
        },
        launch);
  };
  MICRO_CHECK(cudaMemset(flush, 0, size_t(256) << 20));
  MICRO_CHECK(cudaFuncSetAttribute(tma_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  for (int fk = 0; fk < 2; ++fk) {
    read_flush = fk == 1;
    std::printf("W %lld x %lld bf16 (%.1f MB), %d SMs, L2 flushed by a %s\n", (long long)n, (long long)k,
                bytes / 1e6, sms, read_flush ? "read" : "write");
    std::printf("%-6s %5s %6s %6s %6s %6s %6s %10s %8s\n", "mode", "rows", "split", "ctas", "stages", "boxes", "units",
                "median_us", "TB/s");
    for (int per_sm : {4, 8}) {
      const double us = time_it([&] {
        seq_kernel<<<sms * per_sm, 256>>>(static_cast<const uint4*>(w), int64_t(bytes / 16), sink);
      });
      std::printf("%-6s %5s %6s %6d %6s %6s %6s %10.1f %8.2f\n", "seq", "-", "-", sms * per_sm, "-", "-", "-", us,
                  bytes / (us * 1e-6) / 1e12);
    }
    struct Case {
      int rows, split, stages, boxes;
    };
    // rows 128 x 12 stages: the 128x16 swap-AB tile's ring; 64 x 16: the 64x16 one.
    const Case cases[] = {{128, 1, 12, 1}, {128, 2, 12, 1}, {128, 3, 12, 1}, {64, 1, 16, 1}, {64, 2, 16, 1},
                          {128, 1, 6, 2},  {128, 2, 6, 2},  {128, 1, 3, 4},  {128, 2, 3, 4}, {256, 1, 6, 1},
                          {256, 2, 6, 1},  {32, 1, 24, 1},  {32, 1, 12, 2}};
    for (const Case& c : cases) {
      CUtensorMap map;
      tilegemm::micro::encode_bf16_map(&map, w, uint64_t(k), uint64_t(n), uint64_t(k), uint32_t(c.rows));
      const int row_blocks = int(n / c.rows), k_blocks = int(k / 64);
      const int units = row_blocks * c.split;
      const int ctas = std::min(units, sms);
      const int smem = c.rows * 128 * c.boxes * c.stages + 1024;
      if (smem > 200 * 1024) continue;
      const double us = time_it([&] {
        tma_kernel<<<ctas, 64, smem>>>(map, c.rows, row_blocks, k_blocks, c.split, c.stages, c.boxes);
      });
      std::printf("%-6s %5d %6d %6d %6d %6d %6d %10.1f %8.2f\n", "tma", c.rows, c.split, ctas, c.stages, c.boxes, units,
                  us, bytes / (us * 1e-6) / 1e12);
    }
  }
  return 0;
}
