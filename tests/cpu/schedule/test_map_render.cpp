// The mapping explorer's outputs: the SVG is well-formed XML and draws every tile exactly once
// with the right CTA and wave; the task grid and the table match seed 1's hand-computed 8 x 8 case;
// the JSON carries the same numbers; bad requests are refused with option, value and rule.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "schedule/map_render.hpp"
#include "xml_check.hpp"

namespace tilegemm::sched {
namespace {

using test::XmlChecker;
using test::XmlElement;

bool has_class(const XmlElement& e, const std::string& cls) {
  const auto it = e.attrs.find("class");
  if (it == e.attrs.end()) return false;
  std::istringstream words(it->second);
  for (std::string w; words >> w;)
    if (w == cls) return true;
  return false;
}

MapRequest seed_request() {  // seed 1: 8 x 8 tiles of 128 x 128, K = 4096, grouped-M G = 4, 8 CTAs
  MapRequest r;
  r.m = r.n = 1024;
  r.k = 4096;
  r.tile = {128, 128};
  r.mapping = {MappingKind::grouped_m, 4};
  r.sms = 8;
  return r;
}

TEST(XmlCheck, RejectsMalformedDocuments) {
  XmlChecker x;
  EXPECT_EQ(x.check("<?xml version=\"1.0\"?>\n<svg a=\"1\"><g><rect b='2'/></g>t &amp; &#60;</svg>\n"), "");
  for (const char* bad : {"<svg><g></svg></g>", "<svg a=1/>", "<svg a=\"1\" a=\"2\"/>", "<svg>&nbsp;</svg>",
                          "<svg/><svg/>", "x<svg/>", "<svg>", "<svg a=\"<\"/>", "<svg><g/>", "", "<svg a=\"1\"b=\"2\"/>",
                          "<svg>a & b</svg>"})
    EXPECT_NE(x.check(bad), "") << bad;
}

// Checks the SVG of `r`: well-formed, each tile drawn once with its slot's CTA and wave, the
// highlighted bands those of the chosen wave. Returns the parsed elements.
std::vector<XmlElement> check_svg(const MapRequest& r) {
  EXPECT_EQ(check_map_request(r), "");
  const MapResult res = build_map(r);
  const std::string svg = render_svg(res);
  XmlChecker x;
  const std::string err = x.check(svg);
  EXPECT_EQ(err, "") << svg.substr(0, 2000);
  const TileGrid g = res.schedule.grid;
  std::vector<int> drawn(static_cast<size_t>(g.num_tiles()), 0);
  int a_used = 0, b_used = 0, a_bands = 0, b_bands = 0;
  for (const XmlElement& e : x.elements) {
    if (e.name == "rect" && has_class(e, "tile")) {
      const int m = std::stoi(e.attrs.at("data-m")), n = std::stoi(e.attrs.at("data-n"));
      EXPECT_TRUE(g.contains({m, n}));
      if (!g.contains({m, n})) continue;
      ++drawn[static_cast<size_t>(m) * g.num_n_blocks + n];
      const int slot = std::stoi(e.attrs.at("data-slot"));
      const TileWork w = slot_work(res.schedule, slot);
      EXPECT_TRUE(w.has_tile);
      EXPECT_EQ(w.tile, (TileCoord{m, n}));
      EXPECT_EQ(std::stoi(e.attrs.at("data-cta")), res.cta_of_slot(slot));
      EXPECT_EQ(std::stoi(e.attrs.at("data-wave")), slot / res.resident_ctas);
      EXPECT_EQ(has_class(e, "current"), slot / res.resident_ctas == r.wave);
    }
    if (e.name == "rect" && has_class(e, "a-band")) ++a_bands, a_used += has_class(e, "used");
    if (e.name == "rect" && has_class(e, "b-band")) ++b_bands, b_used += has_class(e, "used");
  }
  for (int d : drawn) EXPECT_EQ(d, 1);
  EXPECT_EQ(a_bands, g.num_m_blocks);
  EXPECT_EQ(b_bands, g.num_n_blocks);
  EXPECT_EQ(a_used, res.report.waves[r.wave].unique_a_bands);
  EXPECT_EQ(b_used, res.report.waves[r.wave].unique_b_bands);
  return x.elements;
}

TEST(MapRender, SeedOneSvg) {
  const std::vector<XmlElement> elements = check_svg(seed_request());
  // CTA numbers: static, so tile (m, n) shows its slot, the seed's index table.
  std::map<std::pair<int, int>, int> cta;
  int numbers = 0;
  bool title_found = false;
  for (const XmlElement& e : elements) {
    if (e.name == "rect" && has_class(e, "tile"))
      cta[{std::stoi(e.attrs.at("data-m")), std::stoi(e.attrs.at("data-n"))}] = std::stoi(e.attrs.at("data-cta"));
    if (e.name == "text" && has_class(e, "cta")) ++numbers;
    if (e.name == "text" && e.text.find("4 unique A bands, 2 unique B bands, working set 6.00 MiB") != std::string::npos)
      title_found = true;
  }
  EXPECT_EQ(numbers, 64);
  EXPECT_TRUE(title_found);
  EXPECT_EQ((cta[{0, 0}]), 0);
  EXPECT_EQ((cta[{3, 1}]), 7);
  EXPECT_EQ((cta[{4, 0}]), 32);
  EXPECT_EQ((cta[{7, 7}]), 63);
}

TEST(MapRender, SvgDrawsEveryTileOnceForManySchedules) {
  const Mapping mappings[] = {{MappingKind::linear_n},     {MappingKind::linear_m},    {MappingKind::grouped_m, 8},
                              {MappingKind::grouped_n, 3}, {MappingKind::box, 8, 3, 2}, {MappingKind::morton},
                              {MappingKind::hilbert}};
  const std::pair<int64_t, int64_t> shapes[] = {{128, 128}, {1000, 3000}, {4096, 4096}, {7 * 128, 64}, {5000, 6400}};
  for (const Mapping& mapping : mappings)
    for (auto [m, n] : shapes)
      for (ClusterAxis axis : {ClusterAxis::none, ClusterAxis::along_n, ClusterAxis::along_m})
        for (bool persistent : {false, true}) {
          MapRequest r;
          r.m = m, r.n = n, r.k = 512;
          r.mapping = mapping;
          r.cluster = axis;
          r.persistent = persistent;
          r.sms = 16;
          const int waves = num_waves(build_map(r).schedule, r.sms);
          r.wave = waves - 1;  // the last, often partial, wave
          SCOPED_TRACE(mapping_name(mapping) + " " + std::to_string(m) + "x" + std::to_string(n) + " cluster " +
                       cluster_name(axis) + (persistent ? " persistent" : " static"));
          check_svg(r);
        }
}

TEST(MapRender, SeedOneTaskGridAndTable) {
  const MapResult res = build_map(seed_request());
  const std::string grid = render_task_grid(res);
  const std::string expected_rows =
      "       n0  n1  n2  n3  n4  n5  n6  n7\n"
      "   m0   0   4   8  12  16  20  24  28\n"
      "   m1   1   5   9  13  17  21  25  29\n"
      "   m2   2   6  10  14  18  22  26  30\n"
      "   m3   3   7  11  15  19  23  27  31\n"
      "   m4  32  36  40  44  48  52  56  60\n"
      "   m5  33  37  41  45  49  53  57  61\n"
      "   m6  34  38  42  46  50  54  58  62\n"
      "   m7  35  39  43  47  51  55  59  63\n";
  ASSERT_GE(grid.size(), expected_rows.size());
  EXPECT_EQ(grid.substr(grid.size() - expected_rows.size()), expected_rows) << grid;

  // The table's wave-0 row: wave, tiles, A bands, B bands, working set.
  const std::string table = render_table(res);
  std::istringstream lines(table);
  bool found = false;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string t; words >> t;) w.push_back(t);
    if (w.size() >= 6 && w[0] == "0") {
      EXPECT_EQ(w[1], "8");
      EXPECT_EQ(w[2], "4");
      EXPECT_EQ(w[3], "2");
      EXPECT_EQ(w[4], "6.00");
      EXPECT_EQ(w[5], "MiB");
      found = true;
    }
  }
  EXPECT_TRUE(found) << table;
  EXPECT_EQ(render_task_grid(build_map([] {
              MapRequest r = seed_request();
              r.m = 33 * 128;
              return r;
            }())),
            "");  // 33 rows: too big for text, the SVG/JSON carry it
}

TEST(MapRender, Json) {
  MapRequest r = seed_request();
  r.persistent = true;
  const nlohmann::json j = render_json(build_map(r));
  EXPECT_EQ(j["mapping"], "grouped-m:4");
  EXPECT_EQ(j["assignment"], "persistent");
  EXPECT_EQ(j["grid"]["num_tiles"], 64);
  ASSERT_EQ(j["waves"].size(), 8u);
  EXPECT_EQ(j["waves"][0]["unique_a_bands"], 4);
  EXPECT_EQ(j["waves"][0]["unique_b_bands"], 2);
  EXPECT_EQ(j["waves"][0]["working_set_bytes"], 6 << 20);
  EXPECT_GT(j["waves"][0]["a_sharer_gap"].get<double>(), 0.0);  // 8 tiles over 4 A bands: each read twice
  EXPECT_GT(j["waves"][0]["b_sharer_gap"].get<double>(), 0.0);
  ASSERT_EQ(j["tiles"].size(), 64u);
  std::vector<int> seen(64, 0);
  for (const auto& t : j["tiles"]) {
    ++seen[t["m_block"].get<int>() * 8 + t["n_block"].get<int>()];
    EXPECT_EQ(t["cta"].get<int>(), t["slot"].get<int>() % 8);  // persistent: CTA p = slot mod P
    EXPECT_EQ(t["wave"].get<int>(), t["slot"].get<int>() / 8);
  }
  for (int s : seen) EXPECT_EQ(s, 1);
  // Round trip through text, as tools read it.
  EXPECT_EQ(nlohmann::json::parse(j.dump()), j);
}

TEST(MapRender, BadRequestsNameOptionValueAndRule) {
  struct Case {
    MapRequest r;
    const char* words[2];
  };
  auto with = [](auto change) {
    MapRequest r = seed_request();
    change(r);
    return r;
  };
  const Case cases[] = {
      {with([](MapRequest& r) { r.m = 0; }), {"M = 0", "from 1"}},
      {with([](MapRequest& r) { r.k = -5; }), {"K = -5", "from 1"}},
      {with([](MapRequest& r) { r.wave = 8; }), {"--wave 8", "from 0 to 7"}},
      {with([](MapRequest& r) { r.wave = -1; }), {"--wave -1", "from 0 to 7"}},
      {with([](MapRequest& r) { r.sms = 0; }), {"--sms 0", "from 1"}},
      {with([](MapRequest& r) { r.sms = 7, r.cluster = ClusterAxis::along_n; }), {"--sms 7", "must be even"}},
      {with([](MapRequest& r) { r.mapping.group = 0; }), {"--mapping grouped-m:0", "at least 1"}},
      {with([](MapRequest& r) { r.tile = {1, 1}, r.m = r.n = 100000; }), {"--tile 1x1", "at most"}},
      {with([](MapRequest& r) { r.l2_mib = -1; }), {"--l2-mib -1", "from 0"}},
      {with([](MapRequest& r) { r.element_bytes = 3; }), {"--elem-bytes 3", "BF16"}},
  };
  for (const Case& c : cases) {
    const std::string e = check_map_request(c.r);
    ASSERT_NE(e, "");
    for (const char* w : c.words) EXPECT_NE(e.find(w), std::string::npos) << "'" << w << "' not in: " << e;
  }
  EXPECT_EQ(check_map_request(seed_request()), "");
}

}  // namespace
}  // namespace tilegemm::sched
