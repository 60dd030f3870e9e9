// Rendering a Plan for people (text) and for tools (JSON, schema "tilegemm.plan/1", documented in
// docs/PLANNER.md; the mapping explorer and the autotuner read it). Host only; fmt and
// nlohmann_json stay inside explain.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "plan/planner.hpp"
#include "plan/tuning_cache.hpp"

namespace tilegemm::plan {

inline constexpr const char* kPlanJsonSchema = "tilegemm.plan/3";

// The call's storage as explain shows it (filled by api/explain_call.cpp from the GemmArgs it
// routes): what route() reads beyond the Problem. `given` false: not shown.
struct CallDescription {
  bool given = false;
  std::string d_major = "row";  // "row" | "col"
  std::string c = "none";       // "none" | "separate" | "in_place"
  std::string c_major, c_dtype;  // with a C
  double alpha = 1, beta = 0;
  int64_t lda = 0, ldb = 0, ldc = 0, ldd = 0;  // as passed (ldc 0 without a C)
  int64_t offset_a = 0, offset_b = 0, offset_c = 0, offset_d = 0;  // elements from a 256-B aligned address
};

struct ExplainOptions {
  int top = 10;                 // ranked candidates listed (>= 1)
  int rejected_per_rule = 3;    // rejected candidates listed per rule; < 0 = all of them
  std::string device_note;      // how the device profile was chosen, e.g. "no GPU found: built-in h200"
  std::string user_spec;        // the --config text, when a user config is given
  std::string path = "sm90";    // the route gemm() takes: "sm90" or "fallback" (src/api/route.hpp)
  std::string route_reason;     // fallback: the rule that sends the call there
  // sm90: how the kernel takes the call (a transposed problem, repacked operands, element-wise
  // stores), one line each, from route(); the plan is of the problem the kernel then computes.
  std::vector<std::string> route_steps;
  std::vector<std::string> notes;  // extra lines for the notes section
  CallDescription call;         // text: a "call:" line; JSON: "call"
  // The tuning cache gemm() consults for this call (api/tuning.hpp), when one was: on a hit the
  // stored config is what gemm() runs, and explain presents it as chosen beside the model's pick.
  struct Tuning {
    std::string file;         // the cache file, or "" when tuning is off
    std::string why_off;      // when off
    TunedLookup lookup;       // what it says for this call's problem
  };
  std::optional<Tuning> tuning;
};

// `user`: the evaluate_config() result for --config, if any.
std::string explain_text(const Plan& plan, const std::optional<Candidate>& user, const ExplainOptions& o);
std::string explain_json(const Plan& plan, const std::optional<Candidate>& user, const ExplainOptions& o);

// A call that gemm() sends to the fallback kernel: the problem, the path and the reason; no plan
// (the planner enumerates only what the sm90 kernel template can run).
std::string explain_fallback_text(const Problem& p, const ExplainOptions& o);
std::string explain_fallback_json(const Problem& p, const ExplainOptions& o);

}  // namespace tilegemm::plan
