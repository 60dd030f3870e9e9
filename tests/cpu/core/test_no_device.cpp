// no_device_reason (src/core/no_device.hpp): the sentence a user reads when there is no device.
// Pure in its three-argument form, so every case runs on any machine.
#include <string>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "core/no_device.hpp"

namespace tilegemm {
namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// No driver at all: cudaErrorInsufficientDriver with driver version 0. The runtime's own text
// ("CUDA driver version is insufficient") must not be what the user reads.
TEST(NoDeviceReason, NoDriverSaysSo) {
  const std::string s = no_device_reason(cudaErrorInsufficientDriver, 0, 13000);
  EXPECT_EQ(s.rfind("no NVIDIA driver / no GPU found", 0), 0u) << s;
  EXPECT_FALSE(has(s, "insufficient")) << s;
  EXPECT_TRUE(has(s, "cudaErrorInsufficientDriver")) << s;  // the raw code, for a search engine
}

// A driver that is there but too old: then "update the driver" is the right advice, with both versions.
TEST(NoDeviceReason, OldDriverNamesBothVersions) {
  const std::string s = no_device_reason(cudaErrorInsufficientDriver, 12020, 13000);
  EXPECT_TRUE(has(s, "12.2")) << s;
  EXPECT_TRUE(has(s, "13.0")) << s;
  EXPECT_TRUE(has(s, "newer driver")) << s;
  EXPECT_FALSE(has(s, "no NVIDIA driver")) << s;
}

TEST(NoDeviceReason, DriverWithoutDevice) {
  const std::string s = no_device_reason(cudaErrorNoDevice, 13000, 13000);
  EXPECT_EQ(s.rfind("no GPU found", 0), 0u) << s;
  EXPECT_TRUE(has(s, "CUDA 13.0")) << s;
}

TEST(NoDeviceReason, OtherErrorsKeepTheRuntimesWords) {
  const std::string s = no_device_reason(cudaErrorDevicesUnavailable, 13000, 13000);
  EXPECT_TRUE(has(s, "cudaErrorDevicesUnavailable")) << s;
  EXPECT_TRUE(has(s, cudaGetErrorString(cudaErrorDevicesUnavailable))) << s;
}

// The process form agrees with this machine: on a machine without a driver (CI) it is the
// no-driver sentence.
TEST(NoDeviceReason, ThisMachine) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  int driver = -1;
  if (cudaDriverGetVersion(&driver) != cudaSuccess || driver != 0) GTEST_SKIP() << "a driver is installed";
  EXPECT_EQ(no_device_reason(err).rfind("no NVIDIA driver / no GPU found", 0), 0u) << no_device_reason(err);
}

}  // namespace
}  // namespace tilegemm
