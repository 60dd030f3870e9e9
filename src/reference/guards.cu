// Guarded allocations (guards.hpp).
#include "reference/guards.hpp"

#include <cuda_bf16.h>

#include "reference/device_fill.hpp"
#include "reference/normal_hash.hpp"

namespace tilegemm::ref {
namespace {

constexpr int kThreads = 256;

unsigned blocks_for(size_t n) {
  const size_t wanted = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(wanted == 0 ? 1 : wanted < 65536 ? wanted : 65536);
}

__device__ __forceinline__ bool in_region(const Region& r, int64_t i) {
  if (i < r.first) return false;
  const int64_t rel = i - r.first, line = rel / r.ld, pos = rel % r.ld;
  return line < r.outer && pos < r.inner;
}

// The expected bits of element i: what fill_expected wrote there.
__device__ __forceinline__ uint32_t expected_bits(bool bf16, const Expected& e, size_t i) {
  if (e.poison) return bf16 ? 0xFFFFu : 0xFFFFFFFFu;
  const float v = normal_at(e.seed, i, 1.0f);
  if (!bf16) return __float_as_uint(v);
  return __bfloat16_as_ushort(__float2bfloat16_rn(v));
}

__global__ void count_changed_kernel(const void* base, size_t n, bool bf16, Expected e, bool has_skip, Region skip,
                                     unsigned long long* changed) {
  unsigned long long local = 0;
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x) {
    if (has_skip && in_region(skip, static_cast<int64_t>(i))) continue;
    const uint32_t got = bf16 ? static_cast<const uint16_t*>(base)[i] : static_cast<const uint32_t*>(base)[i];
    local += got != expected_bits(bf16, e, i) ? 1 : 0;
  }
  if (local) atomicAdd(changed, local);
}

__global__ void poison_region_kernel(void* base, bool bf16, Region r) {
  const int64_t total = r.inner * r.outer;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total; i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t at = r.first + (i / r.inner) * r.ld + i % r.inner;
    if (bf16)
      static_cast<uint16_t*>(base)[at] = 0xFFFFu;
    else
      static_cast<uint32_t*>(base)[at] = 0xFFFFFFFFu;
  }
}

bool valid_dtype(DType d) { return d == DType::bf16 || d == DType::fp32; }

}  // namespace

Region region_of(const MatrixRef& m, int64_t first) {
  const bool mn = m.major == Major::mn_major;
  return {first, m.ld, mn ? m.rows : m.cols, mn ? m.cols : m.rows};
}

cudaError_t fill_expected(void* base, size_t elements, DType dtype, const Expected& e, cudaStream_t s) {
  if (!valid_dtype(dtype)) return cudaErrorInvalidValue;
  if (e.poison) return poison(base, elements, static_cast<size_t>(dtype_bytes(dtype)), s);
  return dtype == DType::bf16 ? fill_normal_bf16(static_cast<__nv_bfloat16*>(base), elements, e.seed, 1.0f, s)
                              : fill_normal_f32(static_cast<float*>(base), elements, e.seed, 1.0f, s);
}

cudaError_t poison_region(void* base, DType dtype, const Region& r, cudaStream_t s) {
  if (!valid_dtype(dtype) || r.ld < r.inner) return cudaErrorInvalidValue;
  const int64_t total = r.inner * r.outer;
  if (total <= 0) return cudaSuccess;
  poison_region_kernel<<<blocks_for(static_cast<size_t>(total)), kThreads, 0, s>>>(base, dtype == DType::bf16, r);
  return cudaGetLastError();
}

cudaError_t count_changed(const void* base, size_t elements, DType dtype, const Expected& e, const Region* skip,
                          cudaStream_t s, uint64_t* changed) {
  *changed = 0;
  if (!valid_dtype(dtype) || (skip && skip->ld < 1)) return cudaErrorInvalidValue;
  if (elements == 0) return cudaSuccess;
  unsigned long long* counter = nullptr;
  cudaError_t err = cudaMallocAsync(reinterpret_cast<void**>(&counter), sizeof(*counter), s);
  if (err != cudaSuccess) return err;
  err = cudaMemsetAsync(counter, 0, sizeof(*counter), s);
  if (err == cudaSuccess) {
    count_changed_kernel<<<blocks_for(elements), kThreads, 0, s>>>(base, elements, dtype == DType::bf16, e,
                                                                 skip != nullptr, skip ? *skip : Region{}, counter);
    err = cudaGetLastError();
  }
  unsigned long long host = 0;
  if (err == cudaSuccess) err = cudaMemcpyAsync(&host, counter, sizeof(host), cudaMemcpyDeviceToHost, s);
  const cudaError_t freed = cudaFreeAsync(counter, s);
  if (err == cudaSuccess) err = freed;
  if (err == cudaSuccess) err = cudaStreamSynchronize(s);
  *changed = host;
  return err;
}

}  // namespace tilegemm::ref
