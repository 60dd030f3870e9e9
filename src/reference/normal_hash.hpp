// The counter-based N(0, 1) generator behind fill_normal_* (device_fill.hpp), shared by the host
// and the device so that both produce bit-identical values for the same (seed, index).
//
// Value i of stream `seed`:
//   h      = mix64(mix64(seed) + i)                      64 random bits
//   u1     = (2·(h >> 41) + 1) / 2^24                    odd multiple of 2^-24, in (0, 1)
//   u2     = (2·((h >> 18) & (2^23 - 1)) + 1) / 2^24     in (0, 1)
//   radius = sqrt(-2 ln u1),  angle = u2 · π/2,  sign from bit 0 of h
//   value  = sign · radius · cos(angle) · scale          (Box-Muller; cos over a quarter turn with a
//                                                         random sign has the same law as over 2π)
// NOTES: libm's logf/cosf differ between the host and the GPU in the last bit, and nvcc fuses
// `a * b + c` into an FMA where the host does not. So this file uses only operations IEEE 754
// rounds exactly the same everywhere — int -> float conversion, +, -, *, /, sqrt — each one
// spelled explicitly (the *_rn helpers below), and its own short polynomials for ln and cos/sin.
// Host code must not contract them either: host callers outside src/reference use
// normal_value() (device_fill.hpp), compiled with -ffp-contract=off, not this inline function.
// Both odd-multiple grids keep u1 < 1 and the angle < π/2, so no value is ever exactly 0.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/host_device.hpp"

namespace tilegemm::ref::normal_detail {

// Single IEEE operations that the compiler may not contract or reorder. On the host the library is
// compiled with -ffp-contract=off (src/reference/CMakeLists.txt) for the same reason.
TG_HD inline float add_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
TG_HD inline float sub_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}
TG_HD inline float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
TG_HD inline float div_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}
TG_HD inline float sqrt_rn(float a) {
#if defined(__CUDA_ARCH__)
  return __fsqrt_rn(a);
#else
  return std::sqrt(a);
#endif
}
// p·x + c as two rounded operations (a multiply, then an add), never fused: an FMA would be faster
// on the GPU but is a slow software call on hosts without FMA hardware.
TG_HD inline float mul_add_rn(float p, float x, float c) { return add_rn(mul_rn(p, x), c); }

// floor(log2 v) for v >= 1.
TG_HD inline int floor_log2(uint32_t v) {
#if defined(__CUDA_ARCH__)
  return 31 - __clz(v);
#else
  return 31 - __builtin_clz(v);
#endif
}

// splitmix64's finalizer (with its golden-ratio increment): a bijective 64-bit mixer.
TG_HD inline uint64_t mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

inline constexpr float kLn2 = 0.693147181f;
inline constexpr float kSqrt2 = 1.41421356f;

// c[0] + y·(c[1] + y·(c[2] + ...)) by Horner's rule, each step a rounded multiply then add.
template <int N>
TG_HD inline float horner(const float (&c)[N], float y) {
  float p = c[N - 1];
  for (int i = N - 2; i >= 0; --i) p = mul_add_rn(p, y, c[i]);
  return p;
}

// ln(v · 2^-24) for an integer 1 <= v < 2^24. v = m · 2^e with m in [sqrt(1/2), sqrt(2)); then
// ln m = 2·atanh(s), s = (m - 1)/(m + 1), |s| <= 0.172, as an odd series to s^13 (error < 1e-9).
TG_HD inline float ln_grid24(uint32_t v) {
  int e = floor_log2(v);  // 0..23
  float m = div_rn(static_cast<float>(v), static_cast<float>(1u << e));  // exact: power of 2
  if (m > kSqrt2) {
    m = mul_rn(m, 0.5f);  // exact
    ++e;
  }
  const float s = div_rn(sub_rn(m, 1.0f), add_rn(m, 1.0f));
  // Coefficients are constexpr: computed by the compiler, no division left to round differently.
  constexpr float kAtanhC[7] = {1.0f, 1.0f / 3, 1.0f / 5, 1.0f / 7, 1.0f / 9, 1.0f / 11, 1.0f / 13};
  const float ln_m = mul_rn(mul_rn(2.0f, s), horner(kAtanhC, mul_rn(s, s)));
  return mul_add_rn(static_cast<float>(e - 24), kLn2, ln_m);
}

// cos(x) and sin(x) for 0 <= x <= π/4 by Taylor polynomials (error < 1e-9 on that range).
TG_HD inline float cos_quarter(float x) {
  constexpr float kCosC[7] = {1.0f,          -1.0f / 2,       1.0f / 24,        -1.0f / 720,
                              1.0f / 40320, -1.0f / 3628800, 1.0f / 479001600};  // (-1)^i / (2i)!
  return horner(kCosC, mul_rn(x, x));
}
TG_HD inline float sin_quarter(float x) {
  constexpr float kSinC[6] = {1.0f,         -1.0f / 6,      1.0f / 120,
                              -1.0f / 5040, 1.0f / 362880, -1.0f / 39916800};  // (-1)^i / (2i+1)!
  return mul_rn(x, horner(kSinC, mul_rn(x, x)));
}

}  // namespace tilegemm::ref::normal_detail

namespace tilegemm::ref {

// Element `index` of the N(0, scale²) stream `seed` (see the header comment for the recipe).
TG_HD inline float normal_at(uint64_t seed, uint64_t index, float scale) {
  using namespace normal_detail;
  const uint64_t h = mix64(mix64(seed) + index);
  const uint32_t v1 = static_cast<uint32_t>(h >> 41) * 2u + 1u;               // odd, < 2^24
  const uint32_t v2 = static_cast<uint32_t>((h >> 18) & 0x7FFFFFu) * 2u + 1u;  // odd, < 2^24
  const float radius = sqrt_rn(mul_rn(-2.0f, ln_grid24(v1)));
  // angle = u2·π/2 in (0, π/2): cos directly below π/4, sin of the complement above it, so that
  // angles near π/2 keep their (tiny, non-zero) cosine instead of cancelling to 0.
  constexpr float kQuarterTurn = 1.57079633f;
  const float u2 = mul_rn(static_cast<float>(v2), 5.9604644775390625e-8f);  // · 2^-24, exact
  const float c = v2 < (1u << 23)
                      ? cos_quarter(mul_rn(u2, kQuarterTurn))
                      : sin_quarter(mul_rn(sub_rn(1.0f, u2), kQuarterTurn));  // 1 - u2 exact
  const float z = mul_rn(radius, c);
  return mul_rn((h & 1u) ? -z : z, scale);
}

}  // namespace tilegemm::ref
