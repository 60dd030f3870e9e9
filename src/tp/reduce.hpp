// The reduce-scatter's sum (gemm_reduce_scatter): D = Σ_q src[q] (+ beta·C), element by element,
// the sources added in FP32 in the order given (rank order 0 … W−1), so the bits do not depend on
// the order the partials arrived in. With one source it is a copy (the all-gather's own chunk).
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "tilegemm/types.hpp"

namespace tilegemm::tp::detail {

constexpr int kMaxWorld = 64;  // ranks a tensor-parallel call takes

struct ReduceArgs {
  const void* src[kMaxWorld] = {};  // `count` row-major [rows, cols] partials with ld src_ld
  int count = 0;
  DType src_dtype = DType::bf16;
  int64_t rows = 0, cols = 0, src_ld = 0;
  void* d = nullptr;  // [rows, cols]
  int64_t d_ld = 0;
  bool d_col_major = false;
  DType d_dtype = DType::bf16;
  const void* c = nullptr;  // [rows, cols] or null
  int64_t c_ld = 0;
  bool c_col_major = false;
  DType c_dtype = DType::bf16;
  float beta = 0.0f;
};

cudaError_t launch_reduce(const ReduceArgs& args, cudaStream_t stream);

}  // namespace tilegemm::tp::detail
