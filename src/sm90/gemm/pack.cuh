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
//                        16-B store.
//   pack_rows_bulk_body  the same line copies, the source read by bulk copies into a ring of
//                        shared-memory slots (one block per SM): an experiment (TILEGEMM_PACK_BULK).
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

// A run of one line's chunks whose 16 source bytes all lie in the loaded span (the bulk ring's
// fast path): chunk c's bytes start at base + 16 c + sh, where base + 16 c is 16-B aligned in
// shared memory and sh (the line's misalignment in the span, a multiple of the element size) is
// the same for every chunk of the line. kQ = sh / 4 is a template argument, so the two aligned
// 16-B loads are funnel-shifted by fixed word positions (kQ = -1: sh = 0, one load, no shift).
// Lanes take chunks c_begin + lane0, + stride, ...
template <int kQ>
__device__ __forceinline__ void pack_line_run(const uint8_t* base, uint32_t bits, uint4* out, uint32_t c_begin,
                                              uint32_t c_end, uint32_t stride) {
  for (uint32_t c = c_begin; c < c_end; c += stride) {
    const uint4 lo = *reinterpret_cast<const uint4*>(base + 16 * c);
    if constexpr (kQ < 0) {
      out[c] = lo;
    } else {
      const uint4 hi = *reinterpret_cast<const uint4*>(base + 16 * c + 16);
      const uint32_t w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
      out[c] = make_uint4(__funnelshift_r(w[kQ], w[kQ + 1], bits), __funnelshift_r(w[kQ + 1], w[kQ + 2], bits),
                          __funnelshift_r(w[kQ + 2], w[kQ + 3], bits), __funnelshift_r(w[kQ + 3], w[kQ + 4], bits));
    }
  }
}

// A unit as the issuing lane leaves it beside its slot for the copying warps.
struct PackBulkSlotInfo {
  int64_t row0;
  uint64_t lo, hi;  // the span loaded: [lo, hi) in global memory (lo == hi: none)
  uint32_t lines, chunk0, chunk1;
  int32_t job;
};

// The source bytes a bulk load brings for dst chunks [chunk0, chunk1) of lines [row0, row0 + lines)
// of job p: their first element to their last, widened to 16-B blocks and clipped to the blocks
// wholly inside the source (first element to last), so nothing outside it is read. Empty (lo == hi
// == 0) where the chunks hold no source element (a line's padding).
struct PackSpan {
  uintptr_t lo = 0, hi = 0;
};
template <int kElem>
__device__ __forceinline__ PackSpan pack_source_span(const PackParams& p, int64_t row0, int64_t lines, int64_t chunk0,
                                                     int64_t chunk1) {
  constexpr int kPer = 16 / kElem;
  PackSpan sp;
  if (chunk0 * kPer >= p.cols) return sp;
  const uintptr_t base = reinterpret_cast<uintptr_t>(p.src);
  const int64_t last_col = chunk1 * kPer < p.cols ? chunk1 * kPer : p.cols;
  const uintptr_t first = base + uintptr_t(row0 * p.src_row + chunk0 * kPer) * kElem;
  const uintptr_t end = base + uintptr_t((row0 + lines - 1) * p.src_row + last_col) * kElem;
  const uintptr_t src_end = base + uintptr_t((p.rows - 1) * p.src_row + p.cols) * kElem;
  const uintptr_t safe_lo = (base + 15) & ~uintptr_t(15), safe_hi = src_end & ~uintptr_t(15);
  sp.lo = first & ~uintptr_t(15);
  sp.hi = (end + 15) & ~uintptr_t(15);
  if (sp.lo < safe_lo) sp.lo = safe_lo;
  if (sp.hi > safe_hi) sp.hi = safe_hi;
  if (sp.hi <= sp.lo) sp.lo = sp.hi = 0;
  return sp;
}

// Where a line lies in its loaded span: its first byte `rel` bytes into the span (negative where
// the span was clipped at the source's start), the span `span` bytes long, and its fast chunks
// [fast0, fast1) (pack_bulk_fast_range: those whose 16 source bytes lie in the span).
struct PackLineInfo {
  int64_t rel;  // (a run deep into a long line starts far past the line's first byte)
  uint32_t span, fast0, fast1;
};
template <int kElem>
__device__ __forceinline__ PackLineInfo pack_line_info(const PackParams& p, int64_t row, uint32_t chunk0,
                                                       uint32_t chunk1, PackSpan sp) {
  using W = typename PackWord<kElem>::type;
  const W* line = static_cast<const W*>(p.src) + row * p.src_row;
  const int64_t rel = int64_t(reinterpret_cast<uintptr_t>(line)) - int64_t(sp.lo);
  const PackFastRange fast = pack_bulk_fast_range(rel, int64_t(sp.hi - sp.lo), p.cols, 16 / kElem, chunk0, chunk1);
  return PackLineInfo{rel, uint32_t(sp.hi - sp.lo), uint32_t(fast.first), uint32_t(fast.second)};
}

// Dst chunks [chunk0, chunk1) of line `row` of job p, from its loaded span held at `span` in shared
// memory (where the line lies in it: li), by threads t = 0 .. nt - 1 (each a chunk, then every
// nt-th): the fast chunks through pack_line_run, the others (a line's partial last chunk and its
// padding, chunks at the source's two ends) element by element, from the span where it holds the
// element, else from global memory.
template <int kElem>
__device__ __forceinline__ void pack_bulk_line(const PackParams& p, int64_t row, uint32_t chunk0, uint32_t chunk1,
                                               PackLineInfo li, const uint8_t* span, uint32_t t, uint32_t nt) {
  using W = typename PackWord<kElem>::type;
  constexpr int kPer = 16 / kElem;
  const W* line = static_cast<const W*>(p.src) + row * p.src_row;
  W* out = static_cast<W*>(p.dst) + row * p.ld_dst;
  if (li.fast1 > li.fast0) {
    const uint32_t sh = uint32_t(li.rel) & 15u;  // (rel's low bits: the same for every chunk of the line)
    const uint8_t* base = span + (li.rel - int64_t(sh));
    uint4* out4 = reinterpret_cast<uint4*>(out);
    const uint32_t c0 = li.fast0 + t, bits = 8 * (sh % 4);
    switch (sh == 0 ? -1 : int(sh / 4)) {
      case -1: pack_line_run<-1>(base, 0, out4, c0, li.fast1, nt); break;
      case 0: pack_line_run<0>(base, bits, out4, c0, li.fast1, nt); break;
      case 1: pack_line_run<1>(base, bits, out4, c0, li.fast1, nt); break;
      case 2: pack_line_run<2>(base, bits, out4, c0, li.fast1, nt); break;
      default: pack_line_run<3>(base, bits, out4, c0, li.fast1, nt); break;
    }
  }
  auto other = [&](uint32_t c) {
    const int64_t e0 = int64_t(c) * kPer;
    const int64_t left = p.cols - e0;
    const int n = left >= kPer ? kPer : left > 0 ? int(left) : 0;  // source elements in the chunk
    W x[kPer];
#pragma unroll
    for (int e = 0; e < kPer; ++e) {
      const int64_t at = (e0 + e) * kElem + li.rel;  // the element's byte in the span
      x[e] = 0;
      if (e < n) x[e] = at >= 0 && at + kElem <= int64_t(li.span) ? *reinterpret_cast<const W*>(span + at) : line[e0 + e];
    }
    *reinterpret_cast<uint4*>(out + e0) = chunk_of_elements<kElem>(x);
  };
  for (uint32_t c = chunk0 + t; c < li.fast0; c += nt) other(c);
  for (uint32_t c = li.fast1 + t; c < chunk1; c += nt) other(c);
}

// The line copies through bulk copies into shared memory (PackBulkParams, params.hpp). Roles:
//   warp 0, one lane: decodes each of the block's units, writes its description beside the next
//     slot of a ring of kPackBulkSlots and loads the unit's source span there (one cp.async.bulk,
//     completing on full[s]);
//   warps 1 .. 8 (the copying warps): a unit each in turn (the block's unit i to warp i % 8): wait
//     for its slot, build every 16-B dst chunk of the unit's lines from two aligned 16-B shared
//     loads funnel-shifted into place (pack_bulk_line, a lane per chunk), store them, and free the
//     slot (empty[s]).
// A block keeps up to kPackBulkSmemBytes of source in flight, where a lane of pack_rows_body keeps
// its four chunks. Grid: any number of blocks of kPackBulkThreads with kPackBulkSmemBytes of
// dynamic shared memory.
// NOTES: measured (docs/PERF.md, thirty-sixth and thirty-seventh sessions), per SM with the blocks
// pinned (`copy-rate --ctas`): the first version (8-KB slots, 15 copying warps, each decoding every
// unit itself with 64-bit divisions) copied 7 GB/s per SM on the H100; with the issuing lane
// decoding each unit once (its description beside the slot), 16-KB slots and 8 copying warps all
// on each unit, 20 GB/s, what pack_rows_body's pinned blocks do; with pack_line_run (~12
// instructions a chunk against ~86) but still all 8 warps on each line of a unit, 10 GB/s (a line
// of 256 chunks gave each lane one chunk and the whole per-line cost); with a unit per warp
// (146bbd6: 12 slots of 16 KB; 1023x8191x2047's 4-KB lines, H200) 45 GB/s per SM on 8 SMs, and
// spread over the GPU 27.9 us against the line copies' 28.8, but 1-KB lines (6007x1501x513)
// 14.7 us against 11.0: a line's own cost (where it lies in the span, its shift's dispatch) still
// weighs on short lines.
// Cut into K segments and run on P SMs beside the GEMM, with per-segment flags the GEMM's producer
// waited on, it copied 13-20 GB/s per SM and every call ran 2-5x slower than the copy before the
// GEMM (reverted; the thirty-seventh session's section). This version's 16 slots of 12 KB (each
// warp owns its slots, below) have not yet run on a GPU.
template <int kElem>
__device__ __forceinline__ void pack_rows_bulk_body(const PackBulkParams& pb, uint8_t* slots) {
  constexpr int kWorkers = kPackBulkCopyWarps;
  __shared__ alignas(8) uint64_t full[kPackBulkSlots], empty[kPackBulkSlots];
  __shared__ PackBulkSlotInfo info[kPackBulkSlots];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kPackBulkSlots; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], 1);  // the copying warp whose unit it holds
    }
    fence_barrier_init();
  }
  __syncthreads();
  griddep_wait();  // (programmatic dependent launch, above)
  const int64_t units = pb.unit_begin[kPackJobs];
  if (warp == 0) {
    if (lane == 0) {
      int64_t j = 0;  // the block's j-th unit
      for (int64_t u = blockIdx.x; u < units; u += gridDim.x, ++j) {
        // (Its slot is free once the unit kPackBulkSlots before it is copied: the phase before.)
        const int s = pack_ring_slot(j);
        mbar_wait(&empty[s], pack_ring_parity(j) ^ 1u);
        const PackBulkUnit un = pack_bulk_unit(pb, u, kElem);
        const PackParams& p = pack_job_entry(pb.job, un.job);
        const PackSpan sp = pack_source_span<kElem>(p, un.row0, un.lines, un.chunk0, un.chunk1);
        const uint32_t bytes = uint32_t(sp.hi - sp.lo);
        info[s] = PackBulkSlotInfo{un.row0, sp.lo, sp.hi, uint32_t(un.lines), uint32_t(un.chunk0), uint32_t(un.chunk1), un.job};
        mbar_arrive_expect_tx(&full[s], bytes);  // (release: the description is seen by the waiters)
        if (bytes > 0)
          bulk_load_g2s(slots + s * kPackBulkSlotBytes, reinterpret_cast<const void*>(sp.lo), bytes, &full[s]);
      }
    }
    return;
  }
  // Copying warp wk takes the block's units wk, wk + kWorkers, ...: unit i lies in slot i % kSlots,
  // the (i / kSlots)-th load there, awaited as phase parity (i / kSlots) & 1. Since kWorkers
  // divides kSlots, every unit of a slot is this warp's, so it has seen the slot's previous load
  // land before it waits for the next one, and the issuing lane refills the slot only after this
  // warp is done with it: the barrier is in the awaited phase or just past it, never a phase
  // behind (where a parity wait would return at once).
  // NOTES: with 12 slots and 8 warps (146bbd6) a warp could reach its unit i + 12 before unit i of
  // the same slot (another warp's) had landed, and the parity wait would then have returned on
  // the phase before: a race the tests did not catch (the loads land nearly in order).
  const int wk = warp - 1;  // 0 .. kWorkers - 1
  int64_t i = wk;
  for (int64_t u = blockIdx.x + wk * int64_t(gridDim.x); u < units; u += kWorkers * int64_t(gridDim.x), i += kWorkers) {
    const int s = pack_ring_slot(i);
    mbar_wait(&full[s], pack_ring_parity(i));
    const PackBulkSlotInfo in = info[s];
    const PackParams& p = pack_job_entry(pb.job, in.job);
    const PackSpan sp{in.lo, in.hi};
    for (uint32_t l = 0; l < in.lines; ++l)
      pack_bulk_line<kElem>(p, in.row0 + l, in.chunk0, in.chunk1, pack_line_info<kElem>(p, in.row0 + l, in.chunk0, in.chunk1, sp),
                            slots + s * kPackBulkSlotBytes, uint32_t(lane), 32u);
    __syncwarp();
    if (lane == 0) mbar_arrive(&empty[s]);
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
