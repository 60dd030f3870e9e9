// The direct epilogue (Config::epilogue == direct): one consumer's 64 x BN fp32 accumulators ->
// alpha·acc (+ beta·C) -> bf16 or fp32 -> bounds-checked plain stores from the registers, no
// staging smem (so more stages fit). The epilogue of tiles that are not whole 64-column store
// boxes, of fp32 output, of C, and of a D that TMA cannot describe (odd leading dimension, base
// not 16-B aligned).
// Accumulator fragment of wgmma m64nNk16 (PTX ISA §9.7.15.5.1.1.1, sm90/swizzle.hpp
// acc_fragment_coord): thread t of the warpgroup holds rows 16·(t/32) + (t%32)/4 and +8, columns
// 8j + 2·(t%4) and +1, in acc[4j + 2i] and acc[4j + 2i + 1] for row i (0: +0, 1: +8).
#pragma once

#include "sm90/gemm/config.hpp"
#include "sm90/ptx.cuh"

namespace tilegemm::sm90 {

// Where one consumer's tile lands: rows [row0, row0 + 64) x columns [n0, n0 + BN) of D [M, N]
// (row-major, stride ldd elements, the Config's out_dtype; column-major with swap-AB), and C
// likewise (D's dtype).
struct TileOut {
  int m_total, n_total;  // M, N
  int row0, n0;
  void* d;  // bf16 bits or fp32, as the Config's out_dtype
  int64_t ldd;
  const void* c = nullptr;  // C (the direct epilogue with Config::with_c); may be D itself
  int64_t ldc = 0;
};

__device__ __forceinline__ float bf16_bits_to_float(uint16_t bits) { return __uint_as_float(uint32_t(bits) << 16); }

// Two adjacent elements (col, col + 1) of one row, held as they are stored: two bf16 in a
// uint32_t (col in the low half), or two fp32.
template <DType kType>
struct ElemPair {
  uint32_t bits = 0;
  __device__ __forceinline__ float lo() const { return bf16_bits_to_float(uint16_t(bits & 0xFFFFu)); }
  __device__ __forceinline__ float hi() const { return bf16_bits_to_float(uint16_t(bits >> 16)); }
};
template <>
struct ElemPair<DType::fp32> {
  float x = 0.0f, y = 0.0f;
  __device__ __forceinline__ float lo() const { return x; }
  __device__ __forceinline__ float hi() const { return y; }
};

// The pair at `col` of a row (`both` = false: only col exists, the other half reads as 0).
// kPairs: one aligned 4-B / 8-B access (row pointer aligned to two elements, col even);
// otherwise element by element.
template <DType kType, bool kPairs>
__device__ __forceinline__ ElemPair<kType> load_pair(const uint8_t* row, int col, bool both) {
  ElemPair<kType> v;
  if constexpr (kType == DType::fp32) {
    const float* p = reinterpret_cast<const float*>(row) + col;
    if (kPairs && both) {
      const float2 f = *reinterpret_cast<const float2*>(p);
      v.x = f.x;
      v.y = f.y;
    } else {
      v.x = p[0];
      if (both) v.y = p[1];
    }
  } else {
    const uint16_t* p = reinterpret_cast<const uint16_t*>(row) + col;
    if (kPairs && both) {
      v.bits = *reinterpret_cast<const uint32_t*>(p);
    } else {
      v.bits = p[0];
      if (both) v.bits |= uint32_t(p[1]) << 16;
    }
  }
  return v;
}

template <DType kType, bool kPairs>
__device__ __forceinline__ void store_pair(uint8_t* row, int col, bool both, float v0, float v1) {
  if constexpr (kType == DType::fp32) {
    float* p = reinterpret_cast<float*>(row) + col;
    if (kPairs && both) {
      *reinterpret_cast<float2*>(p) = make_float2(v0, v1);
    } else {
      p[0] = v0;
      if (both) p[1] = v1;
    }
  } else {
    uint16_t* p = reinterpret_cast<uint16_t*>(row) + col;
    if (kPairs && both) {
      *reinterpret_cast<uint32_t*>(p) = pack_bf16x2(v0, v1);
    } else {
      p[0] = to_bf16_bits(v0);
      if (both) p[1] = to_bf16_bits(v1);
    }
  }
}

// One element as D and C store it: bf16 bits, or fp32.
template <DType kType>
struct StoredElem {
  using type = uint16_t;
};
template <>
struct StoredElem<DType::fp32> {
  using type = float;
};

// The column-major store (swap-AB: D is Dᵀ of the caller's problem, so its columns are the few rows
// of a decode batch, or a few hundred): alpha · acc (+ beta · C) element by element. A warp's store
// covers 8 consecutive rows of 4 columns: 16-B (bf16) or 32-B (fp32) pieces of 4 lines.
// With C, the thread reads exactly the elements it writes (so C may be D), in chunks of kChunk
// 8-column groups (16 or 8 elements), the loads of chunk q + 1 issued before the stores of chunk q, as
// the row-major path below does. NOTES: measured on the H200 (docs/PERF.md, sixteenth session),
// reading each element just before its store (C may alias D, so the compiler cannot hoist the
// loads) left every load's latency exposed: 128x160 swap-AB with C at 300x14336x4096 took 103.0 us
// where the same tile without C took 59.6.
template <int BN, DType kOut, bool kWithC>
__device__ __forceinline__ void store_tile_direct_col_major(const float (&acc)[BN / 2], float alpha, float beta,
                                                            int thread_in_wg, const TileOut& o) {
  using Elem = typename StoredElem<kOut>::type;
  constexpr int kGroups = BN / 8;                         // 8-column groups j of the fragment
  constexpr int kChunk = kGroups % 4 == 0 ? 4 : 2;        // groups per C chunk
  constexpr int kChunks = (kGroups + kChunk - 1) / kChunk;  // (BN % 16 == 8: the last chunk one group)
  const int warp = thread_in_wg / 32, lane = thread_in_wg % 32;
  const int r = o.row0 + 16 * warp + lane / 4;
  const int c = o.n0 + 2 * (lane % 4);
  Elem* const d = static_cast<Elem*>(o.d);
  const Elem* const cp = static_cast<const Elem*>(o.c);
  // Element e = 4 g + 2 h + i of a chunk: column c + 8 j + h, row r + 8 i (j = q kChunk + g), the
  // accumulator acc[4 j + 2 i + h].
  auto inside = [&](int j, int h, int i) { return c + 8 * j + h < o.n_total && r + 8 * i < o.m_total; };
  auto at = [&](int j, int h, int i) { return int64_t(c + 8 * j + h) * o.ldd + (r + 8 * i); };
  auto put = [](Elem* to, float v) {
    if constexpr (kOut == DType::fp32) {
      *to = v;
    } else {
      *to = to_bf16_bits(v);
    }
  };
  auto store = [&](int j, int h, int i, float v) { put(d + at(j, h, i), v); };
  if constexpr (!kWithC) {
#pragma unroll
    for (int j = 0; j < kGroups; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int i = 0; i < 2; ++i)
          if (inside(j, h, i)) store(j, h, i, alpha * acc[4 * j + 2 * i + h]);
  } else {
    // Columns c and c + 1 of C (D) start at c_col[h] (d_col[h]), group j 8 j columns further.
    // NOTES: per-element 64-bit indices, as above, for a chunk's loads ahead of the previous one's
    // stores spilled registers to local memory in the two-consumer tiles (CI's cubin audit,
    // CubinAudit.SwapAbMidSizeStores).
    const Elem* const c0 = cp + int64_t(c) * o.ldc + r;
    const Elem* const c_col[2] = {c0, c0 + o.ldc};
    const int64_t c_step = 8 * int64_t(o.ldc);
    Elem* const d0 = d + int64_t(c) * o.ldd + r;
    Elem* const d_col[2] = {d0, d0 + o.ldd};
    const int64_t d_step = 8 * int64_t(o.ldd);
    Elem buf[2][4 * kChunk];  // [chunk parity][element of the chunk]: registers (unrolled)
    // f(j, h, i, e) for each element e of chunk q inside D.
    auto each_in_chunk = [&](int q, auto&& f) {
#pragma unroll
      for (int g = 0; g < kChunk; ++g)
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
          for (int i = 0; i < 2; ++i) {
            const int j = q * kChunk + g;
            if (j < kGroups && inside(j, h, i)) f(j, h, i, 4 * g + 2 * h + i);
          }
    };
#pragma unroll
    for (int q = 0; q <= kChunks; ++q) {
      if (q < kChunks)  // issue chunk q's loads
        each_in_chunk(q, [&](int j, int h, int i, int e) { buf[q % 2][e] = c_col[h][j * c_step + 8 * i]; });
      if (q > 0)  // chunk q - 1: combine and store
        each_in_chunk(q - 1, [&](int j, int h, int i, int e) {
          const Elem cv = buf[(q - 1) % 2][e];
          float cf;
          if constexpr (kOut == DType::fp32) {
            cf = cv;
          } else {
            cf = bf16_bits_to_float(cv);
          }
          put(d_col[h] + j * d_step + 8 * i, alpha * acc[4 * j + 2 * i + h] + beta * cf);
        });
    }
  }
}

// alpha · acc (+ beta · C) -> D. Nothing at rows >= M or columns >= N is read or written (the ld
// gaps are kept). With C, each thread reads the C elements of exactly the D elements it writes,
// each before writing it, so C may be D itself (in place).
// NOTES: C is read in chunks of 64 columns, the loads of chunk q + 1 issued before the stores of
// chunk q, so one chunk's latency hides behind the next one's arithmetic and stores; the loads
// usually hit L2, where the consumer prefetched its C lines at its first k-block
// (prefetch_c_share, mainloop.cuh). Without the chunking each load would wait behind the stores before it (C
// may alias D, so the compiler cannot hoist the loads).
// Column-major D and C (swap-AB, kColMajor): element (row, col) at [col·ld + row], so a thread's
// two columns are ld apart and go one by one (the row's "line" below is the element at col 0).
template <int BN, DType kOut, bool kWithC, bool kPairs, bool kColMajor = false>
__device__ __forceinline__ void store_tile_direct(const float (&acc)[BN / 2], float alpha, float beta,
                                                  int thread_in_wg, const TileOut& o) {
  if constexpr (kColMajor) {
    store_tile_direct_col_major<BN, kOut, kWithC>(acc, alpha, beta, thread_in_wg, o);
    return;
  }
  constexpr int kElem = out_elem_bytes(kOut);
  constexpr int kGroups = BN / 8;  // 8-column groups j of the fragment
  constexpr int kChunk = 8;        // groups per C chunk: 64 columns
  constexpr int kChunks = (kGroups + kChunk - 1) / kChunk;
  const int warp = thread_in_wg / 32, lane = thread_in_wg % 32;
  const int r = o.row0 + 16 * warp + lane / 4;
  const int c = o.n0 + 2 * (lane % 4);
  bool row_ok[2];
  uint8_t* d_row[2];
  const uint8_t* c_row[2];
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int row = r + 8 * i;
    row_ok[i] = row < o.m_total;
    d_row[i] = static_cast<uint8_t*>(o.d) + int64_t(row) * o.ldd * kElem;
    c_row[i] = kWithC ? static_cast<const uint8_t*>(o.c) + int64_t(row) * o.ldc * kElem : nullptr;
  }
  if constexpr (!kWithC) {
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      if (!row_ok[i]) continue;
#pragma unroll
      for (int j = 0; j < kGroups; ++j) {
        const int col = c + 8 * j;
        if (col < o.n_total)
          store_pair<kOut, kPairs>(d_row[i], col, col + 1 < o.n_total, alpha * acc[4 * j + 2 * i],
                                   alpha * acc[4 * j + 2 * i + 1]);
      }
    }
  } else {
    ElemPair<kOut> buf[2][2][kChunk];  // [chunk parity][row i][group in chunk]: registers (unrolled)
#pragma unroll
    for (int q = 0; q <= kChunks; ++q) {
      if (q < kChunks) {  // issue chunk q's loads
#pragma unroll
        for (int i = 0; i < 2; ++i)
#pragma unroll
          for (int g = 0; g < kChunk; ++g) {
            const int j = q * kChunk + g, col = c + 8 * j;
            if (j < kGroups && row_ok[i] && col < o.n_total)
              buf[q % 2][i][g] = load_pair<kOut, kPairs>(c_row[i], col, col + 1 < o.n_total);
          }
      }
      if (q > 0) {  // chunk q - 1: combine and store
        const int p = q - 1;
#pragma unroll
        for (int i = 0; i < 2; ++i)
#pragma unroll
          for (int g = 0; g < kChunk; ++g) {
            const int j = p * kChunk + g, col = c + 8 * j;
            if (j < kGroups && row_ok[i] && col < o.n_total) {
              const ElemPair<kOut> cv = buf[p % 2][i][g];
              store_pair<kOut, kPairs>(d_row[i], col, col + 1 < o.n_total,
                                       alpha * acc[4 * j + 2 * i] + beta * cv.lo(),
                                       alpha * acc[4 * j + 2 * i + 1] + beta * cv.hi());
            }
          }
      }
    }
  }
}

}  // namespace tilegemm::sm90
