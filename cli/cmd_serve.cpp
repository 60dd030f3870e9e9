// `tilegemm serve [--port 8080] [--host 127.0.0.1]`: the explorer, seed 1's interactive DeepGEMM
// page driven by the library (src/explorer/, web/, docs/EXPLORER.md). Runs without a GPU; with a
// Hopper GPU the hardware panel shows it and the plan panel uses it by default.
#include <cstdio>
#include <memory>
#include <string>

#include "commands.hpp"
#include "explorer/server.hpp"

namespace tilegemm::cli {

namespace {

struct ServeArgs {
  std::string host = "127.0.0.1";
  int port = 8080;
  bool quiet = false;
};

[[noreturn]] void fail(const std::string& message) { usage_error("serve", message); }

int run_serve(const ServeArgs& a) {
  using namespace tilegemm::explorer;
  if (a.port < 0 || a.port > 65535) fail("--port " + std::to_string(a.port) + ": must be from 0 to 65535 (0: any free port)");
  if (a.host.empty() || a.host.size() > 253) fail("--host \"" + a.host + "\": must be a host name or an IP address");

  ServeOptions options;
  options.host = a.host;
  options.port = a.port;
  if (!a.quiet) options.log = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  Server server(options, ApiContext::probe());
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
  cmd->callback([args] {
    if (const int rc = run_serve(*args); rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace tilegemm::cli
