// Which kernel path a validated gemm() call takes, and why (host only, no CUDA call). gemm() and
// `tilegemm explain` both call route(), so explain names exactly the path gemm() runs.
//
//   sm90      the production kernel (src/sm90/gemm/): planner -> JIT -> launch. Taken when TMA can
//             describe every operand and the template implements the layout (the rule below).
//   fallback  the SIMT kernel (fallback_gemm.cu): any shape, leading dimension, offset, layout,
//             C/beta, bf16 or fp32 output. Correct everywhere, about 50x slower.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "plan/problem.hpp"
#include "schedule/mapping.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm::detail {

class TraceCapture;

enum class Path { sm90, fallback };
const char* path_name(Path p);  // "sm90", "fallback"

struct Route {
  Path path = Path::fallback;
  std::string reason;     // fallback: the first sm90 rule the call breaks (argument, value, rule)
  plan::Problem problem;  // the shape and storage the planner sees (of `args`)
  GemmArgs args;          // the call in canonical form (canonical_args): what the sm90 path launches
};

// The same call with single-row matrices described the way TMA can take: A with M = 1, B with N = 1
// or a row-major D with M = 1 never steps over a row, so when its elements are one contiguous line
// (K-major / row-major, or MN-major with ld = 1) it becomes K-major (row-major) with ld = the line
// length rounded up to 8 elements, whatever ld it was given. Every other field is kept.
GemmArgs canonical_args(const GemmArgs& args);

// The planner's view of the arguments: M, N, K, majors, output dtype, C, leading dimensions.
plan::Problem problem_of(const GemmArgs& args);

// Arguments gemm() would get for a problem described by shape and storage alone (explain, warmup,
// tests without a GPU): placeholder device addresses, 256-B aligned (route() reads only their
// alignment; nothing is dereferenced), leading dimensions p.lda/ldb/ldd or packed, D row-major, and
// with p.accumulate a C (stored in *c_storage) with beta = 1.
GemmArgs placeholder_args(const plan::Problem& p, MatrixRef* c_storage);

// `args` must have passed validate() and be non-empty (M, N >= 1). The sm90 rule: A, B bf16, each
// K-major or MN-major; D bf16 row-major; no C, or beta = 0 (C is then never read); 1 <= K; M, N, K
// <= INT32_MAX (int tile coordinates); K a multiple of 8 when A or B is K-major (the K tail is read
// up to its 16-B chunk);
// lda, ldb, ldd multiples of 8 elements (16-B TMA strides); a, b, d pointers 16-B aligned.
Route route(const GemmArgs& args);

// gemm() with what the public API does not expose (the CLI's --config/--mapping, tests).
struct GemmOptions {
  bool force_fallback = false;
  // A configuration to run instead of the planner's choice (completed and checked by
  // plan::evaluate_config; a rejected one is an invalid_argument error naming its rule).
  std::optional<plan::Config> config;
  bool config_stages_given = false;
  // Run options.config even when only a planner preference rejects it (plan::is_preference_rule:
  // e.g. split-K slices shorter than 4 k-blocks); rules the kernel needs always apply. Tests.
  bool config_ignore_preferences = false;
  // Replace only the tile order of the planner's choice.
  std::optional<sched::Mapping> mapping;
  // Trace this call (trace_capture.hpp): the traced kernel of the chosen Config, host spans.
  TraceCapture* trace = nullptr;
};

Status gemm_with_options(const GemmArgs& args, const GemmOptions& options);

// What gemm() would launch for `args` on the current device: the route and, on the sm90 path, the
// Config (the planner's choice, or options.config completed). No launch, no compile; needs the
// device only to read its profile (SMs, smem) when the path is sm90.
struct LaunchChoice {
  Route route;
  plan::Config config;  // meaningful when route.path == Path::sm90
};
Status choose_launch(const GemmArgs& args, const GemmOptions& options, LaunchChoice* out);

// The Config of the last sm90 launch made by this thread (tests compare it with explain's choice);
// nullopt after a fallback launch or before any.
std::optional<plan::Config> last_sm90_config();

}  // namespace tilegemm::detail
