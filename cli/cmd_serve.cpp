// `tilegemm serve [--port 8080] [--host 127.0.0.1] [--trace trace.json]`: the explorer, seed 1's interactive DeepGEMM
// page driven by the library (src/explorer/, web/, docs/EXPLORER.md). Runs without a GPU; with a
// Hopper GPU the hardware panel shows it, the plan panel uses it by default and the Timelines panel
// can record a trace on it (POST /api/trace/record, what `tilegemm trace` runs).
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "explorer/server.hpp"

namespace tilegemm::cli {

namespace {

struct ServeArgs {
  std::string host = "127.0.0.1";
  int port = 8080;
  bool quiet = false;
  std::string trace;  // a Chrome-trace JSON file for /api/trace
};

[[noreturn]] void fail(const std::string& message) { usage_error("serve", message); }

constexpr size_t kMaxTraceBytes = size_t{64} << 20;  // what the Timelines panel accepts

// The --trace file's text, checked to be a Chrome-trace document the panel can read.
std::string read_trace(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail("--trace '" + path + "': cannot read the file");
  std::string text(kMaxTraceBytes + 1, '\0');  // never more (a --trace /dev/zero must not run forever)
  f.read(text.data(), std::streamsize(text.size()));
  text.resize(size_t(f.gcount()));
  if (text.size() > kMaxTraceBytes)
    fail("--trace '" + path + "': over the panel's 64 MiB (write fewer CTAs with tilegemm trace --ctas N)");
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array())
    fail("--trace '" + path + "': not a Chrome-trace JSON object with a \"traceEvents\" array");
  return text;
}

int run_serve(const ServeArgs& a) {
  using namespace tilegemm::explorer;
  if (a.port < 0 || a.port > 65535) fail("--port " + std::to_string(a.port) + ": must be from 0 to 65535 (0: any free port)");
  if (a.host.empty() || a.host.size() > 253) fail("--host \"" + a.host + "\": must be a host name or an IP address");

  ServeOptions options;
  options.host = a.host;
  options.port = a.port;
  if (!a.quiet) options.log = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  ApiContext context = ApiContext::probe();
  if (!a.trace.empty()) {
    context.trace_json = read_trace(a.trace);
    context.trace_source = a.trace;
  }
  Server server(options, std::move(context));
  std::string why;
  const int port = server.bind(&why);
  if (port < 0) {
    std::fprintf(stderr, "tilegemm serve: %s\n", why.c_str());
    return 1;
  }
  if (!is_loopback_host(a.host))
    std::fprintf(stderr, "tilegemm serve: warning: --host %s is not a loopback address; the explorer has no "
                         "authentication, anyone who can reach this port can use it\n", a.host.c_str());
  // The first stdout line is the address (tests read the port from it when --port 0 is given).
  const std::string shown_host = a.host.find(':') != std::string::npos ? "[" + a.host + "]" : a.host;
  std::printf("tilegemm serve: http://%s:%d/ (Ctrl-C to stop)\n", shown_host.c_str(), port);
  std::fflush(stdout);
  if (!server.run()) {
    std::fprintf(stderr, "tilegemm serve: the listening socket failed\n");
    return 1;
  }
  return 0;
}

}  // namespace

void add_serve_command(CLI::App& app) {
  auto args = std::make_shared<ServeArgs>();
  auto* cmd = app.add_subcommand(
      "serve", "Serve the explorer page: hardware, CTA<->tile mapping, kernel configuration and timelines, "
               "with live data from the library (open the printed address in a browser)");
  cmd->add_option("--port", args->port, "TCP port; 0 picks a free one")->capture_default_str();
  cmd->add_option("--host", args->host, "address to bind (loopback by default; anything else exposes the page)")
      ->capture_default_str();
  cmd->add_flag("--quiet", args->quiet, "do not log each request on stderr");
  cmd->add_option("--trace", args->trace, "serve this Chrome-trace JSON (from tilegemm trace --out) at /api/trace, "
                                          "for the Timelines panel");
  cmd->callback([args] {
    if (const int rc = run_serve(*args); rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace tilegemm::cli
