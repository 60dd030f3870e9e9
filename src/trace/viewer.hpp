// The self-contained HTML viewer of a trace: src/trace/viewer.html with web/stage_timeline.js and
// the Chrome-trace JSON inlined (compiled into this library), so the file opens in any browser
// with no network and no build step. Host only.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace tilegemm::trace {

std::string viewer_html(const nlohmann::json& chrome_trace);

// `text` made safe inside an HTML <script> element: "</" -> "<\/" and "<!--" -> "<\u0021--" (both
// mean the same in JSON and JavaScript strings).
std::string script_safe(std::string text);

}  // namespace tilegemm::trace
