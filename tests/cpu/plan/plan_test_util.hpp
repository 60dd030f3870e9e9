// Shared by the planner tests: the 24-shape LLM benchmark suite and a problem builder.
#pragma once

#include <array>
#include <cstdint>

#include "plan/cost_model.hpp"

namespace tilegemm::plan::test {

struct Shape {
  int64_t m, n, k;
};

// The llm suite (bench/suites/llm.txt): squares 4096, 6144, 8192; M in {1, 128, 4096} x seven (N, K).
inline constexpr std::array<Shape, 24> kSuite = {{
    {4096, 4096, 4096}, {6144, 6144, 6144}, {8192, 8192, 8192},
    {1, 2112, 7168}, {1, 576, 7168}, {1, 24576, 1536}, {1, 32768, 512},
    {1, 7168, 16384}, {1, 4096, 7168}, {1, 7168, 2048},
    {128, 2112, 7168}, {128, 576, 7168}, {128, 24576, 1536}, {128, 32768, 512},
    {128, 7168, 16384}, {128, 4096, 7168}, {128, 7168, 2048},
    {4096, 2112, 7168}, {4096, 576, 7168}, {4096, 24576, 1536}, {4096, 32768, 512},
    {4096, 7168, 16384}, {4096, 4096, 7168}, {4096, 7168, 2048},
}};

inline Problem nt_problem(int64_t m, int64_t n, int64_t k, DType out = DType::bf16, bool accumulate = false) {
  Problem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.out = out;
  p.accumulate = accumulate;
  return p;
}

// A Config with only the tile and cluster set (the rest at their defaults), as a user's --config.
inline Config tile_config(int bm, int bn, int cluster_m = 1, int cluster_n = 1) {
  Config c;
  c.bm = bm;
  c.bn = bn;
  c.cluster_m = cluster_m;
  c.cluster_n = cluster_n;
  return c;
}

}  // namespace tilegemm::plan::test
