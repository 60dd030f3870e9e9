// The C API of tensor parallelism (include/tilegemm/tp.h) over tp.hpp, with the conversions of
// the main C API (src/api/c_convert.hpp).
#include "api/c_convert.hpp"
#include "tilegemm/tp.h"
#include "tilegemm/tp.hpp"

namespace tilegemm::tp {
namespace {

Status required(const void* p, const char* name) {
  if (p != nullptr) return Status::success();
  return Status{ErrorCode::invalid_argument, name, std::string(name) + " = NULL: it must point to a tg_matrix"};
}

Overlap to_cpp(tg_tp_overlap o) {
  Overlap out;
  out.enabled = o.enabled != 0;
  out.reserved_sms = o.reserved_sms;
  return out;
}

// The fields both calls share: B, C (into *c, which must outlive the call), D, the scalars, the
// stream and the overlap.
template <typename Args>
void set_common(Args& args, const tg_matrix* b, const tg_matrix* c_or_null, MatrixRef* c, const tg_mut_matrix* d,
                float alpha, float beta, void* stream, tg_tp_overlap overlap) {
  args.b = capi::to_cpp(*b);
  if (c_or_null != nullptr) {
    *c = capi::to_cpp(*c_or_null);
    args.c = c;
  }
  args.d = capi::to_cpp(*d);
  args.alpha = alpha;
  args.beta = beta;
  args.stream = static_cast<cudaStream_t>(stream);
  args.overlap = to_cpp(overlap);
}

}  // namespace
}  // namespace tilegemm::tp

extern "C" {

tg_status tg_tp_all_gather_gemm(void* comm, int64_t m, const tg_matrix* a_shard,
                                const tg_mut_matrix* a_gathered_or_null, const tg_matrix* b,
                                const tg_matrix* c_or_null, const tg_mut_matrix* d, float alpha, float beta,
                                void* stream, tg_tp_overlap overlap, char* error_message,
                                size_t error_message_size) {
  using namespace tilegemm;
  return capi::guarded(
      [&] {
        for (const auto& [p, name] : {std::pair<const void*, const char*>{a_shard, "a_shard"}, {b, "b"}, {d, "d"}})
          if (Status s = tp::required(p, name); !s.ok()) return s;
        tp::AllGatherGemmArgs args;
        args.m = m;
        args.a_shard = capi::to_cpp(*a_shard);
        if (a_gathered_or_null != nullptr) args.a_gathered = capi::to_cpp(*a_gathered_or_null);
        MatrixRef c;
        tp::set_common(args, b, c_or_null, &c, d, alpha, beta, stream, overlap);
        return tp::all_gather_gemm(static_cast<ncclComm*>(comm), args);
      },
      error_message, error_message_size);
}

tg_status tg_tp_gemm_reduce_scatter(void* comm, const tg_matrix* a, const tg_matrix* b, const tg_matrix* c_or_null,
                                    const tg_mut_matrix* d, int32_t partial_dtype, float alpha, float beta,
                                    void* stream, tg_tp_overlap overlap, char* error_message,
                                    size_t error_message_size) {
  using namespace tilegemm;
  return capi::guarded(
      [&] {
        for (const auto& [p, name] : {std::pair<const void*, const char*>{a, "a"}, {b, "b"}, {d, "d"}})
          if (Status s = tp::required(p, name); !s.ok()) return s;
        tp::GemmReduceScatterArgs args;
        args.a = capi::to_cpp(*a);
        MatrixRef c;
        tp::set_common(args, b, c_or_null, &c, d, alpha, beta, stream, overlap);
        args.partial_dtype = static_cast<DType>(partial_dtype);
        return tp::gemm_reduce_scatter(static_cast<ncclComm*>(comm), args);
      },
      error_message, error_message_size);
}

tg_status tg_tp_synchronize(void* comm, void* stream, double timeout_s, char* error_message,
                            size_t error_message_size) {
  using namespace tilegemm;
  return capi::guarded(
      [&] { return tp::synchronize(static_cast<ncclComm*>(comm), static_cast<cudaStream_t>(stream), timeout_s); },
      error_message, error_message_size);
}

}  // extern "C"
