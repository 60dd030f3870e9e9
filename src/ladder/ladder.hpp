// The teaching ladder: seed 2's steps redone for Hopper, one mechanism per step.
// Every step computes the NT problem
//   D[M, N] (bf16, row-major, ld = N) = A[M, K] · B[N, K]ᵀ     A, B: bf16, K-major, ld = K
// with FP32 accumulation. Each step lives in its own file src/ladder/stepNN_*.cu.
#pragma once

#include <span>
#include <string>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

namespace tilegemm::ladder {

struct Problem {
  const __nv_bfloat16* a = nullptr;  // [M, K] K-major
  const __nv_bfloat16* b = nullptr;  // [N, K] K-major
  __nv_bfloat16* d = nullptr;        // [M, N] row-major
  int m = 0, n = 0, k = 0;
};

struct Step {
  int number;
  const char* name;   // short id, e.g. "single-tile"
  const char* adds;   // one sentence: the mechanism this step adds to the previous one
  // Empty string if the step supports (m, n, k); otherwise the rule it breaks, e.g.
  // "M must be a multiple of 128 (got 100)".
  std::string (*check_shape)(int m, int n, int k);
  cudaError_t (*launch)(const Problem& p, cudaStream_t stream);
};

// All steps in order (step 1 first).
std::span<const Step> steps();
const Step* find_step(int number);

// check_shape helpers: "" when fine, else "M must be a positive multiple of 128 (got 100)".
std::string require_multiple(const char* what, int value, int multiple);
std::string require_equal(const char* what, int value, int expected);
// The rule of every step that tiles the whole output: M, N, K positive multiples of the tile.
std::string require_tile_multiples(int m, int n, int k, int tile_m, int tile_n, int tile_k);

}  // namespace tilegemm::ladder
