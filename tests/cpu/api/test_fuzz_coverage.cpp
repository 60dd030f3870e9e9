// What `tilegemm fuzz` exercises of the paths that are off by default (so that a GPU fuzz run with
// them on is a real check of them): with --narrow-mn-chunks, a share of the drawn problems must be
// planned with MN-major operands in 16- or 32-element chunks, as gemm() would plan them on the
// H200's profile (route() with its model copies, then the planner).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>

#include "api/route.hpp"
#include "bench/fuzz_problem.hpp"
#include "plan/device_profile.hpp"
#include "plan/planner.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm {
namespace {

TEST(FuzzCoverage, NarrowMnChunksArePlannedForAShareOfTheProblems) {
  const plan::DeviceProfile h200 = *plan::find_builtin_profile("h200");
  detail::GemmOptions options;
  options.narrow_mn_chunks = true;
  bench::FuzzOptions o;  // `fuzz --layouts tt,tn,nn`, the default sizes
  o.layouts = {{Major::mn_major, Major::k_major}, {Major::mn_major, Major::mn_major}, {Major::k_major, Major::mn_major}};
  void* base[4] = {reinterpret_cast<void*>(uintptr_t{1} << 41), reinterpret_cast<void*>(uintptr_t{2} << 41),
                   reinterpret_cast<void*>(uintptr_t{3} << 41), reinterpret_cast<void*>(uintptr_t{4} << 41)};
  int sm90 = 0, narrow = 0, narrow_off = 0;
  for (int64_t i = 0; i < 400; ++i) {
    const bench::FuzzProblem fp = bench::draw_problem(2801, i, o);
    MatrixRef c;
    const GemmArgs args = bench::fuzz_args(fp, base[0], base[1], base[2], base[3], &c);
    if (!validate(args).ok()) continue;
    const detail::Route r = detail::route(args, &h200, detail::model_copies(options));
    if (r.path != detail::Path::sm90) continue;
    ++sm90;
    const plan::Selection on = plan::select_config(r.problem, h200, detail::plan_options(options));
    ASSERT_TRUE(on.found);
    narrow += sm90::narrow_mn_chunks(on.config);
    // Without the option: never.
    const detail::Route r0 = detail::route(args, &h200);
    const plan::Selection off = plan::select_config(r0.problem, h200);
    ASSERT_TRUE(off.found);
    narrow_off += sm90::narrow_mn_chunks(off.config);
  }
  std::printf("%d sm90 problems, %d planned with narrow MN chunks\n", sm90, narrow);
  EXPECT_GT(sm90, 300);
  EXPECT_GE(narrow * 10, sm90) << "at least a tenth of the problems should take narrow chunks";
  EXPECT_EQ(narrow_off, 0);
}

}  // namespace
}  // namespace tilegemm
