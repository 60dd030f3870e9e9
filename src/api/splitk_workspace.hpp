// The split-K workspace: fp32 partial tiles that the GEMM writes and the reduce kernel reads.
// Internal to the library: one per (device, stream), allocated on first use with room for any
// split the planner can choose on this device, grown (after synchronizing that stream) only for a
// larger request, never freed (no CUDA calls at process exit). Calls on one stream share it in
// stream order; different streams never share one. While the stream is being captured into a CUDA
// graph it is never allocated or grown: the caller then gives the graph its own workspace
// (cudaMallocAsync / cudaFreeAsync captured around the GEMM, src/api/gemm.cpp).
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace tilegemm::detail {

// A workspace of >= bytes for (device, stream), or nullptr when it cannot be had (out of memory,
// capture in progress); `min_bytes` is what to allocate at least on the first call.
float* splitk_workspace(int device, cudaStream_t stream, size_t bytes, size_t min_bytes);

}  // namespace tilegemm::detail
