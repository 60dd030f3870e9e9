// select_path's rule (api/fast_path.hpp): which validated problems go to the SM90 kernel, and the
// fast path's tile-configuration choice (kernels/sm90/gemm_launch.hpp). No GPU: pointers are fake
// addresses, nothing is dereferenced.
#include <gtest/gtest.h>

#include <cstdint>

#include "api/fast_path.hpp"
#include "kernels/sm90/gemm_launch.hpp"

namespace tilegemm {
namespace {

const void* fake_ptr(uintptr_t addr) { return reinterpret_cast<const void*>(addr); }

// An eligible NT problem: M x N x K, packed leading dimensions (multiples of 8), 256-B aligned.
GemmArgs nt(int64_t m, int64_t n, int64_t k) {
  GemmArgs g;
  g.a = MatrixRef{fake_ptr(0x10000), m, k, k, DType::bf16, Major::k_major};
  g.b = MatrixRef{fake_ptr(0x90000000), n, k, k, DType::bf16, Major::k_major};
  g.d = MatrixRef{fake_ptr(0x190000000), m, n, n, DType::bf16, row_major};
  return g;
}

TEST(FastPathRule, EligibleNtProblems) {
  EXPECT_TRUE(detail::sm90_eligible(nt(1, 8, 8)));
  EXPECT_TRUE(detail::sm90_eligible(nt(4096, 4096, 4104)));
  EXPECT_TRUE(detail::sm90_eligible(nt(777, 256, 64)));
  GemmArgs g = nt(129, 264, 72);
  g.a.ld = 80;
  g.b.ld = 80;
  g.d.ld = 272;
  EXPECT_TRUE(detail::sm90_eligible(g)) << detail::sm90_ineligible_reason(g);
  g.alpha = -3.5f;  // alpha is applied in the epilogue
  EXPECT_TRUE(detail::sm90_eligible(g));
}

TEST(FastPathRule, CIsAllowedOnlyWithBetaZero) {
  GemmArgs g = nt(128, 128, 64);
  const MatrixRef c = g.d;
  g.c = &c;
  g.beta = 0.0f;
  EXPECT_TRUE(detail::sm90_eligible(g));
  g.beta = 1.0f;
  EXPECT_FALSE(detail::sm90_eligible(g));
  EXPECT_NE(detail::sm90_ineligible_reason(g).find("beta"), std::string::npos);
}

TEST(FastPathRule, EachBrokenRuleNamesItsArgument) {
  struct Breaker {
    const char* argument;
    void (*apply)(GemmArgs&);
  };
  const Breaker breakers[] = {
      {"a.dtype", [](GemmArgs& g) { g.a.dtype = DType::fp32; }},
      {"d.dtype", [](GemmArgs& g) { g.d.dtype = DType::fp32; }},
      {"a.major", [](GemmArgs& g) { g.a.major = Major::mn_major; }},
      {"b.major", [](GemmArgs& g) { g.b.major = Major::mn_major; }},
      {"d.major", [](GemmArgs& g) { g.d.major = col_major; }},
      {"K", [](GemmArgs& g) { g.a.cols = g.b.cols = 0; }},
      {"K", [](GemmArgs& g) { g.a.cols = g.b.cols = 60; }},  // ld stays 64
      {"a.ld", [](GemmArgs& g) { g.a.ld = 68; }},
      {"b.ld", [](GemmArgs& g) { g.b.ld = 65; }},
      {"d.ld", [](GemmArgs& g) { g.d.ld = 132; }},
      {"a.ptr", [](GemmArgs& g) { g.a.ptr = fake_ptr(0x10002); }},
      {"b.ptr", [](GemmArgs& g) { g.b.ptr = fake_ptr(0x90000008); }},
      {"d.ptr", [](GemmArgs& g) { g.d.ptr = fake_ptr(0x190000004); }},
      {"M", [](GemmArgs& g) { g.a.rows = g.d.rows = int64_t(1) << 31; }},
  };
  for (const Breaker& b : breakers) {
    GemmArgs g = nt(128, 128, 64);
    b.apply(g);
    const std::string reason = detail::sm90_ineligible_reason(g);
    EXPECT_FALSE(reason.empty()) << b.argument;
    EXPECT_EQ(reason.rfind(b.argument, 0), 0u) << "reason '" << reason << "' should start with " << b.argument;
  }
}

TEST(FastPathRule, TileConfigChoice) {
  using sm90::TileConfig;
  constexpr int kSms = 132;
  // M <= 64: 64-row tiles.
  EXPECT_EQ(sm90::choose_tile_config(1, 7168, kSms), TileConfig::t64x128);
  EXPECT_EQ(sm90::choose_tile_config(64, 100000, kSms), TileConfig::t64x128);
  // Enough 128x256 tiles for every SM: 32 x 16 = 512 >= 132.
  EXPECT_EQ(sm90::choose_tile_config(4096, 4096, kSms), TileConfig::t128x256);
  EXPECT_EQ(sm90::choose_tile_config(8192, 8192, kSms), TileConfig::t128x256);
  // 4096 x 576: 128 tiles of 128x144 fill one wave (128x192: 96 tiles, 36 SMs idle; 128x128: 2 waves).
  EXPECT_EQ(sm90::choose_tile_config(4096, 576, kSms), TileConfig::t128x144);
  // 4096 x 2112: 288 tiles of 128x256 = 3 waves; 352 of 128x192 = 3 waves; 384 of 128x176 = 3 waves
  // of the smallest tiles (2.91 waves full).
  EXPECT_EQ(sm90::choose_tile_config(4096, 2112, kSms), TileConfig::t128x176);
  // The suite's wide shapes keep 128x256.
  EXPECT_EQ(sm90::choose_tile_config(4096, 7168, kSms), TileConfig::t128x256);
  EXPECT_EQ(sm90::choose_tile_config(4096, 24576, kSms), TileConfig::t128x256);
  EXPECT_EQ(sm90::choose_tile_config(6144, 6144, kSms), TileConfig::t128x256);
  // M = 128, N = 7168: one wave whatever the tile: the smallest tile makes the most CTAs.
  EXPECT_EQ(sm90::choose_tile_config(128, 7168, kSms), TileConfig::t64x128);
  // Clusters: 128x256 with an even number of 128-row blocks only.
  EXPECT_TRUE(sm90::uses_cluster_pair(TileConfig::t128x256, 4096));
  EXPECT_TRUE(sm90::uses_cluster_pair(TileConfig::t128x256, 129));   // 2 blocks
  EXPECT_FALSE(sm90::uses_cluster_pair(TileConfig::t128x256, 777));  // 7 blocks
  EXPECT_FALSE(sm90::uses_cluster_pair(TileConfig::t128x128, 4096));
  EXPECT_TRUE(sm90::uses_cluster_pair(TileConfig::t128x192, 4096));
  EXPECT_TRUE(sm90::uses_cluster_pair(TileConfig::t128x144, 4096));
  EXPECT_FALSE(sm90::uses_cluster_pair(TileConfig::t128x176, 777));
}

}  // namespace
}  // namespace tilegemm
