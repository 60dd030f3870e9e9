// Host twins of fill_normal_bf16 / fill_normal_f32 (device_fill.cu): the same normal_at() values,
// computed on all host threads. Compiled with -ffp-contract=off (see CMakeLists.txt).
#include <cuda_bf16.h>

#include "reference/device_fill.hpp"
#include "reference/normal_hash.hpp"
#include "reference/parallel.hpp"

namespace tilegemm::ref {

namespace {
constexpr int64_t kFillChunk = 1 << 18;  // elements per work item
}

float normal_value(uint64_t seed, uint64_t index, float scale) { return normal_at(seed, index, scale); }

void fill_normal_host_bf16(__nv_bfloat16* dst, size_t n, uint64_t seed, float scale) {
  parallel_for_range(static_cast<int64_t>(n), kFillChunk, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      dst[i] = __float2bfloat16_rn(normal_at(seed, static_cast<uint64_t>(i), scale));
  });
}

void fill_normal_host_f32(float* dst, size_t n, uint64_t seed, float scale) {
  parallel_for_range(static_cast<int64_t>(n), kFillChunk, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) dst[i] = normal_at(seed, static_cast<uint64_t>(i), scale);
  });
}

}  // namespace tilegemm::ref
