// Small device helpers the cuBLASLt baseline needs around cublasLtMatmul.
#pragma once

#include <cuda_runtime_api.h>

#include "tilegemm/tilegemm.hpp"

namespace tilegemm::ref {

// dst(m, n) = scale · src(m, n) over two [rows, cols] matrices of any major (row/col) and dtype
// (bf16 or fp32; bf16 results rounded to nearest). With scale == 0 src is not read (dst = 0), so a
// NaN-poisoned src does not leak (and src may then be dst itself). Used to put C into D's
// layout/dtype before an in-place cuBLASLt call, and for K = 0 (D = beta·C or 0). Otherwise dst and
// src must not overlap.
cudaError_t scale_copy_matrix(const MatrixRef& src, const MatrixRef& dst, float scale, cudaStream_t stream);

}  // namespace tilegemm::ref
