// calc_diff, the element-wise rule and check(): properties that a broken metric would violate, and
// the margins behind the thresholds (docs/TESTING.md).
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "reference/device_fill.hpp"
#include "reference/reference.hpp"

namespace tilegemm::ref {
namespace {

std::vector<float> random_vector(size_t n, uint64_t seed, float scale = 1.0f) {
  std::vector<float> v(n);
  fill_normal_host_f32(v.data(), n, seed, scale);
  return v;
}

// A realistic FP32 GEMM result (M x N, K = 2048) to round and perturb.
std::vector<float> gemm_output(int64_t m, int64_t n, int64_t k) {
  std::vector<__nv_bfloat16> a(m * k), b(n * k);
  fill_normal_host_bf16(a.data(), a.size(), 31, 1.0f);
  fill_normal_host_bf16(b.data(), b.size(), 32, 1.0f);
  std::vector<float> d(m * n);
  cpu_gemm({a.data(), m, k, k, Major::k_major}, {b.data(), n, k, k, Major::k_major}, nullptr, 1, 0, d.data());
  return d;
}

std::vector<float> round_bf16(const std::vector<float>& x) {
  std::vector<float> r(x.size());
  for (size_t i = 0; i < x.size(); ++i) r[i] = __bfloat162float(__float2bfloat16_rn(x[i]));
  return r;
}

TEST(CalcDiff, ZeroForIdenticalAndForAllZero) {
  const auto x = random_vector(10000, 1);
  EXPECT_NEAR(calc_diff(x.data(), x.data(), x.size()), 0.0, 1e-15);
  const std::vector<float> zeros(100, 0.0f);
  EXPECT_EQ(calc_diff(zeros.data(), zeros.data(), zeros.size()), 0.0);
}

TEST(CalcDiff, ScaleInvariantAndSymmetric) {
  const auto x = random_vector(5000, 2), y = random_vector(5000, 3);
  std::vector<float> x_scaled(x.size()), y_scaled(y.size());
  for (size_t i = 0; i < x.size(); ++i) {
    x_scaled[i] = x[i] * 1024.0f;  // power of two: exact, so any change is the metric's fault
    y_scaled[i] = y[i] * 1024.0f;
  }
  const double base = calc_diff(x.data(), y.data(), x.size());
  EXPECT_NEAR(calc_diff(x_scaled.data(), y_scaled.data(), x.size()), base, 1e-12);
  EXPECT_NEAR(calc_diff(y.data(), x.data(), x.size()), base, 1e-15);
  EXPECT_NEAR(base, 1.0, 0.05);  // independent data: Σxy ≈ 0
  std::vector<float> neg(x.size());
  for (size_t i = 0; i < x.size(); ++i) neg[i] = -x[i];
  EXPECT_NEAR(calc_diff(neg.data(), x.data(), x.size()), 2.0, 1e-12);  // sign flip is the maximum
}

TEST(CalcDiff, NaNPropagates) {
  auto x = random_vector(100, 4);
  const auto y = x;
  x[17] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(calc_diff(x.data(), y.data(), x.size())));
  EXPECT_FALSE(check(x.data(), y.data(), x.size(), DType::bf16).passed);
}

// The experiment behind kCalcDiffBf16Out: rounding a correct FP32 result to bf16 gives about 1.4e-6,
// whatever the magnitude; the threshold keeps a margin of >= 5x over it, and the fp32 threshold is
// below it (an fp32-output kernel that lost precision to bf16 fails).
TEST(Thresholds, Bf16RoundingIsWellInsideBf16AndOutsideFp32) {
  const auto y = gemm_output(96, 160, 2048);
  const auto x = round_bf16(y);
  const double diff = calc_diff(x.data(), y.data(), y.size());
  EXPECT_GT(diff, 5e-7);
  EXPECT_LT(diff, 3e-6);
  EXPECT_LT(5 * diff, kCalcDiffBf16Out);
  EXPECT_GT(diff, kCalcDiffFp32Out);
  const CheckResult as_bf16 = check(x.data(), y.data(), y.size(), DType::bf16);
  EXPECT_TRUE(as_bf16.passed);
  EXPECT_EQ(as_bf16.mismatches, 0u);
  EXPECT_FALSE(check(x.data(), y.data(), y.size(), DType::fp32).passed);
}

// Another FP32 summation order (here: k reversed) is far inside the fp32 thresholds.
TEST(Thresholds, Fp32SummationOrderPasses) {
  const int64_t m = 32, n = 48, k = 4096;
  std::vector<__nv_bfloat16> a(m * k), b(n * k);
  fill_normal_host_bf16(a.data(), a.size(), 41, 1.0f);
  fill_normal_host_bf16(b.data(), b.size(), 42, 1.0f);
  std::vector<float> forward(m * n), reversed(m * n);
  cpu_gemm({a.data(), m, k, k, Major::k_major}, {b.data(), n, k, k, Major::k_major}, nullptr, 1, 0, forward.data());
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float s = 0;
      for (int64_t kk = k - 1; kk >= 0; --kk) s += __bfloat162float(a[i * k + kk]) * __bfloat162float(b[j * k + kk]);
      reversed[i * n + j] = s;
    }
  const CheckResult r = check(reversed.data(), forward.data(), forward.size(), DType::fp32);
  EXPECT_TRUE(r.passed) << r.calc_diff << " " << r.mismatches;
  EXPECT_LT(r.calc_diff, kCalcDiffFp32Out / 1000);
}

// Failure modes the thresholds are meant to catch.
TEST(Thresholds, WrongTileFails) {
  const int64_t m = 256, n = 256;
  const auto y = gemm_output(m, n, 256);
  auto x = round_bf16(y);
  const auto garbage = random_vector(32 * 32, 77, 16.0f);  // one 32x32 tile of other values
  for (int64_t i = 0; i < 32; ++i)
    for (int64_t j = 0; j < 32; ++j) x[(64 + i) * n + 96 + j] = garbage[i * 32 + j];
  const CheckResult r = check(x.data(), y.data(), y.size(), DType::bf16);
  EXPECT_FALSE(r.passed);
  EXPECT_GT(r.calc_diff, 1e-3);  // 1/64 of the output wrong
  EXPECT_GT(r.mismatches, 900u);
}

TEST(Thresholds, SingleWrongElementFailsThroughTheElementRule) {
  const auto y = gemm_output(128, 256, 2048);
  auto x = round_bf16(y);
  x[1000] = y[1000] + static_cast<float>(0.5 * rms(y.data(), y.size()));  // off by half an RMS
  const CheckResult r = check(x.data(), y.data(), y.size(), DType::bf16);
  EXPECT_LT(r.calc_diff, kCalcDiffBf16Out);  // calc_diff alone would let it through ...
  EXPECT_EQ(r.mismatches, 1u);               // ... the element-wise rule does not
  EXPECT_FALSE(r.passed);
}

TEST(Thresholds, ScaledResultFails) {  // e.g. alpha applied twice, or a missing k-block's share
  const auto y = gemm_output(64, 64, 512);
  std::vector<float> x(y.size());
  for (size_t i = 0; i < y.size(); ++i) x[i] = y[i] * 1.02f;
  EXPECT_FALSE(check(x.data(), y.data(), y.size(), DType::fp32).passed);
  EXPECT_FALSE(check(round_bf16(x).data(), y.data(), y.size(), DType::bf16).passed);
}

TEST(NonFinite, CountsNaNInfAndPoison) {
  std::vector<float> x(10, 1.0f);
  x[1] = std::numeric_limits<float>::quiet_NaN();
  x[4] = std::numeric_limits<float>::infinity();
  x[5] = -std::numeric_limits<float>::infinity();
  const uint32_t poison_bits = 0xFFFFFFFFu;
  std::memcpy(&x[8], &poison_bits, 4);
  EXPECT_EQ(count_non_finite(x.data(), x.size()), 4u);
  // A bf16 poison word (0xFFFF) widened to float is a NaN as well.
  __nv_bfloat16 poisoned;
  const uint16_t bf16_poison = 0xFFFF;
  std::memcpy(&poisoned, &bf16_poison, 2);
  const float widened = __bfloat162float(poisoned);
  EXPECT_EQ(count_non_finite(&widened, 1), 1u);
  const std::vector<float> ref(10, 1.0f);
  const CheckResult r = check(x.data(), ref.data(), x.size(), DType::fp32);
  EXPECT_EQ(r.non_finite, 4u);
  EXPECT_FALSE(r.passed);
}

TEST(MaxRelError, UsesTheFloor) {
  const float y[3] = {100.0f, 0.0f, -2.0f};
  const float x[3] = {101.0f, 0.001f, -2.0f};
  EXPECT_NEAR(max_rel_error(x, y, 3), 0.1, 1e-6);     // 0.001 / max(0, 0.01)
  EXPECT_NEAR(max_rel_error(x, y, 1), 0.01, 1e-6);    // 1 / 100
  EXPECT_NEAR(max_rel_error(x, y, 3, 1.0), 0.01, 1e-6);
}

TEST(ElementRule, ToleranceShape) {
  const float y[2] = {100.0f, 0.0f};
  const ElementTolerance tol{0.01, 0.001};
  const double r = rms(y, 2);  // 70.71
  const float inside[2] = {100.99f, 0.07f}, outside[2] = {101.1f, 0.0f}, near_zero_bad[2] = {100.0f, 0.08f};
  EXPECT_EQ(count_mismatches(inside, y, 2, tol, r), 0u);
  EXPECT_EQ(count_mismatches(outside, y, 2, tol, r), 1u);
  EXPECT_EQ(count_mismatches(near_zero_bad, y, 2, tol, r), 1u);
}

}  // namespace
}  // namespace tilegemm::ref
