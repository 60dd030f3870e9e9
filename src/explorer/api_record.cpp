// POST /api/trace/record (api.hpp): one traced GEMM recorded on the spot, as `tilegemm trace` records
// it (trace/record.hpp), answered as the Chrome-trace JSON the Timelines panel draws.
#include <cctype>
#include <iterator>
#include <mutex>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/explain_call.hpp"
#include "explorer/api.hpp"
#include "explorer/call_params.hpp"
#include "plan/config_spec.hpp"

namespace tilegemm::explorer {

ApiContext ApiContext::probe() {
  ApiContext ctx;
  ctx.live = probe_live_device(0);
  ctx.recorder = trace::record_trace;
  return ctx;
}

namespace {

// Why this server cannot record on its GPU ("" when it can): the traced kernel is sm_90a code.
std::string why_no_recording(const LiveDevice& live) {
  if (!live.present) return "no Hopper GPU here: " + live.reason;
  if (live.cc_major != 9 || live.cc_minor != 0)
    return fmt::format("GPU 0 is {} (compute capability {}.{}); the traced kernel needs a Hopper GPU (9.0, sm_90a)",
                       live.name, live.cc_major, live.cc_minor);
  return "";
}

}  // namespace

// Parameters: m, n, k (required, 1 .. kMaxRecordExtent, M·N·K <= kMaxRecordMacs); layout (nt), out
// (bf16), config (the planner's pick), ctas (8), and the call options of kCallParams (those a
// traced call can take: C has D's storage, every pointer is cudaMalloc's).
Reply api_trace_record(const QueryParams& q, const ApiContext& ctx) {
  std::vector<std::string_view> names = {"m", "n", "k", "layout", "out", "config", "ctas"};
  names.insert(names.end(), std::begin(kCallParams), std::end(kCallParams));
  ParamReader r(q, names);
  trace::RecordRequest rq;
  bench::Case& c = rq.problem;
  for (const auto& [name, extent] : {std::pair{"m", &c.m}, std::pair{"n", &c.n}, std::pair{"k", &c.k}}) {
    if (!r.has(name))
      r.fail(name, fmt::format("parameter {} is required: a whole number from 1 to {}", name, kMaxRecordExtent));
    *extent = r.integer(name, 1, 1, kMaxRecordExtent);
  }
  const std::string layout = r.text("layout", "nt");
  if (!parse_layout(layout, &c.a_major, &c.b_major))
    r.fail("layout", fmt::format("parameter layout = \"{}\": must be nt, nn, tn or tt", layout.substr(0, 40)));
  c.out = r.choice("out", "bf16", {"bf16", "fp32"}) == "fp32" ? DType::fp32 : DType::bf16;
  const detail::CallOptions options = read_call_options(r, /*storage=*/false);
  const std::string config = r.text("config", "");
  const auto ctas = static_cast<uint32_t>(r.integer("ctas", 8, 1, kMaxRecordCtas));
  if (r.error()) return error_reply(400, r.error()->parameter, r.error()->message);
  if (c.m * c.n * c.k > kMaxRecordMacs)
    return error_reply(400, "", fmt::format("m x n x k = {} x {} x {} = {}: a recording on the spot takes at most "
                                            "2^36 = {} (4096^3); record larger ones with `tilegemm trace`",
                                            c.m, c.n, c.k, c.m * c.n * c.k, kMaxRecordMacs));

  // The call options under explain's rules, and the call under validate()'s, before any GPU work.
  plan::Problem p;
  p.m = c.m, p.n = c.n, p.k = c.k, p.a_major = c.a_major, p.b_major = c.b_major, p.out = c.out;
  detail::CallStorage call;
  const auto spelled_as_key = [](std::string_view key) { return std::string(key); };
  if (Status s = detail::call_storage_of(options, spelled_as_key, &p, &call); !s.ok())
    return error_reply(400, s.argument, s.message);
  MatrixRef c_storage;
  if (Status s = validate(detail::explain_args(p, call, &c_storage)); !s.ok()) {
    const std::string parameter = parameter_of(s, options.in_place);
    return error_reply(400, parameter, message_naming(s, parameter));
  }
  c.d_major = call.d_major;
  c.alpha = call.alpha;
  c.with_c = call.c != detail::CallStorage::C::none;
  c.in_place = call.c == detail::CallStorage::C::in_place;
  if (c.with_c) c.beta = call.beta;
  c.c_dtype = call.c_dtype;
  if (!config.empty()) {
    const plan::ParsedConfigSpec spec = plan::parse_config_spec(config, "config");
    if (!spec.ok()) return error_reply(400, "config", spec.error);
    rq.config = spec.spec.config;
    rq.config_stages_given = spec.spec.stages_given;
  }

  if (const std::string why = why_no_recording(ctx.live); !why.empty())
    return error_reply(503, "", "cannot record a trace: " + why +
                                    ". Load a trace written by `tilegemm trace M N K --out trace.json` instead.");
  if (!ctx.recorder) return error_reply(503, "", "cannot record a trace: this server has no recorder");
  // One recording at a time: the GPU, CUPTI's activity session and the trace buffer are shared.
  std::unique_lock<std::mutex> lock(*ctx.recording, std::try_to_lock);
  if (!lock.owns_lock())
    return error_reply(429, "", "a recording is in progress: one at a time, try again when it has finished");
  trace::Recording rec;
  if (Status s = ctx.recorder(rq, &rec); !s.ok()) {
    if (s.code == ErrorCode::no_device) return error_reply(503, "", "cannot record a trace: " + s.message);
    if (s.code == ErrorCode::invalid_argument || s.code == ErrorCode::unsupported) {
      const std::string parameter = s.argument == "config" ? "config" : parameter_of(s, options.in_place);
      return error_reply(400, parameter, message_naming(s, parameter));
    }
    return error_reply(500, "", "the recording failed: " + s.message);
  }
  const uint32_t kept = trace::ctas_within(rec.decoded, ctas, kMaxRecordedEvents);
  rec.info["ctas_in_document"] = kept;
  if (kept < ctas && kept < rec.decoded.header.ctas)
    rec.info["ctas_note"] = fmt::format("{} of the {} CTAs asked for: more would pass {} device events", kept, ctas,
                                        kMaxRecordedEvents);
  return Reply{200, trace::recording_document(rec, kept).dump(), "application/json", {}};
}

}  // namespace tilegemm::explorer
