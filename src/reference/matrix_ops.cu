// Device helpers for the cuBLASLt baseline (matrix_ops.hpp).
#include "reference/matrix_ops.hpp"

#include <cuda_bf16.h>

namespace tilegemm::ref {
namespace {

struct DeviceMatrix {  // the fields of a MatrixRef the kernel needs, passed by value
  void* ptr;
  int64_t ld;
  bool bf16;
  bool row_major;
};

__device__ __forceinline__ int64_t offset_of(const DeviceMatrix& x, int64_t m, int64_t n) {
  return x.row_major ? m * x.ld + n : n * x.ld + m;
}

// One thread per element, walked in dst's contiguous order so the stores coalesce.
__global__ void scale_copy_kernel(DeviceMatrix src, DeviceMatrix dst, int64_t rows, int64_t cols, float scale) {
  const int64_t total = rows * cols;
  const int64_t inner = dst.row_major ? cols : rows;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total; i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t outer_idx = i / inner, inner_idx = i % inner;
    const int64_t m = dst.row_major ? outer_idx : inner_idx;
    const int64_t n = dst.row_major ? inner_idx : outer_idx;
    float v = 0.0f;
    if (scale != 0.0f) {
      const int64_t at = offset_of(src, m, n);
      v = scale * (src.bf16 ? __bfloat162float(static_cast<const __nv_bfloat16*>(src.ptr)[at])
                            : static_cast<const float*>(src.ptr)[at]);
    }
    const int64_t out = offset_of(dst, m, n);
    if (dst.bf16)
      static_cast<__nv_bfloat16*>(dst.ptr)[out] = __float2bfloat16_rn(v);
    else
      static_cast<float*>(dst.ptr)[out] = v;
  }
}

DeviceMatrix device_matrix(const MatrixRef& x) {
  return {const_cast<void*>(x.ptr), x.ld, x.dtype == DType::bf16, x.major == Major::k_major};
}

}  // namespace

cudaError_t scale_copy_matrix(const MatrixRef& src, const MatrixRef& dst, float scale, cudaStream_t stream) {
  if (dst.rows != src.rows || dst.cols != src.cols) return cudaErrorInvalidValue;
  const int64_t total = dst.rows * dst.cols;
  if (total == 0) return cudaSuccess;
  const bool dtypes_ok = (src.dtype == DType::bf16 || src.dtype == DType::fp32) &&
                         (dst.dtype == DType::bf16 || dst.dtype == DType::fp32);
  if (!dtypes_ok || dst.ptr == nullptr || (scale != 0.0f && src.ptr == nullptr)) return cudaErrorInvalidValue;
  constexpr int kThreads = 256;
  const int64_t blocks = (total + kThreads - 1) / kThreads;
  scale_copy_kernel<<<static_cast<unsigned>(blocks < 65536 ? blocks : 65536), kThreads, 0, stream>>>(
      device_matrix(src), device_matrix(dst), dst.rows, dst.cols, scale);
  return cudaGetLastError();
}

}  // namespace tilegemm::ref
