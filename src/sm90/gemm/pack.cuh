// Operand repack: a strided matrix that TMA cannot describe (leading dimension not a multiple of
// 16 B, base not 16-B aligned) or a C stored in the other major is copied into an aligned, dense
// workspace before the GEMM, which then reads the copy. It costs one extra read and write of that
// operand (small next to the GEMM for large shapes; docs/PERF.md has the measurement) and keeps
// every such problem on the tensor cores instead of the SIMT fallback.
//
//   dst[r * ld_dst + c] = src[r * src_row + c * src_col]   for r < rows, c < cols,
//   dst[r * ld_dst + c] = 0                                for cols <= c < ld_dst,
// with dst 256-B aligned and ld_dst a multiple of 8 elements (16 B for bf16, 32 B for fp32); the
// router (src/api/route.cpp) pads to whole 128-B lines, so every line starts on an L2 line.
//   pack_rows_body       src_col = 1: lines copied as they are (any src alignment). One thread
//                        per 16 B of dst: two aligned 16-B loads funnel-shifted into place (the
//                        source may start anywhere), one aligned 16-B store.
//   pack_transpose_body  src_row = 1: the other major, through a 32 x 32 smem tile so that both
//                        the reads (along r) and the writes (along c) are coalesced.
#pragma once

#include "sm90/gemm/params.hpp"

namespace tilegemm::sm90 {

template <int kElem>
struct PackWord;  // the element as an integer
template <>
struct PackWord<2> {
  using type = uint16_t;
};
template <>
struct PackWord<4> {
  using type = uint32_t;
};

// Word q + i of w[0..7] (q in 0..3 at run time, i a constant): selects, not an indexed array (an
// indexed register array would live in local memory).
__device__ __forceinline__ uint32_t word_at(const uint32_t (&w)[8], uint32_t q, int i) {
  return q == 0 ? w[i] : q == 1 ? w[i + 1] : q == 2 ? w[i + 2] : w[i + 3];
}

// Grid: ceil(rows * ld_dst / (16 / kElem) / kPackThreads) blocks of kPackThreads.
// NOTES: the source line may start at any element, so a thread's 16 bytes straddle two aligned
// 16-B blocks: it loads both (when both lie inside the line, so nothing outside the operand is
// read) and funnel-shifts them into place; the first and last chunks of a line go element by
// element. A warp thus reads and writes 512 consecutive bytes per step, near copy bandwidth.
template <int kElem>
__device__ __forceinline__ void pack_rows_body(const PackParams& p) {
  using W = typename PackWord<kElem>::type;
  constexpr int kPer = 16 / kElem;  // elements per 16-B store
  const int64_t per_row = p.ld_dst / kPer;
  const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= p.rows * per_row) return;
  const int64_t r = idx / per_row, c0 = (idx - r * per_row) * kPer;
  const W* line = static_cast<const W*>(p.src) + r * p.src_row;
  const uintptr_t first = reinterpret_cast<uintptr_t>(line + c0);
  const uintptr_t base = first & ~uintptr_t(15);
  const uint32_t shift = uint32_t(first - base);  // a multiple of kElem
  uint32_t out[4];
  if (c0 + kPer <= p.cols && shift == 0) {
    const uint4 v = *reinterpret_cast<const uint4*>(first);
    out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = v.w;
  } else if (c0 + kPer <= p.cols && base >= reinterpret_cast<uintptr_t>(line) &&
             base + 32 <= reinterpret_cast<uintptr_t>(line + p.cols)) {
    const uint4 lo = *reinterpret_cast<const uint4*>(base), hi = *reinterpret_cast<const uint4*>(base + 16);
    const uint32_t w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
    const uint32_t q = shift / 4, bits = 8 * (shift % 4);
#pragma unroll
    for (int i = 0; i < 4; ++i) out[i] = __funnelshift_r(word_at(w, q, i), word_at(w, q, i + 1), bits);
  } else {
    W v[kPer];
#pragma unroll
    for (int e = 0; e < kPer; ++e) v[e] = c0 + e < p.cols ? line[c0 + e] : W(0);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      if constexpr (kElem == 2) {
        out[i] = uint32_t(v[2 * i]) | (uint32_t(v[2 * i + 1]) << 16);
      } else {
        out[i] = v[i];
      }
    }
  }
  *reinterpret_cast<uint4*>(static_cast<W*>(p.dst) + r * p.ld_dst + c0) = make_uint4(out[0], out[1], out[2], out[3]);
}

// Grid: (ceil(rows / 32), min(ceil(ld_dst / 32), 65535)) blocks of 32 x 8 threads; blockIdx.y
// strides over the column tiles.
template <int kElem>
__device__ __forceinline__ void pack_transpose_body(const PackParams& p) {
  using W = typename PackWord<kElem>::type;
  __shared__ W tile[kPackTile][kPackTile + 1];  // [c][r], +1: no bank conflicts
  const W* src = static_cast<const W*>(p.src);
  const int64_t r0 = int64_t(blockIdx.x) * kPackTile;
  const int64_t col_tiles = (p.ld_dst + kPackTile - 1) / kPackTile;
  for (int64_t ct = blockIdx.y; ct < col_tiles; ct += gridDim.y) {
    const int64_t c0 = ct * kPackTile;
    for (int i = threadIdx.y; i < kPackTile; i += blockDim.y) {  // read along r (contiguous)
      const int64_t r = r0 + threadIdx.x, c = c0 + i;
      tile[i][threadIdx.x] = r < p.rows && c < p.cols ? src[r + c * p.src_col] : W(0);
    }
    __syncthreads();
    for (int i = threadIdx.y; i < kPackTile; i += blockDim.y) {  // write along c
      const int64_t r = r0 + i, c = c0 + threadIdx.x;
      if (r < p.rows && c < p.ld_dst) static_cast<W*>(p.dst)[r * p.ld_dst + c] = tile[threadIdx.x][i];
    }
    __syncthreads();  // the tile is read before the next one is written
  }
}

}  // namespace tilegemm::sm90
