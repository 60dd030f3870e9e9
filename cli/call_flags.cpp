#include "call_flags.hpp"

#include <cstdint>

#include <fmt/core.h>

#include "tilegemm/tilegemm.hpp"

namespace tilegemm::cli {

void add_call_flags(CLI::App* cmd, CallFlags* f) {
  cmd->add_option(f->dtype_flag, f->out, "Output dtype: bf16 | fp32")->check(CLI::IsMember({"bf16", "fp32"}));
  cmd->add_option("--d-major", f->d_major, "D's (and C's) storage: row | col")->check(CLI::IsMember({"row", "col"}));
  cmd->add_option("--alpha", f->alpha, "alpha (default 1)");
  cmd->add_option("--beta", f->beta, "Add beta*C: a random normal C in D's layout (0: C given but not read)");
  cmd->add_option("--c-dtype", f->c_dtype, "C's dtype (default D's; the API takes C with D's dtype)")
      ->check(CLI::IsMember({"bf16", "fp32"}));
  cmd->add_flag("--in-place", f->in_place, "C is D: D = alpha*A*B^T + beta*D (D holds C's values before each check)");
  cmd->add_option("--ld-pad", f->ld_pad,
                  "Elements added to every leading dimension (A, B, C and D stored with ld = contiguous extent + PAD)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 20));
}

std::optional<std::string> apply_call_flags(const CallFlags& f, bench::Case* proto) {
  proto->out = f.out == "fp32" ? DType::fp32 : DType::bf16;
  proto->d_major = f.d_major == "col" ? col_major : row_major;
  proto->alpha = f.alpha;
  proto->ld_pad = f.ld_pad;
  if (!f.beta && (f.in_place || !f.c_dtype.empty()))
    return std::string(f.in_place ? "--in-place" : "--c-dtype") + " describes C: give --beta B too";
  if (f.in_place && !f.c_dtype.empty() && f.c_dtype != f.out)
    return "--in-place: C is D, so C's dtype is " + f.dtype_flag + "'s (" + f.out + "), not --c-dtype " + f.c_dtype;
  if (f.beta) {
    proto->with_c = true;
    proto->beta = *f.beta;
    proto->in_place = f.in_place;
    if (!f.c_dtype.empty()) proto->c_dtype = f.c_dtype == "fp32" ? DType::fp32 : DType::bf16;
  }
  // The rules of the call itself, on placeholder addresses (validate() reads no memory).
  const auto fake = [](uintptr_t i) { return reinterpret_cast<void*>(i << 41); };
  GemmArgs g;
  const auto line = [](Major major, int64_t rows, int64_t cols) { return major == Major::k_major ? cols : rows; };
  g.a = MatrixRef{fake(1), 64, 64, 64, DType::bf16, proto->a_major};
  g.b = MatrixRef{fake(2), 64, 64, 64, DType::bf16, proto->b_major};
  g.d = MutMatrixRef{fake(3), 64, 64, line(proto->d_major, 64, 64), proto->out, proto->d_major};
  MatrixRef c{fake(4), 64, 64, g.d.ld, proto->c_type(), proto->d_major};
  if (proto->in_place) c = g.d;
  if (proto->with_c) g.c = &c;
  g.alpha = proto->alpha;
  g.beta = proto->with_c ? proto->beta : 0.0f;
  if (Status s = validate(g); !s.ok()) {
    std::string what = f.dtype_flag + " " + f.out;
    if (f.beta) what += fmt::format(" --beta {}", *f.beta);
    if (!f.c_dtype.empty()) what += " --c-dtype " + f.c_dtype;
    if (f.in_place) what += " --in-place";
    return what + ": " + s.message;
  }
  return std::nullopt;
}

std::string call_label(const CallFlags& f, const bench::Case& proto) {
  std::string label = fmt::format("D {}-major", f.d_major);
  if (proto.with_c)
    label += proto.in_place ? fmt::format(", C = D (in place), alpha {} beta {}", proto.alpha, proto.beta)
                            : fmt::format(", {} C, alpha {} beta {}", to_string(proto.c_type()), proto.alpha, proto.beta);
  else if (proto.alpha != 1.0f)
    label += fmt::format(", no C, alpha {}", proto.alpha);
  else
    label += ", no C";
  if (proto.ld_pad != 0) label += fmt::format(", leading dimensions padded by {}", proto.ld_pad);
  return label;
}

void add_model_flags(CLI::App* cmd, ModelFlags* f) {
  cmd->add_flag("--no-row-repacks", f->no_row_repacks,
                "Read A and B in place even where their rows start inside 32-B sectors (ld or base an odd "
                "multiple of 16 B; default: repacked when the time model says it pays)");
  cmd->add_flag("--no-narrow-transposes", f->no_narrow_transposes,
                "Read an MN-major A or B with fewer than 64 rows along MN in place (default: copied into K-major "
                "lines first when the time model says it pays)");
  cmd->add_flag("--narrow-mn-chunks", f->narrow_mn_chunks,
                "Let the planner give MN-major operands tiles in chunks of 16 or 32 elements along MN (32-B / 64-B "
                "swizzled: swap-AB over a small MN-major A, small-N tiles of an MN-major B; off by default: "
                "measured up to 1.3x slower on some shapes, docs/PERF.md)");
}

}  // namespace tilegemm::cli
