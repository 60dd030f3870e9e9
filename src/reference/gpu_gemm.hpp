// GPU reference GEMM, for checks too large for the CPU reference (tilegemm fuzz): independent of
// the library's kernels (no tensor cores, no TMA, none of src/api or src/sm90), and bit-identical
// to cpu_gemm (reference.hpp), which tests/gpu/test_reference_gpu.cpp asserts.
#pragma once

#include <cuda_runtime_api.h>

#include "tilegemm/tilegemm.hpp"

namespace tilegemm::ref {

// d_row_major[m·N + n] (FP32, M x N, ld = N) = alpha · Σ_k a(m,k)·b(n,k) + beta · c(m,n).
//   A [M, K] and B [N, K]: bf16, K-major or MN-major, any ld; C: bf16 or fp32, row- or
//   column-major, any ld; c may be null, and is read only when beta != 0 (the API's rule).
// The arithmetic is cpu_gemm's, one IEEE-rounded step at a time: the sum runs over k = 0, 1, ...,
// K-1 in order (each bf16 x bf16 product is exact in FP32), then alpha·sum, then + beta·c.
// 64 x 64 outputs per block (4 x 4 per thread), A and B staged through shared memory 16 k at a time.
cudaError_t gpu_gemm(const MatrixRef& a, const MatrixRef& b, const MatrixRef* c, float alpha, float beta,
                     float* d_row_major, cudaStream_t stream);

}  // namespace tilegemm::ref
