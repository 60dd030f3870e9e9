// The call beyond the shape, as `tilegemm bench` and `tilegemm trace` take it: D's dtype and
// major, alpha, a C with beta, C's dtype, C = D. One set of flags and one set of rules, so that a
// traced problem is exactly what bench would time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "bench/runner.hpp"

namespace tilegemm::cli {

struct CallFlags {
  std::string dtype_flag = "--out";  // the name of D's dtype option (trace's --out names its file)
  std::string out = "bf16";
  std::string d_major = "row";
  float alpha = 1.0f;
  std::optional<float> beta;
  std::string c_dtype;  // empty: D's
  bool in_place = false;
  int64_t ld_pad = 0;  // added to every leading dimension (odd strides; bench::Case::ld_pad)
};

// Registers the flags on `cmd` (D's dtype under f->dtype_flag).
void add_call_flags(CLI::App* cmd, CallFlags* f);

// The flags into the case prototype (out, d_major, alpha, C); a combination that describes no call
// (--in-place or --c-dtype without --beta) or one validate() refuses (a C dtype other than D's
// where the API requires D's) is returned as a usage message naming the flags.
std::optional<std::string> apply_call_flags(const CallFlags& f, bench::Case* proto);

// The model's copies gemm() may make (GemmOptions::row_repacks / narrow_transposes) and the
// planner's narrow MN-major chunks (GemmOptions::narrow_mn_chunks), as bench and explain take them:
// --no-row-repacks, --no-narrow-transposes, --narrow-mn-chunks.
struct ModelFlags {
  bool no_row_repacks = false;
  bool no_narrow_transposes = false;
  bool narrow_mn_chunks = false;
  bool no_pdl = false;      // GemmOptions::pdl off (bench only: a launch option, not a planning one)
  bool own_stream = false;  // bench: both sides on a non-blocking stream of their own
};
void add_model_flags(CLI::App* cmd, ModelFlags* f);

// "D row-major, bf16 C, alpha 1 beta 1" (", no C" / ", C = D (in place), ..." as the case says).
std::string call_label(const CallFlags& f, const bench::Case& proto);

}  // namespace tilegemm::cli
