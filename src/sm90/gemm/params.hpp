// The run-time parameters of the production kernel: one struct passed by value as a
// `__grid_constant__` kernel parameter (so the tensor maps' addresses are in parameter space, which
// TMA accepts: PTX ISA §9.7.9.25, tensormap operand). The host (src/api/launch.cpp) fills it and
// hands the driver a pointer to it (kernelParams = {&params}); the layout must be the same under
// g++ and NVRTC, hence plain fixed-width fields only and static_asserts on the offsets.
#pragma once

#include "core/host_device.hpp"
#include "core/int_types.hpp"

namespace tilegemm::sm90 {

// Opaque 128-byte TMA descriptor: the layout of the driver's CUtensorMap (cuda.h of CUDA 13 aligns
// it to 128 bytes; TMA needs at least 64), which the host encodes (sm90/tensor_map.hpp) and copies
// here bit for bit. The kernels cannot include cuda.h (NVRTC has no toolkit headers), so they see
// it as this.
struct alignas(128) TmaDescriptor {
  uint64_t opaque[16];
};

// The operand copies a Config::copy_operands kernel makes itself (operand_copy.cuh): each copied
// operand (A [M, K] and/or B [N, K], K-major lines, PackParams as pack_rows_body takes them) is cut
// into chunks of one tile's rows (bm of A, bn of B: a "row block") x kCopySlabKBlocks k-blocks of K.
// The rows the first wave of tiles reads are copied before the kernel (a_ready, b_ready); the
// producer warpgroup's other three warps copy the other chunks in `order` while the kernel runs:
// row blocks grouped by the wave of tiles that first reads them (group g: entries
// [group_end[g - 1], group_end[g])), each group slab by slab; the producer waits for a chunk's flag
// before it loads from it. sync: [0] the next unit to copy, [1] CTAs finished, then one flag per chunk (A's row
// blocks first, then B's, slabs consecutive): rows copied so far; all 0 between launches (the last
// CTA zeroes them).
inline constexpr int kCopySlabKBlocks = 8;      // k-blocks per chunk (512 bf16 of K)
inline constexpr int kCopyRowsPerUnit = 4;      // rows of a chunk one warp copies at a time (a unit)
inline constexpr int kCopyMaxEntries = 1024;    // row blocks of A and B
inline constexpr int kCopyMaxGroups = 32;       // first-use groups (the last takes every later wave)
inline constexpr int kCopySyncWords = 2;        // sync words before the flags
struct CopyPlan {
  const void* a_src = nullptr;  // nullptr: A is read in place
  void* a_dst = nullptr;
  int64_t a_src_row = 0, a_ld = 0;
  const void* b_src = nullptr;  // nullptr: B is read in place
  void* b_dst = nullptr;
  int64_t b_src_row = 0, b_ld = 0;
  uint32_t* sync = nullptr;
  int32_t slabs = 0;     // chunks per row block: ceil(k-blocks / kCopySlabKBlocks)
  int32_t entries = 0;   // row blocks in `order`
  int32_t groups = 0;
  int32_t a_blocks = 0;  // row blocks of A when A is copied, else 0 (B's row block r has flags a_blocks + r)
  int32_t a_ready = 0;   // A's row blocks [0, a_ready) (the first wave's) are copied before the kernel
  int32_t b_ready = 0;   // the same for B
  int32_t flags = 0;     // flag words after kCopySyncWords (every row block's, ready ones unused)
  uint16_t group_end[kCopyMaxGroups] = {};
  uint16_t order[kCopyMaxEntries] = {};  // bit 15: B; bits 0-14: the row block
};
// Chunk `c` of a plan (0 <= c < entries x slabs): group by group, each group slab by slab, entry
// by entry within a slab. Plain integer code: the kernel's copy warps and the CPU tests share it.
struct CopyChunk {
  bool b = false;  // B's row block (else A's)
  int block = 0;   // the row block: rows [block x bn (or bm), ...) of the operand
  int slab = 0;    // k-blocks [slab x kCopySlabKBlocks, ...)
};
TG_HD inline CopyChunk copy_chunk(const CopyPlan& cp, int64_t c) {
  CopyChunk ch;
  int begin = 0;
  for (int g = 0; g < cp.groups; ++g) {
    const int end = cp.group_end[g], n = end - begin;
    const int64_t size = int64_t(n) * cp.slabs;
    if (c < size) {
      const uint16_t e = cp.order[begin + int(c % n)];
      ch.b = (e >> 15) != 0;
      ch.block = e & 0x7fff;
      ch.slab = int(c / n);
      return ch;
    }
    c -= size;
    begin = end;
  }
  return ch;
}
// The flag of a chunk in CopyPlan::sync (after the kCopySyncWords).
TG_HD inline int64_t copy_flag_index(const CopyPlan& cp, bool b, int block, int slab) {
  return kCopySyncWords + int64_t(b ? cp.a_blocks + block : block) * cp.slabs + slab;
}

static_assert(sizeof(CopyPlan) == 104 + 2 * kCopyMaxGroups + 2 * kCopyMaxEntries, "CopyPlan layout");

struct GemmParams {
  TmaDescriptor tmap_a;  // A [M, K] K-major: boxes of 64 k x bm rows (bm / 2 with A multicast)
  TmaDescriptor tmap_b;  // B [N, K] K-major: boxes of 64 k x bn rows (bn / 2 with B multicast)
  TmaDescriptor tmap_d;  // D [M, N rounded down to 16 B] row-major, stride ldd: boxes of 64 rows x 128 B (tma_store)
  TmaDescriptor tmap_c;  // C [M, N] row-major, stride ldc: the same boxes (tma_store with C)
  int32_t m = 0, n = 0, k = 0;
  float alpha = 1.0f;
  void* d = nullptr;     // D again, for plain stores: the direct epilogue and the < 8 tail columns
  int64_t ldd = 0;       // elements
  const void* c = nullptr;  // C [M, N] row-major, D's dtype (Config::with_c); may be D itself
  int64_t ldc = 0;
  float beta = 0.0f;
  // Config::stream_k: the decomposition (schedule/stream_k.hpp; tiles and k-blocks follow from
  // M, N, K) and the fix-up's fp32 partial tiles and counters (sm90/gemm/fixup.cuh).
  float* workspace = nullptr;  // 2 x workers partial tiles of bm x bn floats
  int32_t dp_tiles = 0;        // slots computed whole
  int32_t workers = 0;         // stream-K ranges over the k-blocks of the other slots
  uint32_t* counters = nullptr;  // one per (stream-K slot, consumer), 0 between launches
  void* trace = nullptr;       // traced kernels (Config::trace): the event buffer (trace/event.hpp),
  uint32_t trace_capacity = 0;  // sized by the host for the grid: this many events per lane
  CopyPlan copy;               // Config::copy_operands: the copies the kernel makes (above)
};
static_assert(sizeof(TmaDescriptor) == 128 && alignof(TmaDescriptor) == 128, "CUtensorMap layout");
static_assert(sizeof(GemmParams) == 2944, "GemmParams layout is shared by g++ and NVRTC");

// The operand repack (pack.cuh): rows x cols elements, (r, c) at src[r * src_row + c * src_col],
// into dst (256-B aligned) with lines of ld_dst elements (a multiple of 8), the rest zero.
struct PackParams {
  const void* src = nullptr;
  void* dst = nullptr;
  int64_t rows = 0, cols = 0;        // the logical matrix copied
  int64_t src_row = 0, src_col = 1;  // element strides of the source
  int64_t ld_dst = 0;                // elements, a multiple of 8
};
static_assert(sizeof(PackParams) == 56, "PackParams layout is shared by g++ and NVRTC");

// The line copies of one call (at most A, B and C), one launch. The work is cut into items of one
// line's kPackItemChunks consecutive 16-B chunks of dst (a warp's step); job j owns items
// [item_begin[j], item_begin[j + 1]) (item_begin[j] = the total past `jobs`).
inline constexpr int kPackJobs = 3;
struct PackRowsParams {
  PackParams job[kPackJobs];
  int64_t item_begin[kPackJobs + 1] = {};  // prefix sums of rows * ceil(ld_dst / chunk / kPackItemChunks)
  int32_t jobs = 0;
  int32_t pad_ = 0;
};
static_assert(sizeof(PackRowsParams) == 3 * 56 + 4 * 8 + 8, "PackRowsParams layout is shared by g++ and NVRTC");

inline constexpr int kPackThreads = 256;
inline constexpr int kPackChunksPerLane = 2;  // line copies: 16-B chunks a lane loads before it stores them
inline constexpr int kPackItemChunks = 32 * kPackChunksPerLane;  // chunks of one item (a warp's step)
inline constexpr int kPackTile = 32;  // transpose: 32 x 32 elements per block of 32 x 8 threads

// Items per line of a line-copy job with kElem-byte elements: its dst line in kPackItemChunks runs.
TG_HD constexpr int64_t pack_items_per_line(const PackParams& p, int elem_bytes) {
  return (p.ld_dst / (16 / elem_bytes) + kPackItemChunks - 1) / kPackItemChunks;
}

// Appends a line-copy job of elem_bytes elements to pr (host side of pack_rows_body); false when
// kPackJobs are taken. item_begin stays whole: the entries past the last job hold the total.
inline bool append_pack_job(PackRowsParams& pr, const PackParams& job, int elem_bytes) {
  if (pr.jobs == kPackJobs) return false;
  const int64_t begin = pr.item_begin[pr.jobs];
  pr.job[pr.jobs] = job;
  ++pr.jobs;
  for (int j = pr.jobs; j <= kPackJobs; ++j) pr.item_begin[j] = begin + job.rows * pack_items_per_line(job, elem_bytes);
  return true;
}

// Item g of a launch: its job, line and first 16-B chunk of dst.
struct PackItem {
  int job = 0;
  int64_t row = 0, first_chunk = 0;
};
TG_HD inline PackItem pack_item(const PackRowsParams& pr, int64_t g, int elem_bytes) {
  PackItem it;
  it.job = (g >= pr.item_begin[1]) + (g >= pr.item_begin[2]);  // selects, not indexed parameters
  const PackParams& p = it.job == 2 ? pr.job[2] : it.job == 1 ? pr.job[1] : pr.job[0];
  const int64_t local = g - (it.job == 2 ? pr.item_begin[2] : it.job == 1 ? pr.item_begin[1] : 0);
  const int64_t per_line = pack_items_per_line(p, elem_bytes);
  it.row = local / per_line;
  it.first_chunk = (local - it.row * per_line) * kPackItemChunks;
  return it;
}

}  // namespace tilegemm::sm90
