// The GPU reference GEMM (gpu_gemm.hpp).
#include "reference/gpu_gemm.hpp"

#include <cuda_bf16.h>

namespace tilegemm::ref {
namespace {

constexpr int kThreadsM = 16, kThreadsN = 16;  // threads per block
constexpr int kPerThread = 4;                   // outputs per thread along M and along N
constexpr int kTileM = kThreadsM * kPerThread, kTileN = kThreadsN * kPerThread;  // 64 x 64 per block
constexpr int kSliceK = 16;                     // k staged per step

struct Operand {  // the MatrixRef fields a kernel needs, by value
  const void* ptr;
  int64_t ld;
  bool k_major;  // (r, k) at r·ld + k; else at k·ld + r (for C: row-major / column-major)
  bool bf16;
};

Operand operand(const MatrixRef& x) {
  return {x.ptr, x.ld, x.major == Major::k_major, x.dtype == DType::bf16};
}

__device__ __forceinline__ float load(const Operand& x, int64_t r, int64_t c) {
  const int64_t at = x.k_major ? r * x.ld + c : c * x.ld + r;
  return x.bf16 ? __bfloat162float(static_cast<const __nv_bfloat16*>(x.ptr)[at]) : static_cast<const float*>(x.ptr)[at];
}

// tile[kk][r] = x(row0 + r, k0 + kk) for a [rows, K] operand, zero outside it. The element each
// thread loads walks the operand's contiguous dimension, so the loads coalesce for either major.
__device__ __forceinline__ void stage(float (&tile)[kSliceK][kTileM], const Operand& x, int64_t row0, int64_t rows,
                                      int64_t k0, int64_t k, int tid) {
  for (int i = tid; i < kSliceK * kTileM; i += kThreadsM * kThreadsN) {
    const int r = x.k_major ? i / kSliceK : i % kTileM;
    const int kk = x.k_major ? i % kSliceK : i / kTileM;
    tile[kk][r] = row0 + r < rows && k0 + kk < k ? load(x, row0 + r, k0 + kk) : 0.0f;
  }
}

// Block (bx, by) computes D[by·64 .. +64, bx·64 .. +64]; thread (tx, ty) the 4 x 4 elements at rows
// ty + 16i and columns tx + 16j. Each element's sum runs over k in order, one rounding per step.
__global__ void reference_gemm_kernel(Operand a, Operand b, Operand c, bool read_c, float alpha, float beta,
                                      int64_t m, int64_t n, int64_t k, float* d) {
  __shared__ float a_tile[kSliceK][kTileM];  // [k][m]
  __shared__ float b_tile[kSliceK][kTileN];  // [k][n]
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kThreadsN + tx;
  const int64_t m0 = int64_t{blockIdx.y} * kTileM, n0 = int64_t{blockIdx.x} * kTileN;
  float acc[kPerThread][kPerThread] = {};
  for (int64_t k0 = 0; k0 < k; k0 += kSliceK) {
    stage(a_tile, a, m0, m, k0, k, tid);
    stage(b_tile, b, n0, n, k0, k, tid);
    __syncthreads();
    const int steps = k - k0 < kSliceK ? static_cast<int>(k - k0) : kSliceK;
    for (int kk = 0; kk < steps; ++kk)
      for (int i = 0; i < kPerThread; ++i)
        for (int j = 0; j < kPerThread; ++j)
          acc[i][j] = __fadd_rn(acc[i][j], __fmul_rn(a_tile[kk][ty + kThreadsM * i], b_tile[kk][tx + kThreadsN * j]));
    __syncthreads();
  }
  for (int i = 0; i < kPerThread; ++i)
    for (int j = 0; j < kPerThread; ++j) {
      const int64_t row = m0 + ty + kThreadsM * i, col = n0 + tx + kThreadsN * j;
      if (row >= m || col >= n) continue;
      float v = __fmul_rn(alpha, acc[i][j]);
      if (read_c) v = __fadd_rn(v, __fmul_rn(beta, load(c, row, col)));
      d[row * n + col] = v;
    }
}

}  // namespace

cudaError_t gpu_gemm(const MatrixRef& a, const MatrixRef& b, const MatrixRef* c, float alpha, float beta,
                     float* d_row_major, cudaStream_t stream) {
  const int64_t m = a.rows, n = b.rows, k = a.cols;
  if (m < 0 || n < 0 || k < 0 || b.cols != k) return cudaErrorInvalidValue;
  if (m == 0 || n == 0) return cudaSuccess;
  if (d_row_major == nullptr || a.dtype != DType::bf16 || b.dtype != DType::bf16) return cudaErrorInvalidValue;
  const bool read_c = c != nullptr && beta != 0.0f;
  if (read_c && (c->rows != m || c->cols != n || (c->dtype != DType::bf16 && c->dtype != DType::fp32)))
    return cudaErrorInvalidValue;
  const int64_t grid_x = (n + kTileN - 1) / kTileN, grid_y = (m + kTileM - 1) / kTileM;
  if (grid_y > 65535 || grid_x > 2147483647) return cudaErrorInvalidValue;
  const Operand none{nullptr, 0, true, true};
  reference_gemm_kernel<<<dim3(static_cast<unsigned>(grid_x), static_cast<unsigned>(grid_y)), dim3(kThreadsN, kThreadsM), 0,
                          stream>>>(operand(a), operand(b), read_c ? operand(*c) : none, read_c, alpha, beta, m, n, k,
                                    d_row_major);
  return cudaGetLastError();
}

}  // namespace tilegemm::ref
