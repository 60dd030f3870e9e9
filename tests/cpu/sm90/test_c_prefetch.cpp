// The consumers' L2 prefetch of C (sm90/gemm/params.hpp: c_share, c_share_block; mainloop.cuh,
// prefetch_c_share): the blocks it names hold a byte of the consumer's part of C, and every byte
// of that part lies in a named block, for row- and column-major C, bf16 and fp32, tiles inside and
// past M and N, odd leading dimensions and base offsets.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>

#include "sm90/gemm/params.hpp"

namespace tilegemm::sm90 {
namespace {

TEST(CPrefetch, NamesExactlyTheBlocksThatHoldTheShare) {
  std::mt19937 rng(20261206);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int checked = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const bool col = pick(0, 1) == 1;
    const int elem = pick(0, 1) == 1 ? 4 : 2;
    const int m = pick(1, 700), n = pick(1, 700);
    const int bn = 8 * pick(1, 32);
    const int rows = 64 * pick(1, 2);
    const int r0 = 64 * pick(0, (m + 63) / 64);       // sometimes wholly past M
    const int n0 = bn * pick(0, (n + bn - 1) / bn);  // sometimes wholly past N
    const int64_t ldc = (col ? m : n) + pick(0, 40);  // any leading dimension from the minimum
    const uint64_t base = 4096 + uint64_t(elem) * uint64_t(pick(0, 200));
    const CShare sh = c_share(m, n, r0, rows, n0, bn, col, elem);
    const int rows_in = std::min(rows, m - r0), cols_in = std::min(bn, n - n0);
    if (rows_in <= 0 || cols_in <= 0) {
      EXPECT_EQ(sh.lines, 0) << "trial " << trial;
      continue;
    }
    std::set<uint64_t> named;
    for (int i = 0; i < sh.lines * sh.per_line; ++i) {
      const uint64_t b = c_share_block(sh, i, base, ldc, r0, n0, col, elem);
      if (b != 0) named.insert(b);
    }
    // Every byte of the share (element (r, c) of the tile) lies in a named block ...
    std::set<uint64_t> needed;
    for (int r = r0; r < r0 + rows_in; ++r)
      for (int c = n0; c < n0 + cols_in; ++c) {
        const uint64_t at = base + uint64_t(col ? int64_t(c) * ldc + r : int64_t(r) * ldc + c) * uint64_t(elem);
        for (int byte = 0; byte < elem; ++byte) needed.insert((at + uint64_t(byte)) & ~uint64_t(127));
      }
    // ... and every named block holds one.
    ASSERT_EQ(named, needed) << "trial " << trial << ": " << (col ? "col" : "row") << "-major, M " << m << " N " << n
                             << " r0 " << r0 << " rows " << rows << " n0 " << n0 << " bn " << bn << " ldc " << ldc
                             << " elem " << elem << " base " << base;
    ++checked;
  }
  EXPECT_GT(checked, 1500);  // (about 60 % of the draws have a non-empty share)
}

}  // namespace
}  // namespace tilegemm::sm90
