// The general SIMT GEMM: any shape, any leading dimension, any pointer offset, any Major for
// A/B/C/D, optional C, bf16 or fp32 output, FP32 accumulation. Slow next to the SM90 path but
// always correct; gemm() uses it for everything the fast path cannot take.
#pragma once

#include <cuda_runtime_api.h>

#include "tilegemm/tilegemm.hpp"

namespace tilegemm::detail {

// Enqueues D = alpha·A·Bᵀ + beta·C on args.stream. Expects arguments that passed validate().
// C is read only when args.c != nullptr and beta != 0. K = 0 is handled (the k-loop is empty, so
// D = beta·C, or 0 without C); M = 0 or N = 0 launches nothing.
// Returns the launch's error (cudaGetLastError after the launch).
cudaError_t launch_fallback_gemm(const GemmArgs& args);

}  // namespace tilegemm::detail
