// Operand copies made by the GEMM kernel itself (Config::copy_operands): an operand TMA cannot read
// (K-major, leading dimension not a multiple of 16 B or base not 16-B aligned) is copied into its
// aligned workspace while the tiles are computed, instead of by a launch before the kernel
// (pack.cuh), so that the copy's time hides behind the tensor cores' instead of adding to it.
//
//   who     the producer warpgroup's warps 1-3 (warp 0's elected thread issues the TMA loads; the
//           other warps were idle): each takes the next unit of the plan from a counter shared by
//           every CTA (one atomicAdd), copies it, then adds its rows to the chunk's flag.
//   what    a unit is up to kCopyRowsPerUnit rows of one chunk; a chunk is one tile's rows (a row
//           block: bm rows of A or bn rows of B) x kCopySlabKBlocks k-blocks of K (CopyPlan).
//   order   the host lists the row blocks by the wave of tiles that first reads them and copies
//           each group slab by slab (CopyPlan::order, copy_chunk), so the first wave's first
//           k-blocks are copied first and later waves' rows while the first wave computes.
//   wait    before the k-blocks of a slab the producer waits until the flags of the slab's A and
//           B chunks count all their rows (acquire), then fences the generic proxy (the copy's
//           stores) against the async proxy (its TMA loads of the copy).
//   reset   the flags and the unit counter are 0 between launches: the last CTA to finish zeroes
//           them (a CTA counts itself done once its copies and its producer's waits are over).
//
// NOTES: no deadlock whatever the CTAs resident: a producer only waits for units that are either
// taken by a running warp (it finishes them: copying waits on nothing) or still in the counter,
// which the waiting CTA's own copy warps keep drawing from. The copies read each source line at
// most once and write each 16-B chunk of the copy once (load_line_chunk, pack.cuh).
#pragma once

#include "sm90/gemm/config.hpp"
#include "sm90/gemm/pack.cuh"
#include "sm90/gemm/params.hpp"
#include "sm90/gemm/traits.cuh"
#include "sm90/ptx.cuh"

namespace tilegemm::sm90 {

inline constexpr int kCopyReleaseBatch = 4;     // units a warp copies before it releases their flags
inline constexpr uint32_t kCopyBarrierId = 7;  // the producer warpgroup's named barrier (consumers use 1 + c)

// Whether this launch copies anything (a copy_operands kernel launched without copies runs as usual).
__device__ __forceinline__ bool copies_operands(const GemmParams& p) {
  return p.copy.sync != nullptr && (p.copy.a_src != nullptr || p.copy.b_src != nullptr);
}

// Rows of a row block of A (b = false) or B: the tile's, or fewer at the operand's end.
template <Config C>
__device__ __forceinline__ int copy_block_rows(const GemmParams& p, bool b, int block) {
  const int r = b ? C.bn : C.bm, total = b ? p.n : p.m;
  return total - block * r < r ? total - block * r : r;
}

// One warp's share of the copies: units until the plan is exhausted. `buf` (kCopyBuffersPerWarp x
// kCopyBufferBytes) and `bars` (one mbarrier of one arrival per buffer) are this warp's own.
template <Config C>
__device__ __forceinline__ void copy_operands_warp(const GemmParams& p, int lane, uint8_t* buf, uint64_t* bars) {
  const CopyPlan& cp = p.copy;
  constexpr int kRowBlock = C.bm > C.bn ? C.bm : C.bn;
  constexpr int kUnitsPerChunk = (kRowBlock + kCopyRowsPerUnit - 1) / kCopyRowsPerUnit;
  constexpr int kSlabCols = kCopySlabKBlocks * kBlockK;  // elements of K per chunk
  constexpr int kChunksPerRow = kSlabCols / 8;           // 16-B chunks of a unit's row (bf16)
  const int units = cp.entries * cp.slabs * kUnitsPerChunk;  // (at most kKSplitCounters chunks)
  const int cols = p.k;
  // A unit's place: its chunk, first row (in the operand), rows and columns of the copy.
  struct Unit {
    bool b;
    int block, slab, rows, first_row, c_begin, c_end;
  };
  auto unit_of = [&](int u) {
    Unit x;
    const CopyChunk ch = copy_chunk(cp, u / kUnitsPerChunk);
    const int r0 = int(u % kUnitsPerChunk) * kCopyRowsPerUnit;
    const int block_rows = copy_block_rows<C>(p, ch.b, ch.block);
    x.b = ch.b;
    x.block = ch.block;
    x.slab = ch.slab;
    x.rows = r0 >= block_rows ? 0 : block_rows - r0 < kCopyRowsPerUnit ? block_rows - r0 : kCopyRowsPerUnit;
    x.first_row = ch.block * (ch.b ? C.bn : C.bm) + r0;
    const int ld = int(ch.b ? cp.b_ld : cp.a_ld);
    x.c_begin = ch.slab * kSlabCols;
    x.c_end = x.c_begin + kSlabCols < ld ? x.c_begin + kSlabCols : ld;
    return x;
  };
  // Lane r's row of unit x: its source line, and the 16-B blocks around its slab's elements.
  auto row_span = [&](const Unit& x, int r, uintptr_t& first, uintptr_t& last) {
    const uint16_t* line = static_cast<const uint16_t*>(x.b ? cp.b_src : cp.a_src) +
                           int64_t(x.first_row + r) * (x.b ? cp.b_src_row : cp.a_src_row);
    const int end = x.c_end < cols ? x.c_end : cols;
    first = reinterpret_cast<uintptr_t>(line + x.c_begin) & ~uintptr_t(15);
    last = (reinterpret_cast<uintptr_t>(line + end) + 15) & ~uintptr_t(15);
    return line;
  };
  // Each operand's extent in memory: a row's widened span must not reach outside it (the first
  // row's start or the last row's end inside a 16-B block); such a row is read by the threads.
  const uintptr_t a_begin = reinterpret_cast<uintptr_t>(cp.a_src);
  const uintptr_t a_end = a_begin + (uint64_t(p.m - 1) * uint64_t(cp.a_src_row) + uint64_t(cols)) * 2;
  const uintptr_t b_begin = reinterpret_cast<uintptr_t>(cp.b_src);
  const uintptr_t b_end = b_begin + (uint64_t(p.n - 1) * uint64_t(cp.b_src_row) + uint64_t(cols)) * 2;
  // Two buffers per warp: a unit's bulk copies land in one while the other's unit is shifted and
  // stored. The next unit's number comes from an atomicAdd issued one unit earlier (its latency
  // hidden), and the flags are released kCopyReleaseBatch units at a time (one fence for them).
  struct Slot {
    int u;
    bool wait;            // bulk copies to wait for
    uint32_t edge_rows;   // rows read from global memory by the threads
  };
  uint32_t ticket = 0;
  if (lane == 0) ticket = atomicAdd(cp.sync, 1u);
  auto take = [&] {
    const int u = int(__shfl_sync(0xffffffffu, ticket, 0));
    if (lane == 0) ticket = atomicAdd(cp.sync, 1u);
    return u;
  };
  auto issue = [&](int u, int b, Slot& s) {
    s.u = u;
    s.wait = false;
    s.edge_rows = 0u;
    if (u >= units) return;
    const Unit x = unit_of(u);
    uintptr_t first = 0, last = 0;
    bool edge = false;
    if (lane < x.rows) {
      row_span(x, lane, first, last);
      edge = x.b ? first < b_begin || last > b_end : first < a_begin || last > a_end;
    }
    const uint32_t bytes = lane < x.rows && !edge ? uint32_t(last - first) : 0u;
    uint32_t total = bytes;
#pragma unroll
    for (int o = 16; o > 0; o /= 2) total += __shfl_xor_sync(0xffffffffu, total, o);
    s.edge_rows = __ballot_sync(0xffffffffu, edge);
    if (total == 0) return;
    if (lane == 0) mbar_arrive_expect_tx(bars + b, total);
    __syncwarp();
    if (bytes > 0)
      bulk_load(buf + b * kCopyBufferBytes + lane * kCopyRowBytes, reinterpret_cast<const void*>(first), bytes, bars + b);
    s.wait = true;
  };
  int pending = 0;
  int pending_flag[kCopyReleaseBatch];
  uint32_t pending_rows[kCopyReleaseBatch];
  auto release = [&] {
    if (pending == 0) return;
    fence_proxy_async_global();  // this lane's stores, before any TMA load of them
    __syncwarp();
    if (lane == 0) {
      fence_acq_rel_gpu();  // the warp's stores (ordered by __syncwarp) before the flags: release
#pragma unroll
      for (int i = 0; i < kCopyReleaseBatch; ++i)
        if (i < pending) red_add_relaxed_gpu(cp.sync + pending_flag[i], pending_rows[i]);
    }
    pending = 0;
  };
  // Every 16-B chunk of unit s's copy: two aligned blocks of its buffer funnel-shifted into place
  // (zero past K), or from global memory element by element for an edge row.
  auto process = [&](const Slot& s, int b, uint32_t& phase) {
    const Unit x = unit_of(s.u);
    if (s.wait) {
      mbar_wait(bars + b, phase);
      phase ^= 1u;
    }
    const uint16_t* src = static_cast<const uint16_t*>(x.b ? cp.b_src : cp.a_src);
    uint16_t* dst = static_cast<uint16_t*>(x.b ? cp.b_dst : cp.a_dst);
    const int64_t src_row = x.b ? cp.b_src_row : cp.a_src_row, ld = x.b ? cp.b_ld : cp.a_ld;
    const uint8_t* unit_buf = buf + b * kCopyBufferBytes;
    const int items = x.rows * kChunksPerRow;
#pragma unroll 4
    for (int i = lane; i < items; i += 32) {
      const int r = i / kChunksPerRow, j = i % kChunksPerRow;
      const int c0 = x.c_begin + 8 * j;
      if (c0 >= x.c_end) continue;
      const uint16_t* line = src + int64_t(x.first_row + r) * src_row;
      uint4 v = make_uint4(0u, 0u, 0u, 0u);
      if (c0 < cols) {
        const uint32_t shift = uint32_t(reinterpret_cast<uintptr_t>(line) & 15u);  // (c_begin: whole blocks)
        if ((s.edge_rows >> r) & 1u) {
          v = load_line_chunk<2>(line, cols, c0, reinterpret_cast<uintptr_t>(line + cols), shift);
        } else {
          const uint8_t* at = unit_buf + r * kCopyRowBytes + 16 * j;
          const uint4 lo = *reinterpret_cast<const uint4*>(at), hi = *reinterpret_cast<const uint4*>(at + 16);
          const uint32_t w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
          const uint32_t q = shift / 4, bits = 8 * (shift % 4);
          uint32_t o[4] = {__funnelshift_r(word_at(w, q, 0), word_at(w, q, 1), bits),
                           __funnelshift_r(word_at(w, q, 1), word_at(w, q, 2), bits),
                           __funnelshift_r(word_at(w, q, 2), word_at(w, q, 3), bits),
                           __funnelshift_r(word_at(w, q, 3), word_at(w, q, 4), bits)};
          if (c0 + 8 > cols) {  // the row's last chunk: the elements past K are zero
#pragma unroll
            for (int e = 0; e < 8; ++e)
              if (c0 + e >= cols) o[e / 2] &= (e % 2) ? 0x0000ffffu : 0xffff0000u;
          }
          v = make_uint4(o[0], o[1], o[2], o[3]);
        }
      }
      *reinterpret_cast<uint4*>(dst + int64_t(x.first_row + r) * ld + c0) = v;
    }
    fence_proxy_async_smem();  // the buffer's reads, before the next bulk copy writes it
    const int flag = int(copy_flag_index(cp, x.b, x.block, x.slab));
#pragma unroll
    for (int i = 0; i < kCopyReleaseBatch; ++i)  // (unrolled selects: the list stays in registers)
      if (i == pending) {
        pending_flag[i] = flag;
        pending_rows[i] = uint32_t(x.rows);
      }
    if (++pending == kCopyReleaseBatch) release();
  };
  // (Named slots and phases, not arrays: indexed by a run-time buffer number they would live in
  // local memory.)
  auto step = [&](Slot& s, int b, uint32_t& phase) {
    if (s.u >= units) return;
    // (A unit past its row block's rows, e.g. in A's shorter blocks, has nothing to copy.)
    if (unit_of(s.u).rows > 0) process(s, b, phase);
    __syncwarp();  // every lane is done with the buffer before its next copies are issued
    issue(take(), b, s);
  };
  static_assert(kCopyBuffersPerWarp == 2, "two slots below");
  Slot slot0, slot1;
  uint32_t phase0 = 0u, phase1 = 0u;
  issue(take(), 0, slot0);
  issue(take(), 1, slot1);
  while (slot0.u < units || slot1.u < units) {
    step(slot0, 0, phase0);
    step(slot1, 1, phase1);
  }
  release();
}

// The producer, before the k-blocks of `slab` of tile (m_block, n_block): until the slab's chunks
// of the copied operands are whole.
template <Config C>
__device__ __forceinline__ void wait_copied_slab(const GemmParams& p, int m_block, int n_block, int slab) {
  const CopyPlan& cp = p.copy;
  if (cp.a_src != nullptr && m_block >= cp.a_ready) {
    const uint32_t* f = cp.sync + copy_flag_index(cp, false, m_block, slab);
    const uint32_t need = uint32_t(copy_block_rows<C>(p, false, m_block));
    while (load_acquire_gpu(f) < need) sleep_ns(32);
  }
  if (cp.b_src != nullptr && n_block >= cp.b_ready) {
    const uint32_t* f = cp.sync + copy_flag_index(cp, true, n_block, slab);
    const uint32_t need = uint32_t(copy_block_rows<C>(p, true, n_block));
    while (load_acquire_gpu(f) < need) sleep_ns(32);
  }
  fence_proxy_async_global();  // what the acquire made visible, before the TMA loads read it
}

// The producer warpgroup's last step (all 128 threads): count this CTA done; the last CTA zeroes
// the counter, the flags and the done count for the next launch.
__device__ __forceinline__ void finish_operand_copies(const GemmParams& p, int thread_in_wg) {
  const CopyPlan& cp = p.copy;
  named_barrier_sync(kCopyBarrierId, 128);  // this CTA's copy warps and producer are done
  uint32_t last = 0;
  if (thread_in_wg == 0) {
    fence_acq_rel_gpu();
    last = atomicAdd(cp.sync + 1, 1u) == gridDim.x - 1 ? 1u : 0u;
    fence_acq_rel_gpu();  // every other CTA's flag updates, before the zeroing below
  }
  if (named_barrier_or(kCopyBarrierId, 128, last)) {
    const int64_t words = kCopySyncWords + int64_t(cp.flags);
    for (int64_t i = thread_in_wg; i < words; i += 128) cp.sync[i] = 0u;
  }
}

}  // namespace tilegemm::sm90
