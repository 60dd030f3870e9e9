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

// Thresholds (reasons and the experiment behind the numbers: docs/TESTING.md).
// calc_diff: rounding a correct FP32 result to bf16 alone gives ~1.4e-6 (independent of K); FP32
// summation-order changes, even a truncating k16-group accumulation, stay below 3e-10 at K = 16384.
// One wrong 128x128 tile in 4096x4096 gives ~1e-3, a missing 64-wide k-block of K = 8192 ~4e-3.
inline constexpr double kCalcDiffBf16Out = 1e-5;
inline constexpr double kCalcDiffFp32Out = 1e-6;
// Element-wise rule (calc_diff averages, so alone it can miss a handful of wrong elements):
// |x - y| <= rtol·|y| + atol_of_rms·rms(y). bf16 rounding is at most 2^-8 relative (rtol gives 2x);
// atol covers FP32 summation-order differences and values near 0.
inline constexpr double kElemRtolBf16Out = 1.0 / 128;
inline constexpr double kElemAtolBf16Out = 2e-3;
inline constexpr double kElemRtolFp32Out = 1e-4;
inline constexpr double kElemAtolFp32Out = 2e-3;

struct ElementTolerance {
  double rtol = 0;
  double atol_of_rms = 0;  // absolute slack as a fraction of the reference's RMS
};
ElementTolerance element_tolerance(DType out_dtype);
// Root mean square of y (0 for n == 0).
double rms(const float* y, size_t n);
// Entries with |x - y| > tol.rtol·|y| + tol.atol_of_rms·rms_y (NaN counts).
size_t count_mismatches(const float* x, const float* y, size_t n, ElementTolerance tol, double rms_y);

struct CheckResult {
  double calc_diff = 0;
  double max_rel = 0;
  size_t non_finite = 0;
  size_t mismatches = 0;       // elements outside the element-wise rule
  double rms_reference = 0;
  double threshold = 0;        // the calc_diff threshold applied
  bool passed = false;         // non_finite == 0 && mismatches == 0 && calc_diff <= threshold
};
// Compares a kernel's output (as float) with the reference using the thresholds for out_dtype.
CheckResult check(const float* out, const float* reference, size_t n, DType out_dtype);

}  // namespace tilegemm::ref
