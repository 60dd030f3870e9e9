// The JIT runtime: a generated kernel source -> NVRTC -> sm_90a cubin -> memory and disk cache ->
// CUDA driver library -> launch. docs/JIT.md describes the cache, the environment variables, the
// failure handling and the measured compile times.
//
//   const jit::Kernel* k = nullptr;                       // once per Config (slow path: hash, map,
//   Status s = jit::get_kernel(source, &k);               // maybe NVRTC ~0.1-1.5 s, maybe disk)
//   ...                                                   // keep k: valid for the process lifetime
//   s = jit::launch(*k, dims, params);                    // per call: no allocation, no lock
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <cuda.h>              // CUlibrary, CUkernel: types only, libcuda is never linked
#include <cuda_runtime_api.h>  // cudaStream_t (the same object as CUstream), dim3

#include "jit/embedded_headers.hpp"
#include "jit/nvrtc_compile.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm::jit {

struct KernelSource {
  std::string code;         // one translation unit; it may include only embedded headers
  std::string kernel_name;  // its entry point: extern "C" __global__ void name(const __grid_constant__ P p)
  std::string label;        // human-readable config name, for logs and `tilegemm warmup`
};

enum class CubinOrigin : int { memory = 0, disk = 1, compiled = 2 };
const char* to_string(CubinOrigin origin);

struct CubinInfo {
  CubinOrigin origin = CubinOrigin::compiled;
  double seconds = 0.0;          // spent in this call (NVRTC, a disk read, or a map lookup)
  double compile_seconds = 0.0;  // NVRTC time when the cubin was compiled (also read back from disk)
  std::string key;               // cache key, 64 hex characters
  std::shared_ptr<const std::vector<uint8_t>> cubin;
  std::string cache_path;        // this entry's file; "" without a usable disk cache
  std::string log;               // NVRTC's log when this call compiled (ptxas warnings); else ""
};

struct LaunchDims {
  dim3 grid;                  // blocks
  dim3 block;                 // threads per block
  uint32_t smem_bytes = 0;    // dynamic shared memory per block
  dim3 cluster{1, 1, 1};      // blocks per cluster; 1x1x1 launches without the cluster attribute
  cudaStream_t stream = nullptr;
  // Programmatic dependent launch: CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION, so the
  // kernel may start before the previous kernel in the stream finishes; it must wait for it
  // (griddepcontrol.wait, sm90/ptx.cuh) before touching memory that kernel writes.
  bool programmatic = false;
};

// A loaded kernel. Made by get_kernel, never destroyed while its Runtime lives (the process's
// runtime() lives until exit), safe to use from any thread and on any device.
class Kernel {
 public:
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  // Enqueues the kernel with `params` (params_size bytes, the kernel's single struct parameter) on
  // dims.stream in the calling thread's current context (the runtime's primary context is made
  // current if there is none). The hot path: two driver queries and cuLaunchKernelEx.
  Status launch(const LaunchDims& dims, const void* params, size_t params_size) const;
  // Clusters of dims.cluster (with dims.block and dims.smem_bytes; dims.grid is ignored) that fit on
  // the current device at once (cuOccupancyMaxActiveClusters): the size of a persistent grid, in
  // clusters.
  Status max_active_clusters(const LaunchDims& dims, int* clusters) const;

  const std::string& label() const { return label_; }
  const std::string& name() const { return name_; }
  const std::string& key() const { return key_; }
  size_t param_bytes() const { return param_bytes_; }  // from the driver; 0 when it cannot say

  static constexpr int kMaxDevices = 64;

 private:
  friend class Runtime;
  Kernel() = default;
  // cuLibraryLoadData + cuLibraryGetKernel, then cuKernelGetFunction in the current context so that
  // a cubin the device cannot run fails here rather than at the first launch.
  Status load(const std::vector<uint8_t>& cubin, const std::string& name, const std::string& label,
              const std::string& key);
  void unload();
  Status raise_smem_limit(int device, uint32_t smem_bytes) const;

  CUlibrary library_ = nullptr;
  CUkernel handle_ = nullptr;
  std::string label_, name_, key_;
  size_t param_bytes_ = 0;
  // Per device: the MAX_DYNAMIC_SHARED_SIZE_BYTES value set so far (set when a launch needs more).
  mutable std::array<std::atomic<uint32_t>, kMaxDevices> smem_limit_{};
  mutable std::mutex attribute_mutex_;
};

inline Status launch(const Kernel& k, const LaunchDims& dims, const void* params, size_t params_size) {
  return k.launch(dims, params, params_size);
}
template <typename Params>
Status launch(const Kernel& k, const LaunchDims& dims, const Params& params) {
  return k.launch(dims, &params, sizeof(Params));
}
inline Status max_active_clusters(const Kernel& k, const LaunchDims& dims, int* clusters) {
  return k.max_active_clusters(dims, clusters);
}

// One cubin the runtime holds (for `tilegemm warmup` and diagnostics).
struct KernelRecord {
  std::string label, kernel_name, key;
  CubinOrigin origin = CubinOrigin::compiled;  // how this process first got it
  double compile_seconds = 0.0;
  size_t cubin_bytes = 0;
  std::string cache_path;
  bool loaded = false;  // get_kernel loaded it into the driver
};

struct CacheCounters {
  uint64_t memory_hits = 0, disk_hits = 0, compiles = 0, compile_failures = 0;
  uint64_t invalid_files = 0, write_failures = 0, unusable_dirs = 0;
};

struct RuntimeConfig {
  std::string cache_root;  // disk cache root ("" = memory only); files go to <root>/cubin-v1/
  std::vector<std::string> options = compile_options();
  HeaderSet headers = embedded_header_set();
  // Receives each warning line; default: stderr. Called at most once per kind of cache problem.
  std::function<void(const std::string&)> warn;
};

class Runtime {
 public:
  explicit Runtime(RuntimeConfig config);
  ~Runtime();  // unloads its kernels: only for runtimes made by hand (tests); runtime() never ends
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // No GPU needed: the cubin from memory, else from disk, else compiled (and stored). Threads asking
  // for the same kernel at once share one compile; different kernels compile concurrently.
  Status get_cubin(const KernelSource& source, CubinInfo* info);
  // get_cubin, then load it through the driver once (cuLibraryLoadData) and return a pointer that
  // stays valid. The slow path: SHA-256 of the source and a map lookup at least; callers keep the
  // pointer (e.g. per Config) rather than calling this per GEMM.
  Status get_kernel(const KernelSource& source, const Kernel** kernel, CubinInfo* info = nullptr);

  std::vector<KernelRecord> records() const;
  CacheCounters counters() const;
  std::string cache_dir() const;  // "" when there is no usable disk cache
  const RuntimeConfig& config() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The process's runtime, made on first use: cache root from TILEGEMM_CACHE_DIR / XDG_CACHE_HOME /
// HOME (resolve_cache_root in disk_cache.hpp), compile_options(), the embedded headers.
Runtime& runtime();

inline Status get_cubin(const KernelSource& source, CubinInfo* info) { return runtime().get_cubin(source, info); }
inline Status get_kernel(const KernelSource& source, const Kernel** kernel, CubinInfo* info = nullptr) {
  return runtime().get_kernel(source, kernel, info);
}
inline std::vector<KernelRecord> loaded_kernels() { return runtime().records(); }

}  // namespace tilegemm::jit
