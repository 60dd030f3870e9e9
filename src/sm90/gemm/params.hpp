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
};
static_assert(sizeof(TmaDescriptor) == 128 && alignof(TmaDescriptor) == 128, "CUtensorMap layout");
static_assert(sizeof(GemmParams) == 640, "GemmParams layout is shared by g++ and NVRTC");

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
// Line copies confined to a few SMs (launch_packs' pinned_ctas, `tilegemm copy-rate`): blocks of
// 1024 threads that ask for more dynamic shared memory than half an SM has (228 KB on Hopper), so
// each takes an SM of its own and leaves no room there for a GEMM CTA; the rest of the GPU stays
// free for a GEMM launched beside them with max_ctas = SMs - pinned CTAs.
inline constexpr int kPackPinnedThreads = 1024;
inline constexpr int kPackPinnedSmemBytes = 120 * 1024;

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
