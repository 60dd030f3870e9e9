// The explorer's JSON endpoints as plain functions: request (path + query) -> (status, JSON).
// No sockets here; server.hpp wires these to HTTP, and tests call them directly.
//
//   /api/hardware  the live GPU (or null + the reason) beside the built-in device profiles
//   /api/map       the same document as `tilegemm map --json` (schedule/map_render.hpp)
//   /api/plan      the same document as `tilegemm explain --json` (plan/explain.hpp)
//   /api/trace     the trace given to `tilegemm serve --trace FILE`, else a 404 that says so
//
// Errors are JSON: {"status": 400, "error": "<message>", "parameter": "<name>" | null}; the message
// names the parameter, the value and the rule. docs/EXPLORER.md lists every parameter and bound.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "explorer/hardware.hpp"
#include "explorer/params.hpp"

namespace tilegemm::explorer {

struct Reply {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
};

// The largest tile grid /api/map answers: 2^14 tiles, a 128 x 128 grid (e.g. 16384² with 128 x 128
// tiles). The page draws every tile as an SVG element and the JSON lists every tile and every wave,
// so this bounds the reply (worst case sms=1, one wave per tile: 5.2 MB) and the work (0.6 s on a
// 2-core CI machine; 0.2 s with 132 SMs). `tilegemm map` itself goes to 2^22 tiles.
inline constexpr int64_t kMaxExplorerTiles = int64_t{1} << 14;
inline constexpr int kMaxTop = 1000;       // /api/plan top=
inline constexpr int kMaxRejected = 1000;  // /api/plan rejected= (-1: all)

// What the endpoints need besides the request: the live GPU, probed once when the server starts
// (the first CUDA runtime call can take a while on a GPU machine).
struct ApiContext {
  LiveDevice live;
  // A Chrome-trace document for /api/trace (`tilegemm serve --trace FILE`, written by `tilegemm
  // trace --out`); empty: none.
  std::string trace_json;
  std::string trace_source;  // the file it came from
  static ApiContext probe() { return ApiContext{probe_live_device(0), {}, {}}; }
};

Reply api_hardware(const QueryParams& q, const ApiContext& ctx);
Reply api_map(const QueryParams& q);
Reply api_plan(const QueryParams& q, const ApiContext& ctx);
Reply api_trace(const QueryParams& q, const ApiContext& ctx);

// Dispatch on the path; an unknown path under /api/ is a 404 that lists the endpoints.
Reply handle_api(std::string_view path, const QueryParams& q, const ApiContext& ctx);

// {"status": status, "error": message, "parameter": parameter or null when empty}.
Reply error_reply(int status, const std::string& parameter, const std::string& message);

}  // namespace tilegemm::explorer
