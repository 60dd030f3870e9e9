// The element types and storage orders of tilegemm's operands. Dependency-free on purpose: the
// host API (tilegemm.hpp), the planner's Config and the kernels (also compiled by NVRTC, which sees
// no standard library) all name operands with these two enums.
#pragma once

namespace tilegemm {

enum class DType : int { bf16 = 0, fp32 = 1, fp8_e4m3 = 2 /* reserved: not supported yet */ };

// How a matrix is stored. For A [M,K] and B [N,K]: k_major means element (r, k) is at
// ptr[r * ld + k]; mn_major means it is at ptr[k * ld + r]. For C and D [M,N]: row_major means
// (m, n) at ptr[m * ld + n]; col_major means ptr[n * ld + m]. (k_major == row_major: rows are
// the first logical dimension, so one enum serves all four operands.)
enum class Major : int { k_major = 0, mn_major = 1 };
inline constexpr Major row_major = Major::k_major;
inline constexpr Major col_major = Major::mn_major;

// Bytes per element; 0 for a value outside the enum. The one table every layer uses.
constexpr int dtype_bytes(DType d) {
  return d == DType::bf16 ? 2 : d == DType::fp32 ? 4 : d == DType::fp8_e4m3 ? 1 : 0;
}

}  // namespace tilegemm
