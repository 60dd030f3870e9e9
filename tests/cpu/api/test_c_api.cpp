// The C API maps onto the C++ API: same codes, same messages, safe message buffers. (That the
// header is valid C99 is checked at build time: see tests/cpu/api/c_header_check.c.)
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "tilegemm/tilegemm.h"
#include "tilegemm/tilegemm.hpp"

namespace {

// The C struct has one layout on every compiler: three int64 after the pointer, two int32.
static_assert(sizeof(tg_matrix) == 40 && offsetof(tg_matrix, ld) == 24 &&
              offsetof(tg_matrix, dtype) == 32 && offsetof(tg_matrix, major) == 36);
// D's struct has the same layout (bindings such as python/tilegemm describe both with one shape).
static_assert(sizeof(tg_mut_matrix) == sizeof(tg_matrix) && offsetof(tg_mut_matrix, ld) == 24 &&
              offsetof(tg_mut_matrix, dtype) == 32 && offsetof(tg_mut_matrix, major) == 36);
static_assert(TG_ROW_MAJOR == TG_MAJOR_K && TG_COL_MAJOR == TG_MAJOR_MN);

void* fake_ptr(uintptr_t address) { return reinterpret_cast<void*>(address); }

struct CProblem {  // valid NT problem: A [64, 32], B [48, 32], D [64, 48] fp32
  tg_matrix a{fake_ptr(1u << 20), 64, 32, 32, TG_DTYPE_BF16, TG_MAJOR_K};
  tg_matrix b{fake_ptr(2u << 20), 48, 32, 32, TG_DTYPE_BF16, TG_MAJOR_K};
  tg_mut_matrix d{fake_ptr(3u << 20), 64, 48, 48, TG_DTYPE_FP32, TG_ROW_MAJOR};
};

TEST(CApi, ValidProblemIsOkWithEmptyMessage) {
  CProblem p;
  char message[64] = "stale";
  EXPECT_EQ(tg_validate(&p.a, &p.b, nullptr, &p.d, 1.0f, 0.0f, message, sizeof message), TG_STATUS_OK);
  EXPECT_STREQ(message, "");
}

TEST(CApi, ErrorCarriesTheCxxCodeAndMessage) {
  CProblem p;
  p.a.ld = 31;
  char message[512];
  EXPECT_EQ(tg_validate(&p.a, &p.b, nullptr, &p.d, 1.0f, 0.0f, message, sizeof message),
            TG_STATUS_INVALID_ARGUMENT);
  tilegemm::GemmArgs args;
  args.a = {p.a.ptr, 64, 32, 31, tilegemm::DType::bf16, tilegemm::Major::k_major};
  args.b = {p.b.ptr, 48, 32, 32, tilegemm::DType::bf16, tilegemm::Major::k_major};
  args.d = {p.d.ptr, 64, 48, 48, tilegemm::DType::fp32, tilegemm::row_major};
  EXPECT_EQ(std::string(message), tilegemm::validate(args).message);
  EXPECT_NE(std::string(message).find("a.ld = 31"), std::string::npos) << message;
}

TEST(CApi, UnsupportedAndOutOfRangeEnums) {
  CProblem p;
  p.b.dtype = TG_DTYPE_FP8_E4M3;
  EXPECT_EQ(tg_validate(&p.a, &p.b, nullptr, &p.d, 1.0f, 0.0f, nullptr, 0), TG_STATUS_UNSUPPORTED);
  CProblem q;
  q.d.major = 42;
  char message[256];
  EXPECT_EQ(tg_validate(&q.a, &q.b, nullptr, &q.d, 1.0f, 0.0f, message, sizeof message),
            TG_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(message).find("d.major = 42"), std::string::npos) << message;
}

TEST(CApi, OptionalCAndBetaRule) {
  CProblem p;
  const tg_matrix c{fake_ptr(4u << 20), p.d.rows, p.d.cols, p.d.ld, p.d.dtype, p.d.major};
  EXPECT_EQ(tg_validate(&p.a, &p.b, &c, &p.d, 1.0f, 2.0f, nullptr, 0), TG_STATUS_OK);
  EXPECT_EQ(tg_validate(&p.a, &p.b, nullptr, &p.d, 1.0f, 2.0f, nullptr, 0),
            TG_STATUS_INVALID_ARGUMENT);
}

TEST(CApi, MisalignedPointersAreRejected) {
  CProblem p;  // fp32 D: its pointer must be a multiple of 4 bytes
  p.d.ptr = fake_ptr((3u << 20) + 2);
  char message[256];
  EXPECT_EQ(tg_validate(&p.a, &p.b, nullptr, &p.d, 1.0f, 0.0f, message, sizeof message),
            TG_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(message).rfind("d.ptr = 0x300002", 0), 0u) << message;
  EXPECT_NE(std::string(message).find("multiple of 4 bytes"), std::string::npos) << message;
  CProblem q;  // bf16 A at an odd address
  q.a.ptr = fake_ptr((1u << 20) + 1);
  EXPECT_EQ(tg_gemm(&q.a, &q.b, nullptr, &q.d, 1.0f, 0.0f, nullptr, message, sizeof message),
            TG_STATUS_INVALID_ARGUMENT);  // rejected before the device is looked at
  EXPECT_NE(std::string(message).find("a.ptr"), std::string::npos) << message;
}

TEST(CApi, NullMatrixPointersAreRejectedByName) {
  CProblem p;
  char message[256];
  EXPECT_EQ(tg_validate(&p.a, nullptr, nullptr, &p.d, 1.0f, 0.0f, message, sizeof message),
            TG_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(message).rfind("b = NULL", 0), 0u) << message;
  EXPECT_EQ(tg_gemm(&p.a, &p.b, nullptr, nullptr, 1.0f, 0.0f, nullptr, message, sizeof message),
            TG_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(message).rfind("d = NULL", 0), 0u) << message;
}

TEST(CApi, MessageIsTruncatedAndTerminated) {
  CProblem p;
  p.a.ld = 31;
  char message[8];
  std::memset(message, 'x', sizeof message);
  EXPECT_EQ(tg_validate(&p.a, &p.b, nullptr, &p.d, 1.0f, 0.0f, message, sizeof message),
            TG_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(std::strlen(message), 7u);
  EXPECT_STREQ(message, "a.ld = ");
  char one[1] = {'x'};  // room for the terminator only
  tg_validate(&p.a, &p.b, nullptr, &p.d, 1.0f, 0.0f, one, sizeof one);
  EXPECT_EQ(one[0], '\0');
}

TEST(CApi, CheckDeviceMatchesTheCxxCall) {
  char message[256];
  const tg_status s = tg_check_device(message, sizeof message);
  const tilegemm::Status cxx = tilegemm::check_device();
  EXPECT_EQ(static_cast<int>(s), static_cast<int>(cxx.code));
  EXPECT_EQ(std::string(message), cxx.message);
}

// tg_version() is the CMake project version the library was built as (its one place).
TEST(CApi, VersionIsTheProjectVersion) { EXPECT_STREQ(tg_version(), TILEGEMM_PROJECT_VERSION); }

TEST(CApi, StatusNames) {
  EXPECT_STREQ(tg_status_name(TG_STATUS_OK), "ok");
  EXPECT_STREQ(tg_status_name(TG_STATUS_NO_DEVICE), "no_device");
  EXPECT_STREQ(tg_status_name(TG_STATUS_INTERNAL_ERROR), "internal_error");
  EXPECT_STREQ(tg_status_name(static_cast<tg_status>(99)), "unknown");
}

}  // namespace
