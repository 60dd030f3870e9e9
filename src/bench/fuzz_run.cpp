// One fuzz problem on the GPU (fuzz_run.hpp).
#include "bench/fuzz_run.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "reference/device_fill.hpp"
#include "reference/gpu_gemm.hpp"
#include "reference/guards.hpp"
#include "reference/matrix_ops.hpp"

namespace tilegemm::bench {
namespace {

// A device buffer that only grows.
struct Buffer {
  void* ptr = nullptr;
  size_t bytes = 0;
  ~Buffer() {
    if (ptr) cudaFree(ptr);
  }
  cudaError_t reserve(size_t wanted) {
    if (wanted <= bytes) return cudaSuccess;
    if (ptr) cudaFree(ptr);
    ptr = nullptr;
    bytes = 0;
    // NOTES: at least 1 MiB and 1.5x growth, so a run of growing problems does not reallocate
    // every time; cudaMalloc's 256-B alignment is what kGuardElements relies on.
    const size_t size = std::max<size_t>({wanted, size_t{1} << 20, wanted + wanted / 2});
    const cudaError_t e = cudaMalloc(&ptr, size);
    if (e == cudaSuccess) bytes = size;
    return e;
  }
};

// Errors that leave the context unusable (a kernel fault): every later call would fail too.
bool is_sticky(cudaError_t e) {
  return e == cudaErrorIllegalAddress || e == cudaErrorLaunchFailure || e == cudaErrorMisalignedAddress ||
         e == cudaErrorIllegalInstruction || e == cudaErrorInvalidPc || e == cudaErrorHardwareStackError ||
         e == cudaErrorInvalidAddressSpace || e == cudaErrorAssert || e == cudaErrorLaunchTimeout ||
         e == cudaErrorUnknown;
}

std::string cuda_text(const char* what, cudaError_t e) {
  return fmt::format("{}: {} ({})", what, cudaGetErrorName(e), cudaGetErrorString(e));
}

uint64_t stream_seed(uint64_t data_seed, uint64_t which) { return data_seed * 8 + which; }

}  // namespace

struct FuzzRunner::Impl {
  cudaStream_t stream = nullptr;
  Buffer a, b, c, d, reference, out1, out2;
  std::vector<float> host_ref, host_out1, host_out2;
  ~Impl() {
    if (stream) cudaStreamDestroy(stream);
  }
};

FuzzRunner::FuzzRunner() : impl_(std::make_unique<Impl>()) {}
FuzzRunner::~FuzzRunner() = default;

cudaError_t FuzzRunner::init() {
  if (impl_->stream) return cudaSuccess;
  return cudaStreamCreateWithFlags(&impl_->stream, cudaStreamNonBlocking);
}

FuzzCheck FuzzRunner::run(const FuzzProblem& p, const FuzzHooks& hooks) {
  Impl& x = *impl_;
  FuzzCheck out;
  out.problem = p;
  const cudaStream_t s = x.stream;
  auto fail_cuda = [&](const char* what, cudaError_t e) {
    out.errors.push_back(cuda_text(what, e));
    out.fatal = is_sticky(e);
    (void)cudaGetLastError();
    return out;
  };

  // Allocations: [guard | offset | matrix span | guard] each (fuzz_problem.hpp).
  const FuzzPlacements pl = fuzz_placements(p);
  const size_t eb = static_cast<size_t>(dtype_bytes(p.out));
  const size_t mn = static_cast<size_t>(p.m) * static_cast<size_t>(p.n);
  const bool own_c = p.c_mode == CMode::separate || p.c_mode == CMode::unread;
  const std::pair<Buffer*, size_t> sizes[] = {
      {&x.a, size_t(pl.a.elements) * 2}, {&x.b, size_t(pl.b.elements) * 2}, {&x.c, own_c ? size_t(pl.c.elements) * eb : 0},
      {&x.d, size_t(pl.d.elements) * eb}, {&x.reference, mn * 4}, {&x.out1, mn * 4}, {&x.out2, mn * 4}};
  for (const auto& [buf, bytes] : sizes)
    if (cudaError_t e = buf->reserve(bytes); e != cudaSuccess) return fail_cuda("cudaMalloc", e);
  MatrixRef c_storage;
  GemmArgs args = fuzz_args(p, x.a.ptr, x.b.ptr, x.c.ptr, x.d.ptr, &c_storage);
  args.stream = s;
  if (hooks.route_reason) out.route_reason = hooks.route_reason(args);

  // What each allocation holds before the call. D: its own seeded stream everywhere (the guards),
  // poisoned over D's elements -- or, with C = D, left holding C's values there.
  const ref::Expected in_a{false, stream_seed(p.data_seed, 1)}, in_b{false, stream_seed(p.data_seed, 2)};
  const ref::Expected in_c = p.c_mode == CMode::unread ? ref::Expected{true, 0} : ref::Expected{false, stream_seed(p.data_seed, 3)};
  const ref::Expected in_d{false, stream_seed(p.data_seed, 4)};
  const ref::Region d_region = ref::region_of(args.d, pl.d.first);
  const auto prepare_d = [&]() -> cudaError_t {
    cudaError_t e = ref::fill_expected(x.d.ptr, size_t(pl.d.elements), p.out, in_d, s);
    if (e == cudaSuccess && p.c_mode != CMode::in_place) e = ref::poison_region(x.d.ptr, p.out, d_region, s);
    return e;
  };
  cudaError_t e = ref::fill_expected(x.a.ptr, size_t(pl.a.elements), DType::bf16, in_a, s);
  if (e == cudaSuccess) e = ref::fill_expected(x.b.ptr, size_t(pl.b.elements), DType::bf16, in_b, s);
  if (e == cudaSuccess && own_c) e = ref::fill_expected(x.c.ptr, size_t(pl.c.elements), p.out, in_c, s);
  if (e == cudaSuccess) e = prepare_d();
  // The reference reads C before the candidate runs (with C = D, D holds C's values now).
  if (e == cudaSuccess)
    e = ref::gpu_gemm(args.a, args.b, args.c, args.alpha, args.beta, static_cast<float*>(x.reference.ptr), s);
  if (e == cudaSuccess) e = cudaStreamSynchronize(s);
  if (e != cudaSuccess) return fail_cuda("preparing the inputs and the reference", e);

  const MatrixRef packed{nullptr, p.m, p.n, p.n, DType::fp32, row_major};
  // One run of the candidate; D gathered into `into` (row-major fp32), then the allocation checks.
  const auto run_once = [&](Buffer& into, bool first) -> bool {
    const Status st = hooks.launch(args);
    if (first && hooks.what_ran) out.ran = hooks.what_ran();
    if (!st.ok()) {
      out.errors.push_back(fmt::format("gemm returned {} ({}): {}", to_string(st.code), st.argument, st.message));
      return false;
    }
    if (cudaError_t err = cudaStreamSynchronize(s); err != cudaSuccess) {
      fail_cuda(first ? "the first run" : "the second run", err);
      return false;
    }
    MatrixRef dst = packed;
    dst.ptr = into.ptr;
    if (cudaError_t err = ref::scale_copy_matrix(args.d, dst, 1.0f, s); err != cudaSuccess) {
      fail_cuda("gathering D", err);
      return false;
    }
    uint64_t changed = 0;
    if (cudaError_t err = ref::count_changed(x.d.ptr, size_t(pl.d.elements), p.out, in_d, &d_region, s, &changed);
        err != cudaSuccess) {
      fail_cuda("checking D's guards", err);
      return false;
    }
    out.outside_d_writes += changed;
    return true;
  };
  if (!run_once(x.out1, true)) return out;
  if (e = prepare_d(); e != cudaSuccess) return fail_cuda("re-poisoning D", e);
  if (!run_once(x.out2, false)) return out;

  // Inputs untouched: every element of A's, B's and C's allocations, guards included.
  const struct {
    const Buffer* buf;
    const Placement* pl;
    DType dtype;
    const ref::Expected* expected;
  } inputs[] = {{&x.a, &pl.a, DType::bf16, &in_a}, {&x.b, &pl.b, DType::bf16, &in_b}, {&x.c, &pl.c, p.out, &in_c}};
  for (const auto& in : inputs) {
    if (in.buf == &x.c && !own_c) continue;
    uint64_t changed = 0;
    if (e = ref::count_changed(in.buf->ptr, size_t(in.pl->elements), in.dtype, *in.expected, nullptr, s, &changed);
        e != cudaSuccess)
      return fail_cuda("checking the inputs", e);
    out.input_writes += changed;
  }

  x.host_ref.resize(mn);
  x.host_out1.resize(mn);
  x.host_out2.resize(mn);
  const std::pair<const Buffer*, std::vector<float>*> copies[] = {
      {&x.reference, &x.host_ref}, {&x.out1, &x.host_out1}, {&x.out2, &x.host_out2}};
  for (const auto& [buf, host] : copies)
    if (e = cudaMemcpyAsync(host->data(), buf->ptr, mn * 4, cudaMemcpyDeviceToHost, s); e != cudaSuccess)
      return fail_cuda("copying D back", e);
  if (e = cudaStreamSynchronize(s); e != cudaSuccess) return fail_cuda("copying D back", e);

  out.check = ref::check(x.host_out1.data(), x.host_ref.data(), mn, p.out);
  for (size_t i = 0; i < mn; ++i)
    out.run_differences += std::memcmp(&x.host_out1[i], &x.host_out2[i], 4) != 0 ? 1 : 0;

  if (!out.check.passed)
    out.errors.push_back(fmt::format("D differs from the reference: calc_diff {:.3e} (limit {:.0e}), {} element "
                                     "mismatches, {} non-finite, max rel error {:.3e}",
                                     out.check.calc_diff, out.check.threshold, out.check.mismatches,
                                     out.check.non_finite, out.check.max_rel));
  if (out.outside_d_writes)
    out.errors.push_back(fmt::format("{} elements outside D (guard bands, gaps between lines) were written",
                                     out.outside_d_writes));
  if (out.input_writes) out.errors.push_back(fmt::format("{} elements of the inputs A, B, C changed", out.input_writes));
  if (out.run_differences)
    out.errors.push_back(fmt::format("the second run differs from the first in {} elements of D (not bitwise "
                                     "deterministic)",
                                     out.run_differences));
  out.passed = out.errors.empty();
  return out;
}

}  // namespace tilegemm::bench
