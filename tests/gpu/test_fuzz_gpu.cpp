// The fuzz harness's own tools on the GPU: the GPU reference equals the CPU reference bit for bit in
// every layout; the guard kernels see exactly the elements that changed; and the fuzz runner passes
// a correct candidate and catches each kind of wrong one (a write outside D, a write to an input, a
// second run that differs, a D never written).
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "bench/fuzz_problem.hpp"
#include "bench/fuzz_run.hpp"
#include "reference/device_fill.hpp"
#include "reference/gpu_gemm.hpp"
#include "reference/guards.hpp"
#include "reference/reference.hpp"

namespace tilegemm {
namespace {

struct Buffer {  // one device allocation
  void* p = nullptr;
  explicit Buffer(size_t bytes) { EXPECT_EQ(cudaMalloc(&p, bytes == 0 ? 1 : bytes), cudaSuccess); }
  ~Buffer() { cudaFree(p); }
};

std::vector<float> host_floats(const void* dev, size_t n, DType t) {
  std::vector<float> v(n);
  EXPECT_EQ(ref::copy_to_host_float(dev, t == DType::bf16, n, v.data()), cudaSuccess);
  return v;
}

// gpu_gemm = cpu_gemm, bit for bit: A, B in both majors with padded ld, C bf16/fp32 in both majors,
// beta = 0 with a NaN C (not read), odd shapes including K past several 16-k slices.
TEST(GpuReference, EqualsCpuReferenceBitForBit) {
  struct Shape {
    int64_t m, n, k;
  };
  int cases = 0;
  for (Shape s : {Shape{1, 1, 1}, Shape{65, 129, 33}, Shape{200, 70, 517}})
    for (Major am : {Major::k_major, Major::mn_major})
      for (Major bm : {Major::k_major, Major::mn_major})
        for (int c_case = 0; c_case < 4; ++c_case) {  // none, bf16 row, fp32 col, NaN with beta 0
          SCOPED_TRACE(std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) + " A " +
                       to_string(am) + " B " + to_string(bm) + " C case " + std::to_string(c_case));
          const int64_t lda = (am == Major::k_major ? s.k : s.m) + 3, ldb = (bm == Major::k_major ? s.k : s.n) + 5;
          const size_t a_n = size_t(lda) * size_t(am == Major::k_major ? s.m : s.k);
          const size_t b_n = size_t(ldb) * size_t(bm == Major::k_major ? s.n : s.k);
          const DType c_dtype = c_case == 1 ? DType::bf16 : DType::fp32;
          const Major c_major = c_case == 2 ? col_major : row_major;
          const int64_t ldc = (c_major == row_major ? s.n : s.m) + 2;
          const size_t c_n = size_t(ldc) * size_t(c_major == row_major ? s.m : s.n);
          Buffer a(a_n * 2), b(b_n * 2), c(c_n * 4), d(size_t(s.m * s.n) * 4);
          ASSERT_EQ(ref::fill_normal_bf16(static_cast<__nv_bfloat16*>(a.p), a_n, 11, 1.0f, nullptr), cudaSuccess);
          ASSERT_EQ(ref::fill_normal_bf16(static_cast<__nv_bfloat16*>(b.p), b_n, 12, 1.0f, nullptr), cudaSuccess);
          const ref::Expected c_fill{c_case == 3, 13};
          ASSERT_EQ(ref::fill_expected(c.p, c_n, c_dtype, c_fill, nullptr), cudaSuccess);
          const MatrixRef am_ref{a.p, s.m, s.k, lda, DType::bf16, am}, bm_ref{b.p, s.n, s.k, ldb, DType::bf16, bm};
          const MatrixRef cm_ref{c.p, s.m, s.n, ldc, c_dtype, c_major};
          const float alpha = -0.75f, beta = c_case == 3 ? 0.0f : 1.25f;
          ASSERT_EQ(ref::gpu_gemm(am_ref, bm_ref, c_case ? &cm_ref : nullptr, alpha, beta, static_cast<float*>(d.p),
                                  nullptr),
                    cudaSuccess);
          ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
          std::vector<uint16_t> a_raw(a_n), b_raw(b_n);
          ASSERT_EQ(cudaMemcpy(a_raw.data(), a.p, a_n * 2, cudaMemcpyDeviceToHost), cudaSuccess);
          ASSERT_EQ(cudaMemcpy(b_raw.data(), b.p, b_n * 2, cudaMemcpyDeviceToHost), cudaSuccess);
          const std::vector<float> c_host = host_floats(c.p, c_n, c_dtype);
          const ref::HostView<__nv_bfloat16> av{reinterpret_cast<const __nv_bfloat16*>(a_raw.data()), s.m, s.k, lda, am};
          const ref::HostView<__nv_bfloat16> bv{reinterpret_cast<const __nv_bfloat16*>(b_raw.data()), s.n, s.k, ldb, bm};
          const ref::HostView<float> cv{c_host.data(), s.m, s.n, ldc, c_major};
          std::vector<float> expected(size_t(s.m * s.n));
          ref::cpu_gemm(av, bv, c_case ? &cv : nullptr, alpha, beta, expected.data());
          const std::vector<float> got = host_floats(d.p, expected.size(), DType::fp32);
          size_t differ = 0;
          for (size_t i = 0; i < got.size(); ++i) differ += std::memcmp(&got[i], &expected[i], 4) != 0;
          EXPECT_EQ(differ, 0u);
          ++cases;
        }
  EXPECT_EQ(cases, 48);
}

TEST(Guards, CountExactlyTheElementsThatChanged) {
  for (DType t : {DType::bf16, DType::fp32}) {
    SCOPED_TRACE(to_string(t));
    const size_t n = 5000, eb = size_t(dtype_bytes(t));
    Buffer buf(n * eb);
    const ref::Expected e{false, 99};
    const ref::Region region{100, 37, 30, 40};  // 40 lines of 30 elements, ld 37, from element 100
    ASSERT_EQ(ref::fill_expected(buf.p, n, t, e, nullptr), cudaSuccess);
    uint64_t changed = 1;
    ASSERT_EQ(ref::count_changed(buf.p, n, t, e, nullptr, nullptr, &changed), cudaSuccess);
    EXPECT_EQ(changed, 0u);
    ASSERT_EQ(ref::poison_region(buf.p, t, region, nullptr), cudaSuccess);
    ASSERT_EQ(ref::count_changed(buf.p, n, t, e, nullptr, nullptr, &changed), cudaSuccess);
    EXPECT_EQ(changed, 30u * 40u) << "poison_region must write exactly the region";
    ASSERT_EQ(ref::count_changed(buf.p, n, t, e, &region, nullptr, &changed), cudaSuccess);
    EXPECT_EQ(changed, 0u);
    // One element in a gap between lines (index 100 + 37 + 31), one just past the last line.
    for (size_t at : {size_t{168}, size_t{100 + 39 * 37 + 30}}) {
      ASSERT_EQ(cudaMemset(static_cast<char*>(buf.p) + at * eb, 0, eb), cudaSuccess);
    }
    ASSERT_EQ(ref::count_changed(buf.p, n, t, e, &region, nullptr, &changed), cudaSuccess);
    EXPECT_EQ(changed, 2u);
  }
}

// A candidate = tilegemm::gemm, then `after` (which may corrupt something), counting the calls.
bench::FuzzHooks hooks_with(std::function<void(const GemmArgs&, int call)> after) {
  auto calls = std::make_shared<int>(0);
  bench::FuzzHooks h;
  h.launch = [after, calls](const GemmArgs& args) {
    const Status s = gemm(args);
    if (s.ok() && after) after(args, (*calls)++);
    return s;
  };
  return h;
}

TEST(FuzzRunner, PassesACorrectCandidateAndCatchesEachWrongOne) {
  bench::FuzzRunner runner;
  ASSERT_EQ(runner.init(), cudaSuccess);
  const bench::FuzzOptions o{300, 2000000, {}};
  for (int64_t i = 0; i < 40; ++i) {  // every C mode, layout, dtype among these
    const bench::FuzzProblem p = bench::draw_problem(21, i, o);
    const bench::FuzzCheck r = runner.run(p, hooks_with(nullptr));
    EXPECT_TRUE(r.passed) << bench::describe(p) << ": " << (r.errors.empty() ? "" : r.errors[0]);
  }
  bench::FuzzProblem p = bench::draw_problem(21, 3, o);
  p.c_mode = bench::CMode::none;
  p.beta = 0.0f;
  const size_t eb = size_t(dtype_bytes(p.out));
  const auto byte_at = [](const void* ptr, ptrdiff_t off) { return static_cast<char*>(const_cast<void*>(ptr)) + off; };

  bench::FuzzCheck r = runner.run(p, hooks_with([&](const GemmArgs& g, int) {  // the element before D
    cudaMemsetAsync(byte_at(g.d.ptr, -ptrdiff_t(eb)), 0, eb, g.stream);
  }));
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.outside_d_writes, 2u);  // once per run

  r = runner.run(p, hooks_with([&](const GemmArgs& g, int) { cudaMemsetAsync(byte_at(g.a.ptr, 0), 0, 2, g.stream); }));
  EXPECT_FALSE(r.passed);
  EXPECT_GE(r.input_writes, 1u);

  r = runner.run(p, hooks_with([&](const GemmArgs& g, int call) {  // the second run's D(0, 0) differs
    if (call == 1) cudaMemsetAsync(byte_at(g.d.ptr, 0), 0x11, 1, g.stream);
  }));
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.run_differences, 1u);
  EXPECT_TRUE(r.check.passed) << "the first run was right";

  bench::FuzzHooks nothing;  // a "GEMM" that never writes D: the poison stays
  nothing.launch = [](const GemmArgs&) { return Status::success(); };
  r = runner.run(p, nothing);
  EXPECT_FALSE(r.passed);
  EXPECT_FALSE(r.check.passed);
  EXPECT_EQ(r.check.non_finite, size_t(p.m * p.n));
}

}  // namespace
}  // namespace tilegemm
