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

// The line copies again, read by bulk copies into a ring of shared-memory slots (pack.cuh,
// pack_rows_bulk_body): one block per SM, a warp issuing the loads, the others shifting the bytes
// into place and storing 16-B chunks. A job is cut into units, each one slot's load: several whole
// lines where the source lines are (nearly) contiguous and short enough, else a run of one line's
// dst chunks. A block takes units blockIdx.x, + gridDim.x, ... in order.
// Copying warp w owns slots w, w + 8, ... (pack.cuh: so that it is the only one to wait on them).
inline constexpr int kPackBulkThreads = 288;           // warp 0 issues, 8 warps copy
inline constexpr int kPackBulkCopyWarps = kPackBulkThreads / 32 - 1;
inline constexpr int kPackBulkSlots = 16;
inline constexpr int kPackBulkSlotBytes = 12288;       // a unit's source span, 16-B aligned, fits one
static_assert(kPackBulkSlots % kPackBulkCopyWarps == 0, "each copying warp owns whole slots");
inline constexpr int kPackBulkSmemBytes = kPackBulkSlots * kPackBulkSlotBytes;  // (+ static barriers)
// A block's i-th unit (i = 0, 1, ...: its units blockIdx.x + i * gridDim.x): its slot, and the parity
// of the phase of the slot's barriers that it completes (its load on full[slot], its copy on
// empty[slot]). Copying warp w takes the units i = w, w + copy_warps, ... (pack.cuh; the CPU test
// of the ring's protocol walks the same functions).
TG_HD constexpr int pack_ring_slot(int64_t i, int slots = kPackBulkSlots) { return int(i % slots); }
TG_HD constexpr uint32_t pack_ring_parity(int64_t i, int slots = kPackBulkSlots) { return uint32_t(i / slots) & 1u; }
struct PackBulkShape {
  int64_t lines_per_unit = 1;   // > 1 only where every unit holds whole lines
  int64_t chunks_per_unit = 1;  // dst chunks of a line in one unit (the whole line when lines_per_unit > 1)
  int64_t units_per_line = 1;   // ceil(line chunks / chunks_per_unit) when lines_per_unit == 1
  int64_t units = 0;            // of the job
};
struct PackBulkParams {
  PackParams job[kPackJobs];
  PackBulkShape shape[kPackJobs];
  int64_t unit_begin[kPackJobs + 1] = {};  // prefix sums of shape[j].units
  int32_t jobs = 0;
  int32_t pad_ = 0;
};
static_assert(sizeof(PackBulkShape) == 32 && sizeof(PackBulkParams) == 3 * 56 + 3 * 32 + 4 * 8 + 8,
              "PackBulkParams layout is shared by g++ and NVRTC");

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

// How a job is cut into bulk units (host side of pack_rows_bulk_body). A unit's source span is its
// first element to its last, widened to 16-B blocks: at most (lines - 1) * src_row + cols elements
// plus 30 bytes. Whole lines go several to a unit when the gaps between source lines are at most a
// quarter of a line (the span reads them) and at least two lines fit a slot.
// max_lines caps the lines of a unit (launch_packs: enough units to fill every block's ring).
TG_HD constexpr PackBulkShape pack_bulk_shape(const PackParams& p, int elem_bytes, int64_t max_lines = int64_t(1) << 40) {
  PackBulkShape sh;
  const int64_t line_chunks = pack_line_chunks(p, elem_bytes);
  const int64_t room = kPackBulkSlotBytes - 32;  // bytes of source a unit may span, its misalignment aside
  const int64_t line_bytes = p.cols * elem_bytes, row_bytes = p.src_row * elem_bytes;
  const bool near_dense = p.src_col == 1 && row_bytes >= line_bytes && 4 * (row_bytes - line_bytes) <= line_bytes;
  if (near_dense && line_bytes + row_bytes <= room && max_lines > 1) {
    sh.lines_per_unit = (room - line_bytes) / row_bytes + 1;
    sh.lines_per_unit = sh.lines_per_unit < max_lines ? sh.lines_per_unit : max_lines;
    sh.chunks_per_unit = line_chunks;
    sh.units_per_line = 1;
    sh.units = (p.rows + sh.lines_per_unit - 1) / sh.lines_per_unit;
  } else {
    sh.lines_per_unit = 1;
    sh.chunks_per_unit = (room - 16) / 16;  // chunks whose source, misaligned, still fits the slot
    sh.units_per_line = (line_chunks + sh.chunks_per_unit - 1) / sh.chunks_per_unit;
    sh.units = p.rows * sh.units_per_line;
  }
  return sh;
}

// Appends a bulk line-copy job (host side); false when kPackJobs are taken.
inline bool append_pack_bulk_job(PackBulkParams& pb, const PackParams& job, int elem_bytes,
                                 int64_t max_lines = int64_t(1) << 40) {
  if (pb.jobs == kPackJobs) return false;
  const int64_t begin = pb.unit_begin[pb.jobs];
  pb.job[pb.jobs] = job;
  pb.shape[pb.jobs] = pack_bulk_shape(job, elem_bytes, max_lines);
  ++pb.jobs;
  for (int j = pb.jobs; j <= kPackJobs; ++j) pb.unit_begin[j] = begin + pb.shape[pb.jobs - 1].units;
  return true;
}

// Unit u of a bulk launch: its job, first line, lines, and dst chunk range [chunk0, chunk1) of each line.
struct PackBulkUnit {
  int job = 0;
  int64_t row0 = 0, lines = 1, chunk0 = 0, chunk1 = 0;
};
TG_HD inline PackBulkUnit pack_bulk_unit(const PackBulkParams& pb, int64_t u, int elem_bytes) {
  PackBulkUnit un;
  un.job = (u >= pb.unit_begin[1]) + (u >= pb.unit_begin[2]);
  const int64_t t = u - (un.job == 2 ? pb.unit_begin[2] : un.job == 1 ? pb.unit_begin[1] : 0);
  const PackBulkShape& sh = pack_job_entry(pb.shape, un.job);
  const PackParams& p = pack_job_entry(pb.job, un.job);
  const int64_t line_chunks = pack_line_chunks(p, elem_bytes);
  if (sh.lines_per_unit > 1) {
    un.row0 = t * sh.lines_per_unit;
    un.lines = p.rows - un.row0 < sh.lines_per_unit ? p.rows - un.row0 : sh.lines_per_unit;
    un.chunk0 = 0;
    un.chunk1 = line_chunks;
  } else {
    // (one division per unit, 32-bit where the numbers fit: the issuing lane decodes every unit)
    un.row0 = t <= 0xFFFFFFFFll && sh.units_per_line <= 0xFFFFFFFFll
                  ? int64_t(uint32_t(t) / uint32_t(sh.units_per_line))
                  : t / sh.units_per_line;
    un.lines = 1;
    un.chunk0 = (t - un.row0 * sh.units_per_line) * sh.chunks_per_unit;
    un.chunk1 = un.chunk0 + sh.chunks_per_unit < line_chunks ? un.chunk0 + sh.chunks_per_unit : line_chunks;
  }
  return un;
}

// The bulk ring's fast chunks of one line (pack.cuh, pack_rows_bulk_body): among the unit's dst
// chunks [chunk0, chunk1), those with elem_per_chunk source elements (c < cols / elem_per_chunk)
// whose 16 source bytes [rel + 16 c, rel + 16 c + 16) lie in the loaded span [0, span) (rel: the
// line's first byte relative to the span's start, negative where the span was clipped at the
// source's start; span == 0: nothing loaded). Returned as [first, second), empty when first == second.
struct PackFastRange {
  int64_t first = 0, second = 0;
};
TG_HD constexpr PackFastRange pack_bulk_fast_range(int64_t rel, int64_t span, int64_t cols, int elem_per_chunk,
                                                   int64_t chunk0, int64_t chunk1) {
  if (span <= 0) return {chunk0, chunk0};
  int64_t f0 = rel >= 0 ? 0 : (-rel + 15) / 16;
  int64_t f1 = span - 16 - rel >= 0 ? (span - 16 - rel) / 16 + 1 : 0;
  f0 = f0 > chunk0 ? f0 : chunk0;
  f1 = f1 < chunk1 ? f1 : chunk1;
  const int64_t full = cols / elem_per_chunk;
  f1 = f1 < full ? f1 : full;
  return f1 > f0 ? PackFastRange{f0, f1} : PackFastRange{f0, f0};
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

}  // namespace tilegemm::sm90
