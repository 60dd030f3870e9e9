// The read flush of the bench's L2 (timer.hpp, FlushKind::read): one kernel that reads the whole
// flush buffer, so that every L2 line holds a clean line of it when the timed call starts.
//
// NOTES: the write flush (a memset of the buffer) evicts the operands just as well, but leaves L2
// full of dirty lines: the timed kernel's first misses then also write tens of MB back to HBM
// (measured on the H200, docs/PERF.md: the weight-streaming shapes pay about 7 us for it, cuBLASLt
// too). Reading leaves nothing to write back: the state a GEMM meets after another kernel that read
// its inputs. Whatever dirty lines L2 holds before a read flush (the buffer's zeroing when it was
// allocated, the last timed call's D) are written back during the flush, outside every timed
// interval.
#include "bench/flush.hpp"

#include <cstdint>

namespace tilegemm::bench {
namespace {

// Grid-stride 16-B loads that bypass L1 (ld.global.cg), four in flight per step. The XOR of what
// was read is stored to `sink` only if it equals an arbitrary constant, so the loads cannot be
// removed; at most one word past the buffer (the sink, inside the same allocation) is written.
__global__ void read_flush_kernel(const uint4* __restrict__ buffer, size_t chunks, uint32_t* sink) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  uint32_t acc = 0;
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < chunks; i += 4 * stride) {
    const uint4 a = __ldcg(buffer + i), b = __ldcg(buffer + i + stride), c = __ldcg(buffer + i + 2 * stride),
                d = __ldcg(buffer + i + 3 * stride);
    acc ^= a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w ^ c.x ^ c.y ^ c.z ^ c.w ^ d.x ^ d.y ^ d.z ^ d.w;
  }
  for (; i < chunks; i += stride) {
    const uint4 a = __ldcg(buffer + i);
    acc ^= a.x ^ a.y ^ a.z ^ a.w;
  }
  if (acc == 0x9e3779b9u) *sink = acc;
}

}  // namespace

cudaError_t read_flush(const void* buffer, size_t bytes, uint32_t* sink, cudaStream_t stream) {
  int device = 0, sms = 0;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  if (cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device); e != cudaSuccess) return e;
  read_flush_kernel<<<4 * sms, 512, 0, stream>>>(static_cast<const uint4*>(buffer), bytes / sizeof(uint4), sink);
  return cudaGetLastError();
}

}  // namespace tilegemm::bench
