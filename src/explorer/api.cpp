#include "explorer/api.hpp"

#include <cctype>
#include <iterator>
#include <limits>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/explain_call.hpp"
#include "api/tuning.hpp"
#include "explorer/call_params.hpp"
#include "plan/config_spec.hpp"
#include "plan/explain.hpp"
#include "plan/planner.hpp"
#include "schedule/map_render.hpp"

namespace tilegemm::explorer {

namespace {

constexpr int64_t kMaxExtent = std::numeric_limits<int32_t>::max();  // 2^31 - 1, as the CLI

Reply json_reply(std::string body) { return Reply{200, std::move(body), "application/json", {}}; }

Reply param_error(const ParamError& e) { return error_reply(400, e.parameter, e.message); }

// M, N, K: required, 1 .. 2^31 - 1.
int64_t extent(ParamReader& r, const char* name) {
  if (!r.has(name)) {
    r.fail(name, fmt::format("parameter {} is required: a whole number from 1 to {}", name, kMaxExtent));
    return 1;
  }
  return r.integer(name, 1, 1, kMaxExtent);
}

constexpr std::string_view kRecordPath = "/api/trace/record";
constexpr const char* kEndpoints =
    "the endpoints are /api/hardware, /api/map, /api/plan, /api/trace (GET) and /api/trace/record (POST)";

// A path or header echoed in a message: printable and short.
std::string shown_path(std::string_view path) {
  std::string shown;
  for (char c : path.substr(0, 60)) shown += (c >= 0x20 && c < 0x7f && c != '"') ? c : '?';
  return shown;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

Reply error_reply(int status, const std::string& parameter, const std::string& message) {
  nlohmann::ordered_json j{{"status", status},
                           {"error", message},
                           {"parameter", parameter.empty() ? nlohmann::ordered_json(nullptr)
                                                           : nlohmann::ordered_json(parameter)}};
  return Reply{status, j.dump(), "application/json", {}};
}

Reply api_hardware(const QueryParams& q, const ApiContext& ctx) {
  ParamReader r(q, {});
  if (r.error()) return param_error(*r.error());
  return json_reply(hardware_json(ctx.live).dump());
}

// Parameters and defaults are those of `tilegemm map` (cli/cmd_map.cpp), spelled with '_'.
Reply api_map(const QueryParams& q) {
  using namespace tilegemm::sched;
  ParamReader r(q, {"m", "n", "k", "tile", "mapping", "cluster", "sms", "ctas_per_sm", "persistent", "wave",
                    "l2_mib", "elem_bytes"});
  MapRequest req;
  req.m = extent(r, "m");
  req.n = extent(r, "n");
  req.k = extent(r, "k");
  const Parsed<TileShape> tile = parse_tile_shape(r.text("tile", "128x128"), "tile");
  if (!tile.ok()) r.fail("tile", tile.error);
  req.tile = tile.value;
  const Parsed<Mapping> mapping = parse_mapping(r.text("mapping", "grouped-m:8"), "mapping");
  if (!mapping.ok()) r.fail("mapping", mapping.error);
  req.mapping = mapping.value;
  const Parsed<ClusterAxis> cluster = parse_cluster_axis(r.text("cluster", "none"), "cluster");
  if (!cluster.ok()) r.fail("cluster", cluster.error);
  req.cluster = cluster.value;
  req.sms = static_cast<int>(r.integer("sms", 132, 1, 65536));
  req.ctas_per_sm = static_cast<int>(r.integer("ctas_per_sm", 1, 1, 64));
  req.persistent = r.flag("persistent", false);
  req.l2_mib = r.number("l2_mib", 60.0, 0.0, 1e6);
  req.element_bytes = static_cast<int>(r.integer("elem_bytes", 2, 1, 4));
  if (!r.error() && req.element_bytes == 3)
    r.fail("elem_bytes", "parameter elem_bytes = \"3\": must be 1 (FP8), 2 (BF16) or 4 (FP32)");
  if (r.error()) return param_error(*r.error());

  // The explorer's own bound on the grid (see kMaxExplorerTiles), before anything is built.
  const int64_t num_m = (req.m + req.tile.block_m - 1) / req.tile.block_m;
  const int64_t num_n = (req.n + req.tile.block_n - 1) / req.tile.block_n;
  if (num_m * num_n > kMaxExplorerTiles)
    return error_reply(400, "tile",
                       fmt::format("tile = \"{}x{}\": m={} n={} gives {} x {} = {} tiles; the explorer draws at "
                                   "most {} tiles (choose a larger tile, or use `tilegemm map --json`)",
                                   req.tile.block_m, req.tile.block_n, req.m, req.n, num_m, num_n, num_m * num_n,
                                   kMaxExplorerTiles));
  const int resident = req.sms * req.ctas_per_sm;
  if (cluster_size(req.cluster) == 2 && resident % 2 != 0)
    return error_reply(400, "sms",
                       fmt::format("sms = {}: with cluster {} the resident CTAs (sms x ctas_per_sm = {}) must be "
                                   "even, clusters hold 2 CTAs",
                                   req.sms, cluster_name(req.cluster), resident));
  const Schedule schedule{TileGrid{static_cast<int>(num_m), static_cast<int>(num_n)}, req.mapping, req.cluster};
  const int waves = num_waves(schedule, resident);
  req.wave = static_cast<int>(r.integer("wave", 0, 0, waves - 1));
  if (r.error()) return param_error(*r.error());
  // The library's own check, the one `tilegemm map` runs; everything above should have caught what
  // it refuses, so a message from here names the CLI's option.
  if (const std::string why = check_map_request(req); !why.empty()) return error_reply(400, "", why);
  return json_reply(render_json(build_map(req)).dump());
}

// Parameters and defaults are those of `tilegemm explain` (cli/cmd_explain.cpp), spelled with '_',
// the call options included (call_params.hpp).
Reply api_plan(const QueryParams& q, const ApiContext& ctx) {
  using namespace tilegemm::plan;
  std::vector<std::string_view> names = {"m", "n", "k", "layout", "out", "device", "top", "rejected", "config", "rank",
                                         "no_split_k"};
  names.insert(names.end(), std::begin(kCallParams), std::end(kCallParams));
  names.insert(names.end(), std::begin(kStorageParams), std::end(kStorageParams));
  ParamReader r(q, names);
  Problem p;
  p.m = extent(r, "m");
  p.n = extent(r, "n");
  p.k = extent(r, "k");
  const std::string layout = r.text("layout", "nt");
  if (!parse_layout(layout, &p.a_major, &p.b_major))
    r.fail("layout", fmt::format("parameter layout = \"{}\": must be nt, nn, tn or tt (first letter A, second B; "
                                 "nt = both K-major)",
                                 layout.substr(0, 40)));
  p.out = r.choice("out", "bf16", {"bf16", "fp32"}) == "fp32" ? DType::fp32 : DType::bf16;
  const detail::CallOptions call = read_call_options(r, /*storage=*/true);
  const std::string device_name = lower(r.text("device", ""));
  ExplainOptions eo;
  eo.top = static_cast<int>(r.integer("top", 10, 1, kMaxTop));
  eo.rejected_per_rule = static_cast<int>(r.integer("rejected", 3, -1, kMaxRejected));
  PlanOptions options;
  options.ranking = r.choice("rank", "time", {"time", "seed"}) == "seed" ? Ranking::seed : Ranking::time;
  options.allow_split_k = !r.flag("no_split_k", false);
  const std::string config = r.text("config", "");
  if (r.error()) return param_error(*r.error());
  if (Status s = detail::validate_explain_shape(p); !s.ok()) return error_reply(400, lower(s.argument), s.message);
  detail::ExplainRequest rq;
  const auto spelled_as_key = [](std::string_view key) { return std::string(key); };
  if (Status s = detail::call_storage_of(call, spelled_as_key, &p, &rq.call); !s.ok())
    return error_reply(400, s.argument, s.message);

  DeviceProfile device;
  bool live = false;
  if (device_name == "live") {
    if (!ctx.live.profile)
      return error_reply(400, "device",
                         "parameter device = \"live\": there is no live Hopper GPU here (" +
                             (ctx.live.present ? ctx.live.profile_reason : ctx.live.reason) + ")");
    device = *ctx.live.profile;
    eo.device_note = "device=live";
    live = true;
  } else if (!device_name.empty()) {
    auto found = find_builtin_profile(device_name);
    if (!found)
      return error_reply(400, "device",
                         fmt::format("parameter device = \"{}\": must be live or one of {}", device_name.substr(0, 40),
                                     builtin_profile_names()));
    device = *found;
    eo.device_note = "device=" + device_name;
  } else if (ctx.live.profile) {  // as the CLI: the live GPU, else h200
    device = *ctx.live.profile;
    eo.device_note = "live GPU 0 (no device parameter given)";
    live = true;
  } else {
    device = *find_builtin_profile("h200");
    eo.device_note = "no device parameter given and no usable live GPU (" +
                     (ctx.live.present ? ctx.live.profile_reason : ctx.live.reason) + "), so h200";
  }

  rq.problem = p;
  rq.device = device;
  // On the live GPU, what gemm() reads there too: the process's tuning cache (as tilegemm explain).
  if (live && detail::tuning_device(0, &rq.tuning_device).ok()) rq.tuning = detail::process_tuning();
  rq.options = options;
  rq.explain = eo;
  rq.json = true;
  if (!config.empty()) {
    const ParsedConfigSpec spec = parse_config_spec(config, "config");
    if (!spec.ok()) return error_reply(400, "config", spec.error);
    rq.user = spec.spec;
    rq.user_spec = config;
  }
  // The same route + plan as `tilegemm explain --json` (api/explain_call.hpp). A plan with no
  // feasible candidate (possible only for a live profile with odd limits) is still answered:
  // "chosen" is null and "rejected" says why. A call the library refuses (validate(): an ld below
  // the row, a misaligned offset, C's dtype) is a 400 naming the parameter that set it.
  std::string json;
  if (Status s = detail::explain_call(rq, &json); !s.ok()) {
    const std::string parameter = parameter_of(s, call.in_place);
    return error_reply(400, parameter, message_naming(s, parameter));
  }
  return json_reply(json);
}

Reply api_trace(const QueryParams&, const ApiContext& ctx) {
  if (ctx.trace_json.empty())
    return error_reply(404, "",
                       "no trace yet: start the server with `tilegemm serve --trace trace.json` (a file written by "
                       "`tilegemm trace M N K --out trace.json`), record one in the Timelines panel when this server "
                       "has a Hopper GPU, or load a Chrome-trace JSON file there.");
  return json_reply(ctx.trace_json);
}

Reply handle_api(std::string_view path, const QueryParams& q, const ApiContext& ctx) {
  if (path == "/api/hardware") return api_hardware(q, ctx);
  if (path == "/api/map") return api_map(q);
  if (path == "/api/plan") return api_plan(q, ctx);
  if (path == "/api/trace") return api_trace(q, ctx);
  if (path == kRecordPath) {
    Reply r = error_reply(405, "", "/api/trace/record records a trace on the GPU: send it a POST with the parameters "
                                   "as a JSON object (Content-Type: application/json)");
    r.allow = "POST";
    return r;
  }
  return error_reply(404, "", "no endpoint " + shown_path(path) + ": " + kEndpoints);
}

Reply handle_api_post(std::string_view path, std::string_view content_type, const std::string& body,
                      const ApiContext& ctx) {
  if (path != kRecordPath) {
    Reply r = error_reply(405, "", "method not allowed: " + shown_path(path) +
                                       " answers GET and HEAD; only /api/trace/record takes a POST");
    r.allow = "GET, HEAD";
    return r;
  }
  // "application/json", optionally with parameters ("; charset=utf-8").
  const std::string_view media = content_type.substr(0, content_type.find(';'));
  if (lower(std::string(media)) != "application/json")
    return error_reply(415, "", "POST /api/trace/record takes a JSON object body with Content-Type: application/json "
                                "(got \"" + shown_path(content_type) + "\")");
  QueryParams q;
  if (const std::optional<ParamError> e = params_from_json(body, &q)) return error_reply(400, e->parameter, e->message);
  return api_trace_record(q, ctx);
}

std::optional<ParamError> params_from_json(const std::string& body, QueryParams* out) {
  const nlohmann::ordered_json doc = nlohmann::ordered_json::parse(body.empty() ? std::string("{}") : body, nullptr, false);
  if (!doc.is_object())
    return ParamError{"", "the request body must be a JSON object of parameters, e.g. {\"m\": 256, \"n\": 512, "
                          "\"k\": 1024}"};
  for (const auto& [name, value] : doc.items()) {
    if (value.is_string()) {
      out->emplace_back(name, value.get<std::string>());
    } else if (value.is_boolean()) {
      out->emplace_back(name, value.get<bool>() ? "1" : "0");
    } else if (value.is_number_integer() || value.is_number_unsigned()) {
      out->emplace_back(name, value.dump());
    } else if (value.is_number_float()) {
      out->emplace_back(name, fmt::format("{}", value.get<double>()));
    } else {
      return ParamError{name.substr(0, 40), fmt::format("parameter {}: must be a string, a number or true/false (got "
                                                        "{})", name.substr(0, 40), value.type_name())};
    }
  }
  return std::nullopt;
}

}  // namespace tilegemm::explorer
