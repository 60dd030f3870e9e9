// The explorer over real sockets: the server runs in-process on an ephemeral loopback port and
// httplib's client fetches every endpoint and the page; then the rules of server.hpp (methods,
// body and URI limits, Host check, idle-connection timeout). Plus the embedded page itself: the
// same bytes as web/ and nothing that points off the machine.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "explorer/server.hpp"
#include "explorer/static_files.hpp"

namespace tilegemm::explorer {
namespace {

using nlohmann::json;

// A server on 127.0.0.1:<free port>, running on its own thread for the life of the fixture.
class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ServeOptions o;
    o.port = 0;
    o.timeout_s = 1;
    o.max_body_bytes = 1024;
    ApiContext ctx;
    ctx.live.reason = "no CUDA device (test)";
    server_ = std::make_unique<Server>(o, ctx);
    std::string why;
    port_ = server_->bind(&why);
    ASSERT_GT(port_, 0) << why;
    thread_ = std::thread([this] { server_->run(); });
    // Up once it answers (bind() already queues connections; run() serves them).
    httplib::Client c = client();
    for (int i = 0; i < 100 && !c.Get("/api/trace"); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  void TearDown() override {
    if (server_) server_->stop();
    if (thread_.joinable()) thread_.join();
  }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_connection_timeout(5);
    c.set_read_timeout(10);
    return c;
  }
  std::unique_ptr<Server> server_;
  std::thread thread_;
  int port_ = 0;
};

json get_json(httplib::Client& c, const std::string& target, int want_status) {
  auto res = c.Get(target);
  EXPECT_TRUE(res) << target << ": " << httplib::to_string(res.error());
  if (!res) return json();
  EXPECT_EQ(res->status, want_status) << target << ": " << res->body.substr(0, 300);
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/json") << target;
  EXPECT_EQ(res->get_header_value("X-Content-Type-Options"), "nosniff") << target;
  return json::parse(res->body);
}

TEST_F(ServerTest, EveryEndpointAnswersAsItsFunctionDoes) {
  httplib::Client c = client();
  ApiContext ctx;
  ctx.live.reason = "no CUDA device (test)";
  const json hw = get_json(c, "/api/hardware", 200);
  EXPECT_EQ(hw, json::parse(api_hardware({}, ctx).body));
  const json map = get_json(c, "/api/map?m=1024&n=1024&k=4096&mapping=grouped-m:4&sms=8", 200);
  EXPECT_EQ(map, json::parse(api_map({{"m", "1024"}, {"n", "1024"}, {"k", "4096"}, {"mapping", "grouped-m:4"}, {"sms", "8"}}).body));
  EXPECT_EQ(map["tiles"].size(), 64u);
  const json plan = get_json(c, "/api/plan?m=4096&n=7168&k=2048&device=h200", 200);
  EXPECT_EQ(plan, json::parse(api_plan({{"m", "4096"}, {"n", "7168"}, {"k", "2048"}, {"device", "h200"}}, ctx).body));
  const json trace = get_json(c, "/api/trace", 404);
  EXPECT_NE(trace["error"].get<std::string>().find("no trace yet"), std::string::npos);
  const json bad = get_json(c, "/api/map?m=abc&n=1&k=1", 400);
  EXPECT_EQ(bad["parameter"], "m");
  const json dup = get_json(c, "/api/map?m=1&m=2&n=1&k=1", 400);
  EXPECT_EQ(dup["parameter"], "m");
  const json encoded = get_json(c, "/api/map?m=64&n=64&k=64&mapping=box%3A2x2", 200);  // %3A = ':'
  EXPECT_EQ(encoded["mapping"], "box:2x2");
  get_json(c, "/api/nothing", 404);
}

TEST_F(ServerTest, ServesThePageWithItsContentTypesAndPolicy) {
  httplib::Client c = client();
  auto index = c.Get("/");
  ASSERT_TRUE(index);
  EXPECT_EQ(index->status, 200);
  EXPECT_EQ(index->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(index->get_header_value("Content-Security-Policy").find("default-src 'self'"), std::string::npos);
  EXPECT_EQ(index->body, std::string(find_static_file("/index.html")->body));
  for (const StaticFile& f : static_files()) {
    auto res = c.Get(std::string(f.path));
    ASSERT_TRUE(res) << f.path;
    EXPECT_EQ(res->status, 200) << f.path;
    EXPECT_EQ(res->get_header_value("Content-Type"), f.content_type) << f.path;
    EXPECT_EQ(res->body.size(), f.body.size()) << f.path;
  }
  auto head = c.Head("/explorer.js");
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200);
  EXPECT_TRUE(head->body.empty());
  auto missing = c.Get("/nope.html");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
}

TEST_F(ServerTest, RefusesOtherMethodsBigBodiesLongUrisAndForeignHosts) {
  httplib::Client c = client();
  auto post = c.Post("/api/map", "m=1", "application/x-www-form-urlencoded");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 405);
  EXPECT_EQ(post->get_header_value("Allow"), "GET, HEAD");
  EXPECT_EQ(json::parse(post->body)["status"], 405);
  auto del = c.Delete("/api/map");
  ASSERT_TRUE(del);
  EXPECT_EQ(del->status, 405);

  auto big = c.Post("/api/map", std::string(4096, 'x'), "text/plain");  // limit: 1024 bytes here
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 413);
  EXPECT_NE(json::parse(big->body)["error"].get<std::string>().find("at most 1024 bytes"), std::string::npos);

  httplib::Client c2 = client();
  auto long_uri = c2.Get("/api/map?m=" + std::string(9000, '1'));
  ASSERT_TRUE(long_uri);
  EXPECT_EQ(long_uri->status, 414);

  httplib::Client c3 = client();
  auto long_value = c3.Get("/api/plan?m=1&n=1&k=1&config=" + std::string(200, 'x'));
  ASSERT_TRUE(long_value);
  EXPECT_EQ(long_value->status, 400);
  EXPECT_EQ(json::parse(long_value->body)["parameter"], "config");

  httplib::Client c4 = client();
  auto foreign = c4.Get("/", httplib::Headers{{"Host", "attacker.example:80"}});
  ASSERT_TRUE(foreign);
  EXPECT_EQ(foreign->status, 403);
  auto local = c4.Get("/", httplib::Headers{{"Host", "localhost:" + std::to_string(port_)}});
  ASSERT_TRUE(local);
  EXPECT_EQ(local->status, 200);
}

TEST_F(ServerTest, RecordIsAJsonPostFromThePageOnly) {
  httplib::Client c = client();
  const std::string body = R"({"m": 256, "n": 512, "k": 1024})";
  auto no_gpu = c.Post("/api/trace/record", body, "application/json");  // this server has no GPU
  ASSERT_TRUE(no_gpu);
  EXPECT_EQ(no_gpu->status, 503);
  EXPECT_NE(json::parse(no_gpu->body)["error"].get<std::string>().find("no CUDA device (test)"), std::string::npos);
  auto page = c.Post("/api/trace/record", httplib::Headers{{"Origin", "http://127.0.0.1:" + std::to_string(port_)}},
                     body, "application/json");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 503);
  auto bad = c.Post("/api/trace/record", R"({"m": 0, "n": 512, "k": 1024})", "application/json");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_EQ(json::parse(bad->body)["parameter"], "m");
  // A page of another origin: refused (and it could not send application/json without a preflight,
  // which the server answers with a 405).
  auto foreign = c.Post("/api/trace/record", httplib::Headers{{"Origin", "http://attacker.example"}}, body,
                        "application/json");
  ASSERT_TRUE(foreign);
  EXPECT_EQ(foreign->status, 403);
  auto form = c.Post("/api/trace/record", "m=256&n=512&k=1024", "application/x-www-form-urlencoded");
  ASSERT_TRUE(form);
  EXPECT_EQ(form->status, 415);
  auto preflight = c.Options("/api/trace/record");
  ASSERT_TRUE(preflight);
  EXPECT_EQ(preflight->status, 405);
  auto get = c.Get("/api/trace/record");
  ASSERT_TRUE(get);
  EXPECT_EQ(get->status, 405);
  EXPECT_EQ(get->get_header_value("Allow"), "POST");
}

TEST_F(ServerTest, AnIdleConnectionIsClosedAfterTheTimeout) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port_));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::send(fd, "GET / HTTP/1.1\r\n", 16, 0), 16);  // and never finish the request
  const auto start = std::chrono::steady_clock::now();
  pollfd p{fd, POLLIN, 0};
  ASSERT_EQ(::poll(&p, 1, 10000), 1) << "the server kept an idle connection open for 10 s";
  char buf[256];
  while (::recv(fd, buf, sizeof(buf), 0) > 0) {
  }
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(waited, 5.0);  // timeout_s = 1 here
  ::close(fd);
  // And the server still answers.
  httplib::Client c = client();
  auto res = c.Get("/api/trace");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);
}

TEST(ExplorerServer, BindFailureIsReportedNotThrown) {
  ServeOptions o;
  o.port = 0;
  Server first(o, ApiContext{});
  std::string why;
  const int port = first.bind(&why);
  ASSERT_GT(port, 0) << why;
  o.port = port;
  Server second(o, ApiContext{});
  EXPECT_EQ(second.bind(&why), -1);
  EXPECT_NE(why.find(std::to_string(port)), std::string::npos) << why;
  EXPECT_TRUE(is_loopback_host("127.0.0.1"));
  EXPECT_TRUE(is_loopback_host("localhost"));
  EXPECT_TRUE(is_loopback_host("::1"));
  EXPECT_FALSE(is_loopback_host("0.0.0.0"));
  EXPECT_FALSE(is_loopback_host("10.0.0.1"));
}

// ------------------------------------------------------------------------------- the embedded page

std::string read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(ExplorerPage, EmbeddedFilesAreTheFilesInWeb) {
  const std::filesystem::path web = std::filesystem::path(TILEGEMM_SOURCE_DIR) / "web";
  std::set<std::string> on_disk;
  for (const auto& e : std::filesystem::directory_iterator(web)) on_disk.insert("/" + e.path().filename().string());
  std::set<std::string> embedded;
  for (const StaticFile& f : static_files()) {
    embedded.insert(std::string(f.path));
    EXPECT_EQ(std::string(f.body), read_file(web / std::string(f.path).substr(1))) << f.path << " is stale: rebuild";
  }
  EXPECT_EQ(embedded, on_disk);
  ASSERT_NE(find_static_file("/"), nullptr);
  EXPECT_EQ(find_static_file("/")->path, "/index.html");
}

TEST(ExplorerPage, EveryReferencedFileExistsAndNothingPointsOffTheMachine) {
  const std::string index(find_static_file("/index.html")->body);
  const std::regex ref(R"re((?:src|href)="([^"#]+)")re");
  int refs = 0;
  for (std::sregex_iterator it(index.begin(), index.end(), ref), end; it != end; ++it, ++refs)
    EXPECT_NE(find_static_file("/" + (*it)[1].str()), nullptr) << (*it)[1].str();
  EXPECT_GE(refs, 7);  // favicon, stylesheet, 5 scripts
  // Works offline: no URL to another host anywhere (the SVG namespace is a name, not a fetch).
  const std::regex url(R"re((https?:)?//[A-Za-z0-9.-]+\.[A-Za-z]{2,})re");
  for (const StaticFile& f : static_files()) {
    std::string body(f.body);
    for (std::size_t at; (at = body.find("http://www.w3.org/2000/svg")) != std::string::npos;) body.erase(at, 26);
    std::smatch m;
    EXPECT_FALSE(std::regex_search(body, m, url)) << f.path << " points off the machine: " << m.str();
  }
}

}  // namespace
}  // namespace tilegemm::explorer
