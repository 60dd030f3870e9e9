// explain_call (explain_call.hpp).
#include "api/explain_call.hpp"

#include "api/route.hpp"

namespace tilegemm::detail {

Status explain_call(const ExplainRequest& rq, std::string* out) {
  if (Status s = plan::validate_problem(rq.problem); !s.ok()) return s;
  MatrixRef c_storage;
  const GemmArgs args = placeholder_args(rq.problem, &c_storage);
  if (Status s = validate(args); !s.ok()) return s;
  const Route r = route(args);
  plan::ExplainOptions eo = rq.explain;
  eo.path = path_name(r.path);
  eo.route_reason = r.reason;
  eo.route_steps = r.notes;
  if (rq.options.ranking != plan::Ranking::time) eo.notes.push_back("rank = seed: gemm() ranks by predicted time");
  if (r.path == Path::fallback) {
    *out = rq.json ? plan::explain_fallback_json(rq.problem, eo) + "\n" : plan::explain_fallback_text(rq.problem, eo);
    return Status::success();
  }
  std::optional<plan::Candidate> user;
  if (rq.user) {
    user = plan::evaluate_config(r.problem, rq.device, rq.user->config, rq.user->stages_given);
    eo.user_spec = rq.user_spec;
  }
  // The plan of the problem the kernel computes (route(): transposed, repacked), as gemm() plans it.
  const plan::Plan pl = plan::make_plan(r.problem, rq.device, rq.options);
  *out = rq.json ? plan::explain_json(pl, user, eo) + "\n" : plan::explain_text(pl, user, eo);
  return Status::success();
}

}  // namespace tilegemm::detail
