#include "explorer/server.hpp"

#include <httplib.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <utility>

#include <fmt/format.h>

#include "explorer/static_files.hpp"

namespace tilegemm::explorer {

namespace {

// The host part of a Host header ("127.0.0.1:8080" -> "127.0.0.1", "[::1]:80" -> "::1").
std::string host_of(const std::string& header) {
  if (!header.empty() && header.front() == '[') {
    const size_t close = header.find(']');
    return close == std::string::npos ? header : header.substr(1, close - 1);
  }
  const size_t colon = header.find(':');
  return colon == std::string::npos ? header : header.substr(0, colon);
}

void set_common_headers(httplib::Response& res) {
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Cache-Control", "no-store");
  res.set_header("Referrer-Policy", "no-referrer");
}

void send(httplib::Response& res, const Reply& r) {
  res.status = r.status;
  if (!r.allow.empty()) res.set_header("Allow", r.allow);
  res.set_content(r.body, r.content_type.c_str());
}

std::string status_text(int status, size_t max_body) {
  switch (status) {
    case 400: return "bad request: the request line or a header could not be read (header lines are at most 8192 bytes)";
    case 403: return "forbidden";
    case 404: return "not found";
    case 405: return "method not allowed: the explorer answers GET and HEAD (and POST /api/trace/record)";
    case 413: return fmt::format("request body too large: at most {} bytes", max_body);
    case 414: return "request line too long: at most 8192 bytes";
    case 416: return "bad Range header";
    default: return "error";
  }
}

}  // namespace

bool is_loopback_host(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

struct Server::Impl {
  ServeOptions options;
  ApiContext context;
  httplib::Server http;
  bool check_host = true;

  void configure();
  bool host_allowed(const httplib::Request& req) const {
    if (!check_host || !req.has_header("Host")) return true;
    return is_loopback_host(host_of(req.get_header_value("Host")));
  }
  // A POST's Origin (browsers send it): bound to loopback, only a loopback page may post.
  bool origin_allowed(const httplib::Request& req) const {
    if (!check_host || !req.has_header("Origin")) return true;
    const std::string origin = req.get_header_value("Origin");
    const size_t scheme = origin.find("://");
    return scheme != std::string::npos && is_loopback_host(host_of(origin.substr(scheme + 3)));
  }
};

void Server::Impl::configure() {
  check_host = is_loopback_host(options.host);
  http.set_read_timeout(options.timeout_s, 0);
  http.set_write_timeout(options.timeout_s, 0);
  http.set_keep_alive_timeout(options.timeout_s);
  http.set_payload_max_length(options.max_body_bytes);
  // cpp-httplib's default sets SO_REUSEPORT, which lets a second `tilegemm serve` bind the same
  // port and silently share its connections. SO_REUSEADDR alone still allows a quick restart
  // (TIME_WAIT) but makes a port that another server listens on an error.
  http.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });

  http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    set_common_headers(res);
    if (!host_allowed(req)) {
      send(res, error_reply(403, "", "Host \"" + host_of(req.get_header_value("Host")).substr(0, 60) +
                                         "\" refused: the explorer is bound to loopback and answers only "
                                         "requests addressed to localhost, 127.0.0.1 or [::1]"));
      return httplib::Server::HandlerResponse::Handled;
    }
    if (req.method == "POST" && !origin_allowed(req)) {
      send(res, error_reply(403, "", "Origin \"" + req.get_header_value("Origin").substr(0, 60) +
                                         "\" refused: only the explorer's own page may POST"));
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });

  http.Get(R"(/api/.*)", [this](const httplib::Request& req, httplib::Response& res) {
    QueryParams q(req.params.begin(), req.params.end());
    send(res, handle_api(req.path, q, context));
  });
  http.Get(R"(/.*)", [](const httplib::Request& req, httplib::Response& res) {
    if (const StaticFile* f = find_static_file(req.path)) {
      res.set_content(f->body.data(), f->body.size(), std::string(f->content_type).c_str());
      // The page loads only its own files: no CDN, no inline script, works offline.
      res.set_header("Content-Security-Policy",
                     "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
                     "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'");
      return;
    }
    res.status = 404;
    res.set_content("not found: " + req.path.substr(0, 100) + " (the page is at /)\n", "text/plain");
  });
  // POST /api/trace/record; every other POST is a 405 from the same function.
  http.Post(R"(/.*)", [this](const httplib::Request& req, httplib::Response& res) {
    send(res, handle_api_post(req.path, req.get_header_value("Content-Type"), req.body, context));
  });
  const auto not_allowed = [](const httplib::Request&, httplib::Response& res) {
    res.set_header("Allow", "GET, HEAD");
    send(res, error_reply(405, "", status_text(405, 0)));
  };
  http.Put(R"(/.*)", not_allowed);
  http.Patch(R"(/.*)", not_allowed);
  http.Delete(R"(/.*)", not_allowed);
  http.Options(R"(/.*)", not_allowed);

  // Replies httplib makes itself (404 unrouted, 413, 414, 400) get a JSON body too.
  using ErrorHandler = httplib::Server::HandlerWithResponse;
  http.set_error_handler(ErrorHandler([this](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    set_common_headers(res);
    send(res, error_reply(res.status, "", status_text(res.status, options.max_body_bytes)));
    return httplib::Server::HandlerResponse::Handled;
  }));
  http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unknown exception";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    send(res, error_reply(500, "", "internal error: " + what));
  });
  if (options.log) {
    http.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
      options.log(fmt::format("{} {} {}", req.method, req.target.substr(0, 200), res.status));
    });
  }
}

Server::Server(ServeOptions options, ApiContext context) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->context = std::move(context);
  impl_->configure();
}

Server::~Server() { stop(); }

int Server::bind(std::string* why) {
  const ServeOptions& o = impl_->options;
  errno = 0;
  const int port = o.port == 0 ? impl_->http.bind_to_any_port(o.host)
                               : (impl_->http.bind_to_port(o.host, o.port) ? o.port : -1);
  if (port < 0 && why) {
    *why = fmt::format("cannot listen on {}:{}{}", o.host, o.port,
                       errno ? std::string(" (") + std::strerror(errno) + ")" : std::string(" (unknown host?)"));
  }
  return port;
}

bool Server::run() { return impl_->http.listen_after_bind(); }

void Server::stop() {
  if (impl_) impl_->http.stop();
}

}  // namespace tilegemm::explorer
