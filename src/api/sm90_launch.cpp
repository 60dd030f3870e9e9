// The sm90 path's launch (sm90_launch.hpp).
#include "api/sm90_launch.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include <cuda.h>  // CUtensorMap (type only)

#include "api/route.hpp"
#include "api/stream_workspace.hpp"
#include "core/math.hpp"
#include "jit/codegen.hpp"
#include "jit/jit.hpp"
#include "plan/config_spec.hpp"
#include "schedule/tile_mapping.hpp"
#include "sm90/gemm/params.hpp"
#include "sm90/gemm/traits.cuh"
#include "sm90/tensor_map.hpp"

namespace tilegemm::detail {

namespace {

static_assert(sizeof(CUtensorMap) == sizeof(sm90::TmaDescriptor) && alignof(CUtensorMap) == alignof(sm90::TmaDescriptor),
              "TmaDescriptor mirrors CUtensorMap");

Status setup_error(const std::string& what) { return Status{ErrorCode::cuda_error, "launch", what}; }

jit::KernelSource to_source(const jit::GeneratedSource& g) { return jit::KernelSource{g.code, g.kernel_name, g.label}; }

jit::LaunchDims gemm_dims(const plan::Config& c, int grid, cudaStream_t stream, bool programmatic = false) {
  jit::LaunchDims dims;
  dims.programmatic = programmatic;
  dims.grid = dim3(static_cast<unsigned>(grid), 1, 1);
  dims.block = dim3(static_cast<unsigned>(c.threads()), 1, 1);
  dims.smem_bytes = static_cast<uint32_t>(sm90::config_smem_layout(c).total_bytes);
  dims.cluster = dim3(static_cast<unsigned>(c.launch_cluster_size()), 1, 1);
  dims.stream = stream;
  return dims;
}

struct Prepared {
  const jit::Kernel* kernel = nullptr;
  int resident_ctas = 0;
};
std::mutex g_prepared_mutex;
std::map<std::pair<int, std::string>, Prepared>& prepared_kernels() {
  static auto* m = new std::map<std::pair<int, std::string>, Prepared>;  // never destroyed
  return *m;
}

// A helper kernel (the operand repack), compiled once per process.
Status helper_kernel(const jit::GeneratedSource& source, const jit::Kernel** out) {
  static std::map<std::string, const jit::Kernel*> kernels;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  const jit::Kernel*& kernel = kernels[source.kernel_name];
  if (kernel == nullptr) {
    if (Status s = jit::get_kernel(to_source(source), &kernel); !s.ok()) return s;
  }
  *out = kernel;
  return Status::success();
}

std::string encode(const sm90::Matrix2d& m, sm90::Box2d box, const char* name, sm90::TmaDescriptor* out,
                   CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_128B) {
  CUtensorMap map;
  const std::string e = sm90::make_2d_tile_map(m, box, swizzle, &map);
  if (!e.empty()) return std::string("tensor map of ") + name + ": " + e;
  std::memcpy(out, &map, sizeof(map));
  return {};
}

}  // namespace

Status prepare_kernel(const plan::Config& config, int device, PreparedKernel* out) {
  const jit::GeneratedSource source = jit::gemm_kernel_source(config);
  const std::pair<int, std::string> key{device, source.code};
  {
    std::lock_guard<std::mutex> lock(g_prepared_mutex);
    auto it = prepared_kernels().find(key);
    if (it != prepared_kernels().end()) {
      *out = PreparedKernel{config, it->second.kernel, it->second.resident_ctas};
      return Status::success();
    }
  }
  // Compile (or load) outside the lock: other configs may compile concurrently (the JIT runtime
  // makes threads asking for the same kernel share one compile).
  Prepared p;
  if (Status s = jit::get_kernel(to_source(source), &p.kernel); !s.ok()) return s;
  int clusters = 0;
  const int cluster = config.launch_cluster_size();
  if (Status s = jit::max_active_clusters(*p.kernel, gemm_dims(config, cluster, nullptr), &clusters); !s.ok())
    return s;
  if (clusters < 1)
    return setup_error("the kernel " + source.label + " does not fit on device " + std::to_string(device) +
                       " (occupancy: 0 clusters of " + std::to_string(cluster) + ")");
  p.resident_ctas = clusters * cluster;
  {
    std::lock_guard<std::mutex> lock(g_prepared_mutex);
    prepared_kernels().emplace(key, p);
  }
  *out = PreparedKernel{config, p.kernel, p.resident_ctas};
  return Status::success();
}

sched::Schedule config_schedule(const plan::Config& c, int m, int n) {
  return sched::Schedule{sched::make_tile_grid(m, n, c.bm, c.bn), c.mapping, sm90::cluster_axis(c)};
}

KernelExtents kernel_extents(const GemmArgs& args, const plan::Config& c) {
  if (c.d_col_major) return KernelExtents{args.d.cols, args.d.rows, args.a.cols};
  return KernelExtents{args.d.rows, args.d.cols, args.a.cols};
}

sched::KSplit launch_k_split(const GemmArgs& args, const PreparedKernel& prepared) {
  const KernelExtents e = kernel_extents(args, prepared.config);
  return sm90::config_k_split(prepared.config, e.m, e.n, e.k, prepared.resident_ctas);
}

size_t ksplit_partial_bytes(const sched::KSplit& ks, const plan::Config& c) {
  return size_t(ks.workers) * size_t(c.bm) * size_t(c.bn) * sizeof(float);  // one per worker (partial_index)
}

size_t ksplit_workspace_bytes(const GemmArgs& args, const PreparedKernel& prepared) {
  const plan::Config& c = prepared.config;
  if (!c.stream_k || c.cluster_k > 1) return 0;  // (a k-split cluster sums in shared memory)
  return ksplit_partial_bytes(launch_k_split(args, prepared), c);
}

int64_t launch_grid(const GemmArgs& args, const PreparedKernel& prepared) {
  const plan::Config& c = prepared.config;
  if (c.stream_k) {
    const sched::KSplit ks = launch_k_split(args, prepared);
    // A k-split cluster: one unit per CTA, every slice of a tile in one cluster (kernel.cuh). The
    // clusters do not wait on each other, so any number of them is correct.
    return c.cluster_k > 1 ? ks.workers : ks.launch_ctas(prepared.resident_ctas);
  }
  const KernelExtents e = kernel_extents(args, c);
  const int64_t units = sched::num_slots(config_schedule(c, int(e.m), int(e.n)));  // whole clusters
  return c.persistent ? std::min<int64_t>(units, prepared.resident_ctas) : units;
}

Status launch_sm90(const GemmArgs& args, const PreparedKernel& prepared, KSplitWorkspace workspace,
                   TraceTarget trace, bool programmatic) {
  const plan::Config& c = prepared.config;
  sm90::GemmParams params;
  // The kernel's problem: D = A·Bᵀ, or with swap-AB Dᵀ = B·Aᵀ into the same D, column-major for it.
  const KernelExtents e = kernel_extents(args, c);
  const MatrixRef& kernel_a = c.d_col_major ? args.b : args.a;  // [M, K] for the kernel
  const MatrixRef& kernel_b = c.d_col_major ? args.a : args.b;  // [N, K]
  params.m = static_cast<int32_t>(e.m);  // <= plan::kMaxKernelExtent (2^31 - 1024): the sm90 route rule
  params.n = static_cast<int32_t>(e.n);
  params.k = static_cast<int32_t>(e.k);
  params.alpha = args.alpha;
  params.d = args.d.ptr;
  params.ldd = args.d.ld;
  if (args.c != nullptr && args.beta != 0.0f) {  // route(): C is row-major like D, D's dtype
    // NOTES: the overlapping last box would read C's columns after its neighbour stored D's there;
    // the planner never offers it in place (planner.cpp, complete_config): refuse rather than be wrong.
    if (sm90::staged_overlapping_c(c) && c_is_d(args))
      return setup_error("config " + plan::describe(c) + " stages an overlapping last box that reads C, but C is D (in place)");
    params.c = args.c->ptr;
    params.ldc = args.c->ld;
    params.beta = args.beta;
  }
  // A [M, K] and B [N, K], each as stored: K-major, the tensor's inner dimension is K and a box is
  // 64 K x the rows this CTA loads (a pair's CTA loads half of a shared tile and multicasts it);
  // MN-major, the inner dimension is M (N) and a box is one chunk of W x 64 (W = 64, 32 or 16:
  // a_mn_chunk / b_mn_chunk, swizzled 128, 64 or 32 B; sm90/swizzle.hpp). D [M, N & ~7] with
  // stride ldd: boxes of 64 x 64 (the TMA store clips in 16-B chunks; the kernel stores the < 8 last
  // columns itself).
  const auto bf16 = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  auto operand = [&](const MatrixRef& x, int64_t rows, int load_rows, int chunk, const char* name,
                     sm90::TmaDescriptor* out) {
    if ((x.major == Major::mn_major) != (chunk != 0))
      return std::string("operand ") + name + " is stored " + to_string(x.major) + " but config " + plan::describe(c) +
             " was built for the other major";
    if (chunk == 0)
      return encode(sm90::Matrix2d{x.ptr, uint64_t(rows), uint64_t(params.k), uint64_t(x.ld), bf16},
                    sm90::Box2d{uint32_t(c.bk), uint32_t(load_rows)}, name, out);
    return encode(sm90::Matrix2d{x.ptr, uint64_t(params.k), uint64_t(rows), uint64_t(x.ld), bf16},
                  sm90::Box2d{uint32_t(chunk), uint32_t(c.bk)}, name, out, sm90::mn_chunk_tensor_swizzle(chunk));
  };
  if (std::string err = operand(kernel_a, params.m, sm90::a_load_rows(c), sm90::a_mn_chunk(c),
                                c.d_col_major ? "B" : "A", &params.tmap_a);
      !err.empty())
    return setup_error(err);
  if (std::string err = operand(kernel_b, params.n, sm90::b_load_rows(c), sm90::b_mn_chunk(c),
                                c.d_col_major ? "A" : "B", &params.tmap_b);
      !err.empty())
    return setup_error(err);
  if (c.epilogue == sm90::Epilogue::tma_store) {
    // D [M, N rounded down to whole 16-B chunks] (the store clips only in chunks; the kernel writes
    // the rest itself). With fewer columns than one chunk the map is never used by a store; one
    // chunk keeps its arguments valid (ldd >= that). C [M, N] whole: loads clip per element.
    const bool fp32 = args.d.dtype == DType::fp32;
    const auto type = fp32 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : bf16;
    const int64_t chunk = fp32 ? 4 : 8;
    const uint64_t d_cols = params.n >= chunk ? uint64_t(params.n / chunk * chunk) : uint64_t(chunk);
    // Swap-AB (column-major D for the kernel): the caller's row-major D [N, M] of the kernel's
    // sizes, its boxes the transposed staging boxes (epilogue.cuh, store_tile); the planner offers
    // this only with M a whole number of chunks, so the map covers every column. With C (bf16),
    // C is [N, M] the same way, and both maps' boxes are the transposed boxes' sub-boxes of
    // trans_sub_box_cols rows (store_tile_staged's kTrans).
    const sm90::Box2d box{uint32_t(sm90::store_box_cols(c.out_dtype)),
                          uint32_t(sm90::staged_trans_c(c) ? sm90::trans_sub_box_cols(c.bn) : sm90::kStoreBoxRows)};
    if (c.d_col_major && params.m % chunk != 0)
      return setup_error("a TMA-stored swap-AB D needs its row length (" + std::to_string(params.m) +
                         ") to be a multiple of " + std::to_string(chunk) + " elements");
    const sm90::Matrix2d dm = c.d_col_major
                                  ? sm90::Matrix2d{args.d.ptr, uint64_t(params.n), uint64_t(params.m), uint64_t(args.d.ld), type}
                                  : sm90::Matrix2d{args.d.ptr, uint64_t(params.m), d_cols, uint64_t(args.d.ld), type};
    if (std::string err = encode(dm, box, "D", &params.tmap_d); !err.empty()) return setup_error(err);
    if (c.with_c) {
      const sm90::Matrix2d cm =
          c.d_col_major ? sm90::Matrix2d{args.c->ptr, uint64_t(params.n), uint64_t(params.m), uint64_t(args.c->ld), type}
                        : sm90::Matrix2d{args.c->ptr, uint64_t(params.m), uint64_t(params.n), uint64_t(args.c->ld), type};
      if (std::string err = encode(cm, box, "C", &params.tmap_c); !err.empty()) return setup_error(err);
    }
  }

  if (c.stream_k) {
    const sched::KSplit ks = launch_k_split(args, prepared);
    if (c.cluster_k > 1 && int64_t(ks.workers) != int64_t(ks.tiles) * c.cluster_k)
      return setup_error("a k-split cluster of " + std::to_string(c.cluster_k) + " needs every tile in " +
                         std::to_string(c.cluster_k) + " slices (K=" + std::to_string(e.k) + " has " +
                         std::to_string(ks.k_blocks) + " k-blocks)");
    if (ks.workers > 0 && c.cluster_k == 1) {
      if (workspace.partials == nullptr || workspace.counters == nullptr)
        return setup_error("a k-split launch without its workspace");
      if (sm90::ksplit_counters(ks, c) > sm90::kKSplitCounters)
        return setup_error("the k-split shares " + std::to_string(ks.tiles - ks.dp_tiles) +
                           " tiles, more than the fix-up's " + std::to_string(sm90::kKSplitCounters) + " counters");
    }
    params.dp_tiles = ks.dp_tiles;
    params.workers = ks.workers;
    params.sk_group = ks.group;
    params.workspace = workspace.partials;
    params.counters = workspace.counters;
  }
  params.trace = trace.buffer;
  params.trace_capacity = trace.lane_capacity;
  const int64_t grid = launch_grid(args, prepared);
  return jit::launch(*prepared.kernel, gemm_dims(c, static_cast<int>(grid), args.stream, programmatic), params);
}

// One launch per group of pack_launch_groups (route.cpp), in its order.
Status launch_packs(const Route& r, void* workspace, cudaStream_t stream, bool programmatic, int pinned_ctas) {
  auto job = [&](const Pack& pk) {
    sm90::PackParams pp;
    pp.src = pk.src;
    pp.dst = static_cast<uint8_t*>(workspace) + pk.offset;
    pp.rows = pk.rows;
    pp.cols = pk.cols;
    pp.src_row = pk.src_row;
    pp.src_col = pk.src_col;
    pp.ld_dst = pk.ld;
    return pp;
  };
  for (const PackLaunch& g : pack_launch_groups(r.packs)) {
    const jit::Kernel* kernel = nullptr;
    const bool pinned = pinned_ctas > 0 && !g.transposes;
    if (Status s = helper_kernel(jit::pack_source(g.elem_bytes, g.transposes, pinned, pack_l2_default()), &kernel); !s.ok()) return s;
    jit::LaunchDims dims;
    dims.stream = stream;
    dims.programmatic = programmatic;
    if (!g.transposes) {  // line copies of one element size, every such operand in one launch (pack.cuh)
      sm90::PackRowsParams pr;
      for (const Pack* pk : g.packs)
        if (!sm90::append_pack_job(pr, job(*pk), g.elem_bytes))
          return setup_error("more than " + std::to_string(sm90::kPackJobs) + " line copies");
      const int64_t items = pr.item_begin[sm90::kPackJobs];
      const int threads = pinned ? sm90::kPackPinnedThreads : sm90::kPackThreads;
      const int64_t warps = threads / 32;  // an item per warp
      const int64_t blocks = std::min<int64_t>(ceil_div(items, warps), pinned ? int64_t{pinned_ctas} : int64_t{1} << 30);
      dims.grid = dim3(static_cast<unsigned>(blocks), 1, 1);
      dims.block = dim3(threads, 1, 1);
      if (pinned) dims.smem_bytes = sm90::kPackPinnedSmemBytes;  // (unused: it keeps the SM to this block)
      if (Status s = jit::launch(*kernel, dims, pr); !s.ok()) return s;
    } else {  // C in the other major: one transposing launch
      const Pack& pk = *g.packs.front();
      dims.grid = dim3(static_cast<unsigned>(ceil_div(pk.rows, int64_t{sm90::kPackTile})),
                       static_cast<unsigned>(std::min<int64_t>(ceil_div(pk.ld, int64_t{sm90::kPackTile}), 65535)), 1);
      dims.block = dim3(sm90::kPackTile, sm90::kPackThreads / sm90::kPackTile, 1);
      if (Status s = jit::launch(*kernel, dims, job(pk)); !s.ok()) return s;
    }
  }
  return Status::success();
}

}  // namespace tilegemm::detail
