// The JIT path on an SM90 GPU: the probe kernel (src/jit/probe/) compiled by NVRTC, loaded through
// the driver (cuLibraryLoadData), launched by cuLaunchKernelEx with a 2-CTA cluster, one struct
// parameter and more than 48 KiB of dynamic shared memory; every block's outputs are checked.
#include <cstring>
#include <vector>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "jit/probe.hpp"

namespace tilegemm::jit {
namespace {

using namespace probe;

struct DeviceFloats {
  float* p = nullptr;
  size_t n = 0;
  explicit DeviceFloats(size_t count) : n(count) {
    EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&p), n * sizeof(float)), cudaSuccess);
    EXPECT_EQ(cudaMemset(p, 0xFF, n * sizeof(float)), cudaSuccess);  // NaN: unwritten slots fail
  }
  ~DeviceFloats() { cudaFree(p); }
  std::vector<float> read() const {
    std::vector<float> h(n);
    EXPECT_EQ(cudaMemcpy(h.data(), p, n * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
  }
};

const Kernel* probe_kernel(int k_steps) {
  const Kernel* k = nullptr;
  CubinInfo info;
  const Status s = get_kernel(probe_source(k_steps), &k, &info);
  EXPECT_TRUE(s.ok()) << s.message;
  return k;
}

void check_blocks(const std::vector<float>& out, int blocks, int k_steps, float scale, int cluster, uint32_t smem,
                  unsigned tag) {
  for (int b = 0; b < blocks; ++b) {
    const float* o = out.data() + b * kOutPerBlock;
    EXPECT_EQ(o[kSlotProduct], scale * 16.0f * k_steps) << "block " << b;
    EXPECT_EQ(o[kSlotAllAgree], 1.0f) << "block " << b << ": some wgmma accumulator is wrong";
    EXPECT_EQ(o[kSlotClusterRank], float(b % cluster)) << "block " << b;
    EXPECT_EQ(o[kSlotClusterSize], float(cluster)) << "block " << b;
    EXPECT_EQ(o[kSlotTag], float(tag)) << "block " << b;
    EXPECT_EQ(o[kSlotDynamicSmem], float(smem)) << "block " << b;
  }
}

TEST(JitGpu, ProbeRunsInClustersWithAStructParameter) {
  const Kernel* k = probe_kernel(2);
  ASSERT_NE(k, nullptr);
  const Kernel* again = nullptr;
  ASSERT_TRUE(get_kernel(probe_source(2), &again).ok());
  EXPECT_EQ(again, k) << "one Kernel per source";
  if (k->param_bytes() != 0) EXPECT_EQ(k->param_bytes(), sizeof(ProbeParams));

  constexpr int kBlocks = 8;
  DeviceFloats out(kBlocks * kOutPerBlock);
  LaunchDims dims;
  dims.grid = dim3(kBlocks);
  dims.block = dim3(kThreads);
  dims.smem_bytes = 100 * 1024;  // above the 48 KiB default: needs the per-device attribute
  dims.cluster = dim3(2, 1, 1);
  const ProbeParams params{out.p, 0.5f, 1234u};
  const Status s = launch(*k, dims, params);
  ASSERT_TRUE(s.ok()) << s.message;
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  check_blocks(out.read(), kBlocks, 2, 0.5f, 2, dims.smem_bytes, 1234u);
}

TEST(JitGpu, ProbeRunsWithoutClusterOnAStream) {
  const Kernel* k = probe_kernel(3);
  ASSERT_NE(k, nullptr);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  constexpr int kBlocks = 3;
  DeviceFloats out(kBlocks * kOutPerBlock);
  LaunchDims dims;
  dims.grid = dim3(kBlocks);
  dims.block = dim3(kThreads);
  dims.smem_bytes = kMinDynamicSmem;
  dims.stream = stream;
  ASSERT_TRUE(launch(*k, dims, ProbeParams{out.p, 2.0f, 7u}).ok());
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  check_blocks(out.read(), kBlocks, 3, 2.0f, 1, dims.smem_bytes, 7u);
  cudaStreamDestroy(stream);
}

TEST(JitGpu, MaxActiveClustersSizesAPersistentGrid) {
  const Kernel* k = probe_kernel(2);
  ASSERT_NE(k, nullptr);
  LaunchDims dims;
  dims.block = dim3(kThreads);
  dims.smem_bytes = 100 * 1024;
  dims.cluster = dim3(2, 1, 1);
  int clusters = 0;
  const Status s = max_active_clusters(*k, dims, &clusters);
  ASSERT_TRUE(s.ok()) << s.message;
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  EXPECT_GT(clusters, 0);
  EXPECT_LE(clusters * 2, sms * 2) << "100 KiB blocks: at most 2 per SM";
}

TEST(JitGpu, BadLaunchesComeBackAsValues) {
  const Kernel* k = probe_kernel(2);
  ASSERT_NE(k, nullptr);
  DeviceFloats out(kOutPerBlock);
  LaunchDims dims;
  dims.block = dim3(kThreads);
  dims.smem_bytes = kMinDynamicSmem;
  const ProbeParams params{out.p, 1.0f, 1u};
  if (k->param_bytes() != 0) {
    const Status s = launch(*k, dims, &params, sizeof(params) - 4);
    EXPECT_EQ(s.code, ErrorCode::invalid_argument);
    EXPECT_EQ(s.argument, "params_size");
  }
  dims.smem_bytes = 1024 * 1024;  // beyond any opt-in limit
  Status s = launch(*k, dims, params);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.argument, "dims.smem_bytes") << s.message;
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "a refused launch leaves no sticky error";
}

TEST(JitGpu, RecordsListTheLoadedKernels) {
  ASSERT_NE(probe_kernel(2), nullptr);
  bool found = false;
  for (const KernelRecord& r : loaded_kernels())
    if (r.kernel_name == "tg_probe_k2") found = r.loaded && r.cubin_bytes > 0 && r.key.size() == 64;
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace tilegemm::jit
