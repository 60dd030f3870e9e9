// One test per validate() rule: each asserts the error code, the argument name and that the message
// carries the offending value. validate() makes no CUDA call, so the device pointers here are fake
// addresses, far apart unless a test moves them.
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "tilegemm/tilegemm.hpp"

namespace tilegemm {
namespace {

void* fake_ptr(uintptr_t address) { return reinterpret_cast<void*>(address); }
constexpr uintptr_t kA = uintptr_t{1} << 44, kB = uintptr_t{2} << 44, kC = uintptr_t{3} << 44,
                    kD = uintptr_t{4} << 44;

// A valid NT problem: A [128, 64] K-major, B [256, 64] K-major, D [128, 256] row-major, bf16.
struct Problem {
  GemmArgs args;
  MatrixRef c;
  Problem(int64_t m = 128, int64_t n = 256, int64_t k = 64) {
    args.a = {fake_ptr(kA), m, k, k, DType::bf16, Major::k_major};
    args.b = {fake_ptr(kB), n, k, k, DType::bf16, Major::k_major};
    args.d = {fake_ptr(kD), m, n, n, DType::bf16, row_major};
    c = {fake_ptr(kC), m, n, n, DType::bf16, row_major};
  }
  Problem& with_c(float beta = 1.0f) {
    args.c = &c;
    args.beta = beta;
    return *this;
  }
};

// The rule was caught: code, argument, and a message with the value in it.
void expect_error(const Status& s, ErrorCode code, const std::string& argument,
                  const std::string& value_in_message) {
  EXPECT_EQ(to_string(s.code), std::string(to_string(code))) << s.message;
  EXPECT_EQ(s.argument, argument) << s.message;
  EXPECT_NE(s.message.find(value_in_message), std::string::npos)
      << "message \"" << s.message << "\" lacks \"" << value_in_message << "\"";
  EXPECT_NE(s.message.find(argument), std::string::npos) << s.message;
}

std::string fmt_hex(uintptr_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%#llx", static_cast<unsigned long long>(v));
  return buf;
}

void expect_ok(const Status& s) {
  EXPECT_TRUE(s.ok()) << s.argument << ": " << s.message;
  EXPECT_TRUE(s.argument.empty());
}

// ---------------------------------------------------------------- accepted edge cases
TEST(Validate, AcceptsNtProblemWithLdEqualToRowLength) { expect_ok(validate(Problem().args)); }

TEST(Validate, AcceptsEveryLayoutWithLdEqualToTheContiguousExtent) {
  for (Major am : {Major::k_major, Major::mn_major})
    for (Major bm : {Major::k_major, Major::mn_major})
      for (Major dm : {row_major, col_major}) {
        Problem p(100, 60, 30);
        p.args.a.major = am;
        p.args.a.ld = am == Major::k_major ? 30 : 100;
        p.args.b.major = bm;
        p.args.b.ld = bm == Major::k_major ? 30 : 60;
        p.args.d.major = dm;
        p.args.d.ld = dm == row_major ? 60 : 100;
        p.c.major = dm;
        p.c.ld = p.args.d.ld;
        SCOPED_TRACE(std::string(to_string(am)) + "/" + to_string(bm) + "/" + to_string(dm));
        expect_ok(validate(p.with_c(0.5f).args));
      }
}

TEST(Validate, AcceptsFp32OutputWithFp32C) {
  Problem p;
  p.args.d.dtype = DType::fp32;
  p.c.dtype = DType::fp32;
  expect_ok(validate(p.with_c(2.0f).args));
}

TEST(Validate, AcceptsEmptyProblemsWithNullPointersForEmptyMatrices) {
  Problem m0(0, 256, 64);  // M = 0: A and D have no elements
  m0.args.a.ptr = nullptr;
  m0.args.d.ptr = nullptr;
  expect_ok(validate(m0.args));
  Problem n0(128, 0, 64);  // N = 0: B and D have no elements
  n0.args.b.ptr = nullptr;
  n0.args.d.ptr = nullptr;
  n0.args.d.ld = 1;
  expect_ok(validate(n0.args));
  Problem k0(128, 256, 0);  // K = 0: A and B have no elements, D = beta·C
  k0.args.a.ptr = nullptr;
  k0.args.b.ptr = nullptr;
  k0.args.a.ld = k0.args.b.ld = 1;
  expect_ok(validate(k0.with_c(3.0f).args));
}

TEST(Validate, AcceptsCAliasingDExactly) {
  Problem p;
  p.c = p.args.d;
  expect_ok(validate(p.with_c(1.0f).args));
}

TEST(Validate, AcceptsDEndingExactlyWhereAStarts) {
  Problem p;  // D [128, 256] bf16 row-major spans 128·256·2 bytes
  p.args.d.ptr = fake_ptr(kA - 128 * 256 * 2);
  expect_ok(validate(p.args));
  p.args.d.ptr = fake_ptr(kA - 128 * 256 * 2 + 2);  // one element further: overlaps
  EXPECT_FALSE(validate(p.args).ok());
}

TEST(Validate, AcceptsCGivenWithBetaZero) { expect_ok(validate(Problem().with_c(0.0f).args)); }

// ---------------------------------------------------------------- null pointers
TEST(Validate, RejectsNullPointerOfNonEmptyMatrix) {
  for (char which : {'a', 'b', 'c', 'd'}) {
    Problem p;
    p.with_c();
    if (which == 'd') {
      p.args.d.ptr = nullptr;
    } else {
      MatrixRef& m = which == 'a' ? p.args.a : which == 'b' ? p.args.b : p.c;
      m.ptr = nullptr;
    }
    SCOPED_TRACE(which);
    expect_error(validate(p.args), ErrorCode::invalid_argument, std::string(1, which) + ".ptr",
                 "null");
  }
}

// ---------------------------------------------------------------- pointer alignment
// A pointer must be aligned to its element (rule 11): bf16 at an even address, fp32 at a multiple
// of 4. Without the rule these calls pass validate() and fault or misread on the GPU.
TEST(Validate, RejectsBf16PointerAtAnOddAddress) {
  for (char which : {'a', 'b', 'c', 'd'}) {
    Problem p;
    p.with_c();
    const uintptr_t odd = (which == 'a' ? kA : which == 'b' ? kB : which == 'c' ? kC : kD) + 1;
    if (which == 'd') {
      p.args.d.ptr = fake_ptr(odd);
    } else {
      MatrixRef& m = which == 'a' ? p.args.a : which == 'b' ? p.args.b : p.c;
      m.ptr = fake_ptr(odd);
    }
    SCOPED_TRACE(which);
    const Status s = validate(p.args);
    expect_error(s, ErrorCode::invalid_argument, std::string(1, which) + ".ptr", "multiple of 2 bytes");
    EXPECT_NE(s.message.find(fmt_hex(odd)), std::string::npos) << s.message;
    EXPECT_NE(s.message.find("bf16"), std::string::npos) << s.message;
  }
}

TEST(Validate, RejectsFp32PointerOffAFourByteBoundary) {
  for (uintptr_t off : {uintptr_t{1}, uintptr_t{2}, uintptr_t{3}}) {
    Problem p;  // fp32 D and C
    p.args.d.dtype = DType::fp32;
    p.c.dtype = DType::fp32;
    p.args.d.ptr = fake_ptr(kD + off);
    SCOPED_TRACE(off);
    const Status s = validate(p.with_c().args);
    expect_error(s, ErrorCode::invalid_argument, "d.ptr", "multiple of 4 bytes");
    EXPECT_NE(s.message.find(std::to_string(off) + " byte"), std::string::npos) << s.message;
    Problem q;
    q.args.d.dtype = DType::fp32;
    q.c.dtype = DType::fp32;
    q.c.ptr = fake_ptr(kC + off);
    expect_error(validate(q.with_c().args), ErrorCode::invalid_argument, "c.ptr", "fp32");
  }
}

TEST(Validate, AcceptsElementAlignedPointersThatBreak16ByteAlignment) {
  Problem p;  // bf16 at 2 mod 16, fp32 at 4 mod 16: the fallback takes them (docs/API.md)
  p.args.a.ptr = fake_ptr(kA + 2);
  p.args.b.ptr = fake_ptr(kB + 14);
  p.args.d.dtype = DType::fp32;
  p.c.dtype = DType::fp32;
  p.args.d.ptr = fake_ptr(kD + 4);
  p.c.ptr = fake_ptr(kC + 12);
  expect_ok(validate(p.with_c().args));
}

TEST(Validate, EmptyMatricesTakeAnyPointer) {
  Problem p(128, 256, 0);  // K = 0: A and B address nothing, so their alignment does not matter
  p.args.a.ptr = fake_ptr(kA + 1);
  p.args.b.ptr = fake_ptr(kB + 3);
  p.args.a.ld = p.args.b.ld = 1;
  expect_ok(validate(p.args));
}

// ---------------------------------------------------------------- dimensions
TEST(Validate, RejectsNegativeDimensions) {
  Problem p;
  p.args.b.rows = -3;
  expect_error(validate(p.args), ErrorCode::invalid_argument, "b.rows", "-3");
  Problem q;
  q.args.a.cols = -1;
  expect_error(validate(q.args), ErrorCode::invalid_argument, "a.cols", "-1");
}

TEST(Validate, RejectsDimensionsBeyondInt32) {
  Problem p;
  p.args.d.cols = int64_t{1} << 31;
  expect_error(validate(p.args), ErrorCode::invalid_argument, "d.cols", "2147483648");
}

TEST(Validate, RejectsKMismatchBetweenAAndB) {
  Problem p;
  p.args.b.cols = 65;
  p.args.b.ld = 65;
  expect_error(validate(p.args), ErrorCode::invalid_argument, "b.cols", "65");
}

TEST(Validate, RejectsDRowsDifferentFromM) {
  Problem p;
  p.args.d.rows = 127;
  expect_error(validate(p.args), ErrorCode::invalid_argument, "d.rows", "127");
}

TEST(Validate, RejectsDColsDifferentFromN) {
  Problem p;
  p.args.d.cols = 255;
  expect_error(validate(p.args), ErrorCode::invalid_argument, "d.cols", "255");
}

TEST(Validate, RejectsCShapedDifferentlyFromD) {
  Problem p;
  p.c.rows = 64;
  expect_error(validate(p.with_c().args), ErrorCode::invalid_argument, "c.rows", "64");
  Problem q;
  q.c.cols = 200;
  expect_error(validate(q.with_c().args), ErrorCode::invalid_argument, "c.cols", "200");
}

// ---------------------------------------------------------------- leading dimensions
TEST(Validate, RejectsLdBelowOneForAMatrixWithElements) {
  Problem p;
  p.args.a.ld = 0;
  expect_error(validate(p.args), ErrorCode::invalid_argument, "a.ld", "a.ld = 0");
}

// An empty matrix addresses nothing, so any ld >= 0 is fine (a framework's [M, 0] tensor may
// well report stride 0); a negative ld is still nonsense.
TEST(Validate, EmptyMatricesTakeAnyNonNegativeLd) {
  Problem n0(128, 0, 64);  // N = 0 with d.ld = 0: the case docs/API.md promises is fine
  n0.args.b.ld = 0;
  n0.args.d.ld = 0;
  expect_ok(validate(n0.args));
  Problem k0(128, 256, 0);  // K = 0: A and B are empty
  k0.args.a.ld = k0.args.b.ld = 0;
  expect_ok(validate(k0.args));
  Problem neg(0, 256, 0);
  neg.args.a.ld = -1;
  expect_error(validate(neg.args), ErrorCode::invalid_argument, "a.ld", "a.ld = -1");
}

TEST(Validate, RejectsLdSmallerThanARowForKMajor) {
  Problem p;
  p.args.a.ld = 63;
  expect_error(validate(p.args), ErrorCode::invalid_argument, "a.ld", "63");
}

TEST(Validate, RejectsLdSmallerThanAColumnForMnMajor) {
  Problem p;  // B [256, 64] MN-major: columns of 256 contiguous elements
  p.args.b.major = Major::mn_major;
  p.args.b.ld = 255;
  const Status s = validate(p.args);
  expect_error(s, ErrorCode::invalid_argument, "b.ld", "255");
  EXPECT_NE(s.message.find(">= 256"), std::string::npos) << s.message;
}

TEST(Validate, RejectsLdSmallerThanAColumnForColumnMajorD) {
  Problem p(300, 256, 64);  // D [300, 256] column-major: columns of 300 contiguous elements
  p.args.d.major = col_major;
  p.args.d.ld = 299;
  expect_error(validate(p.args), ErrorCode::invalid_argument, "d.ld", "299");
}

// ---------------------------------------------------------------- index-type overflow
TEST(Validate, RejectsLdTimesLinesOverflowingInt64) {
  const int64_t m = int64_t{1} << 24;
  Problem p(m, 256, 64);
  p.args.a.ld = int64_t{1} << 40;  // 2^40 · 2^24 lines = 2^64
  expect_error(validate(p.args), ErrorCode::invalid_argument, "a.ld", "1099511627776");
}

TEST(Validate, RejectsByteSpanOfAtLeast2To40) {
  Problem p(2, 256, 64);  // A: 2 rows; span = ld + 64 elements of 2 bytes
  p.args.a.ld = (int64_t{1} << 39) - 64;  // span = 2^39 elements = 2^40 bytes: one too many
  const Status s = validate(p.args);
  expect_error(s, ErrorCode::invalid_argument, "a", "549755813824");
  EXPECT_NE(s.message.find("2^40"), std::string::npos) << s.message;
}

TEST(Validate, AcceptsByteSpanJustBelow2To40) {
  Problem p(2, 256, 64);
  p.args.a.ld = (int64_t{1} << 39) - 65;  // span = 2^40 - 2 bytes
  expect_ok(validate(p.args));
}

// ---------------------------------------------------------------- dtypes
TEST(Validate, RejectsNonBf16Inputs) {
  Problem p;
  p.args.a.dtype = DType::fp32;
  expect_error(validate(p.args), ErrorCode::unsupported, "a.dtype", "fp32");
}

TEST(Validate, RejectsFp8AsNotSupportedYet) {
  Problem p;
  p.args.b.dtype = DType::fp8_e4m3;
  const Status s = validate(p.args);
  expect_error(s, ErrorCode::unsupported, "b.dtype", "fp8_e4m3");
  EXPECT_NE(s.message.find("not supported yet"), std::string::npos) << s.message;
  Problem q;
  q.args.d.dtype = DType::fp8_e4m3;
  expect_error(validate(q.args), ErrorCode::unsupported, "d.dtype", "not supported yet");
}

TEST(Validate, RejectsCWithADifferentDtypeFromD) {
  Problem p;
  p.c.dtype = DType::fp32;
  expect_error(validate(p.with_c().args), ErrorCode::unsupported, "c.dtype", "fp32");
}

TEST(Validate, RejectsValuesOutsideTheEnums) {
  Problem p;
  p.args.a.dtype = static_cast<DType>(7);
  expect_error(validate(p.args), ErrorCode::invalid_argument, "a.dtype", "7");
  Problem q;
  q.args.d.major = static_cast<Major>(5);
  expect_error(validate(q.args), ErrorCode::invalid_argument, "d.major", "5");
}

// ---------------------------------------------------------------- scalars
TEST(Validate, RejectsBetaWithoutC) {
  Problem p;
  p.args.beta = 0.5f;
  expect_error(validate(p.args), ErrorCode::invalid_argument, "beta", "0.5");
}

TEST(Validate, RejectsNonFiniteAlphaAndBeta) {
  Problem p;
  p.args.alpha = std::numeric_limits<float>::quiet_NaN();
  expect_error(validate(p.args), ErrorCode::invalid_argument, "alpha", "nan");
  Problem q;
  q.with_c(-std::numeric_limits<float>::infinity());
  expect_error(validate(q.args), ErrorCode::invalid_argument, "beta", "-inf");
}

// ---------------------------------------------------------------- overlap
TEST(Validate, RejectsDOverlappingA) {
  Problem p;
  p.args.d.ptr = fake_ptr(kA + 64);
  const Status s = validate(p.args);
  expect_error(s, ErrorCode::invalid_argument, "d", "overlaps a");
  EXPECT_NE(s.message.find("0x100000000040"), std::string::npos) << s.message;  // d's first byte
}

TEST(Validate, RejectsDOverlappingB) {
  Problem p;
  p.args.d.ptr = fake_ptr(kB - 128 * 256 * 2 + 2);  // D's last element is B's first
  expect_error(validate(p.args), ErrorCode::invalid_argument, "d", "overlaps b");
}

TEST(Validate, RejectsCOverlappingDWithoutBeingD) {
  {
    Problem p;  // same memory, shifted by one element
    p.c.ptr = fake_ptr(kD + 2);
    expect_error(validate(p.with_c().args), ErrorCode::invalid_argument, "d", "overlaps c");
  }
  {
    Problem p;  // same pointer, different ld
    p.c.ptr = p.args.d.ptr;
    p.c.ld = 300;
    expect_error(validate(p.with_c().args), ErrorCode::invalid_argument, "d", "ld 300");
  }
  {
    Problem p(256, 256, 64);  // same pointer, different major (square, so the shapes agree)
    p.c.ptr = p.args.d.ptr;
    p.c.major = col_major;
    expect_error(validate(p.with_c().args), ErrorCode::invalid_argument, "d", "col_major");
  }
}

TEST(Validate, EmptyMatricesOverlapNothing) {
  Problem p(128, 256, 0);  // A and B empty: their address may be anything, even inside D
  p.args.a.ptr = p.args.b.ptr = p.args.d.ptr;
  p.args.a.ld = p.args.b.ld = 1;
  expect_ok(validate(p.args));
}

// ---------------------------------------------------------------- names
TEST(Names, EnumsPrintTheirNames) {
  EXPECT_STREQ(to_string(ErrorCode::invalid_argument), "invalid_argument");
  EXPECT_STREQ(to_string(ErrorCode::no_device), "no_device");
  EXPECT_STREQ(to_string(DType::bf16), "bf16");
  EXPECT_STREQ(to_string(DType::fp8_e4m3), "fp8_e4m3");
  EXPECT_STREQ(to_string(Major::mn_major), "mn_major");
  EXPECT_STREQ(to_string(static_cast<DType>(9)), "unknown");
}

}  // namespace
}  // namespace tilegemm
