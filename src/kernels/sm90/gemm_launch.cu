// Thin host launch of the SM90 fast path: tensor maps, smem size from the planner's layout,
// cudaFuncSetAttribute, persistent grid, cluster launch through cudaLaunchKernelEx.
#include "kernels/sm90/gemm_launch.hpp"

#include <atomic>
#include <map>
#include <mutex>
#include <utility>

#include <cuda_runtime.h>

#include "kernels/sm90/gemm_kernel.cuh"
#include "kernels/sm90/tensor_map.hpp"
#include "schedule/tile_mapping.hpp"

namespace tilegemm::sm90 {

const char* tile_config_name(TileConfig c) {
  switch (c) {
    case TileConfig::automatic: return "auto";
    case TileConfig::t128x256: return "128x256";
    case TileConfig::t128x192: return "128x192";
    case TileConfig::t128x176: return "128x176";
    case TileConfig::t128x144: return "128x144";
    case TileConfig::t128x128: return "128x128";
    case TileConfig::t64x128: return "64x128";
  }
  return "?";
}

namespace {

constexpr int kMaxDevices = 16;

// Per (instantiation, device): smem attribute set and the persistent grid size, computed once.
// 0 = not yet known; a negative value is a cached cudaError_t.
struct DeviceCache {
  std::atomic<int> ctas[kMaxDevices] = {};
};

// Epilogue staging width: 128x256 stages its 64 KiB tile in 128-column parts (two 64 x 64 slots
// per consumer, 32 KiB), which makes room for a 4th 48 KiB stage (ladder step 9's layout). The
// others keep the full tile: a narrower staging would not add a stage to 128x192 or 128x128.
constexpr int epilogue_stage_cols(int bm, int bn) { return bm == 128 && bn == 256 ? 128 : bn; }

template <int BM, int BN, int kClusterM, bool kSplitK = false>
struct Config {
  static constexpr int kStageCols = epilogue_stage_cols(BM, BN);
  static constexpr int kStages = plan::max_stages_that_fit(BM, BN, kGemmBlockK, /*d_elem_bytes=*/BN % 64 ? 0 : 2,
                                                           plan::kSmemLimitPerBlock, /*ab_elem_bytes=*/2, kStageCols);
  using Traits = GemmTraits<BM, BN, kStages, kClusterM, kStageCols>;
  static constexpr auto kernel = gemm_bf16_nt_kernel<BM, BN, kStages, kClusterM, kStageCols, kSplitK>;
};

// Split-K instantiations exist for the small configs only (gemm_launch.hpp, choose_splits).
constexpr bool has_split_instantiation(int bm, int bn, int cluster_m) {
  return cluster_m == 1 && bn == 128 && (bm == 64 || bm == 128);
}
static_assert(Config<128, 256, 2>::kStages == 4, "128x256 with part-staged epilogue: 4 stages");
static_assert(Config<128, 192, 2>::kStages == 4 && Config<128, 128, 1>::kStages == 6 && Config<64, 128, 1>::kStages == 8,
              "the other configs are unchanged");
static_assert(Config<128, 176, 2>::kStages == 5 && Config<128, 144, 2>::kStages == 6,
              "direct-epilogue configs: no staging, the stages take the smem");

cudaLaunchAttribute cluster_attribute(int cluster_m) {
  cudaLaunchAttribute attr = {};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = static_cast<unsigned>(cluster_m);
  attr.val.clusterDim.y = 1;
  attr.val.clusterDim.z = 1;
  return attr;
}

// How many CTAs of this instantiation are resident at once, in whole clusters: the persistent grid.
// With clusters this is not simply #SMs (a pair must sit in one GPC).
template <typename C>
cudaError_t persistent_ctas(int* ctas) {
  static DeviceCache cache;
  int device = 0;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  std::atomic<int>* slot = device < kMaxDevices ? &cache.ctas[device] : nullptr;
  if (slot != nullptr && slot->load(std::memory_order_relaxed) > 0) {
    *ctas = slot->load(std::memory_order_relaxed);
    return cudaSuccess;
  }
  constexpr int kSmem = C::Traits::kLayout.total_bytes;
  constexpr int kCluster = C::Traits::kClusterAxis == sched::ClusterAxis::none ? 1 : 2;
  if (cudaError_t e = cudaFuncSetAttribute(C::kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
      e != cudaSuccess)
    return e;
  int num_sms = 0;
  if (cudaError_t e = cudaDeviceGetAttribute(&num_sms, cudaDevAttrMultiProcessorCount, device); e != cudaSuccess)
    return e;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(num_sms / kCluster * kCluster), 1, 1);
  config.blockDim = dim3(C::Traits::kThreads, 1, 1);
  config.dynamicSmemBytes = kSmem;
  cudaLaunchAttribute attr = cluster_attribute(kCluster);
  config.attrs = &attr;
  config.numAttrs = 1;
  int clusters = 0;
  if (cudaError_t e = cudaOccupancyMaxActiveClusters(&clusters, C::kernel, &config); e != cudaSuccess) return e;
  if (clusters < 1) return cudaErrorInvalidConfiguration;
  *ctas = clusters * kCluster;
  if (slot != nullptr) slot->store(*ctas, std::memory_order_relaxed);
  return cudaSuccess;
}

// ---- split-K workspace: one per (device, stream), see launch_gemm in gemm_launch.hpp ----
struct Workspace {
  void* ptr = nullptr;
  size_t bytes = 0;
};
std::mutex g_workspace_mutex;
std::map<std::pair<int, cudaStream_t>, Workspace>& workspaces() {
  static auto* m = new std::map<std::pair<int, cudaStream_t>, Workspace>;  // never destroyed (no exit-time CUDA calls)
  return *m;
}

// A workspace of >= bytes for (device, stream), or nullptr (the caller then runs unsplit).
float* splitk_workspace(int device, int num_sms, cudaStream_t stream, size_t bytes) {
  std::lock_guard<std::mutex> lock(g_workspace_mutex);
  Workspace& w = workspaces()[{device, stream}];
  if (w.bytes >= bytes) return static_cast<float*>(w.ptr);
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess) {
    (void)cudaGetLastError();
    return nullptr;
  }
  if (capture != cudaStreamCaptureStatusNone) return nullptr;  // no allocation inside a capture
  // Room for anything the rule can choose: <= num_sms units of at most 128 x 128 fp32.
  const size_t rule_max = size_t(num_sms > 0 ? num_sms : 132) * 128 * 128 * sizeof(float);
  const size_t want = bytes > rule_max ? bytes : rule_max;
  if (w.ptr != nullptr) {  // grow: earlier calls on this stream may still read the old one
    if (cudaStreamSynchronize(stream) != cudaSuccess || cudaFree(w.ptr) != cudaSuccess) {
      (void)cudaGetLastError();
      w = {};
      return nullptr;
    }
    w = {};
  }
  void* ptr = nullptr;
  if (cudaMalloc(&ptr, want) != cudaSuccess) {
    (void)cudaGetLastError();  // out of memory is not sticky: clear it and run unsplit
    return nullptr;
  }
  w = {ptr, want};
  return static_cast<float*>(ptr);
}

template <typename C>
LaunchResult launch_config(const GemmProblem& p, const LaunchOptions& o, TileConfig which) {
  using T = typename C::Traits;
  constexpr int kCluster = T::kClusterAxis == sched::ClusterAxis::none ? 1 : 2;
  LaunchResult r;
  r.config = which;
  CUtensorMap tmap_a, tmap_b, tmap_d;
  // A [M, K]: boxes of 64 k x BM rows. B [N, K]: 64 k x BN/cluster rows (each CTA of a pair loads
  // half of the B tile and multicasts it). D [M, N] with stride ldd: boxes of 64 x 64.
  const Matrix2d am{p.a, uint64_t(p.m), uint64_t(p.k), uint64_t(p.lda), CU_TENSOR_MAP_DATA_TYPE_BFLOAT16};
  const Matrix2d bm{p.b, uint64_t(p.n), uint64_t(p.k), uint64_t(p.ldb), CU_TENSOR_MAP_DATA_TYPE_BFLOAT16};
  // D's map covers N & ~7 columns (TMA stores clip in 16-B chunks, store_tile writes the rest);
  // with N < 8 the map is never used by a store, and 8 columns keep its arguments valid (ldd >= 8).
  const uint64_t d_cols = p.n >= 8 ? uint64_t(p.n & ~7) : 8u;
  const Matrix2d dm{p.d, uint64_t(p.m), d_cols, uint64_t(p.ldd), CU_TENSOR_MAP_DATA_TYPE_BFLOAT16};
  if (std::string e = make_2d_tile_map(am, Box2d{kGemmBlockK, uint32_t(T::kBlockM)},
                                       CU_TENSOR_MAP_SWIZZLE_128B, &tmap_a);
      !e.empty()) {
    r.message = "tensor map of A: " + e;
    return r;
  }
  if (std::string e = make_2d_tile_map(bm, Box2d{kGemmBlockK, uint32_t(T::kBLoadRows)}, CU_TENSOR_MAP_SWIZZLE_128B,
                                       &tmap_b);
      !e.empty()) {
    r.message = "tensor map of B: " + e;
    return r;
  }
  if (std::string e = make_2d_tile_map(dm, Box2d{kStoreBoxCols, kStoreBoxRows}, CU_TENSOR_MAP_SWIZZLE_128B, &tmap_d);
      !e.empty()) {
    r.message = "tensor map of D: " + e;
    return r;
  }
  int ctas = 0;
  if (cudaError_t e = persistent_ctas<C>(&ctas); e != cudaSuccess) {
    r.error = e;
    r.message = std::string("persistent grid size: ") + cudaGetErrorString(e);
    return r;
  }
  const sched::Schedule schedule{sched::make_tile_grid(p.m, p.n, T::kBlockM, T::kBlockN),
                                 o.mapping, T::kClusterAxis};
  const int slots = sched::num_slots(schedule);  // a multiple of kCluster
  int grid = slots < ctas ? slots : ctas;
  auto kernel = C::kernel;
  SplitKArgs split;

  if constexpr (has_split_instantiation(T::kBlockM, T::kBlockN, kCluster)) {
    using S = Config<T::kBlockM, T::kBlockN, 1, /*kSplitK=*/true>;
    const int64_t num_kb = ceil_div64(p.k, kGemmBlockK);
    int64_t splits = o.splits > 0 ? o.splits : choose_splits(slots, ctas, num_kb);
    if (splits > num_kb) splits = num_kb;  // every split gets >= 1 k-block
    const int64_t n_pad = int64_t(schedule.grid.num_n_blocks) * T::kBlockN;
    const int64_t units = int64_t(slots) * splits;
    if (splits > 1 && units <= INT32_MAX && n_pad <= INT32_MAX) {
      int split_ctas = 0, device = 0, num_sms = 0;
      if (cudaGetDevice(&device) == cudaSuccess &&
          cudaDeviceGetAttribute(&num_sms, cudaDevAttrMultiProcessorCount, device) == cudaSuccess &&
          persistent_ctas<S>(&split_ctas) == cudaSuccess) {
        const size_t bytes = size_t(splits) * size_t(p.m) * size_t(n_pad) * sizeof(float);
        if (float* ws = splitk_workspace(device, num_sms, p.stream, bytes); ws != nullptr) {
          kernel = S::kernel;
          split = SplitKArgs{ws, int(splits), int(n_pad)};
          grid = units < split_ctas ? int(units) : split_ctas;
        }
      } else {
        (void)cudaGetLastError();  // a failed query only means: run unsplit
      }
    }
  }

  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(grid), 1, 1);
  config.blockDim = dim3(T::kThreads, 1, 1);
  config.dynamicSmemBytes = T::kLayout.total_bytes;
  config.stream = p.stream;
  cudaLaunchAttribute attr = cluster_attribute(kCluster);
  config.attrs = &attr;
  config.numAttrs = 1;
  r.error = cudaLaunchKernelEx(&config, kernel, tmap_a, tmap_b, tmap_d, p.m, p.n, p.k, p.alpha, o.mapping,
                               static_cast<__nv_bfloat16*>(p.d), p.ldd, split);
  if (r.error != cudaSuccess) {
    r.message = std::string("cudaLaunchKernelEx: ") + cudaGetErrorString(r.error);
    return r;
  }
  if (split.splits > 1) {
    r.splits = split.splits;
    constexpr int kReduceThreads = 256;
    const int64_t threads = int64_t(p.m) * ((p.n + 3) / 4);
    cudaLaunchConfig_t rc = {};
    rc.gridDim = dim3(static_cast<unsigned>(ceil_div64(threads, kReduceThreads)), 1, 1);
    rc.blockDim = dim3(kReduceThreads, 1, 1);
    rc.stream = p.stream;
    r.error = cudaLaunchKernelEx(&rc, splitk_reduce_kernel<kReduceThreads>, static_cast<const float*>(split.workspace),
                                 split.splits, p.m, p.n, split.n_pad, p.alpha, static_cast<__nv_bfloat16*>(p.d), p.ldd);
    if (r.error != cudaSuccess)
      r.message = std::string("cudaLaunchKernelEx (split-K reduce): ") + cudaGetErrorString(r.error);
  }
  return r;
}

}  // namespace

LaunchResult launch_gemm(const GemmProblem& p, const LaunchOptions& o) {
  if (!sched::is_valid(o.mapping)) {
    LaunchResult r;
    r.error = cudaErrorInvalidValue;
    r.message = "mapping: invalid (group, box_m and box_n must be >= 1)";
    return r;
  }
  TileConfig which = o.config;
  if (which == TileConfig::automatic) {
    int device = 0, num_sms = 132;
    if (cudaGetDevice(&device) == cudaSuccess) cudaDeviceGetAttribute(&num_sms, cudaDevAttrMultiProcessorCount, device);
    which = choose_tile_config(p.m, p.n, num_sms);
  }
  switch (which) {
    case TileConfig::t128x256:
      return uses_cluster_pair(which, p.m) ? launch_config<Config<128, 256, 2>>(p, o, which)
                                           : launch_config<Config<128, 256, 1>>(p, o, which);
    case TileConfig::t128x192:
      return uses_cluster_pair(which, p.m) ? launch_config<Config<128, 192, 2>>(p, o, which)
                                           : launch_config<Config<128, 192, 1>>(p, o, which);
    case TileConfig::t128x176:
      return uses_cluster_pair(which, p.m) ? launch_config<Config<128, 176, 2>>(p, o, which)
                                           : launch_config<Config<128, 176, 1>>(p, o, which);
    case TileConfig::t128x144:
      return uses_cluster_pair(which, p.m) ? launch_config<Config<128, 144, 2>>(p, o, which)
                                           : launch_config<Config<128, 144, 1>>(p, o, which);
    case TileConfig::t128x128: return launch_config<Config<128, 128, 1>>(p, o, which);
    case TileConfig::automatic:
    case TileConfig::t64x128: return launch_config<Config<64, 128, 1>>(p, o, TileConfig::t64x128);
  }
  return LaunchResult{cudaErrorInvalidValue, "unknown tile configuration", which};
}

}  // namespace tilegemm::sm90
