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
//   pack_rows_body       src_col = 1: lines copied as they are (any src alignment), every such
//                        operand of a call in one launch, a warp per 128 consecutive chunks of
//                        dst (across line ends). Per 16 B of dst: two aligned 16-B loads
//                        funnel-shifted into place (the source may start anywhere), one aligned
//                        16-B store. (A bulk-copy ring through shared memory was measured and
//                        removed: docs/PERF.md, thirty-eighth session.)
//   pack_transpose_body  src_row = 1: the other major, through a 32 x 32 smem tile so that both
//                        the reads (along r) and the writes (along c) are coalesced.
#pragma once

#include "sm90/gemm/params.hpp"
#include "sm90/ptx.cuh"

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

// A 16-B chunk of kPer = 16 / kElem elements, e[0] in the lowest bytes.
template <int kElem>
__device__ __forceinline__ uint4 chunk_of_elements(const typename PackWord<kElem>::type (&e)[16 / kElem]) {
  uint32_t o[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    if constexpr (kElem == 2) {
      o[i] = uint32_t(e[2 * i]) | (uint32_t(e[2 * i + 1]) << 16);
    } else {
      o[i] = e[i];
    }
  }
  return make_uint4(o[0], o[1], o[2], o[3]);
}

// Word q + i of w[0..7] (q in 0..3 at run time, i a constant): selects on q's two bits, not an
// indexed array (an indexed register array would live in local memory) nor a chain of compares
// (which the compiler turned into branches between the loads and their uses).
__device__ __forceinline__ uint32_t word_at(const uint32_t (&w)[8], uint32_t q, int i) {
  const uint32_t lo = (q & 1u) ? w[i + 1] : w[i], hi = (q & 1u) ? w[i + 3] : w[i + 2];
  return (q & 2u) ? hi : lo;
}

// All the line copies of one call in one launch (PackRowsParams: the jobs' items numbered one after
// the other). A warp copies an item at a time, kPackItemChunks consecutive 16-B chunks of a job's
// dst (running on across line ends), each lane loading its kPackChunksPerLane chunks before it
// stores them. Grid: ceil(items / warps per block) blocks of kPackThreads (a grid-stride loop
// covers any smaller grid).
// NOTES: the source line may start at any element, so a chunk's 16 bytes straddle two aligned
// 16-B blocks: it loads both (when both lie inside the line, so nothing outside the operand is
// read) and funnel-shifts them into place; the first and last chunks of a line go element by
// element. Measured on the H200 (docs/PERF.md, twentieth session, ncu): a launch per operand and a
// thread per chunk, finding its line by a 64-bit division, took 7.4 + 6.0 us for A and B of
// 5003x2999x777 and 10.8 + 27.0 for 2049x6001x4097; this kernel 12.5 and 40.8 (bench: 1.6 us
// less, 1.7 more); a warp per whole line balanced badly on long lines (6.6 us more at
// 2049x6001x4097), one chunk per lane was slower (14.4, 47.3). 110 MB in 40.8 us is ~2.7 TB/s.
// Items that run across line ends with four chunks per lane, all loads issued before the first
// use (thirtieth session, H100, `tilegemm copy-rate`): short lines faster (6007x1501x513's copies
// 13.5 -> 12.2 us; the call 36.4 -> 34.0), long ones 1-4 % slower (1023x8191x2047 32.5 -> 33.7);
// about three times the chunks in flight per SM did not move the long copies (2.2-2.6 TB/s, read +
// write, on the H100; 2.8-3.2 on the H200 before the change): they are not limited by the loads an
// SM keeps in flight.
// Programmatic dependent launch (ptx.cuh): a copy launched with the attribute waits for the
// caller's kernel before reading its operand. It never triggers its dependents: the GEMM after it
// is let in as the copy's CTAs complete. NOTES: measured on the H100 (docs/PERF.md, twenty-ninth
// session), a trigger at the start of every copy CTA made copy + GEMM 17-33 us slower
// (1023x8191x2047, 2049x6001x4097, 3000^3).

// kL2Hints: the source read with L2 evict_first and the copy written with L2 evict_last (ptx.cuh), so
// that the copy, which the GEMM reads next, stays in L2 ahead of the source it was made from.
template <int kElem, bool kL2Hints = false>
__device__ __forceinline__ void pack_rows_body(const PackRowsParams& pr) {
  using W = typename PackWord<kElem>::type;
  constexpr int kPer = 16 / kElem;  // elements per 16-B chunk
  constexpr int kU = kPackChunksPerLane;
  const int lane = threadIdx.x % 32, warps = blockDim.x / 32;
  const int64_t items = pr.item_begin[kPackJobs];
  const uint64_t read_policy = kL2Hints ? l2_policy_evict_first() : 0;
  const uint64_t write_policy = kL2Hints ? l2_policy_evict_last() : 0;
  auto load16 = [&](uintptr_t a) {
    if constexpr (kL2Hints) return load_global_nc_16_hint(reinterpret_cast<const void*>(a), read_policy);
    else return __ldg(reinterpret_cast<const uint4*>(a));
  };
  griddep_wait();  // (programmatic dependent launch, above)
  for (int64_t g = int64_t(blockIdx.x) * warps + threadIdx.x / 32; g < items; g += int64_t(gridDim.x) * warps) {
    const PackItem it = pack_item(pr, g);
    const PackParams& p = pack_job_entry(pr.job, it.job);
    // Two walks over the lane's chunks, so that all its loads are in flight before the first one
    // is used: the first issues each chunk's aligned 16-B loads, the second (recomputing where the
    // chunk lies rather than holding its addresses in registers) shifts the words into place, or
    // reads a line's end element by element, and stores.
    const int64_t line_chunks = pack_line_chunks(p, kElem);
    uint4 lo[kU], hi[kU];
    uint32_t shift[kU];
    bool whole[kU];  // the chunk's aligned blocks lie inside its line (else: element by element)
    {
      PackLaneWalk walk(it.first_chunk, lane, line_chunks);
#pragma unroll
      for (int u = 0; u < kU; ++u, walk.step()) {
        whole[u] = false;
        shift[u] = 0;
        if (walk.row >= p.rows) continue;  // past the job's last line (its last item is partial)
        const W* line = static_cast<const W*>(p.src) + walk.row * p.src_row;
        const uintptr_t line_end = reinterpret_cast<uintptr_t>(line + p.cols);  // first byte past the line
        shift[u] = uint32_t(reinterpret_cast<uintptr_t>(line) & 15u);  // a multiple of kElem
        const int64_t c0 = walk.chunk * kPer;
        const uintptr_t base = reinterpret_cast<uintptr_t>(line + c0) - shift[u];
        if (c0 + kPer <= p.cols && shift[u] == 0) {
          whole[u] = true;
          lo[u] = load16(base);
          hi[u] = lo[u];
        } else if (c0 + kPer <= p.cols && base >= reinterpret_cast<uintptr_t>(line) && base + 32 <= line_end) {
          whole[u] = true;
          lo[u] = load16(base);
          hi[u] = load16(base + 16);
        }
      }
    }
    PackLaneWalk walk(it.first_chunk, lane, line_chunks);
#pragma unroll
    for (int u = 0; u < kU; ++u, walk.step()) {
      if (walk.row >= p.rows) break;
      const int64_t c0 = walk.chunk * kPer;
      uint4 v;
      if (whole[u]) {
        const uint32_t q = shift[u] / 4, bits = 8 * (shift[u] % 4);  // (shift 0: q = 0, bits = 0, v = lo)
        const uint32_t w[8] = {lo[u].x, lo[u].y, lo[u].z, lo[u].w, hi[u].x, hi[u].y, hi[u].z, hi[u].w};
        v.x = __funnelshift_r(word_at(w, q, 0), word_at(w, q, 1), bits);
        v.y = __funnelshift_r(word_at(w, q, 1), word_at(w, q, 2), bits);
        v.z = __funnelshift_r(word_at(w, q, 2), word_at(w, q, 3), bits);
        v.w = __funnelshift_r(word_at(w, q, 3), word_at(w, q, 4), bits);
      } else {  // a line's first chunk (source before the line) or its last (past cols)
        const W* line = static_cast<const W*>(p.src) + walk.row * p.src_row;
        W e[kPer];
#pragma unroll
        for (int i = 0; i < kPer; ++i) e[i] = c0 + i < p.cols ? line[c0 + i] : W(0);
        v = chunk_of_elements<kElem>(e);
      }
      W* out = static_cast<W*>(p.dst) + walk.row * p.ld_dst + c0;
      if constexpr (kL2Hints) {
        store_global_16_hint(out, v, write_policy);
      } else {
        *reinterpret_cast<uint4*>(out) = v;
      }
    }
  }
}

// Grid: (ceil(rows / 32), min(ceil(ld_dst / 32), 65535)) blocks of 32 x 8 threads; blockIdx.y
// strides over the column tiles.
template <int kElem>
__device__ __forceinline__ void pack_transpose_body(const PackParams& p) {
  using W = typename PackWord<kElem>::type;
  __shared__ W tile[kPackTile][kPackTile + 1];  // [c][r], +1: no bank conflicts
  const W* src = static_cast<const W*>(p.src);
  griddep_wait();  // (programmatic dependent launch, above)
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
