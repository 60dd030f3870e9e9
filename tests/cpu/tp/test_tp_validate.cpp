// Every rule of the tensor-parallel calls, on the host: the first broken rule comes back naming
// its argument (no GPU, no NCCL: validate_* are the checks run_* make before anything else).
#include <gtest/gtest.h>

#include <cstdint>

#include "tp/tp_gemm.hpp"

namespace tilegemm::tp {
namespace {

// Fake device addresses: validate never dereferences them.
void* at(uintptr_t a) { return reinterpret_cast<void*>(a); }

constexpr int64_t kM = 1000, kN = 512, kK = 256;

AllGatherGemmArgs good_ag(int rank, int world) {
  AllGatherGemmArgs g;
  g.m = kM;
  const RowRange own = chunk_rows(kM, world, rank);
  g.a_shard = MatrixRef{at(0x100000), own.size(), kK, kK, DType::bf16, Major::k_major};
  g.a_gathered = MutMatrixRef{at(0x1000000), kM, kK, kK, DType::bf16, Major::k_major};
  g.b = MatrixRef{at(0x2000000), kN, kK, kK, DType::bf16, Major::k_major};
  g.d = MutMatrixRef{at(0x3000000), kM, kN, kN, DType::bf16, Major::k_major};
  return g;
}

GemmReduceScatterArgs good_rs(int rank, int world) {
  GemmReduceScatterArgs g;
  const RowRange own = chunk_rows(kM, world, rank);
  g.a = MatrixRef{at(0x100000), kM, kK, kK, DType::bf16, Major::k_major};
  g.b = MatrixRef{at(0x1000000), kN, kK, kK, DType::bf16, Major::k_major};
  g.d = MutMatrixRef{at(0x2000000), own.size(), kN, kN, DType::fp32, Major::k_major};
  return g;
}

TEST(TpChunks, CutIsFloorDividedAndCoversEveryRow) {
  for (int w : {1, 2, 3, 7, 8}) {
    int64_t next = 0;
    for (int c = 0; c < w; ++c) {
      const RowRange r = chunk_rows(1001, w, c);
      EXPECT_EQ(r.begin, next);
      EXPECT_EQ(r.begin, int64_t(c) * 1001 / w);
      next = r.end;
    }
    EXPECT_EQ(next, 1001);
  }
}

TEST(TpValidate, GoodArgumentsPass) {
  for (int w : {1, 2, 3, 8})
    for (int r = 0; r < w; ++r) {
      EXPECT_TRUE(detail::validate_all_gather_gemm(good_ag(r, w), r, w).ok()) << r << "/" << w;
      EXPECT_TRUE(detail::validate_gemm_reduce_scatter(good_rs(r, w), r, w).ok()) << r << "/" << w;
    }
  // The own chunk may live inside a_gathered (an in-place all-gather).
  AllGatherGemmArgs g = good_ag(1, 4);
  g.a_shard.ptr = static_cast<const uint8_t*>(g.a_gathered.ptr) + chunk_rows(kM, 4, 1).begin * kK * 2;
  EXPECT_TRUE(detail::validate_all_gather_gemm(g, 1, 4).ok());
  // No a_gathered: the call allocates its own.
  g = good_ag(0, 2);
  g.a_gathered = {};
  EXPECT_TRUE(detail::validate_all_gather_gemm(g, 0, 2).ok());
}

void expect_rejects(const Status& s, const std::string& argument, const std::string& words) {
  EXPECT_EQ(s.code, ErrorCode::invalid_argument) << s.message;
  EXPECT_EQ(s.argument, argument) << s.message;
  EXPECT_NE(s.message.find(words), std::string::npos) << s.message;
}

TEST(TpValidate, AllGatherRulesNameTheirArgument) {
  const int w = 3, r = 1;
  AllGatherGemmArgs g = good_ag(r, w);
  g.a_shard.rows += 1;
  expect_rejects(detail::validate_all_gather_gemm(g, r, w), "a_shard.rows", "chunk has 333 rows");
  g = good_ag(r, w);
  g.a_shard.ld = kK + 8;
  expect_rejects(detail::validate_all_gather_gemm(g, r, w), "a_shard.ld", "contiguous");
  g = good_ag(r, w);
  g.a_shard.major = Major::mn_major;
  expect_rejects(detail::validate_all_gather_gemm(g, r, w), "a_shard.major", "k_major");
  g = good_ag(r, w);
  g.a_shard.dtype = DType::fp32;
  expect_rejects(detail::validate_all_gather_gemm(g, r, w), "a_shard.dtype", "bf16");
  g = good_ag(r, w);
  g.a_shard.ptr = at(0x100001);
  expect_rejects(detail::validate_all_gather_gemm(g, r, w), "a_shard", "aligned");
  g = good_ag(r, w);
  g.a_gathered.rows = kM - 1;
  expect_rejects(detail::validate_all_gather_gemm(g, r, w), "a_gathered.rows", "999");
  g = good_ag(r, w);
  g.a_shard.ptr = static_cast<const uint8_t*>(g.a_gathered.ptr) + 64;  // inside, but not its chunk
  expect_rejects(detail::validate_all_gather_gemm(g, r, w), "a_shard", "own chunk");
  g = good_ag(r, w);
  g.d.rows = kM + 1;  // D must have all M rows: gemm()'s own rule, through the gathered problem
  const Status s = detail::validate_all_gather_gemm(g, r, w);
  EXPECT_EQ(s.code, ErrorCode::invalid_argument);
  EXPECT_NE(s.message.find("gathered problem"), std::string::npos) << s.message;
  g = good_ag(r, w);
  g.d.ptr = const_cast<void*>(g.a_shard.ptr);
  expect_rejects(detail::validate_all_gather_gemm(g, r, w), "d", "overlaps a_shard");
  g = good_ag(r, w);
  g.m = -1;
  expect_rejects(detail::validate_all_gather_gemm(g, r, w), "m", ">= 0");
  g = good_ag(r, w);
  g.overlap.reserved_sms = -2;
  expect_rejects(detail::validate_all_gather_gemm(g, r, w), "overlap.reserved_sms", ">= 0");
  expect_rejects(detail::validate_all_gather_gemm(good_ag(0, 1), 0, 65), "comm", "1 to 64");
  expect_rejects(detail::validate_all_gather_gemm(good_ag(0, 2), 2, 2), "comm", "outside");
}

TEST(TpValidate, ReduceScatterRulesNameTheirArgument) {
  const int w = 4, r = 3;
  GemmReduceScatterArgs g = good_rs(r, w);
  g.partial_dtype = DType::fp8_e4m3;
  expect_rejects(detail::validate_gemm_reduce_scatter(g, r, w), "partial_dtype", "bf16 or fp32");
  g = good_rs(r, w);
  g.d.rows = kM;  // all rows instead of this rank's 250
  Status s = detail::validate_gemm_reduce_scatter(g, r, w);
  EXPECT_EQ(s.code, ErrorCode::invalid_argument);
  EXPECT_NE(s.message.find("this rank's rows"), std::string::npos) << s.message;
  g = good_rs(r, w);
  g.b.cols = kK + 1;  // K of A and B disagree
  s = detail::validate_gemm_reduce_scatter(g, r, w);
  EXPECT_EQ(s.code, ErrorCode::invalid_argument);
  EXPECT_NE(s.message.find("partial product"), std::string::npos) << s.message;
  g = good_rs(r, w);
  MatrixRef c{at(0x4000000), chunk_rows(kM, w, r).size() + 1, kN, kN, DType::bf16, Major::k_major};
  g.c = &c;
  g.beta = 1.0f;
  s = detail::validate_gemm_reduce_scatter(g, r, w);
  EXPECT_EQ(s.code, ErrorCode::invalid_argument);
  EXPECT_EQ(s.argument.substr(0, 1), "c") << s.message;
}

}  // namespace
}  // namespace tilegemm::tp
