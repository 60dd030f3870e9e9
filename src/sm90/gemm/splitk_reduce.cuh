// Split-K reduction: D[m, n] = bf16(alpha · Σ_{s = 0..S-1} ws[s][m][n]), summed in slice order, so
// the result is the same bits on every run (fixed K ranges, fixed summation order).
// One thread per 4 consecutive columns of a row (float4 loads: n_pad and the 4-column groups are
// multiples of 4); a full group is stored as 8 B (d 16-B aligned, ldd a multiple of 8), the last
// group of a row with N % 4 != 0 element by element, so nothing past column N is written.
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
  uint16_t* out = static_cast<uint16_t*>(p.d) + int64_t(row) * p.ldd + c;
  if (c + 4 <= p.n) {
    *reinterpret_cast<uint2*>(out) =
        make_uint2(pack_bf16x2(p.alpha * sum.x, p.alpha * sum.y), pack_bf16x2(p.alpha * sum.z, p.alpha * sum.w));
  } else {
    // 1..3 columns left (no local array: a dynamically indexed one would live on the stack)
    out[0] = to_bf16_bits(p.alpha * sum.x);
    if (c + 1 < p.n) out[1] = to_bf16_bits(p.alpha * sum.y);
    if (c + 2 < p.n) out[2] = to_bf16_bits(p.alpha * sum.z);
  }
}

}  // namespace tilegemm::sm90
