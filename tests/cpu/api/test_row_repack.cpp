// Operands whose rows start inside 32-B L2 sectors (plan::Problem::a_rows_sectored /
// b_rows_sectored false): what the time model charges for them, and route()'s choice to repack them
// (plan::choose_row_repack).
// No GPU: pointers are fake addresses, nothing is dereferenced.
#include <gtest/gtest.h>

#include <cstdint>

#include "api/route.hpp"
#include "plan/device_profile.hpp"
#include "plan/planner.hpp"
#include "plan/tuning_cache.hpp"

namespace tilegemm {
namespace {

void* fake_ptr(uintptr_t addr) { return reinterpret_cast<void*>(addr); }

GemmArgs nt(int64_t m, int64_t n, int64_t k) {
  GemmArgs g;
  g.a = MatrixRef{fake_ptr(0x10000000), m, k, k, DType::bf16, Major::k_major};
  g.b = MatrixRef{fake_ptr(0x90000000), n, k, k, DType::bf16, Major::k_major};
  g.d = MutMatrixRef{fake_ptr(0x190000000), m, n, n, DType::bf16, row_major};
  return g;
}

const plan::DeviceProfile& h200() {
  static const plan::DeviceProfile d = *plan::find_builtin_profile("h200");
  return d;
}

int row_repacks(const detail::Route& r) {
  int n = 0;
  for (const auto& pk : r.packs) n += pk.why.find("32-B sector boundaries") != std::string::npos;
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

TEST(RowRepack, SplitLinesSlowTheTmaFeedInTheModel) {
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

TEST(RowRepack, RouteRepacksWhenTheFasterGemmPaysForTheCopy) {
  // Large, compute-heavy: the GEMM saves far more than copying an operand costs.
  detail::Route r = detail::route(nt(4096, 4096, 4008), &h200());
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
  const plan::RowRepack lr = plan::choose_row_repack(p, h200(), bytes, bytes);
  const double chosen_total = lr.chosen_us + lr.repack_us;
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

}  // namespace
}  // namespace tilegemm
