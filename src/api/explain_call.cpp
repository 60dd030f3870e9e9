// explain_call (explain_call.hpp).
#include "api/explain_call.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "api/route.hpp"
#include "api/tuning.hpp"

namespace tilegemm::detail {
namespace {

const void* placeholder(uintptr_t i, int64_t offset_elements, DType dtype) {
  // Matrix i at i * 2^41 (validate() bounds every span below 2^40 bytes, so they never overlap),
  // moved by its element offset.
  return reinterpret_cast<const void*>((i << 41) + static_cast<uintptr_t>(offset_elements) *
                                                       static_cast<uintptr_t>(dtype_bytes(dtype)));
}

int64_t packed_or(int64_t ld, int64_t rows, int64_t cols, Major major) {
  return ld != 0 ? ld : (major == Major::k_major ? cols : rows);
}

plan::CallDescription describe_call(const GemmArgs& g, const CallStorage& call) {
  plan::CallDescription c;
  c.given = true;
  c.d_major = g.d.major == row_major ? "row" : "col";
  c.c = g.c == nullptr ? "none" : call.c == CallStorage::C::in_place ? "in_place" : "separate";
  if (g.c) {
    c.c_major = g.c->major == row_major ? "row" : "col";
    c.c_dtype = to_string(g.c->dtype);
    c.ldc = g.c->ld;
  }
  c.alpha = g.alpha;
  c.beta = g.beta;
  c.lda = g.a.ld;
  c.ldb = g.b.ld;
  c.ldd = g.d.ld;
  c.offset_a = call.offset_a;
  c.offset_b = call.offset_b;
  c.offset_c = g.c == nullptr ? 0 : call.c == CallStorage::C::in_place ? call.offset_d : call.offset_c;
  c.offset_d = call.offset_d;
  return c;
}

Status bad_option(std::string key, std::string message) {
  return Status{ErrorCode::invalid_argument, std::move(key), std::move(message)};
}

}  // namespace

Status call_storage_of(const CallOptions& o, const OptionSpelling& spell, plan::Problem* p, CallStorage* out) {
  CallStorage call;
  const auto major_of = [&](const char* key, const std::string& v, Major* major) {
    if (v == "row" || v == "col") {
      *major = v == "row" ? row_major : col_major;
      return Status::success();
    }
    return bad_option(key, spell(key) + " \"" + v.substr(0, 40) + "\": must be row or col");
  };
  if (Status s = major_of("d_major", o.d_major, &call.d_major); !s.ok()) return s;
  call.alpha = o.alpha;
  if (o.accumulate && o.beta) return bad_option("accumulate", spell("accumulate") + " is " + spell("beta") + " 1: give one of them");
  const bool with_c = o.accumulate || o.beta.has_value();
  // The first option given that describes C ("" when none is).
  const char* c_option = !o.c_major.empty() ? "c_major"
                         : !o.c_dtype.empty() ? "c_dtype"
                         : o.ldc != 0         ? "ldc"
                         : o.offset_c != 0    ? "offset_c"
                                              : "";
  const std::string c_options =
      spell("c_major") + ", " + spell("c_dtype") + ", " + spell("ldc") + " and " + spell("offset_c");
  if (o.in_place && !with_c)
    return bad_option("in_place", spell("in_place") + " needs a C: give " + spell("beta") +
                                      " B (C is D: D = alpha*A*B^T + beta*D)");
  if (o.in_place && *c_option)
    return bad_option("in_place", spell("in_place") + ": C is D, so " + c_options + " do not apply (D's are C's)");
  if (!with_c && *c_option) return bad_option(c_option, c_options + " describe C: give " + spell("beta") + " B too");
  if (with_c) {
    call.c = o.in_place ? CallStorage::C::in_place : CallStorage::C::separate;
    call.beta = o.beta.value_or(1.0f);
    call.c_major = call.d_major;
    if (!o.c_major.empty())
      if (Status s = major_of("c_major", o.c_major, &call.c_major); !s.ok()) return s;
    if (o.c_dtype == "bf16" || o.c_dtype == "fp32") {
      call.c_dtype = o.c_dtype == "bf16" ? DType::bf16 : DType::fp32;
    } else if (!o.c_dtype.empty()) {
      return bad_option("c_dtype", spell("c_dtype") + " \"" + o.c_dtype.substr(0, 40) + "\": must be bf16 or fp32");
    }
  }
  const std::pair<const char*, int64_t> offsets[] = {
      {"offset_a", o.offset_a}, {"offset_b", o.offset_b}, {"offset_c", o.offset_c}, {"offset_d", o.offset_d}};
  for (const auto& [key, v] : offsets)
    if (v < 0 || v > (int64_t{1} << 30))
      return bad_option(key, spell(key) + " " + std::to_string(v) + ": must be 0 to 2^30 elements");
  const std::pair<const char*, int64_t> lds[] = {{"lda", o.lda}, {"ldb", o.ldb}, {"ldc", o.ldc}, {"ldd", o.ldd}};
  for (const auto& [key, v] : lds)
    if (v < 0) return bad_option(key, spell(key) + " " + std::to_string(v) + ": must be >= 1, or 0 for packed");
  call.ldc = o.ldc;
  call.offset_a = o.offset_a;
  call.offset_b = o.offset_b;
  call.offset_c = o.offset_c;
  call.offset_d = o.offset_d;
  p->accumulate = with_c && call.beta != 0.0f;
  p->lda = o.lda;
  p->ldb = o.ldb;
  p->ldd = o.ldd;
  *out = call;
  return Status::success();
}

GemmArgs explain_args(const plan::Problem& p, const CallStorage& call, MatrixRef* c_storage) {
  GemmArgs g;
  g.a = MatrixRef{placeholder(1, call.offset_a, DType::bf16), p.m, p.k, packed_or(p.lda, p.m, p.k, p.a_major),
                  DType::bf16, p.a_major};
  g.b = MatrixRef{placeholder(2, call.offset_b, DType::bf16), p.n, p.k, packed_or(p.ldb, p.n, p.k, p.b_major),
                  DType::bf16, p.b_major};
  g.d = MutMatrixRef{const_cast<void*>(placeholder(3, call.offset_d, p.out)), p.m, p.n,
                     packed_or(p.ldd, p.m, p.n, call.d_major), p.out, call.d_major};
  g.alpha = call.alpha;
  g.beta = call.beta;
  CallStorage::C c = call.c;
  if (c == CallStorage::C::none && p.accumulate) {  // Problem alone: "accumulate" = a separate C, beta 1
    c = CallStorage::C::separate;
    g.beta = 1.0f;
  }
  if (c == CallStorage::C::in_place) {
    *c_storage = g.d;
    g.c = c_storage;
  } else if (c == CallStorage::C::separate) {
    const DType c_dtype = call.c_dtype.value_or(p.out);
    *c_storage = MatrixRef{placeholder(4, call.offset_c, c_dtype), p.m, p.n,
                           packed_or(call.ldc, p.m, p.n, call.c_major), c_dtype, call.c_major};
    g.c = c_storage;
  }
  return g;
}

Status validate_explain_shape(const plan::Problem& problem) {
  // (The extents' upper bound, 2^31 - 1, is validate()'s too.)
  plan::Problem shape = problem;
  shape.lda = shape.ldb = shape.ldd = 0;
  for (int64_t* e : {&shape.m, &shape.n, &shape.k}) *e = std::min(*e, plan::kMaxKernelExtent);
  return plan::validate_problem(shape);
}

Status explain_call(const ExplainRequest& rq, std::string* out) {
  if (Status s = validate_explain_shape(rq.problem); !s.ok()) return s;
  MatrixRef c_storage;
  const GemmArgs args = explain_args(rq.problem, rq.call, &c_storage);
  if (Status s = validate(args); !s.ok()) return s;
  const Route r = route(args, &rq.device, rq.copies);
  plan::ExplainOptions eo = rq.explain;
  eo.path = path_name(r.path);
  eo.route_reason = r.reason;
  eo.call = describe_call(args, rq.call);
  eo.route_steps = r.notes;
  if (rq.options.ranking != plan::Ranking::time) eo.notes.push_back("rank = seed: gemm() ranks by predicted time");
  if (r.path == Path::fallback) {
    *out = rq.json ? plan::explain_fallback_json(r.problem, eo) + "\n" : plan::explain_fallback_text(r.problem, eo);
    return Status::success();
  }
  // With max_ctas below the SM count, planned as gemm() plans (planning_for, tuning.hpp).
  const Planning planning = planning_for(rq.device, rq.max_ctas, rq.options);
  if (planning.capped)
    eo.notes.push_back("max_ctas = " + std::to_string(rq.max_ctas) + ": planned for " +
                       std::to_string(planning.profile.sm_count) + " of the device's " +
                       std::to_string(rq.device.sm_count) + " SMs, persistent launches only, without the tuning cache");
  std::optional<plan::Candidate> user;
  if (rq.user) {
    user = plan::evaluate_config(r.problem, planning.profile, rq.user->config, rq.user->stages_given);
    eo.user_spec = rq.user_spec;
    // A config gemm() would refuse under the cap is an error here too, with gemm()'s sentence.
    if (planning.capped && user->feasible())
      if (Status s = check_within_ctas(r.problem, user->config, planning.profile.sm_count); !s.ok()) return s;
  }
  // What gemm() reads from the tuning cache for this problem: the same lookup and the same choice
  // (model_or_tuned) as gemm.cpp's resolve_config.
  if (rq.tuning && !planning.capped) {
    plan::ExplainOptions::Tuning t;
    t.file = rq.tuning->path();
    t.why_off = rq.tuning->why_off();
    t.lookup = rq.tuning->lookup(rq.tuning_device, r.problem, rq.device);
    eo.tuning = std::move(t);
  }
  // The plan of the problem the kernel computes (route(): transposed, repacked), as gemm() plans it.
  const plan::Plan pl = plan::make_plan(r.problem, planning.profile, planning.options);
  // The copies gemm() makes before the kernel (route()'s packs) are not in the kernel's predicted
  // time: say what they add, at the profile's copy rate (each byte read and written once) and per
  // launch (pack_launches: the line copies of one element size are one launch, a transposed C
  // another).
  if (!r.packs.empty() && !pl.ranked.empty()) {
    double bytes = 0;
    const double copy_us = packs_us(r.packs, rq.device, &bytes);
    const int launches = pack_launches(r.packs);
    eo.notes.push_back(fmt::format(
        "the copies before the kernel ({} of them in {} launch{}, {:.1f} MB read and written) add about {:.1f} us at "
        "the profile's copy rate: the call about {:.1f} us",
        r.packs.size(), launches, launches == 1 ? "" : "es", bytes / 1e6, copy_us,
        pl.chosen().time.predicted_us + copy_us));
  }
  *out = rq.json ? plan::explain_json(pl, user, eo) + "\n" : plan::explain_text(pl, user, eo);
  return Status::success();
}

}  // namespace tilegemm::detail
