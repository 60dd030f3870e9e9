// What `tilegemm explain` (and the explorer's /api/plan) shows for one call: the route gemm()
// takes, and on the sm90 path the planner's plan -- the same route() and the same ranking gemm()
// uses, so the chosen configuration is the one gemm() runs on that device profile.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "api/route.hpp"
#include "plan/config_spec.hpp"
#include "plan/explain.hpp"
#include "plan/planner.hpp"
#include "plan/tuning_cache.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm::detail {

class TuningState;

// What a call's arguments say beyond plan::Problem: D's major, C, alpha and beta, C's leading
// dimension and the pointer offsets. route() reads all of it (pointer alignment, D's major, C), so
// explain builds the GemmArgs from it and routes exactly that call. The defaults describe the
// plain call: row-major D, no C (or, with problem.accumulate, a separate C with beta = 1), every
// pointer 256-B aligned.
struct CallStorage {
  enum class C { none, separate, in_place };  // in_place: C is D (same ptr, ld, major, dtype)
  Major d_major = row_major;
  C c = C::none;
  Major c_major = row_major;      // separate C
  std::optional<DType> c_dtype;   // separate C; default: D's dtype
  float alpha = 1.0f, beta = 0.0f;  // beta: with a C (none with beta != 0 is not a call)
  int64_t ldc = 0;                // 0: packed
  // Element offsets of the pointers from a 256-B aligned address (what cudaMalloc returns).
  int64_t offset_a = 0, offset_b = 0, offset_c = 0, offset_d = 0;
};

// A call's options as `tilegemm explain` and the explorer's /api/plan take them, before their
// rules are checked: the same names in both (the CLI spells them --d-major, the explorer d_major).
struct CallOptions {
  std::string d_major = "row";       // row | col
  bool accumulate = false;           // a separate C with beta = 1 (the same as beta = 1)
  std::optional<float> beta;         // a C is given, with this beta (0: given but not read)
  float alpha = 1.0f;
  std::string c_major;               // row | col; "": D's
  std::string c_dtype;               // bf16 | fp32; "": D's
  bool in_place = false;             // C is D
  int64_t lda = 0, ldb = 0, ldc = 0, ldd = 0;  // 0: packed
  int64_t offset_a = 0, offset_b = 0, offset_c = 0, offset_d = 0;  // elements, 0 .. 2^30
};

// How a caller spells an option in its messages, from its key ("in_place" -> "--in-place").
using OptionSpelling = std::function<std::string(std::string_view key)>;

// The rules of CallOptions (one C, options that describe C need one, in place excludes C's own
// options, majors and dtypes by name, ld >= 0, offsets 0 .. 2^30): on success *call is the
// storage and problem's lda/ldb/ldd and accumulate are set. An invalid_argument Status otherwise,
// its argument the key at fault ("in_place") and its message spelled by `spell`. The rest of the
// rules (ld against the shape, alignment, C's dtype) are validate()'s, in explain_call().
Status call_storage_of(const CallOptions& options, const OptionSpelling& spell, plan::Problem* problem,
                       CallStorage* call);

// The call explain describes: placeholder addresses (matrix i at i * 2^41, plus its offset; route()
// reads only their alignment), the problem's shape and leading dimensions (0 = packed for the
// matrix's major), and `call`. *c_storage holds C when there is one.
GemmArgs explain_args(const plan::Problem& problem, const CallStorage& call, MatrixRef* c_storage);

struct ExplainRequest {
  plan::Problem problem;        // shape, storage, output, C (leading dimensions 0 = packed)
  CallStorage call;             // D's major, C, scalars, offsets
  plan::DeviceProfile device;
  plan::PlanOptions options;
  plan::ExplainOptions explain;  // top, rejected, device note (path, reason and notes are filled here)
  std::optional<plan::ConfigSpec> user;  // a --config to score beside the plan
  std::string user_spec;                 // its text
  bool json = false;
  // The tuning cache gemm() reads on this device (api/tuning.hpp: process_tuning()) and the
  // device's key; null: not consulted (a built-in --device profile is no device gemm() runs on).
  std::shared_ptr<const TuningState> tuning;
  plan::TuningDevice tuning_device;
  // GemmOptions::max_ctas: below the device's SMs, the plan is made as gemm() makes it for that
  // many (plan::with_sm_limit, persistent launches, no tuning cache); the route stays the device's.
  int max_ctas = 0;
  // GemmOptions::row_repacks / narrow_transposes: the model's copies route() may make.
  ModelCopies copies;
};

// The shape rules explain (and the explorer's plan endpoint) applies before anything else: M, N,
// K >= 1 and the output dtype (plan::validate_problem's), the leading dimensions ignored (they are
// validate()'s, which knows each matrix's major). Extents above plan::kMaxKernelExtent pass: the
// sm90 kernel cannot take them, and route() names the fallback that gemm() runs for them.
Status validate_explain_shape(const plan::Problem& problem);

// The text or JSON for `request`. invalid_argument when the problem breaks a rule (the message
// names it); a plan whose every candidate is rejected is still rendered ("chosen": null). The path
// and reason are route(explain_args(...))'s; the plan is made for route's problem, as gemm() does,
// and "chosen" is model_or_tuned()'s config for it (tuning.hpp), the one gemm() runs.
Status explain_call(const ExplainRequest& request, std::string* out);

}  // namespace tilegemm::detail
