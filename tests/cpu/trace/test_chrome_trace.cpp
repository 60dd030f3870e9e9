// chrome_trace and viewer_html on a decoded trace: one complete event per recorded event and per
// host span, a process per SM and a thread per warp role (named, ordered), every lane's events
// properly nested and in time order (what Perfetto needs to draw them as stacked slices), the
// origin at the earliest timestamp, --ctas honoured; the HTML viewer inlines the script and the
// trace and cannot be broken out of by a name in the trace.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <vector>

#include "json_checks.hpp"
#include "decoded_synthetic.hpp"
#include "trace/chrome_trace.hpp"
#include "trace/decode.hpp"
#include "trace/viewer.hpp"

namespace tilegemm::trace {
namespace {

using nlohmann::json;

DecodedTrace decoded(const test::SyntheticSpec& s) { return test::decoded_synthetic(s); }

TraceDocument document(const DecodedTrace& t, const test::SyntheticSpec& s) {
  TraceDocument doc;
  doc.device = &t;
  HostTrack host{"host", "tilegemm (host spans)", {}};
  host.spans.push_back({"tilegemm::gemm (traced call)", s.t0 - 5000, s.t0 + 100, {}});
  host.spans.push_back({"launch", s.t0 - 2000, s.t0 - 1000, {{"detail", "x"}}});
  doc.tracks.push_back(host);
  doc.info = {{"problem", "synthetic"}};
  return doc;
}

TEST(ChromeTrace, EventsProcessesThreadsAndNesting) {
  const test::SyntheticSpec s;
  const DecodedTrace t = decoded(s);
  const json j = json::parse(chrome_trace(document(t, s)).dump());  // what a reader sees
  ASSERT_TRUE(j.contains("traceEvents"));
  EXPECT_EQ(j["otherData"]["problem"], "synthetic");
  std::map<std::pair<int, int>, std::vector<json>> lanes;
  std::set<int> sm_processes;
  std::map<std::pair<int, int>, std::string> thread_names;
  size_t x_events = 0;
  double min_ts = 1e300;
  for (const json& e : j["traceEvents"]) {
    if (e["ph"] == "M") {
      if (e["name"] == "process_name" && e["pid"].get<int>() >= kSmPidBase) {
        sm_processes.insert(e["pid"].get<int>());
        EXPECT_EQ(e["args"]["name"], "SM " + std::to_string(e["pid"].get<int>() - kSmPidBase));
      }
      if (e["name"] == "thread_name") thread_names[{e["pid"], e["tid"]}] = e["args"]["name"];
      continue;
    }
    ASSERT_EQ(e["ph"], "X");
    EXPECT_TRUE(e["args"].is_object()) << e.dump();  // also for host spans made with {} args
    ++x_events;
    min_ts = std::min(min_ts, e["ts"].get<double>());
    EXPECT_GE(e["dur"].get<double>(), 0.0);
    lanes[{e["pid"], e["tid"]}].push_back(e);
  }
  EXPECT_EQ(x_events, t.events + 2);
  EXPECT_EQ(min_ts, 0.0);
  EXPECT_EQ(sm_processes.size(), s.ctas);  // one SM per CTA in the synthetic trace
  EXPECT_EQ(thread_names.size(), s.ctas * (1 + s.consumers) + 1);
  EXPECT_EQ((thread_names[{kSmPidBase + 3, 4 * 1 + 2 + 1}]), "CTA 1 consumer 1");
  for (const auto& [key, events] : lanes)
    if (key.first >= kSmPidBase)
      for (const json& e : events)
        for (const char* arg : {"kind", "stage", "k_block", "tile_m", "tile_n", "cta", "sm", "lane", "dur_clk"})
          EXPECT_TRUE(e["args"].contains(arg)) << arg;
  EXPECT_EQ(test::expect_nested_lanes(j), x_events);
}

TEST(ChromeTrace, MaxCtasLeavesLanesOut) {
  test::SyntheticSpec s;
  s.ctas = 5;
  const DecodedTrace t = decoded(s);
  TraceDocument doc = document(t, s);
  doc.max_ctas = 2;
  std::set<int> ctas;
  const json j = chrome_trace(doc);
  for (const json& e : j["traceEvents"])
    if (e["ph"] == "X" && e["args"].contains("cta")) ctas.insert(e["args"]["cta"].get<int>());
  EXPECT_EQ(ctas, (std::set<int>{0, 1}));
}

TEST(ChromeTrace, DeviceOffsetMovesOnlyDeviceEvents) {
  const test::SyntheticSpec s;
  const DecodedTrace t = decoded(s);
  TraceDocument doc = document(t, s);
  auto first_device_ts = [](const json& j) {
    double m = 1e300;
    for (const json& e : j["traceEvents"])
      if (e["ph"] == "X" && e["args"].contains("cta")) m = std::min(m, e["ts"].get<double>());
    return m;
  };
  const double before = first_device_ts(chrome_trace(doc));
  doc.device_offset_ns = 3000;
  const json j = chrome_trace(doc);
  EXPECT_NEAR(first_device_ts(j) - before, 3.0, 1e-9);
  EXPECT_EQ(j["otherData"]["device_offset_ns"], 3000);
}

TEST(TraceViewer, InlinesScriptAndTraceSafely) {
  const test::SyntheticSpec s;
  const DecodedTrace t = decoded(s);
  TraceDocument doc = document(t, s);
  doc.tracks[0].spans.push_back({"</script><script>alert(1)</script><!--", s.t0, s.t0 + 1, {}});
  const std::string html = viewer_html(chrome_trace(doc));
  EXPECT_EQ(html.find("/*@TRACE_JSON@*/"), std::string::npos);
  EXPECT_EQ(html.find("/*@STAGE_TIMELINE_JS@*/"), std::string::npos);
  EXPECT_NE(html.find("const TGStage"), std::string::npos);
  EXPECT_NE(html.find("<\\/script><script>alert(1)<\\/script><\\u0021--"), std::string::npos);
  // Exactly the page's own three script elements.
  size_t scripts = 0;
  for (size_t at = 0; (at = html.find("</script>", at)) != std::string::npos; ++at) ++scripts;
  EXPECT_EQ(scripts, 3u);
  EXPECT_EQ(script_safe("a</b<!--c"), "a<\\/b<\\u0021--c");
}

}  // namespace
}  // namespace tilegemm::trace
