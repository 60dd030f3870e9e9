// Split-K reduction: D[m, n] = alpha · Σ_{s = 0..S-1} ws[s][m][n] (+ beta · C[m, n]), summed in
// slice order, so the result is the same bits on every run (fixed K ranges, fixed summation
// order), stored as bf16 or fp32. One thread per 4 consecutive columns of a row (float4 loads:
// n_pad and the 4-column groups are multiples of 4); a full group is one 8-B (bf16) or 16-B (fp32)
// store (d 16-B aligned, ldd a multiple of 16 B), the last group of a row with N % 4 != 0 element by
// element, so nothing past column N is written. A D that TMA cannot describe (odd ldd, base not
// 16-B aligned: vectors = 0) is written element by element. (The v[4] array is indexed only by unrolled
// constants: no local memory.)
#pragma once

#include "sm90/gemm/params.hpp"
#include "sm90/ptx.cuh"

namespace tilegemm::sm90 {

__device__ __forceinline__ void splitk_reduce_body(const ReduceParams& p) {
  const int groups = (p.n + 3) / 4;
  const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= int64_t(p.m) * groups) return;
  const int row = int(idx / groups);
  const int c = int(idx - int64_t(row) * groups) * 4;
  const int64_t split_stride = int64_t(p.m) * p.n_pad;
  const float* src = p.workspace + int64_t(row) * p.n_pad + c;
  float4 sum = *reinterpret_cast<const float4*>(src);
  for (int s = 1; s < p.splits; ++s) {
    const float4 v = *reinterpret_cast<const float4*>(src + s * split_stride);
    sum.x += v.x;
    sum.y += v.y;
    sum.z += v.z;
    sum.w += v.w;
  }
  float v[4] = {p.alpha * sum.x, p.alpha * sum.y, p.alpha * sum.z, p.alpha * sum.w};
  const int cols = p.n - c < 4 ? p.n - c : 4;  // 1..4 columns of this group exist
  if (p.c != nullptr) {  // + beta · C, C with D's dtype; read before D is written (C may be D)
#pragma unroll
    for (int i = 0; i < 4; ++i)
      if (i < cols)
        v[i] += p.beta * (p.out_fp32 ? static_cast<const float*>(p.c)[int64_t(row) * p.ldc + c + i]
                                     : __uint_as_float(uint32_t(static_cast<const uint16_t*>(p.c)[int64_t(row) * p.ldc + c + i]) << 16));
  }
  if (p.out_fp32) {
    float* out = static_cast<float*>(p.d) + int64_t(row) * p.ldd + c;
    if (cols == 4 && p.vectors) {  // ldd a multiple of 4 fp32, d 16-B aligned, c a multiple of 4: one 16-B store
      *reinterpret_cast<float4*>(out) = make_float4(v[0], v[1], v[2], v[3]);
    } else {
#pragma unroll
      for (int i = 0; i < 4; ++i)
        if (i < cols) out[i] = v[i];
    }
    return;
  }
  uint16_t* out = static_cast<uint16_t*>(p.d) + int64_t(row) * p.ldd + c;
  if (cols == 4 && p.vectors) {
    *reinterpret_cast<uint2*>(out) = make_uint2(pack_bf16x2(v[0], v[1]), pack_bf16x2(v[2], v[3]));
  } else {
#pragma unroll
    for (int i = 0; i < 4; ++i)
      if (i < cols) out[i] = to_bf16_bits(v[i]);
  }
}

}  // namespace tilegemm::sm90
