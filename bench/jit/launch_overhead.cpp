// Host cost of one jit::launch (the probe kernel, 1 block, cluster 1 and 2), measured as the
// enqueue time of 10000 launches; the GPU work itself is overlapped. Needs an SM90 GPU.
//   tilegemm_jit_launch_overhead
#include <chrono>
#include <cstdio>

#include <cuda_runtime_api.h>

#include "jit/probe.hpp"

using namespace tilegemm::jit;

int main() {
  const Kernel* k = nullptr;
  const tilegemm::Status s = get_kernel(probe_source(1), &k);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.message.c_str());
    return 1;
  }
  float* out = nullptr;
  cudaMalloc(reinterpret_cast<void**>(&out), 2 * probe::kOutPerBlock * sizeof(float));
  cudaStream_t stream = nullptr;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  for (unsigned cluster : {1u, 2u}) {
    LaunchDims dims;
    dims.grid = dim3(cluster);
    dims.block = dim3(probe::kThreads);
    dims.smem_bytes = probe::kMinDynamicSmem;
    dims.cluster = dim3(cluster, 1, 1);
    dims.stream = stream;
    const probe::ProbeParams params{out, 1.0f, 0u};
    for (int i = 0; i < 100; ++i) launch(*k, dims, params);  // warm up
    cudaStreamSynchronize(stream);
    constexpr int kBatches = 10, kPerBatch = 1000;
    double seconds = 0;
    for (int b = 0; b < kBatches; ++b) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < kPerBatch; ++i)
        if (!launch(*k, dims, params).ok()) return 1;
      seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      cudaStreamSynchronize(stream);  // keep the queue short: time the host side only
    }
    std::printf("cluster %u: %.2f us per jit::launch (host)\n", cluster, 1e6 * seconds / (kBatches * kPerBatch));
  }
  cudaStreamDestroy(stream);
  cudaFree(out);
  return 0;
}
