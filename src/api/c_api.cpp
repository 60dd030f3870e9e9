// The C API (include/tilegemm/tilegemm.h): each tg_* function converts its arguments, calls the
// C++ API and copies the Status back as a code plus a message. No exception crosses into C.
#include <algorithm>
#include <cstring>
#include <exception>
#include <string>

#include "tilegemm/tilegemm.h"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm {
namespace {

// The C and C++ enums share their values, so a tg_matrix converts field by field; a value outside
// either enum passes through unchanged and validate() rejects it with its number in the message.
static_assert(TG_DTYPE_BF16 == static_cast<int>(DType::bf16) &&
              TG_DTYPE_FP32 == static_cast<int>(DType::fp32) &&
              TG_DTYPE_FP8_E4M3 == static_cast<int>(DType::fp8_e4m3));
static_assert(TG_MAJOR_K == static_cast<int>(Major::k_major) &&
              TG_MAJOR_MN == static_cast<int>(Major::mn_major));

MatrixRef to_cpp(const tg_matrix& m) {
  return {m.ptr, m.rows, m.cols, m.ld, static_cast<DType>(m.dtype), static_cast<Major>(m.major)};
}
MutMatrixRef to_cpp(const tg_mut_matrix& m) {
  return {m.ptr, m.rows, m.cols, m.ld, static_cast<DType>(m.dtype), static_cast<Major>(m.major)};
}

tg_status to_c(ErrorCode code) {
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
void write_message(const char* message, char* out, size_t out_size) {
  if (out == nullptr || out_size == 0) return;
  const size_t n = std::min(std::strlen(message), out_size - 1);
  std::memcpy(out, message, n);
  out[n] = '\0';
}

tg_status report(const Status& s, char* out, size_t out_size) {
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

// Null tg_matrix pointers for a, b or d are a C-only failure: the C++ API takes them by value.
Status build_args(const tg_matrix* a, const tg_matrix* b, const tg_matrix* c, const tg_mut_matrix* d,
                  float alpha, float beta, void* stream, GemmArgs& args, MatrixRef& c_storage) {
  const struct { const void* m; const char* name; } required[] = {{a, "a"}, {b, "b"}, {d, "d"}};
  for (const auto& r : required)
    if (r.m == nullptr)
      return Status{ErrorCode::invalid_argument, r.name,
                    std::string(r.name) + " = NULL: a, b and d must point to a tg_matrix "
                                          "(only c may be NULL)"};
  args.a = to_cpp(*a);
  args.b = to_cpp(*b);
  args.d = to_cpp(*d);
  if (c != nullptr) {
    c_storage = to_cpp(*c);
    args.c = &c_storage;
  }
  args.alpha = alpha;
  args.beta = beta;
  args.stream = static_cast<cudaStream_t>(stream);
  return Status::success();
}

}  // namespace
}  // namespace tilegemm

extern "C" {

tg_status tg_gemm(const tg_matrix* a, const tg_matrix* b, const tg_matrix* c_or_null,
                  const tg_mut_matrix* d, float alpha, float beta, void* stream, char* error_message,
                  size_t error_message_size) {
  using namespace tilegemm;
  return guarded(
      [&] {
        GemmArgs args;
        MatrixRef c;
        Status s = build_args(a, b, c_or_null, d, alpha, beta, stream, args, c);
        return s.ok() ? gemm(args) : s;
      },
      error_message, error_message_size);
}

tg_status tg_validate(const tg_matrix* a, const tg_matrix* b, const tg_matrix* c_or_null,
                      const tg_mut_matrix* d, float alpha, float beta, char* error_message,
                      size_t error_message_size) {
  using namespace tilegemm;
  return guarded(
      [&] {
        GemmArgs args;
        MatrixRef c;
        Status s = build_args(a, b, c_or_null, d, alpha, beta, nullptr, args, c);
        return s.ok() ? validate(args) : s;
      },
      error_message, error_message_size);
}

tg_status tg_check_device(char* error_message, size_t error_message_size) {
  return tilegemm::guarded([] { return tilegemm::check_device(); }, error_message,
                           error_message_size);
}

const char* tg_version(void) { return TILEGEMM_VERSION; }

const char* tg_status_name(tg_status status) {
  switch (status) {
    case TG_STATUS_OK: return "ok";
    case TG_STATUS_INVALID_ARGUMENT: return "invalid_argument";
    case TG_STATUS_UNSUPPORTED: return "unsupported";
    case TG_STATUS_NO_DEVICE: return "no_device";
    case TG_STATUS_CUDA_ERROR: return "cuda_error";
    case TG_STATUS_INTERNAL_ERROR: return "internal_error";
  }
  return "unknown";
}

}  // extern "C"
