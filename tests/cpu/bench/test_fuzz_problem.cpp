// The fuzz generator (bench/fuzz_problem.hpp): the same seed draws the same problems; 3000 draws
// reach every edge size, layout, output dtype, C mode, padded and odd leading dimension and odd
// pointer offset; every problem is valid (validate() accepts it, pointers keep their element's
// alignment); the work cap and the options hold.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "api/matrix_layout.hpp"
#include "bench/fuzz_problem.hpp"
#include "core/layout_names.hpp"

namespace tilegemm::bench {
namespace {

// 256-B aligned, far apart: what cudaMalloc gives the fuzz runner.
void* base(uintptr_t i) { return reinterpret_cast<void*>(i << 41); }

std::string key(const FuzzProblem& p) { return describe(p) + " seed " + std::to_string(p.data_seed); }

std::vector<FuzzProblem> draw(uint64_t seed, int64_t count, const FuzzOptions& o = {}) {
  std::vector<FuzzProblem> v;
  for (int64_t i = 0; i < count; ++i) v.push_back(draw_problem(seed, i, o));
  return v;
}

TEST(FuzzProblem, EdgeDimsArePowersOfTwoAndTheirNeighbours) {
  const std::vector<int64_t> e = edge_dims(5000);
  for (int64_t x : {1, 2, 3, 7, 8, 9, 63, 64, 65, 127, 128, 129, 255, 256, 257, 4095, 4096, 4097, 5000})
    EXPECT_TRUE(std::count(e.begin(), e.end(), x) == 1) << x;
  EXPECT_TRUE(std::is_sorted(e.begin(), e.end()));
  EXPECT_EQ(e.back(), 5000);
  EXPECT_EQ(edge_dims(100).back(), 100);
  EXPECT_EQ(edge_dims(1), std::vector<int64_t>{1});
}

TEST(FuzzProblem, SameSeedSameProblemsAndIndexIndependent) {
  const std::vector<FuzzProblem> a = draw(7, 200), b = draw(7, 200), c = draw(8, 200);
  int differ = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(key(a[i]), key(b[i])) << i;
    EXPECT_EQ(a[i].index, static_cast<int64_t>(i));
    differ += key(a[i]) != key(c[i]) ? 1 : 0;
  }
  EXPECT_GE(differ, 195) << "seed 8 should draw other problems than seed 7";
  // Problem 150 alone (a rerun line's --first 150 --count 1) is problem 150 of the sequence.
  EXPECT_EQ(key(draw_problem(7, 150, {})), key(a[150]));
}

TEST(FuzzProblem, ThreeThousandDrawsCoverTheEdgesAndEveryMode) {
  const FuzzOptions o;
  const std::vector<FuzzProblem> ps = draw(1, 3000, o);
  std::set<int64_t> seen[3];
  std::map<std::string, int> layouts, outs, c_modes, d_majors, c_majors;
  int lds_packed = 0, lds_pad8 = 0, lds_odd = 0, off_zero = 0, off_unaligned16 = 0, off_aligned16 = 0, beyond_4096 = 0;
  for (const FuzzProblem& p : ps) {
    const int64_t dims[3] = {p.m, p.n, p.k};
    for (int d = 0; d < 3; ++d) {
      ASSERT_GE(dims[d], 1);
      ASSERT_LE(dims[d], o.max_dim);
      seen[d].insert(dims[d]);
      beyond_4096 += dims[d] > 4096 ? 1 : 0;
    }
    ASSERT_LE(static_cast<double>(p.m) * p.n * p.k, static_cast<double>(o.max_macs)) << describe(p);
    ++layouts[layout_name(p.a_major, p.b_major)];
    ++outs[to_string(p.out)];
    ++c_modes[c_mode_name(p.c_mode)];
    ++d_majors[p.d_major == row_major ? "row" : "col"];
    if (p.c_mode == CMode::separate) ++c_majors[p.c_major == row_major ? "row" : "col"];
    EXPECT_NE(p.alpha, 0.0f);
    if (p.c_mode == CMode::separate || p.c_mode == CMode::in_place) EXPECT_NE(p.beta, 0.0f) << describe(p);
    if (p.c_mode == CMode::none || p.c_mode == CMode::unread) EXPECT_EQ(p.beta, 0.0f) << describe(p);

    MatrixRef c;
    const GemmArgs g = fuzz_args(p, base(1), base(2), base(3), base(4), &c);
    const Status s = validate(g);
    ASSERT_TRUE(s.ok()) << describe(p) << ": " << s.message;
    std::vector<MatrixRef> ms = {g.a, g.b, g.d};
    if (g.c) ms.push_back(*g.c);
    for (const MatrixRef& m : ms) {
      const int64_t line = layout::inner_extent(m);
      lds_packed += m.ld == line ? 1 : 0;
      lds_pad8 += m.ld > line && (m.ld - line) % 8 == 0 ? 1 : 0;
      lds_odd += m.ld > line && m.ld % 8 != 0 ? 1 : 0;
      const auto addr = reinterpret_cast<uintptr_t>(m.ptr);
      EXPECT_EQ(addr % dtype_bytes(m.dtype), 0u) << describe(p);  // element alignment, always
      const uintptr_t off = addr % 256 - (kGuardElements * dtype_bytes(m.dtype)) % 256;
      off_zero += off == 0 ? 1 : 0;
      off_unaligned16 += addr % 16 != 0 ? 1 : 0;
      off_aligned16 += off != 0 && addr % 16 == 0 ? 1 : 0;
    }
    if (p.c_mode == CMode::in_place) {  // C is D exactly
      ASSERT_NE(g.c, nullptr);
      EXPECT_EQ(g.c->ptr, g.d.ptr);
      EXPECT_EQ(g.c->ld, g.d.ld);
      EXPECT_EQ(g.c->major, g.d.major);
      EXPECT_EQ(g.c->dtype, g.d.dtype);
    }
    if (p.c_mode == CMode::none) EXPECT_EQ(g.c, nullptr);
  }
  for (int d = 0; d < 3; ++d)
    for (int64_t edge : {1, 7, 8, 63, 64, 65, 127, 128, 129, 255, 256, 257, 4096, 5000})
      EXPECT_TRUE(seen[d].count(edge)) << "dimension " << "MNK"[d] << " never drew " << edge;
  EXPECT_GE(beyond_4096, 100) << "the cap must still let single dimensions grow large";
  for (const char* l : {"nt", "nn", "tn", "tt"}) EXPECT_GE(layouts[l], 600) << l;
  for (const char* d : {"bf16", "fp32"}) EXPECT_GE(outs[d], 1300) << d;
  for (const char* c : {"none", "separate", "in_place", "unread"}) EXPECT_GE(c_modes[c], 300) << c;
  for (const char* m : {"row", "col"}) {
    EXPECT_GE(d_majors[m], 600) << m;
    EXPECT_GE(c_majors[m], 300) << m;
  }
  EXPECT_GE(lds_packed, 1000);
  EXPECT_GE(lds_pad8, 1000);
  EXPECT_GE(lds_odd, 1000);
  EXPECT_GE(off_zero, 1000);
  EXPECT_GE(off_unaligned16, 1000);
  EXPECT_GE(off_aligned16, 1000);
}

TEST(FuzzProblem, OptionsAreRespected) {
  FuzzOptions o;
  o.max_dim = 300;
  o.max_macs = 1000000;
  o.layouts = {{Major::k_major, Major::mn_major}};  // nn only
  for (const FuzzProblem& p : draw(3, 500, o)) {
    EXPECT_LE(std::max({p.m, p.n, p.k}), 300);
    EXPECT_LE(p.m * p.n * p.k, 1000000) << describe(p);
    EXPECT_EQ(std::string(layout_name(p.a_major, p.b_major)), "nn");
  }
  o.max_dim = 1;
  for (const FuzzProblem& p : draw(3, 20, o)) EXPECT_EQ(p.m * p.n * p.k, 1);
}

TEST(FuzzProblem, PlacementsHaveGuardsOnBothSides) {
  for (const FuzzProblem& p : draw(5, 300)) {
    const FuzzPlacements pl = fuzz_placements(p);
    MatrixRef c;
    const GemmArgs g = fuzz_args(p, base(1), base(2), base(3), base(4), &c);
    const MatrixRef d = g.d;
    const std::pair<const MatrixRef*, const Placement*> pairs[] = {{&g.a, &pl.a}, {&g.b, &pl.b}, {&d, &pl.d}};
    for (const auto& [m, place] : pairs) {
      EXPECT_GE(place->first, kGuardElements);
      EXPECT_EQ(place->elements, place->first + layout::span_elements(*m) + kGuardElements);
    }
    const auto d_first = (reinterpret_cast<uintptr_t>(g.d.ptr) - (uintptr_t{4} << 41)) / dtype_bytes(p.out);
    EXPECT_EQ(static_cast<int64_t>(d_first), pl.d.first);
    EXPECT_EQ(pl.d.first, kGuardElements + p.off_d);
  }
}

TEST(FuzzProblem, DescriptionsCarryEveryField) {
  FuzzProblem p;
  p.m = 129;
  p.n = 257;
  p.k = 65;
  p.b_major = Major::mn_major;
  p.out = DType::fp32;
  p.d_major = col_major;
  p.c_mode = CMode::separate;
  p.alpha = 0.5f;
  p.beta = -1.0f;
  p.lda = 72;
  p.ldb = 257;
  p.ldc = 263;
  p.ldd = 130;
  p.off_a = 1;
  p.off_c = 3;
  p.off_d = 5;
  EXPECT_EQ(describe(p),
            "129x257x65 nn fp32 D:col lda 72 ldb 257 ldd 130 | C separate row ldc 263 | alpha 0.5 beta -1 | "
            "offsets a 1 b 0 c 3 d 5");
  EXPECT_EQ(explain_command(p),
            "tilegemm explain 129 257 65 --layout nn --out fp32 --d-major col --lda 72 --ldb 257 --ldd 130 --beta -1 "
            "--c-major row --ldc 263 --offset-c 3 --alpha 0.5 --offset-a 1 --offset-b 0 --offset-d 5");
}

}  // namespace
}  // namespace tilegemm::bench
