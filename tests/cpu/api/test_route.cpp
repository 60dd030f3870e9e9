// route() (api/route.hpp): which validated calls go to the sm90 kernel and which to the fallback,
// with the rule named; and operands whose rows start inside 32-B L2 sectors (plan::Problem::
// a_rows_sectored / b_rows_sectored false): what the time model charges for them and route()'s
// choice to repack them (plan::choose_row_repack). No GPU: pointers are fake addresses, nothing is
// dereferenced.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "api/route.hpp"
#include "api/sm90_launch.hpp"
#include "plan/config_spec.hpp"
#include "plan/cost_model.hpp"
#include "plan/device_profile.hpp"
#include "plan/planner.hpp"
#include "plan/tuning_cache.hpp"

namespace tilegemm {
namespace {

void* fake_ptr(uintptr_t addr) { return reinterpret_cast<void*>(addr); }

bool sm90(const GemmArgs& g) { return detail::route(g).path == detail::Path::sm90; }

// An eligible NT problem: M x N x K, packed leading dimensions (multiples of 8), 256-B aligned.
GemmArgs nt(int64_t m, int64_t n, int64_t k) {
  GemmArgs g;
  g.a = MatrixRef{fake_ptr(0x10000), m, k, k, DType::bf16, Major::k_major};
  g.b = MatrixRef{fake_ptr(0x90000000), n, k, k, DType::bf16, Major::k_major};
  g.d = MutMatrixRef{fake_ptr(0x190000000), m, n, n, DType::bf16, row_major};
  return g;
}

TEST(Route, EligibleNtProblems) {
  EXPECT_TRUE(sm90(nt(1, 8, 8)));
  EXPECT_TRUE(sm90(nt(4096, 4096, 4104)));
  EXPECT_TRUE(sm90(nt(777, 256, 64)));
  // The largest extents the kernel takes (plan::kMaxKernelExtent = 2^31 - 1024).
  EXPECT_TRUE(sm90(nt(plan::kMaxKernelExtent, 8, 8)));
  EXPECT_TRUE(sm90(nt(1, plan::kMaxKernelExtent, 8)));
  EXPECT_TRUE(sm90(nt(8, 8, plan::kMaxKernelExtent)));
  GemmArgs g = nt(129, 264, 72);
  g.a.ld = 80;
  g.b.ld = 80;
  g.d.ld = 272;
  EXPECT_TRUE(sm90(g)) << detail::route(g).reason;
  g.alpha = -3.5f;  // alpha is applied in the epilogue
  EXPECT_TRUE(sm90(g));
}

TEST(Route, CWithBetaRunsOnTheSm90KernelAndBetaZeroNeverReadsIt) {
  GemmArgs g = nt(128, 128, 64);
  const MatrixRef c = g.d;
  g.c = &c;
  g.beta = 0.0f;
  detail::Route r = detail::route(g);
  EXPECT_EQ(r.path, detail::Path::sm90);
  EXPECT_FALSE(r.problem.accumulate);
  EXPECT_EQ(r.args.c, nullptr) << "beta = 0: C is never read, so the kernel is not given it";
  g.beta = 1.0f;
  r = detail::route(g);
  EXPECT_EQ(r.path, detail::Path::sm90) << r.reason;
  EXPECT_TRUE(r.problem.accumulate);
  ASSERT_NE(r.args.c, nullptr);
  EXPECT_EQ(r.args.c->ptr, c.ptr);
  EXPECT_TRUE(r.packs.empty()) << "a row-major C is read in place";
}

// What still goes to the fallback, each with its rule named first.
TEST(Route, EachFallbackRuleNamesItsArgument) {
  struct Breaker {
    const char* argument;
    void (*apply)(GemmArgs&);
  };
  const Breaker breakers[] = {
      {"a.dtype", [](GemmArgs& g) { g.a.dtype = DType::fp32; }},
      {"b.dtype", [](GemmArgs& g) { g.b.dtype = DType::fp32; }},
      {"d.dtype", [](GemmArgs& g) { g.d.dtype = DType::fp8_e4m3; }},
      {"K", [](GemmArgs& g) { g.a.cols = g.b.cols = 0; }},
      {"M", [](GemmArgs& g) { g.a.rows = g.d.rows = int64_t(1) << 31; }},
      // Extents validate() takes (<= 2^31 - 1) but the kernel's int32 tile arithmetic does not.
      {"M", [](GemmArgs& g) { g.a.rows = g.d.rows = plan::kMaxKernelExtent + 1; }},
      {"N", [](GemmArgs& g) { g.b.rows = g.d.cols = g.d.ld = (int64_t(1) << 31) - 1; }},
      {"K", [](GemmArgs& g) { g.a.cols = g.b.cols = g.a.ld = g.b.ld = (int64_t(1) << 31) - 1; }},
  };
  for (const Breaker& b : breakers) {
    GemmArgs g = nt(128, 128, 64);
    b.apply(g);
    const detail::Route r = detail::route(g);
    EXPECT_EQ(r.path, detail::Path::fallback) << b.argument;
    EXPECT_EQ(r.reason.rfind(b.argument, 0), 0u) << "reason '" << r.reason << "' should start with " << b.argument;
  }
}

// What TMA cannot describe stays on the sm90 path: A or B repacked (the step names the argument
// and the rule), D written with plain stores.
TEST(Route, OddStridesAndOffsetsStayOnTheSm90Kernel) {
  struct Case {
    const char* argument;  // the route step names it
    void (*apply)(GemmArgs&);
    int packs;
  };
  const Case cases[] = {
      {"a.ld", [](GemmArgs& g) { g.a.ld = 68; }, 1},
      {"b.ld", [](GemmArgs& g) { g.b.ld = 65; }, 1},
      {"a.ptr", [](GemmArgs& g) { g.a.ptr = fake_ptr(0x10002); }, 1},
      {"b.ptr", [](GemmArgs& g) { g.b.ptr = fake_ptr(0x90000008); }, 1},
      {"d.ld", [](GemmArgs& g) { g.d.ld = 132; }, 0},
      {"d.ptr", [](GemmArgs& g) { g.d.ptr = fake_ptr(0x190000004); }, 0},
  };
  for (const Case& c : cases) {
    GemmArgs g = nt(128, 128, 64);
    c.apply(g);
    const detail::Route r = detail::route(g);
    ASSERT_EQ(r.path, detail::Path::sm90) << c.argument << ": " << r.reason;
    EXPECT_EQ(static_cast<int>(r.packs.size()), c.packs) << c.argument;
    bool named = false;
    for (const auto& step : r.notes) named = named || step.find(c.argument) != std::string::npos;
    EXPECT_TRUE(named) << c.argument << " is not named in the route's steps";
    for (const auto& pk : r.packs) {
      EXPECT_EQ(pk.ld % 8, 0);
      EXPECT_EQ(pk.offset % 256, 0u);
      EXPECT_EQ(pk.cols, 64);  // K-major lines of K
      EXPECT_EQ(pk.rows, 128);
    }
  }
  // D: no TMA store for an ld of 132 bf16 (264 B); pairs are still aligned (even ld, 4-B base).
  GemmArgs g = nt(128, 128, 64);
  g.d.ld = 132;
  EXPECT_FALSE(detail::route(g).problem.d_tma);
  EXPECT_TRUE(detail::route(g).problem.cd_pairs);
  g.d.ld = 133;
  EXPECT_FALSE(detail::route(g).problem.cd_pairs);
  g.d.ld = 128;
  g.d.ptr = fake_ptr(0x190000002);
  EXPECT_FALSE(detail::route(g).problem.cd_pairs);
  // Both A and B repacked: one workspace, the copies 256-B aligned one after the other, each line
  // padded to 128 B (64 bf16).
  g = nt(100, 60, 13);
  g.a.ld = 13;
  g.b.ld = 15;
  const detail::Route r = detail::route(g);
  ASSERT_EQ(r.packs.size(), 2u);
  EXPECT_EQ(r.packs[0].operand, detail::Pack::Operand::a);
  EXPECT_EQ(r.packs[0].ld, 64);
  EXPECT_EQ(r.packs[0].src_row, 13);
  EXPECT_EQ(r.packs[1].operand, detail::Pack::Operand::b);
  EXPECT_EQ(r.packs[1].offset, (100 * 64 * 2 + 255) / 256 * 256);
  EXPECT_EQ(r.pack_bytes, r.packs[1].offset + (60 * 64 * 2 + 255) / 256 * 256);
  MatrixRef c_copy;
  const GemmArgs launched = detail::launch_args(r, fake_ptr(0x700000000), &c_copy);
  EXPECT_EQ(launched.a.ptr, fake_ptr(0x700000000));
  EXPECT_EQ(launched.a.ld, 64);
  EXPECT_EQ(launched.b.ptr, fake_ptr(0x700000000 + r.packs[1].offset));
  EXPECT_EQ(launched.b.ld, 64);
  EXPECT_EQ(launched.d.ptr, g.d.ptr) << "D is never copied";
  // Both copies are zero past K = 13 up to their 64-element lines: the kernel runs K = 64, and the
  // planner plans that (the route says so); the call's own arguments keep K = 13.
  EXPECT_EQ(launched.a.cols, 64);
  EXPECT_EQ(launched.b.cols, 64);
  EXPECT_EQ(r.problem.k, 64);
  EXPECT_EQ(r.args.a.cols, 13);
  bool said = false;
  for (const auto& step : r.notes) said = said || step.find("K runs to 64") != std::string::npos;
  EXPECT_TRUE(said);
  // One copy only: the other operand is read in place, with nothing past K to read: K stays.
  g = nt(100, 60, 16);
  g.a.ld = 17;
  const detail::Route one = detail::route(g);
  ASSERT_EQ(one.packs.size(), 1u);
  EXPECT_EQ(detail::launch_args(one, fake_ptr(0x700000000), &c_copy).a.cols, 16);
  EXPECT_EQ(one.problem.k, 16);
  // Both copied but MN-major lines (their padding runs along M and N, not K): K stays.
  g = nt(100, 60, 13);
  g.a.major = g.b.major = Major::mn_major;
  g.a.ld = 101;
  g.b.ld = 61;
  const detail::Route mn = detail::route(g);
  ASSERT_EQ(mn.path, detail::Path::sm90) << mn.reason;
  EXPECT_EQ(mn.problem.k, 13);
}

// A column-major D is the row-major Dᵀ = B·Aᵀ: the operands swap, each keeps its storage; a C
// stored in the other major from D is repacked (transposed) into D's order.
TEST(Route, ColumnMajorDIsTheTransposedProblem) {
  GemmArgs g = nt(100, 300, 64);
  g.a.major = Major::mn_major;
  g.a.ld = 104;
  g.d.major = col_major;
  g.d.ld = 104;
  const MatrixRef c{fake_ptr(0x290000000), 100, 300, 304, DType::bf16, row_major};
  g.c = &c;
  g.beta = 0.5f;
  const detail::Route r = detail::route(g);
  ASSERT_EQ(r.path, detail::Path::sm90) << r.reason;
  EXPECT_TRUE(r.transposed);
  EXPECT_EQ(r.problem.m, 300);
  EXPECT_EQ(r.problem.n, 100);
  EXPECT_EQ(r.problem.a_major, Major::k_major) << "B [N, K] K-major is the new A";
  EXPECT_EQ(r.problem.b_major, Major::mn_major) << "A MN-major is the new B";
  EXPECT_EQ(r.args.a.ptr, g.b.ptr);
  EXPECT_EQ(r.args.b.ptr, g.a.ptr);
  EXPECT_EQ(r.args.d.rows, 300);
  EXPECT_EQ(r.args.d.cols, 100);
  EXPECT_EQ(r.args.d.major, row_major);
  ASSERT_EQ(r.packs.size(), 1u);
  const detail::Pack& pk = r.packs[0];
  EXPECT_EQ(pk.operand, detail::Pack::Operand::c);
  EXPECT_TRUE(pk.transposes());
  EXPECT_EQ(pk.rows, 300);  // Cᵀ [N, M] row-major: element (n, m) is C's (m, n) at m * 304 + n
  EXPECT_EQ(pk.cols, 100);
  EXPECT_EQ(pk.src_row, 1);
  EXPECT_EQ(pk.src_col, 304);
  EXPECT_TRUE(r.problem.accumulate);
  // A copy of the Route keeps its own transposed view of C.
  const detail::Route copy = r;
  MatrixRef c_copy;
  const GemmArgs launched = detail::launch_args(copy, fake_ptr(0x700000000), &c_copy);
  ASSERT_NE(launched.c, nullptr);
  EXPECT_EQ(launched.c->major, row_major);
  EXPECT_EQ(launched.c->ld, 128);  // 100 columns padded to 128 B lines (64 bf16)
  // C aliasing a column-major D is D's transposed view: read in place, not copied.
  const MatrixRef c_is_d = g.d;
  g.c = &c_is_d;
  const detail::Route in_place = detail::route(g);
  EXPECT_TRUE(in_place.packs.empty());
  ASSERT_NE(in_place.args.c, nullptr);
  EXPECT_EQ(in_place.args.c->ptr, in_place.args.d.ptr);
  EXPECT_EQ(in_place.args.c->major, row_major);
}

TEST(Route, EveryOperandLayoutRunsOnTheSm90Kernel) {
  // A and B each K-major or MN-major (NT, NN, TN, TT), with K a multiple of 8 or not (TMA's
  // zero fill is per element, so a K tail inside a 16-B chunk reads as zeros).
  for (Major am : {Major::k_major, Major::mn_major})
    for (Major bm : {Major::k_major, Major::mn_major}) {
      GemmArgs g = nt(128, 136, 72);
      g.a.major = am;
      g.b.major = bm;
      g.a.ld = am == Major::k_major ? 72 : 128;
      g.b.ld = bm == Major::k_major ? 72 : 136;
      EXPECT_TRUE(sm90(g)) << detail::route(g).reason;
      g.a.cols = g.b.cols = 13;  // K = 13
      if (am == Major::k_major) g.a.ld = 16;
      if (bm == Major::k_major) g.b.ld = 16;
      const detail::Route r = detail::route(g);
      EXPECT_EQ(r.path, detail::Path::sm90) << r.reason;
      EXPECT_TRUE(r.packs.empty());
    }
}

TEST(Route, ProblemOfCarriesTheShapeAndStorage) {
  GemmArgs g = nt(129, 264, 72);
  g.b.major = Major::mn_major;
  g.b.ld = 264;
  const plan::Problem p = detail::problem_of(g);
  EXPECT_EQ(p.m, 129);
  EXPECT_EQ(p.n, 264);
  EXPECT_EQ(p.k, 72);
  EXPECT_EQ(p.b_major, Major::mn_major);
  EXPECT_EQ(p.ldb, 264);
  EXPECT_FALSE(p.accumulate);
}

// explain and warmup validate placeholder arguments: for every problem validate() accepts on
// its own terms, the placeholders must not make the matrices overlap. 700000^3 has matrices of
// 0.98 TB each (< 2^40 B): addresses 256 MiB apart made explain answer "d overlaps a".
TEST(Route, PlaceholderArgsNeverOverlap) {
  for (const auto& [m, n, k] : {std::array<int64_t, 3>{700000, 700000, 700000}, {2147483647, 255, 128},
                                {128, 2147483647, 255}, {4096, 4096, 4096}}) {
    plan::Problem p;
    p.m = m;
    p.n = n;
    p.k = k;
    p.accumulate = true;
    MatrixRef c;
    const Status s = validate(detail::placeholder_args(p, &c));
    EXPECT_TRUE(s.ok()) << m << "x" << n << "x" << k << ": " << s.message;
  }
}

// ---- rows off L2 sectors ----------------------------------------------------------------------

const plan::DeviceProfile& h200() {
  static const plan::DeviceProfile d = *plan::find_builtin_profile("h200");
  return d;
}
const plan::DeviceProfile& h100() {
  static const plan::DeviceProfile d = *plan::find_builtin_profile("h100");
  return d;
}

// The candidate evaluate_config makes of the config spec `spec` for `p` on `d`, checked parsed and
// feasible.
plan::Candidate spec_candidate(const plan::Problem& p, const char* spec, const plan::DeviceProfile& d) {
  const plan::ParsedConfigSpec s = plan::parse_config_spec(spec);
  EXPECT_TRUE(s.ok()) << spec << ": " << s.error;
  const plan::Candidate c = plan::evaluate_config(p, d, s.spec.config, false);
  EXPECT_TRUE(c.feasible()) << spec << ": " << c.reason;
  return c;
}

int row_repacks(const detail::Route& r) {
  int n = 0;
  for (const auto& pk : r.packs)
    n += pk.why.find("32-B sector boundaries") != std::string::npos ||
         pk.why.find("128-B L2 line boundaries") != std::string::npos;
  return n;
}

TEST(RowRepack, TheProblemSaysWhetherRowsStartOnSectorBoundaries) {
  GemmArgs g = nt(256, 256, 4096);  // rows 8192 B apart, bases 256-B aligned
  plan::Problem p = detail::problem_of(g);
  EXPECT_TRUE(p.a_rows_sectored);
  EXPECT_TRUE(p.b_rows_sectored);
  g.a.ld = g.a.cols = g.b.cols = 4000;  // 8000 B: a multiple of 32 B (not of 128): on sectors
  p = detail::problem_of(g);
  EXPECT_TRUE(p.a_rows_sectored);
  g.a.ld = g.a.cols = g.b.cols = 4008;  // 8016 B: TMA-describable (16 B), an odd multiple of 16
  p = detail::problem_of(g);
  EXPECT_FALSE(p.a_rows_sectored);
  EXPECT_TRUE(p.b_rows_sectored);  // ld 4096 still
  g = nt(1, 256, 5000);  // one row of A: its ld (5000, 10000 B) is never stepped over
  EXPECT_TRUE(detail::problem_of(g).a_rows_sectored);
  EXPECT_FALSE(detail::problem_of(g).b_rows_sectored);
  g = nt(256, 256, 4096);
  g.b.ptr = fake_ptr(0x90000000 + 64);  // on a sector: fine
  EXPECT_TRUE(detail::problem_of(g).b_rows_sectored);
  g.b.ptr = fake_ptr(0x90000000 + 48);  // 16-B aligned, inside a sector
  p = detail::problem_of(g);
  EXPECT_TRUE(p.a_rows_sectored);
  EXPECT_FALSE(p.b_rows_sectored);
  // Swap-AB's kernel problem trades the operands, and their flags with them.
  plan::Config c;
  c.d_col_major = true;
  const plan::Problem t = plan::kernel_problem(p, c);
  EXPECT_FALSE(t.a_rows_sectored);
  EXPECT_TRUE(t.b_rows_sectored);
}

TEST(RowRepack, RowsOffSectorsSlowTheTmaFeedInTheModel) {
  // A TMA-fed config predicts more time with rows off sectors, and never less.
  plan::Problem p;
  p.m = p.n = 4096;
  p.k = 4008;
  const plan::Selection aligned = plan::select_config(p, h200());
  plan::Problem split = p;
  split.a_rows_sectored = split.b_rows_sectored = false;
  const plan::Candidate same = plan::evaluate_config(split, h200(), aligned.config, /*stages_given=*/true);
  ASSERT_TRUE(same.feasible());
  EXPECT_GT(same.time.predicted_us, aligned.predicted_us * 1.2);  // measured: 1.5x the whole GEMM
  EXPECT_GT(same.time.l2_us, plan::evaluate_config(p, h200(), aligned.config, true).time.l2_us * 1.9);
  // The tuning cache keys such problems apart; the keys of the others are as they were.
  EXPECT_NE(plan::tuning_problem_key(split), plan::tuning_problem_key(p));
  EXPECT_EQ(plan::tuning_problem_key(p).find("sectored"), std::string::npos);
}

TEST(RowRepack, AClusterIssuesHalfOfItsMulticastOperandsRowsOffSectors) {
  // 256x144 tiles at K = 3000 (12 x 20 tiles: every cluster pair complete both ways): a 2x1 cluster
  // multicasts B, each CTA issuing half of B's loads. With rows off sectors the per-SM feed term
  // falls by B's half share of the extra cost (measured on the H100 at 3000^3: 111.1 -> 93.5 us,
  // docs/PERF.md forty-seventh session); on sectored rows, where the receiving SM's rate binds, the
  // cluster changes nothing.
  plan::Problem on;
  on.m = 3072;
  on.n = 2880;
  on.k = 3000;
  plan::Problem off = on;
  off.a_rows_sectored = off.b_rows_sectored = false;
  auto config = [](int cluster_m, int cluster_n) {
    const plan::ParsedConfigSpec spec = plan::parse_config_spec(
        "256x144,stages=4,cluster=" + std::to_string(cluster_m) + "x" + std::to_string(cluster_n) +
        ",mapping=grouped-m:8,persistent,stage=64");
    EXPECT_TRUE(spec.ok()) << spec.error;
    return spec.spec.config;
  };
  auto l2 = [&](const plan::Problem& p, const plan::Config& c) {
    const plan::Candidate cand = plan::evaluate_config(p, h200(), c, true);
    EXPECT_TRUE(cand.feasible());
    return cand.time.l2_us;
  };
  const plan::Config alone = config(1, 1), pair_b = config(2, 1), pair_a = config(1, 2);
  // B multicast (2x1): B's 144 rows cost 1 line each instead of 2, A's 256 rows 2: 656 / 800.
  EXPECT_LT(l2(off, pair_b), l2(off, alone) * 0.93);
  EXPECT_GT(l2(off, pair_b), l2(off, alone) * 0.75);
  // A multicast (1x2) saves more: A is the taller operand.
  EXPECT_LT(l2(off, pair_a), l2(off, pair_b));
  // Rows on sectors: no change from the cluster in this term.
  EXPECT_DOUBLE_EQ(l2(on, pair_b), l2(on, alone));
  EXPECT_DOUBLE_EQ(l2(on, pair_a), l2(on, alone));
  // Never below the lines received: off-sector rows in a cluster cost at least the sectored ones.
  EXPECT_GE(l2(off, pair_a), l2(on, pair_a));
}

TEST(RowRepack, TheProblemSaysWhetherRowsStartOnLineBoundaries) {
  GemmArgs g = nt(256, 256, 4096);  // rows 8192 B apart, bases 256-B aligned
  plan::Problem p = detail::problem_of(g);
  EXPECT_TRUE(p.a_lined() && p.b_lined());
  g.a.ld = g.a.cols = g.b.ld = g.b.cols = 2000;  // 4000 B: on sectors, between lines
  p = detail::problem_of(g);
  EXPECT_TRUE(p.a_rows_sectored && p.b_rows_sectored);
  EXPECT_FALSE(p.a_lined());
  EXPECT_FALSE(p.b_lined());
  g.a.ld = g.a.cols = g.b.cols = 4008;  // 8016 B: inside sectors, so off lines too
  g.b.ld = 4096;
  p = detail::problem_of(g);
  EXPECT_FALSE(p.a_rows_sectored);
  EXPECT_FALSE(p.a_lined());
  EXPECT_TRUE(p.b_lined());
  g = nt(256, 256, 4096);
  g.b.ptr = fake_ptr(0x90000000 + 32);  // a sector in, not a line
  p = detail::problem_of(g);
  EXPECT_TRUE(p.b_rows_sectored);
  EXPECT_FALSE(p.b_lined());
  g.b.ptr = fake_ptr(0x90000000 + 128);
  EXPECT_TRUE(detail::problem_of(g).b_lined());
  g = nt(1, 256, 2000);  // one row of A: only its base counts
  EXPECT_TRUE(detail::problem_of(g).a_lined());
  EXPECT_FALSE(detail::problem_of(g).b_lined());
  // Swap-AB's kernel problem trades the flags with the operands; the tuning cache keys such
  // problems apart, and those on lines as before.
  g = nt(256, 256, 4096);
  g.b.ptr = fake_ptr(0x90000000 + 64);
  p = detail::problem_of(g);
  plan::Config c;
  c.d_col_major = true;
  const plan::Problem t = plan::kernel_problem(p, c);
  EXPECT_FALSE(t.a_lined());
  EXPECT_TRUE(t.b_lined());
  const plan::Problem lined = detail::problem_of(nt(256, 256, 4096));
  EXPECT_NE(plan::tuning_problem_key(p), plan::tuning_problem_key(lined));
  EXPECT_NE(plan::tuning_problem_key(p).find("b_lined=0"), std::string::npos);
  EXPECT_EQ(plan::tuning_problem_key(lined).find("lined"), std::string::npos);
}

TEST(RowRepack, RowsOffLinesLoadTwiceTheL2LinesOfTheWholeGpu) {
  // Measured on the H100 (docs/PERF.md, thirty-third session), 4096x4096x2000 against the same
  // rows on lines: 128x128 ping-pong 1.30x the time, 128x256 1.02x; 64 tiles on 64 SMs no slower.
  const auto predicted = [&](plan::Problem p, bool lined, const char* spec) {
    p.a_rows_lined = p.b_rows_lined = lined;
    return spec_candidate(p, spec, h100()).time.predicted_us;
  };
  plan::Problem p;
  p.m = p.n = 4096;
  p.k = 2000;
  const double narrow = predicted(p, false, "128x128,pingpong") / predicted(p, true, "128x128,pingpong");
  const double wide = predicted(p, false, "128x256,stage=128") / predicted(p, true, "128x256,stage=128");
  EXPECT_GT(narrow, 1.25);
  EXPECT_LT(wide, 1.15);
  EXPECT_GT(narrow, wide + 0.1);
  // A limit of the whole GPU: half the SMs busy stay under it.
  plan::Problem few;
  few.m = few.n = 1024;
  few.k = 16016;
  EXPECT_NEAR(predicted(few, false, "128x128,pingpong"), predicted(few, true, "128x128,pingpong"), 1e-9);
  // A multicast line counts for less, but not half: measured 0-4 % faster with narrow tiles.
  const double one = predicted(p, false, "128x176,pingpong");
  const double pair = predicted(p, false, "128x176,pingpong,cluster=2x1");
  EXPECT_LT(pair, one);
  EXPECT_GT(pair, one * 0.8);
}

TEST(TileFloor, ShortKNarrowTilesCostTheirCountNotTheirBytes) {
  // Measured on the H100 (docs/PERF.md, thirty-third session): at K = 64, D written once and the
  // kernel HBM-bound, 64x64 and 128x64 ping-pong ran 1.2-1.7x slower than 128x128 ping-pong, which
  // the model had priced alike (the same bytes).
  const auto predicted = [](const plan::Problem& p, const char* spec, const plan::DeviceProfile& d) {
    return spec_candidate(p, spec, d).time;
  };
  plan::Problem p;
  p.m = 4096;
  p.n = 6144;
  p.k = 64;
  const plan::TimeTerms narrow = predicted(p, "64x64,pingpong", h100());
  const plan::TimeTerms wide = predicted(p, "128x128,pingpong", h100());
  EXPECT_EQ(narrow.bound, "tiles");
  EXPECT_GT(narrow.predicted_us, 1.2 * wide.predicted_us);
  EXPECT_GT(narrow.tiles_us, 2.0 * wide.tiles_us);
  // Long K: the mainloop is far above the floor, which changes nothing.
  plan::DeviceProfile no_floor = h100();
  no_floor.tile_floor_us = no_floor.tile_floor_row_us = 0;
  p.k = 4096;
  for (const char* spec : {"64x64,pingpong", "128x128,pingpong", "128x256,stage=128"})
    EXPECT_DOUBLE_EQ(predicted(p, spec, h100()).predicted_us, predicted(p, spec, no_floor).predicted_us) << spec;
  // And the planner no longer picks the narrowest tile there.
  p.k = 64;
  EXPECT_NE(plan::describe(plan::select_config(p, h100()).config).rfind("64x64x64", 0), 0u);
  // The threads' copy-out of an odd D (smem_stores) holds a tile longer still: the same floor.
  const detail::Route odd = detail::route(nt(3999, 4001, 128), &h100());
  ASSERT_FALSE(odd.problem.d_tma);
  const plan::TimeTerms odd_narrow = predicted(odd.problem, "64x64,pingpong", h100());
  EXPECT_EQ(odd_narrow.bound, "tiles");
  EXPECT_GT(odd_narrow.tiles_us, 0.0);
  EXPECT_NE(plan::describe(plan::select_config(odd.problem, h100()).config).rfind("64x64x64", 0), 0u);
}

TEST(ShortK, TheLimitsAddWhereAFewKBlocksBarelyOverlap) {
  // Measured on the H100 (docs/PERF.md, thirty-fourth session; bench/measurements/h100-*): at
  // K <= 192 128x128 ping-pong ran 6-21 % ahead of the 64-row ping-pong tiles that the 16-norm
  // priced first on near-ties of the HBM term, e.g. 4096x6144x128: 128x128 20.4 us, 64x128 23.6,
  // 64x112 26.0.
  const plan::DeviceProfile& d = h100();
  EXPECT_DOUBLE_EQ(plan::short_k_norm_p(64, 64, d), d.short_k_norm_p);
  EXPECT_DOUBLE_EQ(plan::short_k_norm_p(128, 64, d), d.short_k_norm_p);
  EXPECT_EQ(plan::short_k_norm_p(512, 64, d), 0.0);  // 8 k-blocks: the usual norm
  EXPECT_EQ(plan::short_k_norm_p(7168, 64, d), 0.0);
  double last = 0;
  for (int64_t k = 64; k < 512; k += 64) {  // rising from short_k_norm_p toward limit_norm_p
    const double p = plan::short_k_norm_p(k, 64, d);
    EXPECT_GE(p, last) << k;
    EXPECT_LT(p, d.limit_norm_p) << k;
    last = p;
  }
  const auto eval = [&](int64_t m, int64_t n, int64_t k, const char* spec, const plan::DeviceProfile& prof) {
    plan::Problem p;
    p.m = m;
    p.n = n;
    p.k = k;
    return spec_candidate(p, spec, prof).time;
  };
  const plan::TimeTerms wide = eval(4096, 6144, 128, "128x128,pingpong", d);
  EXPECT_TRUE(wide.short_k);
  EXPECT_LT(wide.predicted_us, eval(4096, 6144, 128, "64x128,pingpong", d).predicted_us);
  EXPECT_LT(wide.predicted_us, eval(4096, 6144, 128, "64x112,pingpong", d).predicted_us);
  // The norm of all five: at least the largest, at most their sum.
  const double terms[] = {wide.l2_us, wide.local_us, wide.hbm_us, wide.tc_us, wide.tiles_us};
  double top = 0, sum = 0;
  for (double t : terms) top = std::max(top, t), sum += t;
  EXPECT_GE(wide.limits_us, top);
  EXPECT_LE(wide.limits_us, sum);
  // K >= 512: nothing changes (every suite shape but the odd suite's).
  plan::DeviceProfile off = d;
  off.short_k_norm_p = 0;
  for (const int64_t k : {512, 7168})
    for (const char* spec : {"64x128,pingpong", "128x128,pingpong", "128x256,stage=128"}) {
      const plan::TimeTerms on = eval(4096, 6144, k, spec, d);
      EXPECT_FALSE(on.short_k);
      EXPECT_DOUBLE_EQ(on.predicted_us, eval(4096, 6144, k, spec, off).predicted_us) << k << " " << spec;
    }
}

TEST(RowRepack, RouteWeighsRepackingRowsOffLines) {
  // 256x8192x4880 on the H200 profile: A (2.5 MB) is worth copying into whole lines; B (80 MB,
  // read once) is not.
  const detail::Route r = detail::route(nt(256, 8192, 4880), &h200());
  ASSERT_EQ(r.path, detail::Path::sm90) << r.reason;
  ASSERT_EQ(r.packs.size(), 1u);
  EXPECT_EQ(r.packs[0].operand, detail::Pack::Operand::a);
  EXPECT_NE(r.packs[0].why.find("128-B L2 line boundaries"), std::string::npos) << r.packs[0].why;
  EXPECT_NE(r.packs[0].why.find("the time model predicts"), std::string::npos) << r.packs[0].why;
  EXPECT_EQ(r.packs[0].ld % 64, 0);
  EXPECT_TRUE(r.problem.a_lined());
  EXPECT_FALSE(r.problem.b_lined());
  // Without a device profile route() never weighs it: read in place.
  EXPECT_TRUE(detail::route(nt(256, 8192, 4880)).packs.empty());
}

TEST(RowRepack, RouteRepacksWhenTheFasterGemmPaysForTheCopy) {
  // A small A beside a large B, both off sectors: copying A (4 MB) costs less than what its rows cost
  // the GEMM. (4096x4096x4008 reads both in place in a 2-CTA cluster, which issues half of one
  // operand from each CTA: measured on the H100, docs/PERF.md forty-seventh session, 182.8 us where
  // the route that copied A took 244.6.)
  detail::Route r = detail::route(nt(512, 4096, 4008), &h200());
  EXPECT_GE(row_repacks(r), 1);
  EXPECT_TRUE(!r.problem.a_rows_sectored || !r.problem.b_rows_sectored || row_repacks(r) == 2);
  for (const auto& pk : r.packs) {
    EXPECT_EQ(pk.ld % 64, 0) << "repacked rows are whole 128-B lines";
    EXPECT_NE(pk.why.find("the time model predicts"), std::string::npos) << pk.why;
  }
  // The repacked operands' rows are on sectors in the problem the kernel is planned for.
  for (const auto& pk : r.packs) {
    if (pk.operand == detail::Pack::Operand::a) EXPECT_TRUE(r.problem.a_rows_sectored);
    if (pk.operand == detail::Pack::Operand::b) EXPECT_TRUE(r.problem.b_rows_sectored);
  }
  // Decode (M = 1): the weights are read once; copying them first would double the traffic.
  EXPECT_EQ(row_repacks(detail::route(nt(1, 7168, 5000), &h200())), 0);
  // Rows on sectors (8000 B apart): nothing to repack; without a device profile route() never
  // repacks for sectors.
  EXPECT_TRUE(detail::route(nt(4096, 4096, 4000), &h200()).packs.empty());
  EXPECT_TRUE(detail::route(nt(4096, 4096, 4008)).packs.empty());
}

TEST(RowRepack, TheChoiceIsTheCheapestOfTheWaysTheModelPrices) {
  plan::Problem p;
  p.m = 3000;
  p.n = 3000;
  p.k = 3000;
  p.a_rows_sectored = p.b_rows_sectored = false;
  const double bytes = 3000.0 * (3000 + 3008) * 2;
  const plan::OperandCopies lr = plan::choose_row_repack(p, h200(), bytes, bytes);
  const double chosen_total = lr.chosen_us + lr.copy_us;
  EXPECT_LE(chosen_total, lr.as_is_us);
  for (int way = 0; way < 4; ++way) {
    plan::Problem q = p;
    q.a_rows_sectored = (way & 1) != 0;
    q.b_rows_sectored = (way & 2) != 0;
    const double repack = ((way & 1) ? h200().repack_launch_us + bytes / h200().repack_bytes_per_s * 1e6 : 0.0) +
                          ((way & 2) ? h200().repack_launch_us + bytes / h200().repack_bytes_per_s * 1e6 : 0.0);
    EXPECT_LE(chosen_total, plan::select_config(q, h200()).predicted_us + repack + 1e-9) << "way " << way;
  }
  // Aligned operands are never chosen for a repack.
  p.a_rows_sectored = true;
  EXPECT_FALSE(plan::choose_row_repack(p, h200(), bytes, bytes).a);
}

TEST(Route, CIsDOnlyWithDsPointerAndThenNoBoxReadsCAfterAStore) {
  // validate() lets C overlap D only as the same matrix, so route() marks C in place by the pointer
  // (plan::Problem::c_in_place); the planner then keeps a staged tile's overlapping last box from
  // reading C (it would read columns its neighbour stored), and launch_sm90 refuses that mix even
  // if a config carrying it reached it (checked before anything touches the device).
  GemmArgs g = nt(4096, 2112, 7168);
  MatrixRef c{fake_ptr(0x290000000), 4096, 2112, 2112, DType::bf16, row_major};
  g.c = &c;
  g.beta = 1.0f;
  EXPECT_FALSE(detail::route(g).problem.c_in_place);
  MatrixRef same = MatrixRef(g.d);
  g.c = &same;
  const detail::Route r = detail::route(g);
  ASSERT_EQ(r.path, detail::Path::sm90) << r.reason;
  EXPECT_TRUE(r.problem.c_in_place);
  const plan::ParsedConfigSpec spec = plan::parse_config_spec("128x176");
  ASSERT_TRUE(spec.ok()) << spec.error;
  const plan::Candidate in_place = plan::evaluate_config(r.problem, h200(), spec.spec.config, false);
  ASSERT_TRUE(in_place.feasible()) << in_place.reason;
  EXPECT_EQ(in_place.config.epilogue, sm90::Epilogue::direct);
  plan::Problem apart = r.problem;
  apart.c_in_place = false;
  const plan::Candidate staged = plan::evaluate_config(apart, h200(), spec.spec.config, false);
  ASSERT_TRUE(staged.feasible()) << staged.reason;
  ASSERT_TRUE(sm90::staged_overlapping_c(staged.config)) << plan::describe(staged.config);
  const detail::PreparedKernel prepared{staged.config, nullptr, 132};
  const Status st = detail::launch_sm90(r.args, prepared);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message.find("C is D (in place)"), std::string::npos) << st.message;
}

// ---- MN-major operands narrower than 64 along MN ----------------------------------------------

// A [M, K] stored MN-major ([K][lda], lda >= M) with B K-major: DeepGEMM's TT, M x N x K.
GemmArgs tt(int64_t m, int64_t n, int64_t k, int64_t lda = 0) {
  GemmArgs g = nt(m, n, k);
  g.a.major = Major::mn_major;
  g.a.ld = lda > 0 ? lda : (m + 7) / 8 * 8;
  return g;
}

const detail::Pack* narrow_pack(const detail::Route& r) {
  for (const auto& pk : r.packs)
    if (pk.why.find("rows along") != std::string::npos) return &pk;
  return nullptr;
}

TEST(NarrowTranspose, TheModelChargesEveryLineOfAChunkTheEdgeCuts) {
  // A MN-major with M = 8: each of a tile's K lines holds 8 elements of A (16 B) and is read and
  // zero-filled at once; the model charged M/64 of them before (8x6144x4096 64x64: 21.6 us,
  // measured 32.0).
  plan::Problem p = detail::problem_of(tt(8, 6144, 4096));
  EXPECT_FALSE(p.a_rows_sectored);  // lines 16 B apart
  const plan::ParsedConfigSpec spec = plan::parse_config_spec("64x64");
  ASSERT_TRUE(spec.ok()) << spec.error;
  const plan::Candidate mn = plan::evaluate_config(p, h200(), spec.spec.config, false);
  ASSERT_TRUE(mn.feasible()) << mn.reason;
  EXPECT_GT(mn.time.predicted_us, 27.0);
  // The same tile over a K-major A of 8 rows: 56 rows zero-filled, 8 read.
  const plan::Candidate k = plan::evaluate_config(detail::problem_of(nt(8, 6144, 4096)), h200(), spec.spec.config, false);
  ASSERT_TRUE(k.feasible()) << k.reason;
  EXPECT_LT(k.time.l2_us, mn.time.l2_us * 0.7);
  // Lines on sectors (M = 16: 32 B) cost less than lines off them (M = 24: 48 B), per line.
  const plan::Candidate m16 = plan::evaluate_config(detail::problem_of(tt(16, 6144, 4096)), h200(), spec.spec.config, false);
  const plan::Candidate m24 = plan::evaluate_config(detail::problem_of(tt(24, 6144, 4096)), h200(), spec.spec.config, false);
  EXPECT_LT(m16.time.l2_us * 1.5, m24.time.l2_us);
  // A chunk the edge does not cut costs what a K-major row does: M = 64 with 64-row tiles.
  EXPECT_NEAR(plan::evaluate_config(detail::problem_of(tt(64, 6144, 4096)), h200(), spec.spec.config, false).time.l2_us,
              plan::evaluate_config(detail::problem_of(nt(64, 6144, 4096)), h200(), spec.spec.config, false).time.l2_us,
              1e-9);
}

TEST(NarrowTranspose, RouteCopiesANarrowMnMajorOperandIntoKMajorLinesWhenThatPays) {
  detail::Route r = detail::route(tt(8, 6144, 4096), &h200());
  ASSERT_EQ(r.path, detail::Path::sm90) << r.reason;
  const detail::Pack* pk = narrow_pack(r);
  ASSERT_NE(pk, nullptr);
  EXPECT_EQ(r.packs.size(), 1u);
  EXPECT_EQ(pk->operand, detail::Pack::Operand::a);
  EXPECT_TRUE(pk->transposes());
  EXPECT_EQ(pk->rows, 8);
  EXPECT_EQ(pk->cols, 4096);
  EXPECT_EQ(pk->src_row, 1);
  EXPECT_EQ(pk->src_col, 8);
  EXPECT_EQ(pk->ld % 64, 0) << "K-major lines of whole 128-B multiples";
  EXPECT_NE(pk->why.find("the time model predicts"), std::string::npos) << pk->why;
  // The kernel is planned for, and launched with, a K-major A read from the copy.
  EXPECT_EQ(r.problem.a_major, Major::k_major);
  EXPECT_EQ(r.problem.lda, pk->ld);
  MatrixRef c;
  const GemmArgs launched = detail::launch_args(r, fake_ptr(0x7000000000), &c);
  EXPECT_EQ(launched.a.major, Major::k_major);
  EXPECT_EQ(launched.a.ld, pk->ld);
  EXPECT_EQ(launched.a.ptr, fake_ptr(0x7000000000 + pk->offset));
  EXPECT_EQ(launched.b.ptr, r.args.b.ptr);
  // B narrow along N (NN with N = 24): B is copied instead.
  GemmArgs nn = nt(4096, 24, 2048);
  nn.b.major = Major::mn_major;
  nn.b.ld = 24;
  r = detail::route(nn, &h200());
  ASSERT_NE(narrow_pack(r), nullptr);
  EXPECT_EQ(narrow_pack(r)->operand, detail::Pack::Operand::b);
  EXPECT_EQ(r.problem.b_major, Major::k_major);
  EXPECT_EQ(r.problem.a_major, Major::k_major);
}

TEST(NarrowTranspose, NotWithoutAProfileNorWhenTurnedOffNorForWideOperands) {
  EXPECT_TRUE(detail::route(tt(8, 6144, 4096)).packs.empty()) << "no profile: no model copies";
  EXPECT_TRUE(detail::route(tt(8, 6144, 4096), &h200(), {true, false}).packs.empty());
  EXPECT_EQ(detail::route(tt(8, 6144, 4096), &h200(), {true, false}).problem.a_major, Major::mn_major);
  EXPECT_TRUE(detail::route(tt(64, 6144, 4096), &h200()).packs.empty()) << "64 along MN: a whole chunk";
  EXPECT_TRUE(detail::route(nt(8, 6144, 4096), &h200()).packs.empty()) << "K-major already";
}

TEST(NarrowTranspose, OneCopyServesAnOperandTmaCannotReadEither) {
  // lda = 9 (18-B lines: no TMA map): the transposing copy replaces the line copy it would get.
  const detail::Route r = detail::route(tt(8, 6144, 4096, 9), &h200());
  ASSERT_EQ(r.packs.size(), 1u);
  ASSERT_NE(narrow_pack(r), nullptr);
  EXPECT_EQ(narrow_pack(r)->src_col, 9);
  EXPECT_EQ(r.problem.a_major, Major::k_major);
  // Turned off, the line copy is made as before and A stays MN-major.
  const detail::Route off = detail::route(tt(8, 6144, 4096, 9), &h200(), {true, false});
  ASSERT_EQ(off.packs.size(), 1u);
  EXPECT_FALSE(off.packs[0].transposes());
  EXPECT_EQ(off.problem.a_major, Major::mn_major);
}

TEST(NarrowTranspose, TheChoiceIsTheCheapestWayTheModelPrices) {
  // choose_narrow_transpose: the copy is made exactly when K-major plus the copy is predicted
  // faster than reading in place; a tie copies nothing.
  for (const auto& [m, n, k] : {std::array<int64_t, 3>{8, 6144, 4096}, {16, 6144, 4096}, {48, 8192, 8192},
                                {2, 64, 64}, {56, 2048, 256}, {24, 512, 512}, {40, 11008, 4096}, {56, 8192, 8192}}) {
    const plan::Problem p = detail::problem_of(tt(m, n, k));
    const double bytes = double(m) * double(k + (k + 63) / 64 * 64) * 2;
    const plan::OperandCopies t = plan::choose_narrow_transpose(p, h200(), true, false, bytes, 0);
    plan::Problem q = p;
    q.a_major = Major::k_major;
    q.lda = (k + 63) / 64 * 64;
    q.a_rows_sectored = true;
    const double as_is = plan::select_config(p, h200()).predicted_us;
    const double copied = plan::select_config(q, h200()).predicted_us + plan::copy_us(h200(), bytes);
    EXPECT_EQ(t.a, copied < as_is) << m << "x" << n << "x" << k;
    EXPECT_FALSE(t.b);
    EXPECT_DOUBLE_EQ(t.as_is_us, as_is);
    // route() also weighs the row repack an A off sectors would get in place (lines of M elements
    // padded to 64): the transposing copy must beat the cheaper of the two.
    double in_place = as_is;
    if (!p.a_rows_sectored) {
      const plan::OperandCopies rr =
          plan::choose_row_repack(p, h200(), double(k) * double(m + (m + 63) / 64 * 64) * 2, 0);
      if (rr.a) in_place = rr.chosen_us + rr.copy_us;
    }
    EXPECT_EQ(narrow_pack(detail::route(tt(m, n, k), &h200())) != nullptr, t.a && copied < in_place)
        << m << "x" << n << "x" << k;
  }
}

// Programmatic dependent launch is gemm()'s default; TILEGEMM_PDL=off (or 0) turns it off for the
// process, any other value leaves it on.
TEST(Pdl, OnUnlessTheEnvironmentTurnsItOff) {
  auto with = [](const char* value) {
    return detail::pdl_setting([value](const char* name) -> const char* {
      return std::string(name) == detail::kPdlEnv ? value : nullptr;
    });
  };
  EXPECT_TRUE(with(nullptr));
  EXPECT_FALSE(with("off"));
  EXPECT_FALSE(with("0"));
  EXPECT_TRUE(with("on"));
  EXPECT_TRUE(with("1"));
  EXPECT_TRUE(with(""));
  // The options every call without its own options takes follow the process's setting.
  EXPECT_EQ(detail::GemmOptions{}.pdl, detail::pdl_setting([](const char* name) { return std::getenv(name); }));
}

// The experiment's switch (TILEGEMM_PACK_L2) is off unless set to "on" or "1".
TEST(EnvSwitch, OffUnlessTheEnvironmentTurnsItOn) {
  const char* name = detail::kPackL2Env;
  auto with = [name](const char* value) {
    return detail::env_switch([name, value](const char* n) -> const char* { return std::string(n) == name ? value : nullptr; },
                              name);
  };
  EXPECT_FALSE(with(nullptr));
  EXPECT_FALSE(with(""));
  EXPECT_FALSE(with("off"));
  EXPECT_FALSE(with("0"));
  EXPECT_TRUE(with("on"));
  EXPECT_TRUE(with("1"));
}

// With narrow MN chunks (PlanOptions::narrow_mn_chunks), the model can read a narrow MN-major
// operand in place in swap-AB's narrow tiles: the comparisons plan with the same options gemm()
// plans the kernel with, and a copy is made only where the model still says it pays.
TEST(NarrowMnChunks, TheCopiesAreWeighedAgainstNarrowTilesInPlace) {
  detail::ModelCopies with;
  with.plan.narrow_mn_chunks = true;
  int in_place = 0, narrow_picks = 0;
  for (const auto& [m, n, k] : {std::array<int64_t, 3>{8, 6144, 4096}, {16, 6144, 4096}, {24, 5120, 5120},
                                {40, 11008, 4096}, {48, 8192, 8192}, {8, 8192, 28672}, {16, 3072, 3072},
                                {8, 2048, 8192}, {16, 2048, 8192}}) {
    const plan::Problem p = detail::problem_of(tt(m, n, k));
    const double bytes = double(m) * double(k + (k + 63) / 64 * 64) * 2;
    const plan::OperandCopies off = plan::choose_narrow_transpose(p, h200(), true, false, bytes, 0);
    const plan::OperandCopies on = plan::choose_narrow_transpose(p, h200(), true, false, bytes, 0, with.plan);
    // The in-place pick can only get better with more candidates; the K-major one is unchanged.
    EXPECT_LE(on.as_is_us, off.as_is_us + 1e-9) << m << "x" << n << "x" << k;
    const plan::Selection pick = plan::select_config(p, h200(), with.plan);
    ASSERT_TRUE(pick.found);
    EXPECT_DOUBLE_EQ(on.as_is_us, pick.predicted_us);
    const detail::Route r = detail::route(tt(m, n, k), &h200(), with);
    const bool copied = narrow_pack(r) != nullptr;
    if (!copied) {
      ++in_place;
      EXPECT_EQ(r.problem.a_major, Major::mn_major);
      narrow_picks += sm90::narrow_mn_chunks(pick.config);  // (48x8192x8192 keeps 64x64 unswapped)
    } else {
      EXPECT_NE(narrow_pack(r)->why.find("would be chunks of 16 or 32"), std::string::npos) << narrow_pack(r)->why;
    }
    // Without the option nothing the planner offers has narrow chunks.
    for (const plan::Candidate& c : plan::make_plan(p, h200()).ranked) ASSERT_FALSE(sm90::narrow_mn_chunks(c.config));
  }
  // (h200's model, narrow lines priced per line: in place in 16-wide chunks at 16x6144x4096,
  // 16x3072x3072 (swap-AB 64x16), 8x2048x8192 and 16x2048x8192 (128x16 split along K), where the
  // H100 measured the narrow tile 0.84-0.98 of the copy's time (docs/PERF.md, twenty-ninth
  // session), and 48x8192x8192 unswapped; copied at M = 8 (6144x4096, 8192x28672), 24 and 40.)
  EXPECT_GE(in_place, 5);
  EXPECT_GE(narrow_picks, 4);
}

}  // namespace
}  // namespace tilegemm
