// Kernel: load a cubin through the driver (context-independent CUlibrary, CUDA 12.0+), launch it
// with cuLaunchKernelEx, size a persistent grid with cuOccupancyMaxActiveClusters. Every driver
// function comes from driver_api() (cudaGetDriverEntryPointByVersion).
#include <cuda_runtime_api.h>

#include "core/no_device.hpp"
#include "jit/driver_api.hpp"
#include "jit/jit.hpp"

namespace tilegemm::jit {
namespace {

std::string dims_text(const LaunchDims& d) {
  auto d3 = [](const dim3& v) {
    return std::to_string(v.x) + "x" + std::to_string(v.y) + "x" + std::to_string(v.z);
  };
  return "grid " + d3(d.grid) + ", block " + d3(d.block) + ", cluster " + d3(d.cluster) + ", smem " +
         std::to_string(d.smem_bytes) + " bytes";
}

std::string kernel_text(const std::string& name, const std::string& label) {
  return "kernel '" + name + "' (" + (label.empty() ? std::string("no label") : label) + ")";
}

// The device exists and the driver functions were found; the first failure as a Status.
Status check_driver(const DriverApi& api) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err == cudaSuccess && count == 0) err = cudaErrorNoDevice;
  if (err != cudaSuccess)
    return Status{ErrorCode::no_device, "device", "no CUDA device to load a kernel on: " + no_device_reason(err)};
  if (!api.error.empty()) return Status{ErrorCode::no_device, "device", api.error};
  return {};
}

std::string compute_capability(CUdevice device) {
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess)
    return "unknown";
  return std::to_string(major) + "." + std::to_string(minor);
}

// `attrs` has room for two attributes: the cluster shape and programmatic serialization.
CUlaunchConfig launch_config(const LaunchDims& d, CUlaunchAttribute* attrs, bool always_cluster) {
  CUlaunchConfig cfg{};
  cfg.gridDimX = d.grid.x;
  cfg.gridDimY = d.grid.y;
  cfg.gridDimZ = d.grid.z;
  cfg.blockDimX = d.block.x;
  cfg.blockDimY = d.block.y;
  cfg.blockDimZ = d.block.z;
  cfg.sharedMemBytes = d.smem_bytes;
  cfg.hStream = reinterpret_cast<CUstream>(d.stream);  // the runtime's cudaStream_t is a CUstream
  cfg.attrs = attrs;
  if (always_cluster || uint64_t(d.cluster.x) * d.cluster.y * d.cluster.z > 1) {
    CUlaunchAttribute& a = attrs[cfg.numAttrs++];
    a.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    a.value.clusterDim.x = d.cluster.x;
    a.value.clusterDim.y = d.cluster.y;
    a.value.clusterDim.z = d.cluster.z;
  }
  if (d.programmatic) {
    CUlaunchAttribute& a = attrs[cfg.numAttrs++];
    a.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    a.value.programmaticStreamSerializationAllowed = 1;
  }
  if (cfg.numAttrs == 0) cfg.attrs = nullptr;
  return cfg;
}

}  // namespace

Status Kernel::load(const std::vector<uint8_t>& cubin, const std::string& name, const std::string& label,
                    const std::string& key) {
  name_ = name;
  label_ = label;
  key_ = key;
  const DriverApi& api = driver_api();
  if (Status s = check_driver(api); !s.ok()) return s;
  CUdevice device = 0;
  if (Status s = current_device(api, &device); !s.ok()) return s;
  CUresult r = api.library_load_data(&library_, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
  if (r != CUDA_SUCCESS)
    return Status{ErrorCode::cuda_error, "cubin",
                  "cuLibraryLoadData for " + kernel_text(name, label) + " (" + std::to_string(cubin.size()) +
                      " bytes): " + driver_error_name(r)};
  r = api.library_get_kernel(&handle_, library_, name.c_str());
  if (r != CUDA_SUCCESS) {
    unload();
    return Status{ErrorCode::invalid_argument, "kernel_name",
                  "kernel_name = '" + name + "' (" + label + "): not in the cubin (cuLibraryGetKernel: " +
                      driver_error_name(r) + "); the source must define extern \"C\" __global__ void " + name};
  }
  CUfunction function = nullptr;  // loads the module into the current context now
  r = api.kernel_get_function(&function, handle_);
  if (r != CUDA_SUCCESS) {
    unload();
    const ErrorCode code = r == CUDA_ERROR_NO_BINARY_FOR_GPU ? ErrorCode::no_device : ErrorCode::cuda_error;
    return Status{code, "device",
                  "cannot load " + kernel_text(name, label) + " on device " + std::to_string(device) +
                      " (compute capability " + compute_capability(device) +
                      "; the cubin is sm_90a, which runs on 9.0 only): cuKernelGetFunction: " +
                      driver_error_name(r)};
  }
  if (api.kernel_get_param_info != nullptr) {
    size_t offset = 0, size = 0;
    if (api.kernel_get_param_info(handle_, 0, &offset, &size) == CUDA_SUCCESS) param_bytes_ = size;
    if (api.kernel_get_param_info(handle_, 1, &offset, &size) == CUDA_SUCCESS) {
      unload();
      return Status{ErrorCode::invalid_argument, "kernel_source",
                    kernel_text(name, label) +
                        " takes more than one parameter: the JIT passes exactly one struct by value "
                        "(const __grid_constant__ Params p)"};
    }
  }
  return {};
}

void Kernel::unload() {
  const DriverApi& api = driver_api();
  if (library_ != nullptr && api.library_unload != nullptr) api.library_unload(library_);
  library_ = nullptr;
  handle_ = nullptr;
}

Status Kernel::raise_smem_limit(int device, uint32_t smem_bytes) const {
  std::lock_guard<std::mutex> lock(attribute_mutex_);
  std::atomic<uint32_t>& limit = smem_limit_[device];
  if (smem_bytes <= limit.load(std::memory_order_relaxed)) return {};  // another thread did it
  const CUresult r = driver_api().kernel_set_attribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                       static_cast<int>(smem_bytes), handle_, device);
  if (r != CUDA_SUCCESS) {
    int optin = 0;
    cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    return Status{ErrorCode::invalid_argument, "dims.smem_bytes",
                  "dims.smem_bytes = " + std::to_string(smem_bytes) + " for " + kernel_text(name_, label_) +
                      ": cuKernelSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES) on device " + std::to_string(device) +
                      " failed with " + driver_error_name(r) + "; the device allows " + std::to_string(optin) +
                      " bytes per block minus the kernel's static shared memory"};
  }
  limit.store(smem_bytes, std::memory_order_release);
  return {};
}

Status Kernel::launch(const LaunchDims& dims, const void* params, size_t params_size) const {
  if (params == nullptr) [[unlikely]]
    return Status{ErrorCode::invalid_argument, "params",
                  "params = null: must point at the parameter struct of " + kernel_text(name_, label_)};
  if (param_bytes_ != 0 && params_size != param_bytes_) [[unlikely]]
    return Status{ErrorCode::invalid_argument, "params_size",
                  "params_size = " + std::to_string(params_size) + ": " + kernel_text(name_, label_) +
                      " takes one parameter of " + std::to_string(param_bytes_) + " bytes"};
  const DriverApi& api = driver_api();
  CUdevice device = 0;
  if (Status s = current_device(api, &device); !s.ok()) [[unlikely]]
    return s;
  if (device < 0 || device >= kMaxDevices) [[unlikely]]
    return Status{ErrorCode::unsupported, "device",
                  "device = " + std::to_string(device) + ": the JIT keeps per-device state for devices 0.." +
                      std::to_string(kMaxDevices - 1)};
  if (dims.smem_bytes > smem_limit_[device].load(std::memory_order_acquire)) [[unlikely]]
    if (Status s = raise_smem_limit(device, dims.smem_bytes); !s.ok()) return s;
  CUlaunchAttribute attrs[2]{};
  const CUlaunchConfig cfg = launch_config(dims, attrs, /*always_cluster=*/false);
  void* args[1] = {const_cast<void*>(params)};
  // A CUkernel may be passed where cuLaunchKernelEx takes a CUfunction; it launches in the
  // current context (CUDA Driver API, cuLaunchKernelEx).
  const CUresult r = api.launch_kernel_ex(&cfg, reinterpret_cast<CUfunction>(handle_), args, nullptr);
  if (r != CUDA_SUCCESS) [[unlikely]]
    return Status{ErrorCode::cuda_error, "dims",
                  "launch of " + kernel_text(name_, label_) + " (" + dims_text(dims) +
                      ") failed: cuLaunchKernelEx: " + driver_error_name(r)};
  return {};
}

Status Kernel::max_active_clusters(const LaunchDims& dims, int* clusters) const {
  *clusters = 0;
  const DriverApi& api = driver_api();
  CUdevice device = 0;
  if (Status s = current_device(api, &device); !s.ok()) return s;
  if (device < 0 || device >= kMaxDevices)
    return Status{ErrorCode::unsupported, "device", "device = " + std::to_string(device) + ": out of range"};
  if (dims.smem_bytes > smem_limit_[device].load(std::memory_order_acquire))
    if (Status s = raise_smem_limit(device, dims.smem_bytes); !s.ok()) return s;
  CUfunction function = nullptr;
  CUresult r = api.kernel_get_function(&function, handle_);
  if (r != CUDA_SUCCESS)
    return Status{ErrorCode::cuda_error, "device", "cuKernelGetFunction for " + kernel_text(name_, label_) +
                                                        " in the current context: " + driver_error_name(r)};
  // NOTES: the query validates the grid as a launch would (a multiple of the cluster shape, else
  // CUDA_ERROR_INVALID_CLUSTER_SIZE, seen on the H200) but does not depend on it: ask with one cluster.
  LaunchDims one = dims;
  one.grid = dims.cluster;
  one.programmatic = false;  // (not an occupancy matter)
  CUlaunchAttribute attrs[2]{};
  const CUlaunchConfig cfg = launch_config(one, attrs, /*always_cluster=*/true);
  r = api.occupancy_max_active_clusters(clusters, function, &cfg);
  if (r != CUDA_SUCCESS)
    return Status{ErrorCode::cuda_error, "dims",
                  "cuOccupancyMaxActiveClusters for " + kernel_text(name_, label_) + " (" + dims_text(dims) +
                      "): " + driver_error_name(r)};
  return {};
}

}  // namespace tilegemm::jit
