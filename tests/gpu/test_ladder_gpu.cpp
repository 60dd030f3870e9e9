// Every ladder step against the CPU reference on every shape of a list that its check_shape
// accepts: random normal inputs (seeded, never zeros), D poisoned with NaN before each run, and two
// runs with different seeds (an error that moves between runs is a race).
#include <cstdio>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "ladder/ladder.hpp"
#include "reference/device_fill.hpp"
#include "reference/reference.hpp"

namespace tilegemm {
namespace {

struct Shape {
  int m, n, k;
};

// Multiples of 128/256 in M and N, K from one k-block up to 8192; small enough for the CPU
// reference to stay in seconds.
const std::vector<Shape> kShapes = {
    {128, 128, 64},   {128, 128, 192},  {128, 128, 4096}, {256, 256, 512},  {384, 256, 128},
    {256, 512, 8192}, {512, 768, 1024}, {1024, 1024, 1024}, {1280, 768, 320}, {2048, 256, 2048},
};

template <typename T>
struct DeviceBuffer {
  T* p = nullptr;
  explicit DeviceBuffer(size_t n) { EXPECT_EQ(cudaMalloc(&p, n * sizeof(T)), cudaSuccess); }
  ~DeviceBuffer() { cudaFree(p); }
};

void check_step_on_shape(const ladder::Step& step, const Shape& s, uint64_t seed) {
  SCOPED_TRACE("step " + std::to_string(step.number) + " " + std::to_string(s.m) + "x" +
               std::to_string(s.n) + "x" + std::to_string(s.k) + " seed " + std::to_string(seed));
  const size_t na = size_t(s.m) * s.k, nb = size_t(s.n) * s.k, nd = size_t(s.m) * s.n;
  DeviceBuffer<__nv_bfloat16> a(na), b(nb), d(nd);
  ASSERT_EQ(ref::fill_normal_bf16(a.p, na, seed, 1.0f, nullptr), cudaSuccess);
  ASSERT_EQ(ref::fill_normal_bf16(b.p, nb, seed + 1, 1.0f, nullptr), cudaSuccess);
  ASSERT_EQ(ref::poison(d.p, nd, sizeof(__nv_bfloat16), nullptr), cudaSuccess);
  ASSERT_EQ(step.launch({a.p, b.p, d.p, s.m, s.n, s.k}, nullptr), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  std::vector<float> out(nd), expect(nd);
  ASSERT_EQ(ref::copy_to_host_float(d.p, /*src_is_bf16=*/true, nd, out.data()), cudaSuccess);
  std::vector<__nv_bfloat16> ha(na), hb(nb);
  ref::fill_normal_host_bf16(ha.data(), na, seed, 1.0f);
  ref::fill_normal_host_bf16(hb.data(), nb, seed + 1, 1.0f);
  ref::cpu_gemm({ha.data(), s.m, s.k, s.k, Major::k_major}, {hb.data(), s.n, s.k, s.k, Major::k_major},
                nullptr, 1.0f, 0.0f, expect.data());
  const ref::CheckResult r = ref::check(out.data(), expect.data(), nd, DType::bf16);
  EXPECT_TRUE(r.passed) << "calc_diff " << r.calc_diff << " max_rel " << r.max_rel << " non_finite "
                        << r.non_finite << " mismatches " << r.mismatches;
}

TEST(LadderGpu, EveryStepMatchesReferenceOnItsShapes) {
  for (const ladder::Step& step : ladder::steps()) {
    int tested = 0;
    for (const Shape& s : kShapes) {
      if (!step.check_shape(s.m, s.n, s.k).empty()) continue;
      for (uint64_t seed : {11u, 12345u}) check_step_on_shape(step, s, seed);
      ++tested;
    }
    std::printf("ladder step %d (%s): %d shapes x 2 seeds\n", step.number, step.name, tested);
    EXPECT_GT(tested, 0) << "step " << step.number << " accepts none of the test shapes";
  }
}

}  // namespace
}  // namespace tilegemm
