// What `tilegemm explain` (and the explorer's /api/plan) shows for one call: the route gemm()
// takes, and on the sm90 path the planner's plan -- the same route() and the same ranking gemm()
// uses, so the chosen configuration is the one gemm() runs on that device profile.
#pragma once

#include <optional>
#include <string>

#include "plan/config_spec.hpp"
#include "plan/explain.hpp"
#include "plan/planner.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm::detail {

struct ExplainRequest {
  plan::Problem problem;        // shape, storage, output, C (leading dimensions 0 = packed)
  plan::DeviceProfile device;
  plan::PlanOptions options;
  plan::ExplainOptions explain;  // top, rejected, device note (path, reason and notes are filled here)
  std::optional<plan::ConfigSpec> user;  // a --config to score beside the plan
  std::string user_spec;                 // its text
  bool json = false;
};

// The text or JSON for `request`. invalid_argument when the problem breaks a rule (the message
// names it); a plan whose every candidate is rejected is still rendered ("chosen": null).
Status explain_call(const ExplainRequest& request, std::string* out);

}  // namespace tilegemm::detail
