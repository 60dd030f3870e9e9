// On a machine without a GPU (or driver) the compile half works and loading fails with a Status
// that says so; nothing crashes. With a GPU present this is tests/gpu's business: skipped.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include "jit/probe.hpp"
#include "jit_test_util.hpp"

namespace tilegemm::jit {
namespace {

bool gpu_present() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

TEST(JitNoDevice, GetKernelReturnsNoDevice) {
  if (gpu_present()) GTEST_SKIP() << "a GPU is present; tests/gpu/test_jit_gpu.cpp loads and launches";
  test::TestRuntime rt("");
  for (int attempt = 0; attempt < 2; ++attempt) {
    const Kernel* kernel = reinterpret_cast<const Kernel*>(&rt);  // must be reset
    CubinInfo info;
    const Status s = rt->get_kernel(probe_source(1), &kernel, &info);
    ASSERT_FALSE(s.ok());
    EXPECT_TRUE(s.code == ErrorCode::no_device || s.code == ErrorCode::cuda_error) << to_string(s.code);
    EXPECT_EQ(s.argument, "device");
    EXPECT_NE(s.message.find("CUDA"), std::string::npos) << s.message;
    EXPECT_EQ(kernel, nullptr);
    EXPECT_NE(info.cubin, nullptr) << "the cubin is made without a GPU";
  }
  EXPECT_EQ(rt->counters().compiles, 1u);  // the second attempt reused the cubin
  const auto records = rt->records();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_FALSE(records[0].loaded);
}

TEST(JitNoDevice, DriverVersionIsZeroWithoutADriver) {
  if (gpu_present()) GTEST_SKIP() << "a GPU is present";
  int version = -1;
  if (cudaDriverGetVersion(&version) != cudaSuccess) version = 0;
  EXPECT_EQ(version, 0);
}

}  // namespace
}  // namespace tilegemm::jit
