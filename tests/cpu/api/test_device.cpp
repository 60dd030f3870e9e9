// check_device() and gemm()'s order of checks. These run on any machine: without a usable GPU the
// expected answer is no_device, on an H200 it is ok, on another GPU no_device naming its CC.
#include <string>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "tilegemm/tilegemm.hpp"

namespace tilegemm {
namespace {

enum class Machine { no_gpu, sm90, other_gpu };

// Asks cudart directly, independently of check_device().
Machine this_machine(int& major, int& minor) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) return Machine::no_gpu;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess)
    return Machine::no_gpu;
  return major == 9 && minor == 0 ? Machine::sm90 : Machine::other_gpu;
}

TEST(CheckDevice, ReportsTheMachineItRunsOn) {
  int major = 0, minor = 0;
  const Machine machine = this_machine(major, minor);
  const Status s = check_device();
  switch (machine) {
    case Machine::no_gpu:
      EXPECT_EQ(s.code, ErrorCode::no_device) << s.message;
      EXPECT_EQ(s.argument, "device");
      // Without a driver (cudaDriverGetVersion: 0) the sentence says so, never the runtime's
      // "driver version is insufficient", which sends a user to update a driver that is not there.
      if (int driver = -1; cudaDriverGetVersion(&driver) == cudaSuccess && driver == 0) {
        EXPECT_EQ(s.message.rfind("no NVIDIA driver / no GPU found", 0), 0u) << s.message;
        EXPECT_EQ(s.message.find("insufficient"), std::string::npos) << s.message;
      }
      EXPECT_FALSE(s.message.empty());
      break;
    case Machine::sm90:
      EXPECT_TRUE(s.ok()) << s.message;
      break;
    case Machine::other_gpu:
      EXPECT_EQ(s.code, ErrorCode::no_device) << s.message;
      EXPECT_NE(s.message.find(std::to_string(major) + "." + std::to_string(minor)),
                std::string::npos)
          << s.message;
      break;
  }
}

// Validation comes before the device: a bad argument is reported on every machine.
TEST(Gemm, ReportsInvalidArgumentsBeforeLookingForADevice) {
  GemmArgs args;
  args.a = {nullptr, 16, 16, 16, DType::bf16, Major::k_major};  // null but not empty
  args.b = {reinterpret_cast<const void*>(0x10000), 16, 16, 16, DType::bf16, Major::k_major};
  args.d = {reinterpret_cast<void*>(0x20000), 16, 16, 16, DType::bf16, row_major};
  const Status s = gemm(args);
  EXPECT_EQ(s.code, ErrorCode::invalid_argument) << s.message;
  EXPECT_EQ(s.argument, "a.ptr");
}

// An empty problem (M = 0, A and D null) touches no memory, so it can run anywhere: gemm()
// answers exactly what check_device() answers (ok on an H200, no_device elsewhere).
TEST(Gemm, EmptyProblemReturnsTheDeviceCheck) {
  GemmArgs args;
  args.a = {nullptr, 0, 32, 32, DType::bf16, Major::k_major};
  // B has elements, so it needs an address; an empty problem never reads it.
  args.b = {reinterpret_cast<const void*>(0x10000), 8, 32, 32, DType::bf16, Major::k_major};
  args.d = {nullptr, 0, 8, 8, DType::fp32, row_major};
  const Status device = check_device();
  const Status s = gemm(args);
  EXPECT_EQ(s.code, device.code) << s.message;
  EXPECT_EQ(s.message, device.message);
}

}  // namespace
}  // namespace tilegemm
