// Device-side input generation and output poisoning (deterministic, seeded).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

namespace tilegemm::ref {

// Fills n values with N(0, 1)·scale drawn from a counter-based hash of (seed, index): the same seed
// gives the same data on any GPU and on the host (fill_normal_host), so CPU references can be
// computed without copying inputs back.
cudaError_t fill_normal_bf16(__nv_bfloat16* dst, size_t n, uint64_t seed, float scale, cudaStream_t s);
cudaError_t fill_normal_f32(float* dst, size_t n, uint64_t seed, float scale, cudaStream_t s);
void fill_normal_host_bf16(__nv_bfloat16* dst, size_t n, uint64_t seed, float scale);
void fill_normal_host_f32(float* dst, size_t n, uint64_t seed, float scale);
// Element `index` of the stream alone (what fill_normal_host_f32 writes at dst[index]); for host
// code that needs a few rows of a big operand. Bit-identical to the device values.
float normal_value(uint64_t seed, uint64_t index, float scale);

// Writes a NaN pattern (0xFFFF for bf16, 0xFFFFFFFF for fp32) over n elements of the given size,
// so any element a kernel forgets to write fails the check.
cudaError_t poison(void* dst, size_t n_elements, size_t element_bytes, cudaStream_t s);

// bf16/fp32 device buffer -> float host vector (for checks).
cudaError_t copy_to_host_float(const void* src, bool src_is_bf16, size_t n, float* dst);

}  // namespace tilegemm::ref
