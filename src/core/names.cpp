// Printable names of the public enums (used in every validation message).
#include "tilegemm/tilegemm.hpp"

namespace tilegemm {

const char* to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::ok: return "ok";
    case ErrorCode::invalid_argument: return "invalid_argument";
    case ErrorCode::unsupported: return "unsupported";
    case ErrorCode::no_device: return "no_device";
    case ErrorCode::cuda_error: return "cuda_error";
  }
  return "unknown";
}

const char* to_string(DType dtype) {
  switch (dtype) {
    case DType::bf16: return "bf16";
    case DType::fp32: return "fp32";
    case DType::fp8_e4m3: return "fp8_e4m3";
  }
  return "unknown";
}

const char* to_string(Major major) {
  switch (major) {
    case Major::k_major: return "k_major";
    case Major::mn_major: return "mn_major";
  }
  return "unknown";
}

}  // namespace tilegemm
