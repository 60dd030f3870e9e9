// The tensor-parallel code's Status for a CUDA runtime call: ok, or a cuda_error naming the call.
#pragma once

#include <string>

#include <cuda_runtime_api.h>

#include "tilegemm/tilegemm.hpp"

namespace tilegemm::tp::detail {

inline Status cuda_status(const char* what, cudaError_t err) {
  if (err == cudaSuccess) return Status::success();
  return Status{ErrorCode::cuda_error, "stream", std::string(what) + " failed: " + cudaGetErrorString(err)};
}

}  // namespace tilegemm::tp::detail
