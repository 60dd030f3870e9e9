// The explorer's JSON endpoints as plain functions: request (path + query) -> (status, JSON).
// No sockets here; server.hpp wires these to HTTP, and tests call them directly.
//
//   /api/hardware  the live GPU (or null + the reason) beside the built-in device profiles
//   /api/map       the same document as `tilegemm map --json` (schedule/map_render.hpp)
//   /api/plan      the same document as `tilegemm explain --json` (plan/explain.hpp)
//   /api/trace     the trace given to `tilegemm serve --trace FILE`, else a 404 that says so
//   POST /api/trace/record
//                  records one traced GEMM on this machine's Hopper GPU (trace/record.hpp, what
//                  `tilegemm trace` runs) and answers its Chrome-trace JSON; without such a GPU a
//                  503 that says why. One recording at a time (another meanwhile: 429).
//
// Errors are JSON: {"status": 400, "error": "<message>", "parameter": "<name>" | null}; the message
// names the parameter, the value and the rule. docs/EXPLORER.md lists every parameter and bound.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "explorer/hardware.hpp"
#include "explorer/params.hpp"
#include "trace/record.hpp"

namespace tilegemm::explorer {

struct Reply {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
  std::string allow;  // the Allow header of a 405
};

// The largest tile grid /api/map answers: 2^14 tiles, a 128 x 128 grid (e.g. 16384² with 128 x 128
// tiles). The page draws every tile as an SVG element and the JSON lists every tile and every wave,
// so this bounds the reply (worst case sms=1, one wave per tile: 5.2 MB) and the work (0.6 s on a
// 2-core CI machine; 0.2 s with 132 SMs). `tilegemm map` itself goes to 2^22 tiles.
inline constexpr int64_t kMaxExplorerTiles = int64_t{1} << 14;
inline constexpr int kMaxTop = 1000;       // /api/plan top=
inline constexpr int kMaxRejected = 1000;  // /api/plan rejected= (-1: all)

// What POST /api/trace/record runs. Each of M, N, K is at most 16384 and M·N·K at most 2^36
// (4096³): a recording then takes a second or two plus the traced kernel's first JIT compile, and
// the result check's CPU reference (sampled rows above 2^31 MACs) stays within seconds. The reply
// holds the first `ctas` CTAs (default 8, at most 64), fewer when their device events would pass
// kMaxRecordedEvents (the page draws every event; 50 000 are about 13 MB of JSON).
inline constexpr int64_t kMaxRecordExtent = 16384;
inline constexpr int64_t kMaxRecordMacs = int64_t{1} << 36;
inline constexpr int kMaxRecordCtas = 64;
inline constexpr uint64_t kMaxRecordedEvents = 50000;

// Records one traced GEMM (trace::record_trace; tests give a stand-in).
using Recorder = std::function<Status(const trace::RecordRequest&, trace::Recording*)>;

// What the endpoints need besides the request: the live GPU, probed once when the server starts
// (the first CUDA runtime call can take a while on a GPU machine).
struct ApiContext {
  LiveDevice live;
  // A Chrome-trace document for /api/trace (`tilegemm serve --trace FILE`, written by `tilegemm
  // trace --out`); empty: none.
  std::string trace_json;
  std::string trace_source;  // the file it came from
  // POST /api/trace/record: the recorder (null: this server cannot record) and the lock that keeps
  // recordings one at a time (shared by the copies of the context).
  Recorder recorder;
  std::shared_ptr<std::mutex> recording = std::make_shared<std::mutex>();
  // The live GPU, and trace::record_trace as the recorder.
  static ApiContext probe();
};

Reply api_hardware(const QueryParams& q, const ApiContext& ctx);
Reply api_map(const QueryParams& q);
Reply api_plan(const QueryParams& q, const ApiContext& ctx);
Reply api_trace(const QueryParams& q, const ApiContext& ctx);
// The parameters of POST /api/trace/record (docs/EXPLORER.md), from the request body's JSON object.
Reply api_trace_record(const QueryParams& q, const ApiContext& ctx);

// Dispatch on the path; an unknown path under /api/ is a 404 that lists the endpoints. GET of a
// POST endpoint is a 405.
Reply handle_api(std::string_view path, const QueryParams& q, const ApiContext& ctx);
// POST: /api/trace/record takes a JSON object body ("Content-Type: application/json", which a page
// of another origin cannot send without a CORS preflight, and the server answers none); every other
// path is a 405.
Reply handle_api_post(std::string_view path, std::string_view content_type, const std::string& body,
                      const ApiContext& ctx);

// A JSON object body as parameters: {"m": 256, "layout": "nt", "in_place": true} -> m=256,
// layout=nt, in_place=1. Strings, whole or decimal numbers and booleans; anything else (or a body
// that is not a JSON object) is an error naming the member.
std::optional<ParamError> params_from_json(const std::string& body, QueryParams* out);

// {"status": status, "error": message, "parameter": parameter or null when empty}.
Reply error_reply(int status, const std::string& parameter, const std::string& message);

}  // namespace tilegemm::explorer
