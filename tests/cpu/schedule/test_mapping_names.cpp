// The CLI's names for mappings, tiles and clusters: every valid spelling parses, round-trips, and
// every bad one gives a message naming the option, the value and the rule.
#include <gtest/gtest.h>

#include <string>

#include "schedule/mapping_names.hpp"

namespace tilegemm::sched {
namespace {

TEST(MappingNames, ValidNamesParse) {
  struct Case {
    const char* text;
    MappingKind kind;
    int group, box_m, box_n;
  };
  const Case cases[] = {{"linear-n", MappingKind::linear_n, 8, 2, 2},
                        {"linear-m", MappingKind::linear_m, 8, 2, 2},
                        {"grouped-m:8", MappingKind::grouped_m, 8, 2, 2},
                        {"grouped-m:1", MappingKind::grouped_m, 1, 2, 2},
                        {"grouped-n:16", MappingKind::grouped_n, 16, 2, 2},
                        {"box:4x8", MappingKind::box, 8, 4, 8},
                        {"box:1x300", MappingKind::box, 8, 1, 300},
                        {"morton", MappingKind::morton, 8, 2, 2},
                        {"hilbert", MappingKind::hilbert, 8, 2, 2}};
  for (const Case& c : cases) {
    const Parsed<Mapping> p = parse_mapping(c.text);
    ASSERT_TRUE(p.ok()) << c.text << ": " << p.error;
    EXPECT_EQ(p.value.kind, c.kind) << c.text;
    EXPECT_EQ(p.value.group, c.group) << c.text;
    EXPECT_EQ(p.value.box_m, c.box_m) << c.text;
    EXPECT_EQ(p.value.box_n, c.box_n) << c.text;
    EXPECT_EQ(mapping_name(p.value), c.text);  // the printed name is the accepted name
  }
}

TEST(MappingNames, BadNamesSayOptionValueAndRule) {
  struct Case {
    const char* text;
    const char* rule_words;  // a piece of the rule the message must state
  };
  const Case cases[] = {{"", "unknown mapping"},
                        {"zigzag", "unknown mapping"},
                        {"Linear-N", "unknown mapping"},
                        {"grouped-m", "group size G"},
                        {"grouped-m:", "group size G"},
                        {"grouped-m:0", "group size G"},
                        {"grouped-m:-4", "group size G"},
                        {"grouped-n:8x", "group size G"},
                        {"grouped-n: 8", "group size G"},
                        {"grouped-m:99999999999", "group size G"},
                        {"box", "box size"},
                        {"box:4", "box size"},
                        {"box:0x3", "box size"},
                        {"box:2x3x4", "box size"},
                        {"box:x3", "box size"},
                        {"linear-n:4", "takes no parameter"},
                        {"hilbert:2", "takes no parameter"}};
  for (const Case& c : cases) {
    const Parsed<Mapping> p = parse_mapping(c.text);
    ASSERT_FALSE(p.ok()) << "'" << c.text << "' was accepted";
    EXPECT_NE(p.error.find("--mapping"), std::string::npos) << p.error;
    EXPECT_NE(p.error.find(std::string("'") + c.text + "'"), std::string::npos) << p.error;
    EXPECT_NE(p.error.find(c.rule_words), std::string::npos) << p.error;
  }
  // The unknown-name message lists every mapping.
  const std::string e = parse_mapping("zigzag").error;
  for (const char* name : {"linear-n", "linear-m", "grouped-m:G", "grouped-n:G", "box:BMxBN", "morton",
                           "hilbert"})
    EXPECT_NE(e.find(name), std::string::npos) << name;
}

TEST(MappingNames, TileShapes) {
  const Parsed<TileShape> t = parse_tile_shape("128x256");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t.value.block_m, 128);
  EXPECT_EQ(t.value.block_n, 256);
  EXPECT_TRUE(parse_tile_shape("1x1").ok());
  for (const char* bad : {"128", "0x128", "128x", "x", "128X128", "128x128x64", "-128x128", "8192x128", ""}) {
    const Parsed<TileShape> p = parse_tile_shape(bad);
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_NE(p.error.find("--tile"), std::string::npos);
    EXPECT_NE(p.error.find(std::string("'") + bad + "'"), std::string::npos);
    EXPECT_NE(p.error.find("BLOCK_MxBLOCK_N"), std::string::npos);
  }
}

TEST(MappingNames, ClusterAxes) {
  EXPECT_EQ(parse_cluster_axis("none").value, ClusterAxis::none);
  EXPECT_EQ(parse_cluster_axis("1x1").value, ClusterAxis::none);
  EXPECT_EQ(parse_cluster_axis("n").value, ClusterAxis::along_n);
  EXPECT_EQ(parse_cluster_axis("1x2").value, ClusterAxis::along_n);
  EXPECT_EQ(parse_cluster_axis("m").value, ClusterAxis::along_m);
  EXPECT_EQ(parse_cluster_axis("2x1").value, ClusterAxis::along_m);
  for (ClusterAxis a : {ClusterAxis::none, ClusterAxis::along_n, ClusterAxis::along_m})
    EXPECT_EQ(parse_cluster_axis(cluster_name(a)).value, a);
  const Parsed<ClusterAxis> bad = parse_cluster_axis("2x2");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error.find("--cluster '2x2'"), std::string::npos) << bad.error;
}

}  // namespace
}  // namespace tilegemm::sched
