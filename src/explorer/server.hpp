// The explorer's HTTP server: the embedded page (static_files.hpp) and the JSON endpoints (api.hpp)
// over cpp-httplib (third_party/cpp-httplib, header-only; only server.cpp includes it).
//
// Rules every request meets (docs/EXPLORER.md):
//   - GET and HEAD, and POST /api/trace/record (a JSON body); other methods and paths get 405. A
//     request body over max_body_bytes gets 413.
//   - request line over 8192 bytes: 414; a header line over 8192 bytes: 400 (cpp-httplib's limits).
//   - each connection: `timeout_s` to send a request or take a reply, then it is closed.
//   - bound to a loopback address, requests whose Host header is not a loopback name get 403
//     (a web page elsewhere cannot reach the server through DNS rebinding), and so does a POST
//     whose Origin is not a loopback page.
//   - an exception in a handler is a 500 with a JSON message; the server keeps running.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "explorer/api.hpp"

namespace tilegemm::explorer {

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 8080;                    // 0: any free port (bind() returns the one taken)
  int timeout_s = 5;                  // read / write / keep-alive timeout per connection
  size_t max_body_bytes = 16 * 1024;  // POST /api/trace/record's JSON is well under 1 KiB
  // One line per request (method, target, status), e.g. to stderr; null: no log.
  std::function<void(const std::string&)> log;
};

// True for 127.0.0.0/8, ::1 and "localhost".
bool is_loopback_host(const std::string& host);

class Server {
 public:
  Server(ServeOptions options, ApiContext context);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds host:port. Returns the port bound, or -1 with *why set (address in use, bad host, ...).
  int bind(std::string* why);
  // Serves until stop(). Precondition: bind() succeeded. False if the listening socket failed.
  bool run();
  // Thread-safe; run() returns soon after.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tilegemm::explorer
