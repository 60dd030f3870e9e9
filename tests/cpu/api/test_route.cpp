// route() (api/route.hpp): which validated calls go to the sm90 kernel and which to the fallback,
// with the rule named. No GPU: pointers are fake addresses, nothing is dereferenced.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>

#include "api/route.hpp"

namespace tilegemm {
namespace {

void* fake_ptr(uintptr_t addr) { return reinterpret_cast<void*>(addr); }

bool sm90(const GemmArgs& g) { return detail::route(g).path == detail::Path::sm90; }

// An eligible NT problem: M x N x K, packed leading dimensions (multiples of 8), 256-B aligned.
GemmArgs nt(int64_t m, int64_t n, int64_t k) {
  GemmArgs g;
  g.a = MatrixRef{fake_ptr(0x10000), m, k, k, DType::bf16, Major::k_major};
  g.b = MatrixRef{fake_ptr(0x90000000), n, k, k, DType::bf16, Major::k_major};
  g.d = MutMatrixRef{fake_ptr(0x190000000), m, n, n, DType::bf16, row_major};
  return g;
}

TEST(Route, EligibleNtProblems) {
  EXPECT_TRUE(sm90(nt(1, 8, 8)));
  EXPECT_TRUE(sm90(nt(4096, 4096, 4104)));
  EXPECT_TRUE(sm90(nt(777, 256, 64)));
  GemmArgs g = nt(129, 264, 72);
  g.a.ld = 80;
  g.b.ld = 80;
  g.d.ld = 272;
  EXPECT_TRUE(sm90(g)) << detail::route(g).reason;
  g.alpha = -3.5f;  // alpha is applied in the epilogue
  EXPECT_TRUE(sm90(g));
}

TEST(Route, CIsAllowedOnlyWithBetaZero) {
  GemmArgs g = nt(128, 128, 64);
  const MatrixRef c = g.d;
  g.c = &c;
  g.beta = 0.0f;
  EXPECT_TRUE(sm90(g));
  g.beta = 1.0f;
  EXPECT_FALSE(sm90(g));
  EXPECT_NE(detail::route(g).reason.find("beta"), std::string::npos);
}

TEST(Route, EachBrokenRuleNamesItsArgument) {
  struct Breaker {
    const char* argument;
    void (*apply)(GemmArgs&);
  };
  const Breaker breakers[] = {
      {"a.dtype", [](GemmArgs& g) { g.a.dtype = DType::fp32; }},
      {"d.dtype", [](GemmArgs& g) { g.d.dtype = DType::fp32; }},
      {"d.major", [](GemmArgs& g) { g.d.major = col_major; }},
      {"K", [](GemmArgs& g) { g.a.cols = g.b.cols = 0; }},
      {"K", [](GemmArgs& g) { g.a.cols = g.b.cols = 60; }},  // ld stays 64
      {"a.ld", [](GemmArgs& g) { g.a.ld = 68; }},
      {"b.ld", [](GemmArgs& g) { g.b.ld = 65; }},
      {"d.ld", [](GemmArgs& g) { g.d.ld = 132; }},
      {"a.ptr", [](GemmArgs& g) { g.a.ptr = fake_ptr(0x10002); }},
      {"b.ptr", [](GemmArgs& g) { g.b.ptr = fake_ptr(0x90000008); }},
      {"d.ptr", [](GemmArgs& g) { g.d.ptr = fake_ptr(0x190000004); }},
      {"M", [](GemmArgs& g) { g.a.rows = g.d.rows = int64_t(1) << 31; }},
  };
  for (const Breaker& b : breakers) {
    GemmArgs g = nt(128, 128, 64);
    b.apply(g);
    const std::string reason = detail::route(g).reason;
    EXPECT_FALSE(reason.empty()) << b.argument;
    EXPECT_EQ(reason.rfind(b.argument, 0), 0u) << "reason '" << reason << "' should start with " << b.argument;
  }
}

TEST(Route, EveryOperandLayoutRunsOnTheSm90Kernel) {
  // A and B each K-major or MN-major (NT, NN, TN, TT). With both MN-major, K is the strided
  // dimension of both tensors and needs no 8-multiple; with either K-major it does.
  for (Major am : {Major::k_major, Major::mn_major})
    for (Major bm : {Major::k_major, Major::mn_major}) {
      GemmArgs g = nt(128, 136, 72);
      g.a.major = am;
      g.b.major = bm;
      g.a.ld = am == Major::k_major ? 72 : 128;
      g.b.ld = bm == Major::k_major ? 72 : 136;
      EXPECT_TRUE(sm90(g)) << detail::route(g).reason;
      g.a.cols = g.b.cols = 13;  // K = 13
      if (am == Major::k_major) g.a.ld = 16;
      if (bm == Major::k_major) g.b.ld = 16;
      const bool both_mn = am == Major::mn_major && bm == Major::mn_major;
      EXPECT_EQ(sm90(g), both_mn) << detail::route(g).reason;
    }
}

TEST(Route, ProblemOfCarriesTheShapeAndStorage) {
  GemmArgs g = nt(129, 264, 72);
  g.b.major = Major::mn_major;
  g.b.ld = 264;
  const plan::Problem p = detail::problem_of(g);
  EXPECT_EQ(p.m, 129);
  EXPECT_EQ(p.n, 264);
  EXPECT_EQ(p.k, 72);
  EXPECT_EQ(p.b_major, Major::mn_major);
  EXPECT_EQ(p.ldb, 264);
  EXPECT_FALSE(p.accumulate);
}

// explain and warmup validate placeholder arguments: for every problem validate() accepts on
// its own terms, the placeholders must not make the matrices overlap. 700000^3 has matrices of
// 0.98 TB each (< 2^40 B): addresses 256 MiB apart made explain answer "d overlaps a".
TEST(Route, PlaceholderArgsNeverOverlap) {
  for (const auto& [m, n, k] : {std::array<int64_t, 3>{700000, 700000, 700000}, {2147483647, 255, 128},
                                {128, 2147483647, 255}, {4096, 4096, 4096}}) {
    plan::Problem p;
    p.m = m;
    p.n = n;
    p.k = k;
    p.accumulate = true;
    MatrixRef c;
    const Status s = validate(detail::placeholder_args(p, &c));
    EXPECT_TRUE(s.ok()) << m << "x" << n << "x" << k << ": " << s.message;
  }
}

}  // namespace
}  // namespace tilegemm
