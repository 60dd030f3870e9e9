// Micro-benchmark (docs/PERF.md, fifty-second session): the fixed cost of a kernel that does nothing,
// timed the way `tilegemm bench` times a GEMM (CUPTI kernel time, L2 flushed by a memset before each
// call, median of 30: src/bench/timer.hpp). It separates what any launch costs from what a kernel
// does: a decode GEMM (M = 1) looked like ~5 us of fixed cost on top of its weight stream, and this
// file showed the launch is not it (0.86 us, any shared memory; docs/PERF.md, fifty-second and
// fifty-third sessions). Kernels:
//   empty      every thread passes one __syncthreads (or a cluster barrier) and exits
//   one_load   thread 0 inits an mbarrier, issues one 64 x 64 bf16 TMA box (8 KB, a row block of its
//              own) and waits for it: the launch plus the first load's round trip
// over the dynamic shared memory a CTA asks for (0 .. 200 KB: the GEMM's decode configs ask for
// 169 KB), the CTA count (33 .. 132), the cluster size (1, 2, 4, 8) and threads per CTA.
// Usage: tilegemm_micro_launch_floor
// Build: cmake --build --preset release --target tilegemm_micro_launch_floor
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "bench/timer.hpp"
#include "micro_common.hpp"
#include "sm90/ptx.cuh"

namespace {

using namespace tilegemm::sm90;

template <bool kCluster>
__global__ void empty_kernel(uint32_t* sink) {
  extern __shared__ uint8_t smem_raw[];
  if constexpr (kCluster) {
    cluster_sync();
  } else {
    __syncthreads();
  }
  if (threadIdx.x == 0 && blockIdx.x == 0xffffffffu) sink[0] = smem_raw[0];  // never
}

__global__ void one_load_kernel(const __grid_constant__ CUtensorMap map, uint32_t* sink) {
  extern __shared__ uint8_t smem_raw[];
  __shared__ uint64_t full;
  uint8_t* smem = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  if (threadIdx.x == 0) {
    prefetch_tensor_map(&map);
    mbar_init(&full, 1);
    fence_barrier_init();
    mbar_arrive_expect_tx(&full, 64u * 128u);
    tma_load_2d(smem, &map, &full, 0, int(blockIdx.x) * 64);
    mbar_wait(&full, 0u);
    if (smem[0] == 0xffu && blockIdx.x == 0xffffffffu) sink[0] = 1;  // never
  }
}

double time_us(const std::function<cudaError_t(cudaStream_t)>& launch) {
  tilegemm::bench::TimingOptions opt;
  opt.warmup = 5;
  opt.iters = 30;
  tilegemm::bench::Timing t;
  MICRO_CHECK(tilegemm::bench::time_on_device(launch, opt, nullptr, &t));
  return t.median_us;
}

cudaError_t launch_ex(const void* fn, void** args, int grid, int threads, int smem, int cluster) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(unsigned(grid));
  cfg.blockDim = dim3(unsigned(threads));
  cfg.dynamicSmemBytes = size_t(smem);
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = unsigned(cluster);
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = cluster > 1 ? 1 : 0;
  return cudaLaunchKernelExC(&cfg, fn, args);
}

}  // namespace

int main() {
  MICRO_CHECK(cudaFree(nullptr));
  cudaDeviceProp prop{};
  MICRO_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d SMs; CUPTI kernel time, L2 flushed (memset) before each call, median of 30 (%s)\n", prop.name,
              prop.multiProcessorCount, tilegemm::bench::cupti_available() ? "cupti" : "events: no CUPTI");
  uint32_t* sink = nullptr;
  MICRO_CHECK(cudaMalloc(&sink, 4));
  constexpr int kRows = 132 * 64, kCols = 64;
  void* w = nullptr;
  MICRO_CHECK(cudaMalloc(&w, size_t(kRows) * kCols * 2));
  MICRO_CHECK(cudaMemset(w, 1, size_t(kRows) * kCols * 2));
  CUtensorMap map;
  tilegemm::micro::encode_bf16_map(&map, w, kCols, kRows, kCols, 64);
  const int max_smem = 200 * 1024;
  for (const void* fn : {reinterpret_cast<const void*>(&empty_kernel<false>),
                         reinterpret_cast<const void*>(&empty_kernel<true>),
                         reinterpret_cast<const void*>(&one_load_kernel)})
    MICRO_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, max_smem));

  std::printf("%-9s %5s %7s %8s %9s\n", "kernel", "CTAs", "threads", "smem KB", "median us");
  const int smems[] = {0, 16 * 1024, 64 * 1024, 128 * 1024, 169 * 1024, 200 * 1024};
  for (int grid : {33, 66, 132})
    for (int threads : {128, 384})
      for (int smem : smems) {
        void* args[] = {&sink};
        const double us = time_us([&](cudaStream_t) {
          return launch_ex(reinterpret_cast<const void*>(&empty_kernel<false>), args, grid, threads, smem, 1);
        });
        std::printf("%-9s %5d %7d %8d %9.2f\n", "empty", grid, threads, smem / 1024, us);
      }
  for (int cluster : {2, 4, 8})
    for (int grid : {72, cluster == 8 ? 128 : 132})
      for (int smem : {0, 169 * 1024}) {
        void* args[] = {&sink};
        const double us = time_us([&](cudaStream_t) {
          return launch_ex(reinterpret_cast<const void*>(&empty_kernel<true>), args, grid, 384, smem, cluster);
        });
        std::printf("%-9s %5d %7d %8d %9.2f\n", ("empty c" + std::to_string(cluster)).c_str(), grid, 384, smem / 1024,
                    us);
      }
  for (int grid : {33, 132})
    for (int smem : smems) {
      void* args[] = {&map, &sink};
      const int bytes = smem < 9 * 1024 ? 9 * 1024 : smem;  // the 8-KB box at a 1024-B aligned start
      const double us = time_us([&](cudaStream_t) {
        return launch_ex(reinterpret_cast<const void*>(&one_load_kernel), args, grid, 384, bytes, 1);
      });
      std::printf("%-9s %5d %7d %8d %9.2f\n", "one_load", grid, 384, smem / 1024, us);
    }
  return 0;
}
