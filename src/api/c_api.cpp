// The C API (include/tilegemm/tilegemm.h): each tg_* function converts its arguments, calls the
// C++ API and copies the Status back as a code plus a message. No exception crosses into C.
#include <algorithm>
#include <cstring>
#include <exception>
#include <string>

#include "api/c_convert.hpp"
#include "tilegemm/tilegemm.h"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm {
namespace {

using namespace capi;

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
  using namespace tilegemm::capi;
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
  using namespace tilegemm::capi;
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
  return tilegemm::capi::guarded([] { return tilegemm::check_device(); }, error_message,
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
