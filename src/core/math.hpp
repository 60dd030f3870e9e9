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

}  // namespace tilegemm
