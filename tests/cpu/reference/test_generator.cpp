// The seeded normal generator (host half; the GPU test checks the device half equals it bit for bit).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "reference/device_fill.hpp"
#include "reference/normal_hash.hpp"

namespace tilegemm::ref {
namespace {

uint16_t bits_of(__nv_bfloat16 v) {
  uint16_t b;
  std::memcpy(&b, &v, 2);
  return b;
}

TEST(Generator, MomentsAndShapeOfANormal) {
  const size_t n = size_t{1} << 21;
  std::vector<float> x(n);
  fill_normal_host_f32(x.data(), n, 7, 1.0f);
  double sum = 0, sum2 = 0, sum4 = 0;
  size_t within1 = 0, within2 = 0;
  float largest = 0;
  for (float v : x) {
    sum += v;
    sum2 += double{v} * v;
    sum4 += double{v} * v * v * v;
    within1 += std::fabs(v) < 1.0f;
    within2 += std::fabs(v) < 2.0f;
    largest = std::max(largest, std::fabs(v));
  }
  const double mean = sum / n, var = sum2 / n - mean * mean;
  EXPECT_LT(std::fabs(mean), 5.0 / std::sqrt(double(n)));  // 5 standard errors
  EXPECT_NEAR(std::sqrt(var), 1.0, 0.005);
  EXPECT_NEAR(sum4 / n, 3.0, 0.05);  // kurtosis of a normal
  EXPECT_NEAR(double(within1) / n, 0.682689, 0.002);
  EXPECT_NEAR(double(within2) / n, 0.954500, 0.002);
  EXPECT_LT(largest, 5.8f);  // radius is at most sqrt(-2 ln 2^-24) = 5.77
  EXPECT_GT(largest, 4.5f);  // but the tails are there
}

TEST(Generator, NeverZeroNorNonFinite) {
  const size_t n = size_t{1} << 22;
  std::vector<__nv_bfloat16> b(n);
  fill_normal_host_bf16(b.data(), n, 8, 1.0f);
  size_t zeros = 0, non_finite = 0;
  for (__nv_bfloat16 v : b) {
    zeros += (bits_of(v) & 0x7FFF) == 0;
    non_finite += !std::isfinite(__bfloat162float(v));
  }
  EXPECT_EQ(zeros, 0u);
  EXPECT_EQ(non_finite, 0u);
}

TEST(Generator, DeterministicPerSeedAndIndex) {
  const size_t n = 100000;
  std::vector<float> x1(n), x2(n), other(n), longer(3 * n);
  fill_normal_host_f32(x1.data(), n, 42, 1.0f);
  fill_normal_host_f32(x2.data(), n, 42, 1.0f);
  fill_normal_host_f32(other.data(), n, 43, 1.0f);
  fill_normal_host_f32(longer.data(), 3 * n, 42, 1.0f);
  EXPECT_EQ(x1, x2);
  EXPECT_TRUE(std::equal(x1.begin(), x1.end(), longer.begin()));  // value i depends on i only
  size_t same = 0;
  for (size_t i = 0; i < n; ++i) same += x1[i] == other[i];
  EXPECT_LT(same, 10u);
  for (size_t i = 0; i < n; i += 997) {
    EXPECT_EQ(x1[i], normal_value(42, i, 1.0f));
    EXPECT_EQ(x1[i], normal_at(42, i, 1.0f));  // inline here, compiled with this file's flags
  }
}

TEST(Generator, ScaleAndBf16AreTheRoundedF32Stream) {
  const size_t n = 50000;
  std::vector<float> x(n), x3(n);
  std::vector<__nv_bfloat16> b(n);
  fill_normal_host_f32(x.data(), n, 9, 1.0f);
  fill_normal_host_f32(x3.data(), n, 9, 3.0f);
  fill_normal_host_bf16(b.data(), n, 9, 1.0f);
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(x3[i], x[i] * 3.0f);
    ASSERT_EQ(bits_of(b[i]), bits_of(__float2bfloat16_rn(x[i])));
  }
}

// The hand-written ln and cos/sin are accurate: the distribution is really Box-Muller's.
TEST(Generator, OwnLnAndCosAreAccurate) {
  for (uint32_t v = 1; v < (1u << 24); v += 4099) {
    const double want = std::log(double(v) / 16777216.0);
    EXPECT_NEAR(normal_detail::ln_grid24(v), want, 2e-6 * std::max(1.0, std::fabs(want))) << v;
  }
  for (int i = 0; i <= 1000; ++i) {
    const float x = 0.78539816f * i / 1000;
    EXPECT_NEAR(normal_detail::cos_quarter(x), std::cos(double(x)), 2e-7);
    EXPECT_NEAR(normal_detail::sin_quarter(x), std::sin(double(x)), 2e-7);
  }
}

}  // namespace
}  // namespace tilegemm::ref
