// The cuBLASLt baseline "behind the same call shape" as tilegemm::gemm: same GemmArgs, same
// Status. Used only to compare against (bench, tests); never by the library itself.
//
//   D[M, N] = alpha · A[M, K] · B[N, K]ᵀ + beta · C[M, N]     bf16 A/B, bf16 or fp32 C/D,
//                                                            FP32 compute (CUBLAS_COMPUTE_32F)
// Every operand layout of the public API is supported: A and B K-major or MN-major, C and D
// row- or column-major with any leading dimension. How these map onto cuBLAS's column-major
// world is written out in cublaslt.cpp.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "tilegemm/tilegemm.hpp"

namespace tilegemm::ref {

// Owns a cuBLASLt handle, a 32 MiB workspace on the device that was current at init(), and one
// cached plan (descriptors + the heuristic's first algorithm) per distinct problem shape, layout and
// operand alignment. Not thread-safe; one per thread. Constructing one makes no CUDA call.
class CublasLt {
 public:
  static constexpr size_t kWorkspaceBytes = size_t{32} << 20;

  CublasLt();
  ~CublasLt();
  CublasLt(const CublasLt&) = delete;
  CublasLt& operator=(const CublasLt&) = delete;

  // Creates the handle and the workspace; cublaslt_gemm calls it on first use. Idempotent.
  Status init();
  // Number of cached plans (one per distinct problem seen).
  size_t cached_plans() const;
  // cublasLtGetVersion(): major·10000 + minor·100 + patch. Needs no GPU.
  static size_t version();
  static std::string version_string();  // "13.0.0"

  struct Impl;  // defined in cublaslt.cpp

 private:
  std::unique_ptr<Impl> impl_;
  friend Status cublaslt_gemm(CublasLt& handle, const GemmArgs& args);
};

// Enqueues the GEMM on args.stream. Checks the arguments it relies on (dtypes, shapes agree, leading
// dimensions, null pointers) and returns invalid_argument / unsupported / cuda_error with a message
// naming the cuBLASLt call and its status. Empty problems follow the public API (tilegemm.hpp):
// M or N = 0: nothing is written; K = 0: D = beta·C when C is given, otherwise D = 0. C is read
// only when beta != 0, and may be D itself (same ld, major and dtype) for in-place accumulation.
// When C's major or dtype differs from D's, C is first copied into D (scaled by 1) and the call runs
// in place (C = D); that extra copy is part of the baseline's time.
Status cublaslt_gemm(CublasLt& handle, const GemmArgs& args);

}  // namespace tilegemm::ref
