// Which kernel path a validated gemm() call takes, and why (host only, no CUDA call). gemm() and
// `tilegemm explain` both call route(), so explain names exactly the path gemm() runs.
//
//   sm90      the production kernel (src/sm90/gemm/): planner -> JIT -> launch. Every bf16 call
//             with K >= 1 (the rule below), operands TMA cannot describe repacked first.
//   fallback  the SIMT kernel (fallback_gemm.cu): any shape, leading dimension, offset, layout,
//             C/beta, bf16 or fp32 output. Correct everywhere, about 50x slower; what remains for it
//             is K = 0 (D = beta·C), extents past plan::kMaxKernelExtent (2^31 - 1024), and a
//             workspace that cannot be had.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "plan/device_profile.hpp"
#include "plan/planner.hpp"
#include "plan/problem.hpp"
#include "schedule/mapping.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm::detail {

class TraceCapture;

enum class Path { sm90, fallback };
const char* path_name(Path p);  // "sm90", "fallback"

// One operand the sm90 path copies into an aligned workspace before the GEMM (sm90/gemm/pack.cuh):
// `rows` lines of `cols` elements, element (r, c) at src[r * src_row + c * src_col], into a copy
// with lines of `ld` elements (a multiple of 8), 256-B aligned at `offset` in the workspace.
struct Pack {
  enum class Operand { a, b, c };
  Operand operand = Operand::a;
  const void* src = nullptr;
  int64_t rows = 0, cols = 0;
  int64_t src_row = 0, src_col = 1;  // src_col != 1: the copy changes the major (C only)
  int64_t ld = 0;
  int elem_bytes = 2;
  size_t offset = 0;
  std::string why;  // the rule the operand breaks, e.g. "a.ld = 2001 is not a multiple of 8 elements"
  bool transposes() const { return src_col != 1; }
  size_t bytes() const { return size_t(rows) * size_t(ld) * size_t(elem_bytes); }
};
const char* operand_name(Pack::Operand o);  // "a", "b", "c"

// The kernel launches the copies of `packs` take, in launch order: one for the line copies of
// each element size among them (route() makes line copies of A and B, both bf16), then one per
// transposed C. launch_packs (sm90_launch.cpp) launches these groups and explain counts them, so
// the two cannot disagree.
struct PackLaunch {
  bool transposes = false;  // a transposing copy (one C); else line copies of elem_bytes
  int elem_bytes = 2;
  std::vector<const Pack*> packs;
};
std::vector<PackLaunch> pack_launch_groups(const std::vector<Pack>& packs);
inline int pack_launches(const std::vector<Pack>& packs) {
  return static_cast<int>(pack_launch_groups(packs).size());
}
// What the copies cost at `d`'s copy rate (plan::copy_us: each byte read and written once, per
// launch group): the time a call adds before its kernel. `bytes` (if given) gets the bytes moved.
double packs_us(const std::vector<Pack>& packs, const plan::DeviceProfile& d, double* bytes = nullptr);

struct RouteData {
  Path path = Path::fallback;
  std::string reason;     // fallback: the first sm90 rule the call breaks (argument, value, rule)
  // sm90: how the kernel takes the call, one line per step ("column-major D: computed as Dᵀ = B·Aᵀ",
  // "a is repacked: a.ld = 2001 is not a multiple of 8 elements"); empty when it takes it as given.
  std::vector<std::string> notes;
  plan::Problem problem;  // the shape and storage the planner sees (of the kernel's operands)
  // The call in canonical form (canonical_args, then the transposition of a column-major D): what
  // the sm90 kernel computes, except that each operand in `packs` is read from its copy
  // (launch_args points them there).
  GemmArgs args;
  bool transposed = false;  // D was column-major: args is the problem Dᵀ = B·Aᵀ
  std::vector<Pack> packs;
  size_t pack_bytes = 0;    // workspace the copies take (each 256-B aligned)
  MatrixRef c_view;         // the transposed C, when args.c points here
};

struct Route : RouteData {
  Route() = default;
  Route(const Route& o) : RouteData(o) { relink(o); }
  Route& operator=(const Route& o) {
    RouteData::operator=(o);
    relink(o);
    return *this;
  }

 private:
  void relink(const Route& o) {
    if (o.args.c == &o.c_view) args.c = &c_view;
  }
};

// The route of a call that goes to the fallback kernel for `why` (options.force_fallback).
Route fallback_route(const GemmArgs& args, const std::string& why);

// The same call with single-row matrices described the way TMA can take: A with M = 1, B with N = 1
// or a row-major D with M = 1 never steps over a row, so when its elements are one contiguous line
// (K-major / row-major, or MN-major with ld = 1) it becomes K-major (row-major) with ld = the line
// length rounded up to 8 elements, whatever ld it was given. Every other field is kept.
GemmArgs canonical_args(const GemmArgs& args);

// Whether the call reads a C that is D itself (validate() allows C to overlap D only as the same
// matrix, so the pointer tells): plan::Problem::c_in_place, and the launch's own check of it.
inline bool c_is_d(const GemmArgs& args) {
  return args.c != nullptr && args.beta != 0.0f && args.c->ptr == args.d.ptr;
}

// The planner's view of the arguments: M, N, K, majors, output dtype, C, leading dimensions, and
// whether D can be written by TMA and C/D element pairs are aligned accesses.
plan::Problem problem_of(const GemmArgs& args);

// Arguments gemm() would get for a problem described by shape and storage alone (explain, warmup,
// tests without a GPU): placeholder device addresses, 256-B aligned (route() reads only their
// alignment; nothing is dereferenced), leading dimensions p.lda/ldb/ldd or packed, D row-major, and
// with p.accumulate a C (stored in *c_storage) with beta = 1.
GemmArgs placeholder_args(const plan::Problem& p, MatrixRef* c_storage);

// `args` must have passed validate() and be non-empty (M, N >= 1). The sm90 path takes every such
// call with A, B bf16, 1 <= K and M, N, K <= plan::kMaxKernelExtent (int32 tile coordinates, a
// tile past the edge included); everything else (K = 0: a pure epilogue) goes to the fallback.
// On the sm90 path:
//   - a column-major D (and C) is the transposed problem Dᵀ = B·Aᵀ (operands swapped);
//   - A or B whose leading dimension is not a multiple of 8 elements or whose base is not 16-B
//     aligned (TMA's rules) is repacked into an aligned workspace; so is a C stored in the other
//     major from D;
//   - with a device profile: A or B that TMA can read but whose rows do not start on 32-B (L2
//     sector) boundaries (TMA reads them at half speed) is repacked too when the time model says
//     the faster GEMM pays for the copy (plan::choose_row_repack); without one, never;
//   - with a device profile: an MN-major A or B with fewer than 64 rows along MN is copied into
//     K-major lines when the time model says it pays (plan::choose_narrow_transpose), against
//     reading it in place or with its rows repacked; that copy also serves one TMA cannot read
//     in place; without a profile, never;
//   - D (and C) need no alignment beyond their element: the epilogue writes D with TMA when it can
//     (bf16, no C, ldd a multiple of 8, base 16-B aligned) and with plain stores otherwise.
// The copies route() may make when the time model says they pay (each needs `profile`).
struct ModelCopies {
  bool row_repacks = true;        // operands whose rows start inside L2 sectors
  bool narrow_transposes = true;  // MN-major operands narrower than 64 along MN, into K-major
  // The planner options the comparisons plan with (those gemm() plans the kernel with:
  // plan::PlanOptions::narrow_mn_chunks gives a narrow MN-major operand tiles of its own).
  plan::PlanOptions plan;
};
Route route(const GemmArgs& args, const plan::DeviceProfile* profile = nullptr, ModelCopies copies = {});

// The arguments the sm90 kernel is launched with: r.args with every packed operand pointing at its
// copy in `workspace` (r.pack_bytes bytes, 256-B aligned); *c_storage holds a packed C.
GemmArgs launch_args(const Route& r, void* workspace, MatrixRef* c_storage);

// Whether gemm() launches with programmatic dependent launch by default (GemmOptions::pdl):
// yes, unless the environment variable TILEGEMM_PDL is "off" or "0" (docs/API.md). `getenv` looks a
// name up (std::getenv, or a map in tests); pdl_default() asks the process environment once.
inline constexpr char kPdlEnv[] = "TILEGEMM_PDL";
bool pdl_setting(const std::function<const char*(const char*)>& getenv);
bool pdl_default();

// An experiment's switch (measured 1-3 % on the copies, not enough to turn it on: docs/PERF.md,
// thirty-sixth session), off unless its environment variable is "on" or "1" (env_switch;
// pack_l2_default() asks the process environment once): TILEGEMM_PACK_L2, the operand line copies
// read their source with L2 evict_first and write the copy with L2 evict_last (sm90/gemm/pack.cuh,
// kL2Hints). (The bulk-copy ring experiment's switch went with the ring, measured and removed:
// docs/PERF.md, thirty-eighth session.)
inline constexpr char kPackL2Env[] = "TILEGEMM_PACK_L2";
bool env_switch(const std::function<const char*(const char*)>& getenv, const char* name);
bool pack_l2_default();

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
  // Let the tuning cache choose the Config when none is forced (api/tuning.hpp); false: the model.
  bool use_tuning_cache = true;
  // Let route() repack operands whose rows start inside L2 sectors when the model says it pays;
  // false: they are read in place (operands TMA cannot read at all are still repacked).
  bool row_repacks = true;
  // Let route() copy an MN-major A or B narrower than 64 along MN into K-major lines when the model
  // says it pays; false: read in place.
  bool narrow_transposes = true;
  // Let the planner give MN-major operands tiles stored in chunks narrower than 64 elements
  // (plan::PlanOptions::narrow_mn_chunks): off by default (measured on the H100: 0.97-1.0 of the
  // default's time in geomean, up to 1.3x slower on some shapes; docs/PERF.md).
  bool narrow_mn_chunks = false;
  // Launch the operand copies and the GEMM kernel with programmatic dependent launch
  // (jit::LaunchDims::programmatic): each kernel's prologue (barrier setup, tensor-map prefetch)
  // overlaps the end of the kernel before it in the stream, which it waits for before touching
  // memory (docs/HOPPER.md section 10). Measured on the H100 (docs/PERF.md, twenty-ninth session):
  // copy + GEMM 0.9-2.1 us faster per call, back-to-back decode calls 1.9-2.8 us, nothing slower
  // beyond 1.2 %. false: plain stream order. (The default: pdl_default().)
  bool pdl = pdl_default();
  // At most this many CTAs resident at once (whole clusters, at least one); 0: as many as fit.
  // Leaves SMs free for work on other streams (tensor parallelism's collective). Below the SM count
  // the planner plans for that many SMs (plan::with_sm_limit), persistent launches only, without
  // the tuning cache; a forced config that cannot be held to it (static, or a k-split cluster with
  // more CTAs) is an invalid_argument error naming "config".
  int max_ctas = 0;
};

Status gemm_with_options(const GemmArgs& args, const GemmOptions& options);

// The planner options and the model copies gemm() plans and routes a call with.
plan::PlanOptions plan_options(const GemmOptions& options);
ModelCopies model_copies(const GemmOptions& options);

// What gemm() would launch for `args` on the current device: the route and, on the sm90 path, the
// Config (the tuning cache's or the planner's choice, or options.config completed). No launch, no compile; needs the
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
