// tilegemm public C++ API.
//
//   D[M, N] = alpha * A[M, K] · B[N, K]ᵀ + beta * C[M, N]      (FP32 accumulation)
//
// A is logically [M, K] and B logically [N, K]; each may be stored K-major or MN-major, which is
// what DeepGEMM's layout names mean (suffix = storage of A then B, read as in `A @ B`: A "n" is
// [M][K], A "t" is [K][M]; B "n" is [K][N], B "t" is [N][K]):
// "NT" = A K-major, B K-major; "NN" = A K-major, B MN-major; "TN" = both MN-major;
// "TT" = A MN-major, B K-major.
// C and D are logically [M, N], stored row-major (N contiguous) or column-major (M contiguous).
//
// Every argument is validated on the host before the GPU is touched; a violated rule comes back as
// a Status whose message names the argument, its value and the rule.
#pragma once

#include <cstdint>
#include <string>

#include <cuda_runtime_api.h>

#include "tilegemm/types.hpp"  // DType, Major

namespace tilegemm {

// An input matrix (A, B, C): the library only reads through ptr.
struct MatrixRef {
  const void* ptr = nullptr;  // device pointer
  int64_t rows = 0;           // first logical dimension (M for A, N for B, M for C/D)
  int64_t cols = 0;           // second logical dimension (K for A/B, N for C/D)
  int64_t ld = 0;             // leading dimension in elements (stride of the non-contiguous dim)
  DType dtype = DType::bf16;
  Major major = Major::k_major;
};

// The output matrix D: the same fields, with a pointer the library writes through. It converts
// to a MatrixRef (a read-only view), so code that reads args.d as a MatrixRef keeps compiling.
struct MutMatrixRef {
  void* ptr = nullptr;  // device pointer, written through
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t ld = 0;
  DType dtype = DType::bf16;
  Major major = Major::k_major;

  operator MatrixRef() const { return MatrixRef{ptr, rows, cols, ld, dtype, major}; }
};

struct GemmArgs {
  MatrixRef a;           // [M, K]
  MatrixRef b;           // [N, K]
  const MatrixRef* c = nullptr;  // [M, N], optional; read only when beta != 0
  MutMatrixRef d;        // [M, N], output
  float alpha = 1.0f;
  float beta = 0.0f;
  cudaStream_t stream = nullptr;
};

enum class ErrorCode : int {
  ok = 0,
  invalid_argument,  // a rule about the arguments is broken (message names it)
  unsupported,       // valid request that this build cannot do (e.g. fp8 today)
  no_device,         // no CUDA device, or not compute capability 9.0 (sm_90a code)
  cuda_error,        // a CUDA call failed; message carries cudaGetErrorString
};

struct Status {
  ErrorCode code = ErrorCode::ok;
  std::string argument;  // the offending argument ("a.ld", "d", "device"), empty when ok
  std::string message;   // full sentence: argument, value, rule

  bool ok() const { return code == ErrorCode::ok; }
  static Status success() { return {}; }
};

const char* to_string(ErrorCode code);
const char* to_string(DType dtype);
const char* to_string(Major major);

// Host-only checks of every rule (no CUDA call). gemm() runs this first.
Status validate(const GemmArgs& args);

// Checks that the current CUDA device exists and is compute capability 9.0 (Hopper, sm_90a code).
Status check_device();

// Validates, checks the device, then enqueues the GEMM on args.stream and returns (kernel faults
// at run time surface at the caller's next synchronization, as with any CUDA launch).
//
// Empty problems are defined, not errors:
//   M = 0 or N = 0: D has no elements; nothing is launched, nothing is written, ok.
//   K = 0: D = beta·C when C is given, otherwise D = 0 is written. alpha times an empty sum is 0,
//          and leaving D as it was would hand back stale memory as a silently wrong result.
// C is read only when beta != 0 (so NaN or garbage in C cannot reach D when beta = 0). C may be
// D itself (same ptr, ld, major and dtype) for in-place D = alpha·A·Bᵀ + beta·D; any other
// overlap of D with A, B or C is rejected by validate(). Every rule is listed in docs/API.md.
// Any valid problem runs: leading dimensions and pointer offsets that TMA cannot describe go to a
// general (slower) fallback kernel.
Status gemm(const GemmArgs& args);

}  // namespace tilegemm
