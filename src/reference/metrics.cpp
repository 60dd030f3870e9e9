// Error metrics and the pass/fail rule (thresholds and their reasons: docs/TESTING.md).
#include <cmath>
#include <cstring>

#include "reference/reference.hpp"

namespace tilegemm::ref {

double calc_diff(const float* x, const float* y, size_t n) {
  double xy = 0, sq = 0;
  for (size_t i = 0; i < n; ++i) {
    const double a = x[i], b = y[i];
    xy += a * b;
    sq += a * a + b * b;
  }
  // Both all-zero (or n == 0): identical by definition. A NaN anywhere propagates into the result.
  if (sq == 0) return 0.0;
  return 1.0 - 2.0 * xy / sq;
}

double max_rel_error(const float* x, const float* y, size_t n, double floor) {
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    const double err = std::fabs(double{x[i]} - double{y[i]}) / std::fmax(std::fabs(double{y[i]}), floor);
    if (!(err <= worst)) worst = err;  // also lets a NaN through to the result
  }
  return worst;
}

size_t count_non_finite(const float* x, size_t n) {
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &x[i], sizeof(bits));
    // NaN/Inf, or the fp32 poison word itself (a NaN too; named for the reader).
    if (!std::isfinite(x[i]) || bits == 0xFFFFFFFFu) ++bad;
  }
  return bad;
}

ElementTolerance element_tolerance(DType out_dtype) {
  return out_dtype == DType::bf16 ? ElementTolerance{kElemRtolBf16Out, kElemAtolBf16Out}
                                  : ElementTolerance{kElemRtolFp32Out, kElemAtolFp32Out};
}

size_t count_mismatches(const float* x, const float* y, size_t n, ElementTolerance tol, double rms_y) {
  size_t bad = 0;
  const double abs_floor = tol.atol_of_rms * rms_y;
  for (size_t i = 0; i < n; ++i) {
    const double err = std::fabs(double{x[i]} - double{y[i]});
    if (!(err <= tol.rtol * std::fabs(double{y[i]}) + abs_floor)) ++bad;  // NaN counts as bad
  }
  return bad;
}

double rms(const float* y, size_t n) {
  if (n == 0) return 0;
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += double{y[i]} * y[i];
  return std::sqrt(s / static_cast<double>(n));
}

CheckResult check(const float* out, const float* reference, size_t n, DType out_dtype) {
  CheckResult r;
  r.calc_diff = calc_diff(out, reference, n);
  r.max_rel = max_rel_error(out, reference, n);
  r.non_finite = count_non_finite(out, n);
  r.rms_reference = rms(reference, n);
  r.mismatches = count_mismatches(out, reference, n, element_tolerance(out_dtype), r.rms_reference);
  r.threshold = out_dtype == DType::bf16 ? kCalcDiffBf16Out : kCalcDiffFp32Out;
  // `<=` on a NaN is false: a NaN calc_diff fails.
  r.passed = r.non_finite == 0 && r.mismatches == 0 && r.calc_diff <= r.threshold;
  return r;
}

}  // namespace tilegemm::ref
