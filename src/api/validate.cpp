// validate(): every rule about gemm()'s arguments, checked on the host with no CUDA call.
// The first broken rule is returned; its message names the argument, its value and the rule.
// Order: scalars, then each matrix on its own (a, b, c, d), then the rules that relate them.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "api/matrix_layout.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm {
namespace {

// Rows and columns are indexed with int32 in the kernels (TMA box coordinates are int32 too).
constexpr int64_t kMaxDim = std::numeric_limits<int32_t>::max();
// TMA global strides must be < 2^40 bytes; keeping every matrix's byte span under that bound also
// keeps every element offset far inside int64.
constexpr int64_t kMaxSpanBytes = int64_t{1} << 40;

Status fail(ErrorCode code, std::string argument, std::string message) {
  return Status{code, std::move(argument), std::move(message)};
}

// A matrix argument with the names its messages use.
struct Operand {
  const MatrixRef& m;
  const char* name;   // "a"
  const char* shape;  // "A [M, K]"
  std::string field(const char* f) const { return fmt::format("{}.{}", name, f); }
  // C and D speak of row_major/col_major, A and B of k_major/mn_major (the same two values).
  const char* major_name() const {
    if (shape[0] == 'C' || shape[0] == 'D') return m.major == Major::k_major ? "row_major" : "col_major";
    return to_string(m.major);
  }
};

bool is_valid(DType dtype) {
  return dtype == DType::bf16 || dtype == DType::fp32 || dtype == DType::fp8_e4m3;
}
bool is_valid(Major major) { return major == Major::k_major || major == Major::mn_major; }

Status check_enums(const Operand& op) {
  if (!is_valid(op.m.dtype))
    return fail(ErrorCode::invalid_argument, op.field("dtype"),
                fmt::format("{}.dtype = {}: not a tilegemm::DType value (bf16, fp32, fp8_e4m3)",
                            op.name, static_cast<int>(op.m.dtype)));
  if (!is_valid(op.m.major))
    return fail(ErrorCode::invalid_argument, op.field("major"),
                fmt::format("{}.major = {}: not a tilegemm::Major value (k_major, mn_major)",
                            op.name, static_cast<int>(op.m.major)));
  return Status::success();
}

Status check_dim(const Operand& op, const char* field, int64_t value) {
  if (value < 0)
    return fail(ErrorCode::invalid_argument, op.field(field),
                fmt::format("{}.{} = {}: dimensions must be >= 0", op.name, field, value));
  if (value > kMaxDim)
    return fail(ErrorCode::invalid_argument, op.field(field),
                fmt::format("{}.{} = {}: dimensions must be <= {} (the kernels index rows and "
                            "columns with int32)",
                            op.name, field, value, kMaxDim));
  return Status::success();
}

// ld is the distance between consecutive lines (rows for k_major, columns for mn_major), so it can
// be no smaller than a line; lines that overlapped would make one element two. A matrix with no
// elements addresses nothing: any ld >= 0 will do (an empty framework tensor may have stride 0).
Status check_leading_dim(const Operand& op) {
  if (op.m.ld < 0)
    return fail(ErrorCode::invalid_argument, op.field("ld"),
                fmt::format("{}.ld = {}: leading dimensions must be >= 0", op.name, op.m.ld));
  if (op.m.rows == 0 || op.m.cols == 0) return Status::success();
  if (op.m.ld < 1)
    return fail(ErrorCode::invalid_argument, op.field("ld"),
                fmt::format("{}.ld = {}: {} has {} x {} elements, so ld must be >= 1", op.name, op.m.ld,
                            op.shape, op.m.rows, op.m.cols));
  const int64_t inner = layout::inner_extent(op.m);
  if (op.m.ld < inner) {
    const bool mn = op.m.major == Major::mn_major;
    return fail(ErrorCode::invalid_argument, op.field("ld"),
                fmt::format("{}.ld = {}: {} is {} with {} {}, so ld must be >= {} (ld is the "
                            "distance between consecutive {}, which must not overlap)",
                            op.name, op.m.ld, op.shape, op.major_name(), inner,
                            mn ? "rows" : "columns", inner, mn ? "columns" : "rows"));
  }
  return Status::success();
}

// The stored matrix must be addressable with the kernels' offsets and TMA's strides.
Status check_extent(const Operand& op) {
  if (op.m.rows == 0 || op.m.cols == 0) return Status::success();  // nothing is ever addressed
  const int64_t outer = layout::outer_extent(op.m);
  if (op.m.ld > std::numeric_limits<int64_t>::max() / outer)
    return fail(ErrorCode::invalid_argument, op.field("ld"),
                fmt::format("{}.ld = {}: ld * {} {} overflows int64", op.name, op.m.ld, outer,
                            op.m.major == Major::mn_major ? "columns" : "rows"));
  const int64_t elements = layout::span_elements(op.m);  // <= ld * outer: no overflow
  const int64_t bytes_per = dtype_bytes(op.m.dtype);
  if (elements >= kMaxSpanBytes / bytes_per) {
    const std::string bytes = elements <= std::numeric_limits<int64_t>::max() / bytes_per
                                  ? std::to_string(elements * bytes_per)
                                  : std::string("more than 2^63");
    return fail(ErrorCode::invalid_argument, op.name,
                fmt::format("{} spans {} bytes ({} elements of {} bytes: (lines - 1) * ld + line "
                            "length, with ld = {}): a matrix must span < 2^40 bytes (TMA's "
                            "stride limit)",
                            op.name, bytes, elements, bytes_per, op.m.ld));
  }
  return Status::success();
}

Status check_pointer(const Operand& op) {
  if (op.m.ptr == nullptr && op.m.rows != 0 && op.m.cols != 0)
    return fail(ErrorCode::invalid_argument, op.field("ptr"),
                fmt::format("{}.ptr = null but {} has {} x {} elements: only an empty matrix may "
                            "have a null pointer",
                            op.name, op.shape, op.m.rows, op.m.cols));
  // A pointer must be aligned to its element: a bf16 element at an odd address (or an fp32 one off
  // a 4-byte boundary) is a misaligned load or store on the GPU, whatever kernel runs.
  const auto address = reinterpret_cast<uintptr_t>(op.m.ptr);
  const auto element = static_cast<uintptr_t>(dtype_bytes(op.m.dtype));
  if (op.m.rows != 0 && op.m.cols != 0 && element > 1 && address % element != 0)
    return fail(ErrorCode::invalid_argument, op.field("ptr"),
                fmt::format("{}.ptr = {:#x}: {} is {}, so its pointer must be a multiple of {} bytes "
                            "(the element's own alignment); it is {} byte{} past one",
                            op.name, address, op.shape, to_string(op.m.dtype), element,
                            address % element, address % element == 1 ? "" : "s"));
  return Status::success();
}

Status check_matrix(const Operand& op) {
  Status s = check_enums(op);
  if (s.ok()) s = check_dim(op, "rows", op.m.rows);
  if (s.ok()) s = check_dim(op, "cols", op.m.cols);
  if (s.ok()) s = check_leading_dim(op);
  if (s.ok()) s = check_extent(op);
  if (s.ok()) s = check_pointer(op);
  return s;
}

Status check_same(const Operand& op, const char* field, int64_t value, const Operand& other,
                  const char* other_field, int64_t expected, const char* rule) {
  if (value == expected) return Status::success();
  return fail(ErrorCode::invalid_argument, op.field(field),
              fmt::format("{}.{} = {} but {}.{} = {}: {}", op.name, field, value, other.name,
                          other_field, expected, rule));
}

// A defines M and K, B defines N; C and D must agree with them.
Status check_shapes(const Operand& a, const Operand& b, const Operand* c, const Operand& d) {
  Status s = check_same(b, "cols", b.m.cols, a, "cols", a.m.cols,
                        "A [M, K] and B [N, K] must have the same K");
  if (s.ok()) s = check_same(d, "rows", d.m.rows, a, "rows", a.m.rows, "D [M, N] has A's M rows");
  if (s.ok()) s = check_same(d, "cols", d.m.cols, b, "rows", b.m.rows, "D [M, N] has B's N columns");
  if (s.ok() && c) s = check_same(*c, "rows", c->m.rows, d, "rows", d.m.rows, "C has D's shape");
  if (s.ok() && c) s = check_same(*c, "cols", c->m.cols, d, "cols", d.m.cols, "C has D's shape");
  return s;
}

Status check_input_dtype(const Operand& op) {
  if (op.m.dtype == DType::bf16) return Status::success();
  if (op.m.dtype == DType::fp8_e4m3)
    return fail(ErrorCode::unsupported, op.field("dtype"),
                fmt::format("{}.dtype = fp8_e4m3: fp8 inputs are not supported yet (A and B must "
                            "be bf16)",
                            op.name));
  return fail(ErrorCode::unsupported, op.field("dtype"),
              fmt::format("{}.dtype = {}: A and B must be bf16", op.name, to_string(op.m.dtype)));
}

Status check_dtypes(const Operand& a, const Operand& b, const Operand* c, const Operand& d) {
  Status s = check_input_dtype(a);
  if (s.ok()) s = check_input_dtype(b);
  if (!s.ok()) return s;
  if (d.m.dtype == DType::fp8_e4m3)
    return fail(ErrorCode::unsupported, "d.dtype",
                "d.dtype = fp8_e4m3: fp8 output is not supported yet (D must be bf16 or fp32)");
  if (c && c->m.dtype != d.m.dtype)
    return fail(ErrorCode::unsupported, "c.dtype",
                fmt::format("c.dtype = {} but d.dtype = {}: C must have D's dtype",
                            to_string(c->m.dtype), to_string(d.m.dtype)));
  return Status::success();
}

Status check_scalars(float alpha, float beta, bool has_c) {
  if (!std::isfinite(alpha))
    return fail(ErrorCode::invalid_argument, "alpha",
                fmt::format("alpha = {}: alpha must be finite", alpha));
  if (!std::isfinite(beta))
    return fail(ErrorCode::invalid_argument, "beta",
                fmt::format("beta = {}: beta must be finite", beta));
  if (beta != 0.0f && !has_c)
    return fail(ErrorCode::invalid_argument, "beta",
                fmt::format("beta = {} but no C was given: beta != 0 needs a C matrix", beta));
  return Status::success();
}

// Byte range [begin, end) a stored matrix covers; empty for a matrix with no elements.
struct ByteRange {
  uintptr_t begin = 0, end = 0;
  bool overlaps(const ByteRange& o) const {
    return begin < end && o.begin < o.end && begin < o.end && o.begin < end;
  }
};
ByteRange byte_range(const MatrixRef& m) {
  const auto begin = reinterpret_cast<uintptr_t>(m.ptr);
  return {begin, begin + static_cast<uintptr_t>(layout::span_bytes(m))};
}

// NOTES: the test is on whole byte ranges, so two strided matrices that interleave without sharing
// an element are still rejected; that is conservative and keeps the rule simple to state.
Status check_overlap(const Operand& d, const Operand& input, bool is_c) {
  const ByteRange rd = byte_range(d.m), ri = byte_range(input.m);
  if (!rd.overlaps(ri)) return Status::success();
  if (is_c && d.m.ptr == input.m.ptr && d.m.ld == input.m.ld && d.m.major == input.m.major &&
      d.m.dtype == input.m.dtype)
    return Status::success();  // C is D: each element is read, then written, by the same thread
  const std::string ranges =
      fmt::format("d covers bytes [{:#x}, {:#x}) and {} covers [{:#x}, {:#x})", rd.begin, rd.end,
                  input.name, ri.begin, ri.end);
  if (!is_c)
    return fail(ErrorCode::invalid_argument, "d",
                fmt::format("d overlaps {}: {}; the output D must not overlap A or B", input.name,
                            ranges));
  return fail(ErrorCode::invalid_argument, "d",
              fmt::format("d overlaps c but is not the same matrix (d: ptr {}, ld {}, {}, {}; "
                          "c: ptr {}, ld {}, {}, {}): {}; C may alias D only with the same ptr, "
                          "ld, major and dtype",
                          d.m.ptr, d.m.ld, d.major_name(), to_string(d.m.dtype), input.m.ptr,
                          input.m.ld, input.major_name(), to_string(input.m.dtype), ranges));
}

}  // namespace

Status validate(const GemmArgs& args) {
  const Operand a{args.a, "a", "A [M, K]"};
  const Operand b{args.b, "b", "B [N, K]"};
  const MatrixRef d_view = args.d;  // D as a read-only view: the rules only read its fields
  const Operand d{d_view, "d", "D [M, N]"};
  const Operand* c = nullptr;
  Operand c_storage{args.c ? *args.c : d_view, "c", "C [M, N]"};
  if (args.c) c = &c_storage;

  Status s = check_scalars(args.alpha, args.beta, c != nullptr);
  if (s.ok()) s = check_matrix(a);
  if (s.ok()) s = check_matrix(b);
  if (s.ok() && c) s = check_matrix(*c);
  if (s.ok()) s = check_matrix(d);
  if (s.ok()) s = check_shapes(a, b, c, d);
  if (s.ok()) s = check_dtypes(a, b, c, d);
  if (s.ok()) s = check_overlap(d, a, /*is_c=*/false);
  if (s.ok()) s = check_overlap(d, b, /*is_c=*/false);
  if (s.ok() && c) s = check_overlap(d, *c, /*is_c=*/true);
  return s;
}

}  // namespace tilegemm
