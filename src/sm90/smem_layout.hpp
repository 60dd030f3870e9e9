// Shared-memory layout of one GEMM CTA: the single place where stage offsets, the epilogue buffer,
// the mbarriers and the total dynamic smem size are computed. It lives with the kernels (device
// code depends on nothing host-side); the planner (to count stages and size the launch) and the
// kernels (to place their tiles) both call compute_smem_layout, so they can never disagree.
//
// Device-safe on purpose: constexpr, TG_HD, plain ints, no std headers, C++17 — compiles under g++,
// nvcc device code and NVRTC (tests/cpu/plan/ check all three).
//
// Layout, offsets relative to the dynamic smem base rounded UP to 1024 B at run time:
//
//   [A stage 0][A stage 1]...[A stage S-1]   each BM x BK operand elements, 1024-B aligned
//   [B stage 0]...[B stage S-1]              each BN x BK, 1024-B aligned
//   [D staging]                              BM x d_stage_cols output elements, 1024-B aligned
//   [k-split receive area]                   partial tiles other CTAs of a cluster send (fixup.cuh)
//   [full barrier 0..S-1][empty barrier 0..S-1]   one 8-B mbarrier each
//   [extra barrier 0..E-1]                   the epilogue's (C loads into the staging slots)
//
// Why 1024: a 128B-swizzle atom is 8 rows x 128 B and the swizzle XOR uses absolute address bits
// [9:7] (docs/HOPPER.md §3), so every swizzled tile starts on a 1024-B boundary and the WGMMA
// descriptor base offset stays 0.
// Why +1 KiB: the driver does not promise a 1024-B aligned dynamic smem base (docs/HOPPER.md §3,
// UNVERIFIED either way); the kernel rounds the base up, which can skip up to 1008 B. total_bytes
// budgets a full 1024 for it, and that is what the planner compares with the 232448-B limit.
// Why the D staging may be narrower than the tile: the epilogue can stage a tile in column parts
// (fill a part, fence, TMA-store it, wait_group.read before refilling) instead of all at once.
// d_stage_cols = 0 (the default) means the whole BN, i.e. a full BM x BN tile as before; a kernel
// that stages in parts passes the width it actually holds, so fewer bytes go to D and more stages
// fit (128x256 bf16: 64 KiB full tile -> 3 stages; 128 columns = 32 KiB -> 4 stages).
// Why A stages come first and B stages follow: for BM < 64 a WGMMA (M = 64) still reads 64 rows
// from the A stage start; the extra rows must be valid smem (their results are never stored).
// Reading on into the next A stage or into B stays inside the allocation; overread_pad covers the
// case where it would not (checked, never needed for BK = 64 and >= 3 stages).
#pragma once

#include "core/host_device.hpp"

namespace tilegemm::sm90 {

inline constexpr int kSmemAlign = 1024;            // 128B-swizzle atom (8 rows x 128 B)
inline constexpr int kSmemBaseSlack = 1024;        // run-time round-up of the dynamic smem base
inline constexpr int kSmemLimitPerBlock = 232448;  // H100/H200 opt-in max per block (227 KiB)
inline constexpr int kMinStages = 3;
// kMaxStages bounds what a Config may ask for (a `stages=` spec); the planner fills a config's ring
// up to kAutoMaxStages on its own (what every pick has been measured with). NOTES: nothing in the
// template depends on the depth (the ring's parity flips at any count, the layout is computed).
// Builds with kMaxStages = 32 ran rings of 22-25 stages on the H100 (docs/PERF.md, fifty-third
// session): correct, 7-8 % faster where a decode pick runs 33 CTAs, 5-9 % slower with 48-80, so
// neither bound moves until the depth can follow the grid.
inline constexpr int kMaxStages = 16;
inline constexpr int kAutoMaxStages = 16;
static_assert(kMinStages <= kAutoMaxStages && kAutoMaxStages <= kMaxStages);
inline constexpr int kMbarrierBytes = 8;           // .b64 mbarrier object, 8-B aligned
inline constexpr int kWgmmaM = 64;                 // wgmma.m64nNk16: M is fixed at 64

TG_HD constexpr int align_up(int x, int a) { return (x + a - 1) / a * a; }

struct SmemLayout {
  int stages = 0;
  int a_base = 0;            // A stage s lives at a_base + s * a_stage_stride
  int a_stage_bytes = 0;     // BM * BK * ab_elem_bytes
  int a_stage_stride = 0;    // a_stage_bytes rounded up to 1024
  int b_base = 0;
  int b_stage_bytes = 0;     // BN * BK * ab_elem_bytes
  int b_stage_stride = 0;
  int d_offset = 0;          // epilogue staging tile (registers -> stmatrix -> TMA store)
  int d_stage_cols = 0;      // tile columns the staging holds at once (BN = the whole tile)
  int d_bytes = 0;           // BM * d_stage_cols * d_elem_bytes
  int recv_offset = 0;       // the k-split cluster's receive area (Config::cluster_k), 16-B aligned
  int recv_bytes = 0;        // 0 without one
  int full_barrier_base = 0;   // full[s]: TMA landed stage s (producer -> consumers)
  int empty_barrier_base = 0;  // empty[s]: consumers released stage s (consumers -> producer)
  int extra_barrier_base = 0;  // the epilogue's barriers (extra_barriers of them)
  int barrier_bytes = 0;       // (2 * stages + extra_barriers) * 8
  int wgmma_a_read_bytes = 0;  // bytes one 64-row WGMMA pass reads from an A stage
  int overread_pad = 0;        // bytes appended so the last A stage's 64-row read stays inside
  int used_bytes = 0;          // end of the last object, from the aligned base
  int total_bytes = 0;         // dynamic smem to request: used_bytes + kSmemBaseSlack

  TG_HD constexpr int a_offset(int s) const { return a_base + s * a_stage_stride; }
  TG_HD constexpr int b_offset(int s) const { return b_base + s * b_stage_stride; }
  TG_HD constexpr int full_barrier(int s) const { return full_barrier_base + s * kMbarrierBytes; }
  TG_HD constexpr int empty_barrier(int s) const { return empty_barrier_base + s * kMbarrierBytes; }
  TG_HD constexpr int extra_barrier(int i) const { return extra_barrier_base + i * kMbarrierBytes; }
  TG_HD constexpr bool fits(int limit = kSmemLimitPerBlock) const { return total_bytes <= limit; }
};

// The one layout function. bm, bn, bk: CTA tile; stages >= 1; d_elem_bytes: bytes per element of
// the epilogue staging tile (2 for BF16 output, 4 for FP32 output and for split-K partials);
// ab_elem_bytes: 2 for BF16 operands; d_stage_cols: how many of the BN tile columns the epilogue
// staging holds at once, 1..BN, 0 = BN (the full BM x BN tile, what every caller got before);
// extra_barriers: mbarriers the epilogue needs besides the ring's (0 by default); d_rows: rows of
// the staging, 0 = bm (ping-pong consumers each stage 64 rows whatever bm is); recv_bytes: the
// receive area of a k-split cluster (the partial tiles its other CTAs send this one), 0 = none.
TG_HD constexpr SmemLayout compute_smem_layout(int bm, int bn, int bk, int stages, int d_elem_bytes,
                                               int ab_elem_bytes = 2, int d_stage_cols = 0, int extra_barriers = 0,
                                               int d_rows = 0, int recv_bytes = 0) {
  SmemLayout L;
  L.stages = stages;
  L.a_stage_bytes = bm * bk * ab_elem_bytes;
  L.a_stage_stride = align_up(L.a_stage_bytes, kSmemAlign);
  L.b_stage_bytes = bn * bk * ab_elem_bytes;
  L.b_stage_stride = align_up(L.b_stage_bytes, kSmemAlign);
  L.a_base = 0;
  L.b_base = L.a_base + stages * L.a_stage_stride;
  L.d_stage_cols = d_stage_cols > 0 ? d_stage_cols : bn;
  L.d_bytes = (d_rows > 0 ? d_rows : bm) * L.d_stage_cols * d_elem_bytes;
  L.d_offset = align_up(L.b_base + stages * L.b_stage_stride, kSmemAlign);
  L.recv_offset = align_up(L.d_offset + L.d_bytes, 16);
  L.recv_bytes = recv_bytes;
  L.full_barrier_base = align_up(L.recv_offset + L.recv_bytes, kMbarrierBytes);
  L.empty_barrier_base = L.full_barrier_base + stages * kMbarrierBytes;
  L.extra_barrier_base = L.empty_barrier_base + stages * kMbarrierBytes;
  L.barrier_bytes = (2 * stages + extra_barriers) * kMbarrierBytes;
  int end = L.extra_barrier_base + extra_barriers * kMbarrierBytes;
  const int wgmma_rows = bm < kWgmmaM ? kWgmmaM : bm;
  L.wgmma_a_read_bytes = wgmma_rows * bk * ab_elem_bytes;
  const int last_a_read_end = L.a_offset(stages - 1) + L.wgmma_a_read_bytes;
  L.overread_pad = last_a_read_end > end ? last_a_read_end - end : 0;
  L.used_bytes = end + L.overread_pad;
  L.total_bytes = L.used_bytes + kSmemBaseSlack;
  return L;
}

// Tiles that run past the end of an operand (the last M or N block when BM or BN does not divide
// it): a K-major operand's box for such a tile starts edge_shift_rows(...) rows above the tile,
// so that at most 7 of its rows lie past the end, and the consumers read the tile's rows that
// many rows further into the stage. The rows they then read past the stage's own are other data
// (the next stage, or what follows the last one), but those rows only ever reach accumulators of
// rows or columns past M or N, which no epilogue stores. 0 for a tile inside, and for the first
// (row0 = 0: the box cannot start above the operand). A multiple of 8 rows (whole 1024-B 128-B
// swizzle atoms, so the wgmma descriptors stay atom-aligned), at most `cap`.
// NOTES: measured on the H100 (docs/PERF.md, thirty-fourth session), a 128x128 tile whose box
// hangs mostly past M or N slowed the whole kernel: 4000x4096x2048 102.2 us (32 of the last
// block's 128 rows inside M) against 94.4 at 4096^2 with the same 1024 tiles, 4032 rows 97.
// With the shift (thirty-fifth session, same call as the control): 4000x4096x2048 104.6 -> 96.7,
// 4000x4000x2048 112.1 -> 95.6 (128x128 ping-pong), 7001x3001x2999 274.4 -> 211.2.
TG_HD constexpr int edge_shift_rows(int row0, int rows, int total, int cap) {
  const int over = row0 + rows - total;
  if (cap < 8 || row0 == 0 || over < 8) return 0;
  const int shift = over & ~7;  // over < rows <= row0: the box still starts at a row >= 0
  return shift < cap ? shift : cap;
}

// The largest shift (a multiple of 8 below `rows`) for which the consumers' reads of the last
// stage, `rows` rows of 128 B from `stage_offset` plus the shift, stay inside the used bytes.
TG_HD constexpr int edge_shift_cap(const SmemLayout& L, int stage_offset, int rows) {
  const int slack_rows = (L.used_bytes - stage_offset - rows * 128) / 128;
  const int cap = rows - 8 < slack_rows ? rows - 8 : slack_rows;
  return cap < 8 ? 0 : cap / 8 * 8;
}
TG_HD constexpr int a_edge_shift_cap(const SmemLayout& L, int bm) {
  return edge_shift_cap(L, L.a_offset(L.stages - 1), bm < kWgmmaM ? kWgmmaM : bm);
}
TG_HD constexpr int b_edge_shift_cap(const SmemLayout& L, int bn) {
  return edge_shift_cap(L, L.b_offset(L.stages - 1), bn);
}

// The deepest pipeline that fits: largest stages in [1, kAutoMaxStages] with total_bytes <= limit, or 0
// when even one stage does not fit. (The planner then requires >= kMinStages.) d_stage_cols as in
// compute_smem_layout (0 = full tile).
TG_HD constexpr int max_stages_that_fit(int bm, int bn, int bk, int d_elem_bytes,
                                        int limit = kSmemLimitPerBlock, int ab_elem_bytes = 2,
                                        int d_stage_cols = 0, int extra_barriers = 0) {
  for (int s = kAutoMaxStages; s >= 1; --s)
    if (compute_smem_layout(bm, bn, bk, s, d_elem_bytes, ab_elem_bytes, d_stage_cols, extra_barriers).total_bytes <=
        limit)
      return s;
  return 0;
}

}  // namespace tilegemm::sm90
