// The call workspace of the sm90 path: the k-split fix-up's counters (first `zeroed_bytes`, zeroed
// when allocated: the kernels keep them 0 between launches), the operand copies, and the fix-up's
// fp32 partial tiles (src/api/gemm.cpp lays them out). Internal to the library: one per
// (device, stream), allocated on first use with room for any split the planner can choose on this
// device, grown (after synchronizing that stream) only for a
// larger request, never freed (no CUDA calls at process exit). Calls on one stream share it in
// stream order; different streams never share one. While the stream is being captured into a CUDA
// graph it is never allocated or grown: the caller then gives the graph its own workspace
// (cudaMallocAsync / cudaFreeAsync captured around the GEMM, src/api/gemm.cpp).
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace tilegemm::detail {

// A workspace of >= bytes for (device, stream), or nullptr when it cannot be had (out of memory,
// capture in progress); `min_bytes` is what to allocate at least on the first call. A new
// allocation gets its first `zeroed_bytes` set to 0 on `stream` before anything else runs there.
void* stream_workspace(int device, cudaStream_t stream, size_t bytes, size_t min_bytes, size_t zeroed_bytes);

}  // namespace tilegemm::detail
