// The integer helpers every layer uses, once (TG_HD: host, nvcc and NVRTC).
#pragma once

#include "core/host_device.hpp"

namespace tilegemm {

// ceil(a / b) for a >= 0, b > 0, in the wider of the two types.
template <typename A, typename B>
TG_HD constexpr auto ceil_div(A a, B b) -> decltype(a + b) {
  return (a + b - 1) / b;
}
// a rounded up to a multiple of b.
template <typename A, typename B>
TG_HD constexpr auto round_up(A a, B b) -> decltype(a + b) {
  return ceil_div(a, b) * b;
}

// Whether `lines` lines `line_bytes` apart from `base` all start on `boundary`-byte boundaries (a
// single line has only its base).
TG_HD constexpr bool lines_on_boundaries(unsigned long long boundary, unsigned long long base,
                                         unsigned long long line_bytes, long long lines) {
  return base % boundary == 0 && (lines == 1 || line_bytes % boundary == 0);
}
// (The planner's view of an operand asks it for 32-B sectors and 128-B lines: route.cpp, rows_on.)
// On 128-B L2 lines: where they do not all start on one, a TMA box row of 128 B spans two L2 lines
// (plan::Problem::a_rows_lined; route.cpp, rows_lined; the L2 promotion of sm90/tensor_map.cpp).
TG_HD constexpr bool lines_on_l2_lines(unsigned long long base, unsigned long long line_bytes, long long lines) {
  return lines_on_boundaries(128, base, line_bytes, lines);
}

}  // namespace tilegemm
