// Operand repack: a strided matrix that TMA cannot describe (leading dimension not a multiple of
// 16 B, base not 16-B aligned) or a C stored in the other major is copied into an aligned, dense
// workspace before the GEMM, which then reads the copy. It costs one extra read and write of that
// operand (small next to the GEMM for large shapes; docs/PERF.md has the measurement) and keeps
// every such problem on the tensor cores instead of the SIMT fallback.
//
//   dst[r * ld_dst + c] = src[r * src_row + c * src_col]   for r < rows, c < cols,
//   dst[r * ld_dst + c] = 0                                for cols <= c < ld_dst,
// with dst 256-B aligned and ld_dst a multiple of 8 elements (16 B for bf16, 32 B for fp32).
//   pack_rows_body       src_col = 1: lines copied as they are (any src alignment). One thread
//                        per 16 B of dst: element loads (the source may start anywhere), one
//                        aligned 16-B store; a warp reads and writes 512 consecutive bytes.
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

// Grid: ceil(rows * ld_dst / (16 / kElem) / kPackThreads) blocks of kPackThreads.
template <int kElem>
__device__ __forceinline__ void pack_rows_body(const PackParams& p) {
  using W = typename PackWord<kElem>::type;
  constexpr int kPer = 16 / kElem;  // elements per 16-B store
  const int64_t per_row = p.ld_dst / kPer;
  const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= p.rows * per_row) return;
  const int64_t r = idx / per_row, c0 = (idx - r * per_row) * kPer;
  const W* src = static_cast<const W*>(p.src) + r * p.src_row;
  W v[kPer];
#pragma unroll
  for (int e = 0; e < kPer; ++e) v[e] = c0 + e < p.cols ? src[c0 + e] : W(0);
  uint32_t words[4];
#pragma unroll
  for (int w = 0; w < 4; ++w) {
    if constexpr (kElem == 2) {
      words[w] = uint32_t(v[2 * w]) | (uint32_t(v[2 * w + 1]) << 16);
    } else {
      words[w] = v[w];
    }
  }
  *reinterpret_cast<uint4*>(static_cast<W*>(p.dst) + r * p.ld_dst + c0) = make_uint4(words[0], words[1], words[2], words[3]);
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
