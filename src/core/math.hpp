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

// Whether `lines` lines `line_bytes` apart from `base` all start on 32-B L2 sector boundaries (a
// single line has only its base). The planner's view of an operand (route.cpp, rows_sectored) and
// its tensor map's L2 promotion (sm90/tensor_map.cpp) both ask this.
TG_HD constexpr bool lines_on_sectors(unsigned long long base, unsigned long long line_bytes, long long lines) {
  return base % 32 == 0 && (lines == 1 || line_bytes % 32 == 0);
}
// The same for 128-B L2 line boundaries: where they do not all start on one, a TMA box row of
// 128 B spans two L2 lines (plan::Problem::a_rows_lined).
TG_HD constexpr bool lines_on_l2_lines(unsigned long long base, unsigned long long line_bytes, long long lines) {
  return base % 128 == 0 && (lines == 1 || line_bytes % 128 == 0);
}

}  // namespace tilegemm
