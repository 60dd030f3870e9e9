// reduce.hpp. Memory-bound: it reads W partials (and C) and writes D once, so it is written for
// bandwidth: where every row of every source and of D starts 16-B aligned and D is row-major
// (the usual case: the partials are the call's own buffers), each thread sums 8 consecutive
// columns with 16-B loads and stores, rows spread over grid.y; otherwise one element per thread.
#include "tp/reduce.hpp"

#include <algorithm>
#include <cstdint>

#include <cuda_bf16.h>

namespace tilegemm::tp::detail {
namespace {

__device__ float load(const void* p, int64_t i, DType t) {
  return t == DType::fp32 ? static_cast<const float*>(p)[i]
                          : __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i]);
}

__global__ void reduce_kernel(const ReduceArgs a) {
  const int64_t total = a.rows * a.cols;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t row = i / a.cols, col = i - row * a.cols;
    const int64_t s = row * a.src_ld + col;
    float sum = 0.0f;
    for (int q = 0; q < a.count; ++q) sum += load(a.src[q], s, a.src_dtype);
    if (a.c != nullptr) sum += a.beta * load(a.c, a.c_col_major ? col * a.c_ld + row : row * a.c_ld + col, a.c_dtype);
    const int64_t o = a.d_col_major ? col * a.d_ld + row : row * a.d_ld + col;
    if (a.d_dtype == DType::fp32)
      static_cast<float*>(a.d)[o] = sum;
    else
      static_cast<__nv_bfloat16*>(a.d)[o] = __float2bfloat16_rn(sum);
  }
}

// 8 consecutive elements at p (16-B aligned for bf16, 32-B span of two 16-B loads for fp32).
__device__ void load8(const void* p, DType t, float (&v)[8]) {
  if (t == DType::fp32) {
    const float4 x = static_cast<const float4*>(p)[0], y = static_cast<const float4*>(p)[1];
    v[0] = x.x, v[1] = x.y, v[2] = x.z, v[3] = x.w, v[4] = y.x, v[5] = y.y, v[6] = y.z, v[7] = y.w;
  } else {
    const uint4 x = *static_cast<const uint4*>(p);
    const __nv_bfloat162* h = reinterpret_cast<const __nv_bfloat162*>(&x);
    for (int i = 0; i < 4; ++i) {
      const float2 f = __bfloat1622float2(h[i]);
      v[2 * i] = f.x, v[2 * i + 1] = f.y;
    }
  }
}

__global__ void reduce_kernel_vec8(const ReduceArgs a) {
  const int64_t col = (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) * 8;
  if (col >= a.cols) return;
  const int64_t es = a.src_dtype == DType::fp32 ? 4 : 2, ds = a.d_dtype == DType::fp32 ? 4 : 2;
  for (int64_t row = blockIdx.y; row < a.rows; row += gridDim.y) {
    float sum[8] = {0, 0, 0, 0, 0, 0, 0, 0}, v[8];
    for (int q = 0; q < a.count; ++q) {
      load8(static_cast<const char*>(a.src[q]) + (row * a.src_ld + col) * es, a.src_dtype, v);
      for (int i = 0; i < 8; ++i) sum[i] += v[i];
    }
    if (a.c != nullptr)
      for (int i = 0; i < 8; ++i)
        sum[i] += a.beta * load(a.c, a.c_col_major ? (col + i) * a.c_ld + row : row * a.c_ld + col + i, a.c_dtype);
    char* out = static_cast<char*>(a.d) + (row * a.d_ld + col) * ds;
    if (a.d_dtype == DType::fp32) {
      static_cast<float4*>(static_cast<void*>(out))[0] = make_float4(sum[0], sum[1], sum[2], sum[3]);
      static_cast<float4*>(static_cast<void*>(out))[1] = make_float4(sum[4], sum[5], sum[6], sum[7]);
    } else {
      uint4 x;
      __nv_bfloat162* h = reinterpret_cast<__nv_bfloat162*>(&x);
      for (int i = 0; i < 4; ++i) h[i] = __floats2bfloat162_rn(sum[2 * i], sum[2 * i + 1]);
      *static_cast<uint4*>(static_cast<void*>(out)) = x;
    }
  }
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

}  // namespace

cudaError_t launch_reduce(const ReduceArgs& args, cudaStream_t stream) {
  const int64_t total = args.rows * args.cols;
  if (total == 0) return cudaSuccess;
  constexpr int kThreads = 256;
  bool vec8 = args.cols % 8 == 0 && args.src_ld % 8 == 0 && !args.d_col_major && args.d_ld % 8 == 0 &&
              aligned16(args.d);
  for (int q = 0; q < args.count; ++q) vec8 = vec8 && aligned16(args.src[q]);
  if (vec8) {
    const int64_t x = (args.cols / 8 + kThreads - 1) / kThreads;
    const int64_t y = std::min<int64_t>(args.rows, std::max<int64_t>(1, 132 * 32 / x));
    reduce_kernel_vec8<<<dim3(static_cast<unsigned>(x), static_cast<unsigned>(y)), kThreads, 0, stream>>>(args);
  } else {
    const int64_t blocks = std::min<int64_t>((total + kThreads - 1) / kThreads, 132 * 16);
    reduce_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(args);
  }
  return cudaGetLastError();
}

}  // namespace tilegemm::tp::detail
