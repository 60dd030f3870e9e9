// Device side of the seeded input generator (normal_hash.hpp) plus output poisoning and the
// device -> host copy the checks use. The host twins are in host_fill.cpp.
#include "reference/device_fill.hpp"

#include <vector>

#include "reference/normal_hash.hpp"

namespace tilegemm::ref {
namespace {

constexpr int kFillThreads = 256;

// Grid-stride fill: element i gets normal_at(seed, i, scale), rounded to bf16 (RN, like the host).
__global__ void fill_normal_bf16_kernel(__nv_bfloat16* dst, size_t n, uint64_t seed, float scale) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    dst[i] = __float2bfloat16_rn(normal_at(seed, i, scale));
}

__global__ void fill_normal_f32_kernel(float* dst, size_t n, uint64_t seed, float scale) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    dst[i] = normal_at(seed, i, scale);
}

// Enough blocks to fill the GPU several times over; the grid-stride loop covers the rest.
unsigned fill_blocks(size_t n) {
  const size_t wanted = (n + kFillThreads - 1) / kFillThreads;
  return static_cast<unsigned>(wanted < 65536 ? (wanted == 0 ? 1 : wanted) : 65536);
}

}  // namespace

cudaError_t fill_normal_bf16(__nv_bfloat16* dst, size_t n, uint64_t seed, float scale, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  if (dst == nullptr) return cudaErrorInvalidValue;
  fill_normal_bf16_kernel<<<fill_blocks(n), kFillThreads, 0, s>>>(dst, n, seed, scale);
  return cudaGetLastError();
}

cudaError_t fill_normal_f32(float* dst, size_t n, uint64_t seed, float scale, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  if (dst == nullptr) return cudaErrorInvalidValue;
  fill_normal_f32_kernel<<<fill_blocks(n), kFillThreads, 0, s>>>(dst, n, seed, scale);
  return cudaGetLastError();
}

// NOTES: both poison patterns (0xFFFF for bf16, 0xFFFFFFFF for fp32) are all-ones bytes, so a byte
// memset writes them; every such value is a NaN, which count_non_finite() and check() reject.
cudaError_t poison(void* dst, size_t n_elements, size_t element_bytes, cudaStream_t s) {
  if (n_elements == 0) return cudaSuccess;
  if (dst == nullptr || (element_bytes != 2 && element_bytes != 4)) return cudaErrorInvalidValue;
  return cudaMemsetAsync(dst, 0xFF, n_elements * element_bytes, s);
}

// Synchronous copy (cudaMemcpy waits for the legacy default stream; callers that launched on
// another stream synchronize it first).
cudaError_t copy_to_host_float(const void* src, bool src_is_bf16, size_t n, float* dst) {
  if (n == 0) return cudaSuccess;
  if (src == nullptr || dst == nullptr) return cudaErrorInvalidValue;
  if (!src_is_bf16) return cudaMemcpy(dst, src, n * sizeof(float), cudaMemcpyDeviceToHost);
  std::vector<__nv_bfloat16> staging(n);
  const cudaError_t err = cudaMemcpy(staging.data(), src, n * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) return err;
  for (size_t i = 0; i < n; ++i) dst[i] = __bfloat162float(staging[i]);
  return cudaSuccess;
}

}  // namespace tilegemm::ref
