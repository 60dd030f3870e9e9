// route() and problem_of() (route.hpp).
#include "api/route.hpp"

#include <string>

#include "core/math.hpp"

namespace tilegemm::detail {

const char* path_name(Path p) { return p == Path::sm90 ? "sm90" : "fallback"; }

plan::Problem problem_of(const GemmArgs& args) {
  plan::Problem p;
  p.m = args.d.rows;
  p.n = args.d.cols;
  p.k = args.a.cols;
  p.a_major = args.a.major;
  p.b_major = args.b.major;
  p.out = args.d.dtype;
  p.accumulate = args.c != nullptr && args.beta != 0.0f;
  p.lda = args.a.ld;
  p.ldb = args.b.ld;
  p.ldd = args.d.ld;
  return p;
}

GemmArgs placeholder_args(const plan::Problem& p, MatrixRef* c_storage) {
  // Matrix i at i * 2^41: validate() bounds every matrix's span below 2^40 bytes, so the
  // placeholders never overlap, whatever the shape (fixed addresses 256 MiB apart made explain
  // refuse large valid problems with "d overlaps a").
  const auto addr = [](uintptr_t i) { return reinterpret_cast<void*>(i << 41); };
  GemmArgs g;
  g.a = MatrixRef{addr(1), p.m, p.k, p.lda ? p.lda : (p.a_major == Major::k_major ? p.k : p.m), DType::bf16,
                  p.a_major};
  g.b = MatrixRef{addr(2), p.n, p.k, p.ldb ? p.ldb : (p.b_major == Major::k_major ? p.k : p.n), DType::bf16,
                  p.b_major};
  g.d = MutMatrixRef{addr(3), p.m, p.n, p.ldd ? p.ldd : p.n, p.out, row_major};
  if (p.accumulate) {
    *c_storage = g.d;
    c_storage->ptr = addr(4);
    g.c = c_storage;
    g.beta = 1.0f;
  }
  return g;
}

GemmArgs canonical_args(const GemmArgs& in) {
  GemmArgs g = in;
  // A [M, K] or B [N, K] with one row: element (0, k) is at k (K-major, any ld) or at k * ld
  // (MN-major), so it is one contiguous line exactly when K-major, or MN-major with ld = 1.
  auto one_row = [](auto& x) {
    const bool contiguous = x.major == Major::k_major || x.ld == 1;
    if (x.rows != 1 || !contiguous || (x.major == Major::k_major && x.ld % 8 == 0)) return;
    x.major = Major::k_major;
    x.ld = round_up(x.cols > 0 ? x.cols : int64_t{1}, int64_t{8});
  };
  one_row(g.a);
  one_row(g.b);
  // D with one row, row-major: its ld is never stepped over.
  if (g.d.rows == 1 && g.d.major == row_major && g.d.ld % 8 != 0) g.d.ld = round_up(g.d.cols, int64_t{8});
  return g;
}

Route route(const GemmArgs& in) {
  Route r;
  r.args = canonical_args(in);
  const GemmArgs& args = r.args;
  r.problem = problem_of(args);
  auto fallback = [&](const char* arg, const std::string& value, const char* rule) {
    r.path = Path::fallback;
    r.reason = std::string(arg) + " = " + value + ": the sm90 kernel needs " + rule;
    return r;
  };
  if (args.a.dtype != DType::bf16) return fallback("a.dtype", to_string(args.a.dtype), "bf16");
  if (args.b.dtype != DType::bf16) return fallback("b.dtype", to_string(args.b.dtype), "bf16");
  if (args.d.dtype != DType::bf16)
    return fallback("d.dtype", to_string(args.d.dtype), "bf16 output (fp32 output is not in the template yet)");
  if (args.d.major != row_major) return fallback("d.major", to_string(args.d.major), "row-major D");
  if (args.c != nullptr && args.beta != 0.0f)
    return fallback("beta", std::to_string(args.beta), "no C or beta = 0 (C is not in the template yet)");
  const int64_t m = args.d.rows, n = args.d.cols, k = args.a.cols;
  constexpr int64_t kIntMax = 2147483647;
  if (k < 1) return fallback("K", std::to_string(k), "K >= 1 (K = 0 is a pure epilogue)");
  if (m > kIntMax) return fallback("M", std::to_string(m), "M <= 2^31 - 1");
  if (n > kIntMax) return fallback("N", std::to_string(n), "N <= 2^31 - 1");
  if (k > kIntMax) return fallback("K", std::to_string(k), "K <= 2^31 - 1");
  // NOTES: whether the TMA load's zero fill is per element or per 16-B chunk is not verified, so a
  // K that ends inside a chunk (with lda > K the rest of the chunk is the caller's padding, not
  // zeros) stays on the fallback.
  const bool k_major_operand = args.a.major == Major::k_major || args.b.major == Major::k_major;
  if (k_major_operand && k % 8 != 0)
    return fallback("K", std::to_string(k), "K a multiple of 8 when A or B is K-major (16-B chunks along K)");
  if (args.a.ld % 8 != 0) return fallback("a.ld", std::to_string(args.a.ld), "a multiple of 8 elements (16-B TMA stride)");
  if (args.b.ld % 8 != 0) return fallback("b.ld", std::to_string(args.b.ld), "a multiple of 8 elements (16-B TMA stride)");
  if (args.d.ld % 8 != 0) return fallback("d.ld", std::to_string(args.d.ld), "a multiple of 8 elements (16-B TMA stride)");
  auto misaligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 != 0; };
  if (misaligned(args.a.ptr)) return fallback("a.ptr", "an address", "16-byte alignment");
  if (misaligned(args.b.ptr)) return fallback("b.ptr", "an address", "16-byte alignment");
  if (misaligned(args.d.ptr)) return fallback("d.ptr", "an address", "16-byte alignment");
  r.path = Path::sm90;
  return r;
}

}  // namespace tilegemm::detail
