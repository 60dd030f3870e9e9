// `tilegemm explain M N K [options]`: what tilegemm::gemm() runs for one GEMM and why. The options
// describe the call (layout, output dtype, D's major, C and beta, leading dimensions, pointer
// offsets: api/explain_call.hpp); explain routes exactly that call (src/api/route.hpp: sm90 kernel
// or fallback, and the rule that decides) and, on the sm90 path, shows the planner's choice
// (src/plan/, docs/PLANNER.md) -- the same select_config gemm() calls, so explain prints the Config
// gemm() runs; on the live GPU the tuning cache's entry for the call, when there is one, as gemm()
// reads it (api/tuning.hpp). Runs without a GPU: the device is --device, else the live GPU if there
// is a Hopper one, else h200.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "api/explain_call.hpp"
#include "api/tuning.hpp"
#include "call_flags.hpp"
#include "commands.hpp"
#include "plan/config_spec.hpp"
#include "plan/device_profile.hpp"
#include "plan/explain.hpp"
#include "plan/planner.hpp"

namespace tilegemm::cli {

namespace {

[[noreturn]] void fail(const std::string& message) { usage_error("explain", message); }

struct ExplainArgs {
  int64_t m = 0, n = 0, k = 0;
  std::string layout = "nt";
  std::string out = "bf16";
  bool accumulate = false;
  std::string device;  // empty: live GPU, else h200
  int top = 10;
  int rejected = 3;
  std::string config;
  std::string rank = "time";
  bool json = false;
  bool no_split = false;
  int max_ctas = 0;
  ModelFlags copies;  // GemmOptions::row_repacks / narrow_transposes / narrow_mn_chunks, as bench takes them
  int64_t lda = 0, ldb = 0, ldc = 0, ldd = 0;  // 0: packed
  // The rest of the call (what route() reads beyond the shape): D's major, C, scalars, offsets.
  std::string d_major = "row", c_major, c_dtype;
  std::optional<float> beta;
  float alpha = 1.0f;
  bool in_place = false;
  int64_t offset_a = 0, offset_b = 0, offset_c = 0, offset_d = 0;
};

// --d-major, --beta/--accumulate, --c-*, --in-place, --alpha, --ld*, --offset-*: the call route()
// sees, under the rules the explorer's /api/plan applies too (api/explain_call.hpp).
detail::CallStorage call_of(const ExplainArgs& a, plan::Problem* p) {
  detail::CallOptions o;
  o.d_major = a.d_major;
  o.accumulate = a.accumulate;
  o.beta = a.beta;
  o.alpha = a.alpha;
  o.c_major = a.c_major;
  o.c_dtype = a.c_dtype;
  o.in_place = a.in_place;
  o.lda = a.lda, o.ldb = a.ldb, o.ldc = a.ldc, o.ldd = a.ldd;
  o.offset_a = a.offset_a, o.offset_b = a.offset_b, o.offset_c = a.offset_c, o.offset_d = a.offset_d;
  const auto spell = [](std::string_view key) {  // "in_place" -> "--in-place"
    std::string option = "--" + std::string(key);
    for (char& ch : option)
      if (ch == '_') ch = '-';
    return option;
  };
  detail::CallStorage call;
  if (Status s = detail::call_storage_of(o, spell, p, &call); !s.ok()) fail(s.message);
  return call;
}

void run_explain(const ExplainArgs& a) {
  using namespace tilegemm::plan;
  Problem p;
  p.m = a.m;
  p.n = a.n;
  p.k = a.k;
  if (!parse_layout(a.layout, &p.a_major, &p.b_major))
    fail("--layout \"" + a.layout + "\": must be nt, nn, tn or tt (first letter A, second B; nt = both K-major)");
  if (a.out == "bf16") {
    p.out = DType::bf16;
  } else if (a.out == "fp32") {
    p.out = DType::fp32;
  } else {
    fail("--out \"" + a.out + "\": must be bf16 or fp32");
  }
  if (a.top < 1) fail("--top " + std::to_string(a.top) + ": must be >= 1");
  if (a.rejected < -1) fail("--rejected " + std::to_string(a.rejected) + ": must be >= 0, or -1 for all");
  PlanOptions options;
  if (a.rank == "time") {
    options.ranking = Ranking::time;
  } else if (a.rank == "seed") {
    options.ranking = Ranking::seed;
  } else {
    fail("--rank \"" + a.rank + "\": must be time (predicted time) or seed (the seed's score)");
  }
  options.allow_split_k = !a.no_split;
  options.narrow_mn_chunks = a.copies.narrow_mn_chunks;

  detail::ExplainRequest rq;
  rq.call = call_of(a, &p);
  rq.problem = p;
  rq.options = options;
  rq.max_ctas = a.max_ctas;
  // (route()'s comparisons plan as gemm() routes: only the narrow chunks come from the options.)
  rq.copies = {!a.copies.no_row_repacks, !a.copies.no_narrow_transposes, {}};
  rq.copies.plan.narrow_mn_chunks = options.narrow_mn_chunks;
  rq.json = a.json;
  rq.explain.top = a.top;
  rq.explain.rejected_per_rule = a.rejected;
  if (!a.device.empty()) {
    auto found = find_builtin_profile(a.device);
    if (!found) fail("--device \"" + a.device + "\": must be one of " + builtin_profile_names());
    rq.device = *found;
    rq.explain.device_note = "--device " + a.device;
  } else {
    std::string why;
    if (auto live = query_live_profile(0, &why)) {
      rq.device = *live;
      rq.explain.device_note = "live GPU 0 (no --device given)";
      // What gemm() reads on this GPU: the process's tuning cache under the device's key.
      if (detail::tuning_device(0, &rq.tuning_device).ok()) rq.tuning = detail::process_tuning();
    } else {
      rq.device = *find_builtin_profile("h200");
      rq.explain.device_note = "no --device given and no usable GPU (" + why + "), so h200";
    }
  }
  if (!a.config.empty()) {
    const ParsedConfigSpec spec = parse_config_spec(a.config);
    if (!spec.ok()) fail(spec.error);
    rq.user = spec.spec;
    rq.user_spec = a.config;
  }
  std::string text;
  if (Status s = detail::explain_call(rq, &text); !s.ok()) fail(s.message);
  std::fwrite(text.data(), 1, text.size(), stdout);
}

}  // namespace

void add_explain_command(CLI::App& app) {
  auto args = std::make_shared<ExplainArgs>();
  auto* cmd = app.add_subcommand(
      "explain", "Show the planner's kernel configuration for D[M,N] = A[M,K]·B[N,K]ᵀ and why: every "
                 "term of the seed's score, the predicted time, and the rejected candidates with their rule");
  cmd->add_option("M", args->m, "rows of A and D")->required()->check(whole_int64());
  cmd->add_option("N", args->n, "rows of B, columns of D")->required()->check(whole_int64());
  cmd->add_option("K", args->k, "the reduction dimension")->required()->check(whole_int64());
  cmd->add_option("--layout", args->layout, "nt | nn | tn | tt (DeepGEMM names; nt = A and B K-major)")
      ->capture_default_str();
  cmd->add_option("--out", args->out, "output dtype: bf16 | fp32")->capture_default_str();
  cmd->add_flag("--accumulate", args->accumulate, "a C with beta = 1 (the same as --beta 1)");
  cmd->add_option("--beta", args->beta, "a C is given, with this beta (0: C given but not read)");
  cmd->add_option("--alpha", args->alpha, "alpha (default 1)");
  cmd->add_option("--d-major", args->d_major, "D's storage: row | col")->capture_default_str();
  cmd->add_option("--c-major", args->c_major, "C's storage: row | col (default: D's)");
  cmd->add_option("--c-dtype", args->c_dtype, "C's dtype: bf16 | fp32 (default: --out's)");
  cmd->add_flag("--in-place", args->in_place, "C is D (same pointer, ld, major, dtype): D = alpha*A*B^T + beta*D");
  cmd->add_option("--ldc", args->ldc, "leading dimension of C in elements (default: packed)")->check(whole_int64());
  cmd->add_option("--offset-a", args->offset_a, "A's pointer, in elements past a 256-B aligned address (default 0)")
      ->check(whole_int64());
  cmd->add_option("--offset-b", args->offset_b, "B's pointer offset in elements (default 0)")->check(whole_int64());
  cmd->add_option("--offset-c", args->offset_c, "C's pointer offset in elements (default 0)")->check(whole_int64());
  cmd->add_option("--offset-d", args->offset_d, "D's pointer offset in elements (default 0)")->check(whole_int64());
  cmd->add_option("--device", args->device,
                  "device profile: " + plan::builtin_profile_names() + " (default: the live GPU, else h200)");
  cmd->add_option("--top", args->top, "candidates to list")->capture_default_str();
  cmd->add_option("--rejected", args->rejected, "rejected candidates to list per rule (-1: all)")
      ->capture_default_str();
  cmd->add_option("--lda", args->lda, "leading dimension of A in elements (default: packed)")->check(whole_int64());
  cmd->add_option("--ldb", args->ldb, "leading dimension of B in elements (default: packed)")->check(whole_int64());
  cmd->add_option("--ldd", args->ldd, "leading dimension of D in elements (default: packed)")->check(whole_int64());
  cmd->add_option("--config", args->config,
                  "score this configuration too: BMxBN[,stages=S,stage=COLS,cluster=1x1|2x1|1x2,mapping=grouped-m:8,"
                  "group=G,persistent|static,splitk=S,dsm,streamk,runs,swapab,pingpong,accsets=N,bake] (BM 64|128|256, BN a "
                  "multiple of 8 in [8, 256])");
  cmd->add_option("--rank", args->rank, "ranking: time (predicted time) | seed (the seed's score)")
      ->capture_default_str();
  cmd->add_flag("--no-split-k", args->no_split, "leave k-split candidates (split-K, stream-K) out");
  cmd->add_option("--max-ctas", args->max_ctas,
                  "plan as gemm() does with GemmOptions::max_ctas N: for N SMs, persistent launches, no tuning cache")
      ->check(CLI::Range(1, 1 << 20));
  add_model_flags(cmd, &args->copies);
  cmd->add_flag("--json", args->json, "print the plan as JSON (schema tilegemm.plan/3, docs/PLANNER.md)");
  cmd->callback([args] { run_explain(*args); });
}

}  // namespace tilegemm::cli
