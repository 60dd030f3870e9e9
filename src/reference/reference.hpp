// References the kernels are checked against, and the error metrics with their thresholds.
// Host-only header (no device code); the device helpers are declared in device_fill.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <cuda_bf16.h>

#include "tilegemm/tilegemm.hpp"

namespace tilegemm::ref {

// A host matrix view with the same storage rules as tilegemm::MatrixRef.
template <typename T>
struct HostView {
  const T* data = nullptr;
  int64_t rows = 0, cols = 0, ld = 0;
  Major major = Major::k_major;
  T at(int64_t r, int64_t c) const {
    return major == Major::k_major ? data[r * ld + c] : data[c * ld + r];
  }
};

// CPU reference: D[M,N] (row-major FP32, ld = N) = alpha * A·Bᵀ + beta * C, FP32 accumulation over
// bf16 inputs, blocked and multithreaded (std::thread). c may be null (then beta is ignored).
void cpu_gemm(const HostView<__nv_bfloat16>& a, const HostView<__nv_bfloat16>& b,
              const HostView<float>* c, float alpha, float beta, float* d_row_major);

// DeepGEMM's calc_diff: 1 - 2·Σxy / Σ(x² + y²), accumulated in double. 0 = identical.
double calc_diff(const float* x, const float* y, size_t n);
// max_i |x_i - y_i| / max(|y_i|, floor), y the reference; floor avoids dividing by ~0.
double max_rel_error(const float* x, const float* y, size_t n, double floor = 1e-2);
// Number of entries that are NaN/Inf or still hold the poison pattern.
size_t count_non_finite(const float* x, size_t n);

// Thresholds (reasons in docs/TESTING.md): bf16 output rounding alone gives calc_diff ≈ 1e-5;
// a wrong tile, a race or a missing k-block gives ≥ 1e-3.
inline constexpr double kCalcDiffBf16Out = 1e-4;
inline constexpr double kCalcDiffFp32Out = 1e-5;

struct CheckResult {
  double calc_diff = 0;
  double max_rel = 0;
  size_t non_finite = 0;
  bool passed = false;
};
// Compares a kernel's output (as float) with the reference using the threshold for out_dtype.
CheckResult check(const float* out, const float* reference, size_t n, DType out_dtype);

}  // namespace tilegemm::ref
