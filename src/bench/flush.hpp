// The bench's read flush of L2 (flush.cu; timer.hpp, FlushKind::read).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace tilegemm::bench {

// Reads `bytes` (a multiple of 16) of `buffer` (16-B aligned) on `stream`; `sink` is a device word
// outside those bytes that it may write (so that the loads cannot be optimised away; the zeroed
// buffer never makes it). Returns the launch's error.
cudaError_t read_flush(const void* buffer, size_t bytes, uint32_t* sink, cudaStream_t stream);

}  // namespace tilegemm::bench
