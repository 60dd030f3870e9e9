// cpu_gemm, the reference every kernel is judged by: checked against hand-computed numbers and
// against a naive triple loop on odd shapes, every layout, with and without C.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "reference/device_fill.hpp"
#include "reference/reference.hpp"

namespace tilegemm::ref {
namespace {

// A [rows, cols] bf16 matrix stored `major` with ld = contiguous extent + pad.
struct HostMatrix {
  std::vector<__nv_bfloat16> data;
  HostView<__nv_bfloat16> view;
};
HostMatrix make_matrix(int64_t rows, int64_t cols, Major major, int64_t pad, uint64_t seed) {
  const int64_t ld = (major == Major::k_major ? cols : rows) + pad;
  const int64_t lines = major == Major::k_major ? rows : cols;
  HostMatrix m;
  m.data.resize(static_cast<size_t>(ld * lines));
  fill_normal_host_bf16(m.data.data(), m.data.size(), seed, 1.0f);
  m.view = {m.data.data(), rows, cols, ld, major};
  return m;
}

// D = A·Bᵀ for A = [[1,2],[3,4]] and B = [[5,6],[7,8],[9,10]]: [[17,23,29],[39,53,67]], worked out by
// hand. A wrong operand order or a transposed B gives other numbers (or other shapes).
TEST(CpuGemm, MatchesHandComputedExampleInEveryStorage) {
  const float a_logical[2][2] = {{1, 2}, {3, 4}};
  const float b_logical[3][2] = {{5, 6}, {7, 8}, {9, 10}};
  const float expect[2][3] = {{17, 23, 29}, {39, 53, 67}};
  for (Major a_major : {Major::k_major, Major::mn_major})
    for (Major b_major : {Major::k_major, Major::mn_major}) {
      std::vector<__nv_bfloat16> a(4), b(6);
      for (int r = 0; r < 2; ++r)
        for (int k = 0; k < 2; ++k) a[a_major == Major::k_major ? r * 2 + k : k * 2 + r] = __float2bfloat16(a_logical[r][k]);
      for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 2; ++k) b[b_major == Major::k_major ? r * 2 + k : k * 3 + r] = __float2bfloat16(b_logical[r][k]);
      const HostView<__nv_bfloat16> av{a.data(), 2, 2, 2, a_major};
      const HostView<__nv_bfloat16> bv{b.data(), 3, 2, b_major == Major::k_major ? 2 : 3, b_major};
      float d[6] = {};
      cpu_gemm(av, bv, nullptr, 1.0f, 0.0f, d);
      for (int m = 0; m < 2; ++m)
        for (int n = 0; n < 3; ++n)
          EXPECT_EQ(d[m * 3 + n], expect[m][n]) << "a " << static_cast<int>(a_major) << " b " << static_cast<int>(b_major);
    }
}

TEST(CpuGemm, AlphaBetaAndCAreApplied) {
  const std::vector<__nv_bfloat16> a = {__float2bfloat16(2.0f)}, b = {__float2bfloat16(3.0f)};
  const float c_value = 10.0f;
  const HostView<__nv_bfloat16> av{a.data(), 1, 1, 1, Major::k_major}, bv{b.data(), 1, 1, 1, Major::k_major};
  const HostView<float> cv{&c_value, 1, 1, 1, row_major};
  float d = 0;
  cpu_gemm(av, bv, &cv, 0.5f, 2.0f, &d);
  EXPECT_EQ(d, 0.5f * 6.0f + 2.0f * 10.0f);
  cpu_gemm(av, bv, nullptr, 0.5f, 2.0f, &d);  // no C: beta ignored
  EXPECT_EQ(d, 3.0f);
  const float nan_c = std::nanf("");
  const HostView<float> nan_view{&nan_c, 1, 1, 1, row_major};
  cpu_gemm(av, bv, &nan_view, 1.0f, 0.0f, &d);  // beta = 0: C is not read (API rule)
  EXPECT_EQ(d, 6.0f);
}

struct OddShape {
  int64_t m, n, k;
};

// Every layout of A, B and C, odd shapes and padded leading dimensions: cpu_gemm must equal the
// naive loop that sums k in order in float (bit for bit — the blocking never reorders a sum), and
// be within FP32 rounding of the same sum in double.
TEST(CpuGemm, EqualsNaiveLoopOnOddShapesAndEveryLayout) {
  const OddShape shapes[] = {{1, 1, 1}, {7, 13, 5}, {33, 65, 129}, {70, 300, 257}, {129, 9, 600}};
  uint64_t seed = 100;
  for (const OddShape& s : shapes)
    for (Major a_major : {Major::k_major, Major::mn_major})
      for (Major b_major : {Major::k_major, Major::mn_major})
        for (int c_mode = 0; c_mode < 3; ++c_mode) {  // 0: no C, 1: row-major C, 2: col-major C
          const HostMatrix a = make_matrix(s.m, s.k, a_major, 3, ++seed);
          const HostMatrix b = make_matrix(s.n, s.k, b_major, 1, ++seed);
          const Major c_major = c_mode == 2 ? col_major : row_major;
          const int64_t ldc = (c_major == row_major ? s.n : s.m) + 2;
          std::vector<float> c(static_cast<size_t>(ldc * (c_major == row_major ? s.m : s.n)));
          fill_normal_host_f32(c.data(), c.size(), ++seed, 1.0f);
          const HostView<float> cv{c.data(), s.m, s.n, ldc, c_major};
          const float alpha = c_mode ? 0.75f : 1.0f, beta = c_mode ? -1.5f : 0.0f;

          std::vector<float> d(static_cast<size_t>(s.m * s.n));
          cpu_gemm(a.view, b.view, c_mode ? &cv : nullptr, alpha, beta, d.data());
          for (int64_t m = 0; m < s.m; ++m)
            for (int64_t n = 0; n < s.n; ++n) {
              float sum32 = 0;
              double sum64 = 0, abs_sum = 0;
              for (int64_t k = 0; k < s.k; ++k) {
                const float x = __bfloat162float(a.view.at(m, k)), y = __bfloat162float(b.view.at(n, k));
                sum32 += x * y;
                sum64 += double{x} * y;
                abs_sum += std::fabs(double{x} * y);
              }
              float expect32 = alpha * sum32;
              if (c_mode) expect32 = expect32 + beta * cv.at(m, n);
              const double expect64 = alpha * sum64 + (c_mode ? beta * double{cv.at(m, n)} : 0.0);
              const float got = d[m * s.n + n];
              ASSERT_EQ(got, expect32) << s.m << "x" << s.n << "x" << s.k << " at (" << m << ", " << n << ")";
              ASSERT_NEAR(got, expect64, 1e-6 * (s.k + 2) * (abs_sum + 2 + std::fabs(beta * cv.at(m, n))));
            }
        }
}

// A reference that ignored B's storage (read an MN-major B as K-major, i.e. transposed B) must be
// caught: its result is far from the right one by the check's own measure.
TEST(CpuGemm, TransposedBWouldBeCaught) {
  const int64_t n = 48, k = 48, m = 40;  // square B so both readings are "valid"
  const HostMatrix a = make_matrix(m, k, Major::k_major, 0, 1);
  const HostMatrix b = make_matrix(n, k, Major::mn_major, 0, 2);
  HostView<__nv_bfloat16> b_misread = b.view;
  b_misread.major = Major::k_major;
  std::vector<float> right(m * n), wrong(m * n);
  cpu_gemm(a.view, b.view, nullptr, 1, 0, right.data());
  cpu_gemm(a.view, b_misread, nullptr, 1, 0, wrong.data());
  const CheckResult r = check(wrong.data(), right.data(), right.size(), DType::fp32);
  EXPECT_FALSE(r.passed);
  EXPECT_GT(r.calc_diff, 0.5);  // unrelated data: calc_diff near 1
}

TEST(CpuGemm, EmptyAndZeroK) {
  std::vector<__nv_bfloat16> a(6), b(6);
  const HostView<__nv_bfloat16> a0{a.data(), 3, 0, 1, Major::k_major}, b0{b.data(), 2, 0, 1, Major::k_major};
  std::vector<float> d(6, 42.0f);
  cpu_gemm(a0, b0, nullptr, 1, 0, d.data());  // K = 0: the sum is empty
  for (float v : d) EXPECT_EQ(v, 0.0f);
  const HostView<__nv_bfloat16> a_empty{a.data(), 0, 2, 2, Major::k_major};
  std::vector<float> untouched(1, 7.0f);
  cpu_gemm(a_empty, b0, nullptr, 1, 0, untouched.data());  // M = 0: nothing written
  EXPECT_EQ(untouched[0], 7.0f);
}

// Multithreading hands out work items dynamically; the result must not depend on that.
TEST(CpuGemm, DeterministicAcrossRuns) {
  const HostMatrix a = make_matrix(300, 200, Major::k_major, 0, 5);
  const HostMatrix b = make_matrix(520, 200, Major::mn_major, 0, 6);
  std::vector<float> d1(300 * 520), d2(300 * 520);
  cpu_gemm(a.view, b.view, nullptr, 1, 0, d1.data());
  cpu_gemm(a.view, b.view, nullptr, 1, 0, d2.data());
  EXPECT_EQ(d1, d2);
}

}  // namespace
}  // namespace tilegemm::ref
