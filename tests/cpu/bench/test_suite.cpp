// Suite files, shape strings, layouts and the runner's host-side rules (the GPU half of the runner is
// tested in tests/gpu/test_reference_gpu.cpp).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bench/runner.hpp"
#include "bench/suite.hpp"

namespace tilegemm::bench {
namespace {

// The 24-shape LLM suite, spelled out independently of bench/suites/llm.txt.
std::vector<Shape> brief_suite() {
  std::vector<Shape> shapes = {{4096, 4096, 4096}, {6144, 6144, 6144}, {8192, 8192, 8192}};
  const int64_t nk[7][2] = {{2112, 7168}, {576, 7168},   {24576, 1536}, {32768, 512},
                            {7168, 16384}, {4096, 7168}, {7168, 2048}};
  for (int64_t m : {1, 128, 4096})
    for (const auto& p : nk) shapes.push_back({m, p[0], p[1]});
  return shapes;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

TEST(Suite, LlmSuiteIsTheBriefsTwentyFourShapes) {
  std::string error;
  const auto builtin = load_suite("llm", &error);
  ASSERT_TRUE(builtin) << error;
  EXPECT_EQ(builtin->name, "llm");
  EXPECT_EQ(builtin->shapes.size(), 24u);
  EXPECT_EQ(builtin->shapes, brief_suite());
  // The file in the tree and the copy compiled into the library agree.
  const std::string path = std::string(TILEGEMM_SOURCE_DIR) + "/bench/suites/llm.txt";
  const auto from_file = load_suite(path, &error);
  ASSERT_TRUE(from_file) << error;
  EXPECT_EQ(from_file->shapes, builtin->shapes);
  EXPECT_EQ(read_file(path), builtin_suite_text("llm"));
}

TEST(Suite, EveryBuiltinSuiteParses) {
  const auto names = builtin_suite_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "squares"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "odd"), names.end());  // docs/PERF.md's odd-shape tables
  for (const auto& name : names) {
    std::string error;
    EXPECT_TRUE(load_suite(name, &error)) << name << ": " << error;
  }
}

TEST(Suite, CommentsBlankLinesAndSpacing) {
  std::string error;
  const auto s = parse_suite("# header\n\n  1 2 3  # trailing comment\n\t4\t5 6\r\n7 8 9", "x.txt", &error);
  ASSERT_TRUE(s) << error;
  EXPECT_EQ(s->name, "x");
  EXPECT_EQ(s->shapes, (std::vector<Shape>{{1, 2, 3}, {4, 5, 6}, {7, 8, 9}}));
}

// Each bad line is rejected, and the message names the source and the line number.
TEST(Suite, BadLinesAreRejectedWithTheirLineNumber) {
  const char* bad_lines[] = {"1 2",         "1 2 3 4",    "1 2 x",     "0 16 16",       "16 -1 16",
                             "16 16 1.5",   "1e3 2 3",    "16,16,16",  "99999999999 1 1", "4096x4096x4096"};
  for (const char* bad : bad_lines) {
    const std::string text = std::string("# fine\n8 8 8\n") + bad + "\n16 16 16\n";
    std::string error;
    EXPECT_FALSE(parse_suite(text, "suite.txt", &error)) << bad;
    EXPECT_NE(error.find("suite.txt:3:"), std::string::npos) << error;
    EXPECT_NE(error.find(bad), std::string::npos) << error;  // quotes the offending line
  }
}

TEST(Suite, EmptySuiteAndUnknownNameAreErrors) {
  std::string error;
  EXPECT_FALSE(parse_suite("# only a comment\n\n", "empty.txt", &error));
  EXPECT_NE(error.find("no shapes"), std::string::npos);
  EXPECT_FALSE(load_suite("no-such-suite", &error));
  EXPECT_NE(error.find("llm"), std::string::npos) << error;  // lists what exists
}

// A directory opens as an ifstream on Linux and reads as nothing: it must be named as a
// directory, not reported as a suite with "no shapes".
TEST(Suite, DirectoryIsNamedAsSuch) {
  std::string error;
  EXPECT_FALSE(load_suite(TILEGEMM_SOURCE_DIR "/bench/suites", &error));
  EXPECT_NE(error.find("is a directory"), std::string::npos) << error;
  EXPECT_EQ(error.find("no shapes"), std::string::npos) << error;
}

// An endless file (/dev/zero) or a huge one is refused by size, not read until std::bad_alloc.
TEST(Suite, FileLongerThanTheBoundIsRefused) {
  std::string error;
  EXPECT_FALSE(load_suite("/dev/zero", &error));
  EXPECT_NE(error.find(std::to_string(kMaxSuiteBytes)), std::string::npos) << error;

  const std::string path = testing::TempDir() + "tilegemm_long_suite.txt";
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    const std::string line = "128 128 128\n";
    for (size_t written = 0; written <= kMaxSuiteBytes; written += line.size()) f << line;
  }
  EXPECT_FALSE(load_suite(path, &error));
  EXPECT_NE(error.find("longer than"), std::string::npos) << error;
  {  // a short file at the same path still loads
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << "128 128 128\n";
  }
  EXPECT_TRUE(load_suite(path, &error)) << error;
  std::remove(path.c_str());
}

TEST(Shape, ParsesMxNxK) {
  std::string error;
  auto s = parse_shape("4096x2112x7168", &error);
  ASSERT_TRUE(s) << error;
  EXPECT_EQ(*s, (Shape{4096, 2112, 7168}));
  s = parse_shape("1,576,7168", &error);
  ASSERT_TRUE(s) << error;
  EXPECT_EQ(*s, (Shape{1, 576, 7168}));
  for (const char* bad : {"4096x4096", "4096x4096x", "ax1x1", "0x1x1", "1x1x1x1", ""})
    EXPECT_FALSE(parse_shape(bad, &error)) << bad;
}

// DeepGEMM's names: A "n" = K-major, B "t" = K-major; "nt" is the suite layout.
TEST(Layout, NamesRoundTrip) {
  Major a, b;
  ASSERT_TRUE(parse_layout("nt", &a, &b));
  EXPECT_EQ(a, Major::k_major);
  EXPECT_EQ(b, Major::k_major);
  ASSERT_TRUE(parse_layout("TN", &a, &b));
  EXPECT_EQ(a, Major::mn_major);
  EXPECT_EQ(b, Major::mn_major);
  for (const char* name : {"nt", "nn", "tn", "tt"}) {
    ASSERT_TRUE(parse_layout(name, &a, &b));
    EXPECT_STREQ(layout_name(a, b), name);
  }
  EXPECT_FALSE(parse_layout("nx", &a, &b));
  EXPECT_FALSE(parse_layout("ntt", &a, &b));
}

TEST(Runner, SampleRowsSpreadOverMIncludingTheEnds) {
  const auto all = sample_rows(100, 128);
  ASSERT_EQ(all.size(), 100u);
  EXPECT_EQ(all.front(), 0);
  EXPECT_EQ(all.back(), 99);
  const auto rows = sample_rows(4096, 128);
  ASSERT_EQ(rows.size(), 128u);
  EXPECT_EQ(rows.front(), 0);
  EXPECT_EQ(rows.back(), 4095);
  for (size_t i = 1; i < rows.size(); ++i) {
    EXPECT_GT(rows[i], rows[i - 1]);
    EXPECT_LE(rows[i] - rows[i - 1], 33);  // even spread: no 128-row tile is skipped
  }
  // Every 128-row M tile of a 4096-row output has a checked row in it.
  std::vector<bool> tile_hit(4096 / 128, false);
  for (int64_t r : rows) tile_hit[r / 128] = true;
  for (bool hit : tile_hit) EXPECT_TRUE(hit);
  EXPECT_TRUE(sample_rows(0, 128).empty());
}

TEST(Runner, MinBytesAndDescribe) {
  Case c;
  c.m = 1;
  c.n = 7168;
  c.k = 16384;
  EXPECT_DOUBLE_EQ(min_bytes(c), 2.0 * (16384 + 7168.0 * 16384) + 2.0 * 7168);
  c.out = DType::fp32;
  c.with_c = true;
  EXPECT_DOUBLE_EQ(min_bytes(c), 2.0 * (16384 + 7168.0 * 16384) + 2 * 4.0 * 7168);
  EXPECT_EQ(describe(Case{4096, 4096, 4096}), "4096x4096x4096 nt bf16");
}

TEST(Runner, RefusesBadCasesBeforeTouchingTheGpu) {
  Case c;
  c.m = 0;
  c.n = 16;
  c.k = 16;
  bool called = false;
  const Launcher never = [&](const GemmArgs&) {
    called = true;
    return Status::success();
  };
  const CaseResult r = run_case(c, never, RunOptions{});
  EXPECT_FALSE(r.setup.ok());
  EXPECT_FALSE(r.passed());
  EXPECT_FALSE(called);
  EXPECT_FALSE(r.candidate.timed);
}

// bench --neighbours: the aligned neighbour rounds each dimension to the nearest multiple of 8
// (a tie down, never below 8), and an aligned shape is its own.
TEST(Suite, AlignedNeighbourRoundsEachDimensionToTheNearestMultipleOf8) {
  EXPECT_EQ(aligned_neighbour({4001, 3999, 2001}), (Shape{4000, 4000, 2000}));
  EXPECT_EQ(aligned_neighbour({2049, 6001, 4097}), (Shape{2048, 6000, 4096}));
  EXPECT_EQ(aligned_neighbour({3001, 5003, 1027}), (Shape{3000, 5000, 1024}));
  EXPECT_EQ(aligned_neighbour({5003, 2999, 777}), (Shape{5000, 3000, 776}));
  EXPECT_EQ(aligned_neighbour({12, 13, 1}), (Shape{8, 16, 8}));  // 12: a tie, down
  const Shape aligned{4096, 576, 7168};
  EXPECT_EQ(aligned_neighbour(aligned), aligned);
  for (int64_t x = 1; x < 200; ++x) {
    const Shape nb = aligned_neighbour({x, x, x});
    EXPECT_EQ(nb.m % 8, 0);
    EXPECT_GE(nb.m, 8);
    EXPECT_LE(nb.m > x ? nb.m - x : x - nb.m, x < 8 ? 7 : 4) << x;
  }
}

}  // namespace
}  // namespace tilegemm::bench
