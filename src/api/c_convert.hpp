// The C API's conversions, shared by src/api/c_api.cpp (tg_*) and src/tp/c_api_tp.cpp (tg_tp_*):
// tg_matrix <-> MatrixRef, Status -> tg_status plus message, and the guard that keeps exceptions
// out of C.
#pragma once

#include <algorithm>
#include <cstring>
#include <exception>
#include <string>

#include "tilegemm/tilegemm.h"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm::capi {

// The C and C++ enums share their values, so a tg_matrix converts field by field; a value outside
// either enum passes through unchanged and validate() rejects it with its number in the message.
static_assert(TG_DTYPE_BF16 == static_cast<int>(DType::bf16) &&
              TG_DTYPE_FP32 == static_cast<int>(DType::fp32) &&
              TG_DTYPE_FP8_E4M3 == static_cast<int>(DType::fp8_e4m3));
static_assert(TG_MAJOR_K == static_cast<int>(Major::k_major) &&
              TG_MAJOR_MN == static_cast<int>(Major::mn_major));

inline MatrixRef to_cpp(const tg_matrix& m) {
  return {m.ptr, m.rows, m.cols, m.ld, static_cast<DType>(m.dtype), static_cast<Major>(m.major)};
}
inline MutMatrixRef to_cpp(const tg_mut_matrix& m) {
  return {m.ptr, m.rows, m.cols, m.ld, static_cast<DType>(m.dtype), static_cast<Major>(m.major)};
}

inline tg_status to_c(ErrorCode code) {
  switch (code) {
    case ErrorCode::ok: return TG_STATUS_OK;
    case ErrorCode::invalid_argument: return TG_STATUS_INVALID_ARGUMENT;
    case ErrorCode::unsupported: return TG_STATUS_UNSUPPORTED;
    case ErrorCode::no_device: return TG_STATUS_NO_DEVICE;
    case ErrorCode::cuda_error: return TG_STATUS_CUDA_ERROR;
  }
  return TG_STATUS_INTERNAL_ERROR;
}

// Copies as much of `message` as fits, always NUL-terminated; nothing when there is no buffer.
inline void write_message(const char* message, char* out, size_t out_size) {
  if (out == nullptr || out_size == 0) return;
  const size_t n = std::min(std::strlen(message), out_size - 1);
  std::memcpy(out, message, n);
  out[n] = '\0';
}

inline tg_status report(const Status& s, char* out, size_t out_size) {
  write_message(s.ok() ? "" : s.message.c_str(), out, out_size);
  return to_c(s.code);
}

// Runs `body` (which returns a Status) and turns any exception (std::bad_alloc building a message)
// into TG_STATUS_INTERNAL_ERROR.
template <typename Body>
tg_status guarded(Body&& body, char* out, size_t out_size) {
  try {
    return report(body(), out, out_size);
  } catch (const std::exception& e) {
    write_message(e.what(), out, out_size);
  } catch (...) {
    write_message("unknown exception", out, out_size);
  }
  return TG_STATUS_INTERNAL_ERROR;
}

}  // namespace tilegemm::capi
