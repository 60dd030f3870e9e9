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
  int32_t sk_group = 1;        // stream-K's run length (KSplit::group; Config::sk_runs)
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

// The line copies of one call (at most A, B and C), one launch. Each job's dst is a run of 16-B
// chunks (rows x ld_dst elements, line after line), cut into items of kPackItemChunks consecutive
// chunks (a warp's step) that run on across line ends, so that short lines keep every lane busy;
// job j owns items [item_begin[j], item_begin[j + 1]) (item_begin[j] = the total past `jobs`).
inline constexpr int kPackJobs = 3;
struct PackRowsParams {
  PackParams job[kPackJobs];
  int64_t item_begin[kPackJobs + 1] = {};  // prefix sums of ceil(rows * ld_dst / chunk / kPackItemChunks)
  int32_t jobs = 0;
  int32_t pad_ = 0;
};
static_assert(sizeof(PackRowsParams) == 3 * 56 + 4 * 8 + 8, "PackRowsParams layout is shared by g++ and NVRTC");

inline constexpr int kPackThreads = 256;
inline constexpr int kPackChunksPerLane = 4;  // line copies: 16-B chunks a lane loads before it stores them
inline constexpr int kPackItemChunks = 32 * kPackChunksPerLane;  // chunks of one item (a warp's step)
inline constexpr int kPackTile = 32;  // transpose: 32 x 32 elements per block of 32 x 8 threads
// Line copies confined to a few SMs (launch_packs' pinned_ctas, `tilegemm copy-rate`): blocks of
// 512 threads (the registers of four chunks in flight per lane fit without spills; 1024 threads
// would cap them at 64) that ask for more dynamic shared memory than half an SM has (228 KB on
// Hopper), so each takes an SM of its own and leaves no room there for a GEMM CTA; the rest of the
// GPU stays free for a GEMM launched beside them with max_ctas = SMs - pinned CTAs.
inline constexpr int kPackPinnedThreads = 512;
inline constexpr int kPackPinnedSmemBytes = 120 * 1024;

// 16-B chunks of one dst line, and of the whole job, for kElem-byte elements.
TG_HD constexpr int64_t pack_line_chunks(const PackParams& p, int elem_bytes) { return p.ld_dst / (16 / elem_bytes); }
TG_HD constexpr int64_t pack_job_items(const PackParams& p, int elem_bytes) {
  return (p.rows * pack_line_chunks(p, elem_bytes) + kPackItemChunks - 1) / kPackItemChunks;
}

// Entry j (0..2) of a launch's per-job array, by selects rather than an index (an indexed kernel
// parameter array would be copied to local memory).
template <class T>
TG_HD constexpr const T& pack_job_entry(const T (&a)[kPackJobs], int j) {
  return j == 2 ? a[2] : j == 1 ? a[1] : a[0];
}

// Appends a line-copy job of elem_bytes elements to pr (host side of pack_rows_body); false when
// kPackJobs are taken. item_begin stays whole: the entries past the last job hold the total.
inline bool append_pack_job(PackRowsParams& pr, const PackParams& job, int elem_bytes) {
  if (pr.jobs == kPackJobs) return false;
  const int64_t begin = pr.item_begin[pr.jobs];
  pr.job[pr.jobs] = job;
  ++pr.jobs;
  for (int j = pr.jobs; j <= kPackJobs; ++j) pr.item_begin[j] = begin + pack_job_items(job, elem_bytes);
  return true;
}

// Item g of a launch: its job and the first chunk of the job's dst (counted over its lines).
struct PackItem {
  int job = 0;
  int64_t first_chunk = 0;
};
TG_HD inline PackItem pack_item(const PackRowsParams& pr, int64_t g) {
  PackItem it;
  it.job = (g >= pr.item_begin[1]) + (g >= pr.item_begin[2]);  // selects, not indexed parameters
  const int64_t local = g - (it.job == 2 ? pr.item_begin[2] : it.job == 1 ? pr.item_begin[1] : 0);
  it.first_chunk = local * kPackItemChunks;
  return it;
}

// One lane's walk over an item: chunk first + lane, then every 32nd, as (line, chunk of the line).
// One division per item (32-bit where the numbers fit), then steps that carry into the next lines.
struct PackLaneWalk {
  int64_t row = 0;
  int64_t chunk = 0;       // of the line
  int64_t line_chunks = 1;
  TG_HD PackLaneWalk(int64_t first, int lane, int64_t line_chunks_) : line_chunks(line_chunks_) {
    if (first <= 0xFFFFFFFFll && line_chunks <= 0xFFFFFFFFll) {
      row = int64_t(uint32_t(first) / uint32_t(line_chunks));
    } else {
      row = first / line_chunks;
    }
    chunk = first - row * line_chunks + lane;
    carry();
  }
  TG_HD void step() {  // to the lane's next chunk, 32 further on
    chunk += 32;
    carry();
  }
  TG_HD void carry() {
    while (chunk >= line_chunks) {
      chunk -= line_chunks;
      ++row;
    }
  }
};

// The part of C one consumer prefetches into L2 (mainloop.cuh, prefetch_c_share): kernel rows
// [r0, r0 + rows) x columns [n0, n0 + bn) of a C of m_total x n_total, clipped, as `lines` lines
// of `len` bytes (row-major: a line per row; column-major, swap-AB: a line per column), each
// touching at most `per_line` 128-B blocks. Empty (lines = 0) where the tile has no element.
struct CShare {
  int lines = 0, len = 0, per_line = 0;
};
TG_HD constexpr CShare c_share(int m_total, int n_total, int r0, int rows, int n0, int bn, bool col_major,
                               int elem_bytes) {
  const int rows_in = rows < m_total - r0 ? rows : m_total - r0;
  const int cols_in = bn < n_total - n0 ? bn : n_total - n0;
  CShare s;
  if (rows_in <= 0 || cols_in <= 0) return s;
  s.lines = col_major ? cols_in : rows_in;
  s.len = (col_major ? rows_in : cols_in) * elem_bytes;
  s.per_line = (s.len + 127) / 128 + 1;  // a line that starts inside a block reaches one further
  return s;
}
// Block i (0 <= i < lines * per_line) of the share: the address of the 128-B block it names when
// that block holds a byte of the share, else 0. (C at `base`, ldc elements between lines.)
TG_HD constexpr uint64_t c_share_block(const CShare& s, int i, uint64_t base, int64_t ldc, int r0, int n0,
                                       bool col_major, int elem_bytes) {
  const int l = i / s.per_line, b = i - l * s.per_line;
  const int64_t first_elem = col_major ? int64_t(n0 + l) * ldc + r0 : int64_t(r0 + l) * ldc + n0;
  const uint64_t first = base + uint64_t(first_elem) * uint64_t(elem_bytes);
  const uint64_t block = (first & ~uint64_t(127)) + uint64_t(b) * 128u;
  return block < first + uint64_t(s.len) ? block : 0u;
}

}  // namespace tilegemm::sm90
