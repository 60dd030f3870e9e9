// The two timing methods (src/bench/timer.hpp) on kernels of known length: a one-thread spin on
// clock64. CUPTI's number is the kernel's own duration, so it is at most the event time (which adds
// the launch/front-end gap) and within a few us of it; a call that launches two kernels is timed
// as the sum of both; a call that launches no kernel falls back to events and says why.
// (A .cu file: it defines its own kernel.)
#include <cstdio>
#include <cstdlib>
#include <string>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "bench/timer.hpp"

namespace tilegemm {
namespace {

__global__ void spin_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

// Cycles of the SM clock that take about `us` microseconds (at the peak clock the device reports).
long long cycles_for_us(double us) {
  int device = 0, khz = 0;
  if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device) != cudaSuccess ||
      khz <= 0)
    khz = 1'500'000;
  return static_cast<long long>(us * khz * 1e-3);
}

cudaError_t spin(long long cycles, cudaStream_t s) {
  spin_kernel<<<1, 1, 0, s>>>(cycles);
  return cudaGetLastError();
}

bool cupti_disabled_by_env() {
  const char* v = std::getenv("TILEGEMM_CUPTI_LIB");
  return v != nullptr && std::string(v) == "none";
}

bench::Timing time_with(bench::TimingMethod method, const std::function<cudaError_t(cudaStream_t)>& launch,
                        bool flush = true) {
  bench::TimingOptions opt;
  opt.method = method;
  opt.warmup = 3;
  opt.iters = 21;
  opt.flush_l2 = flush;
  bench::Timing t;
  const cudaError_t e = bench::time_on_device(launch, opt, nullptr, &t);
  EXPECT_EQ(e, cudaSuccess) << cudaGetErrorString(e);
  return t;
}

class CuptiTimer : public testing::Test {
 protected:
  void SetUp() override {
    if (cupti_disabled_by_env()) GTEST_SKIP() << "TILEGEMM_CUPTI_LIB=none";
    const std::string reason = bench::cupti_unavailable_reason();
    if (reason.find("profiling tool is attached") != std::string::npos) GTEST_SKIP() << reason;
    // Otherwise, on the H200 CUPTI must work: the bench's default timer depends on it.
    ASSERT_TRUE(bench::cupti_available()) << reason;
  }
};

TEST_F(CuptiTimer, SpinKernelAgreesWithEventsAndIsNotLonger) {
  const long long cycles = cycles_for_us(50);
  const auto launch = [cycles](cudaStream_t s) { return spin(cycles, s); };
  for (bool flush : {true, false}) {
    const bench::Timing c = time_with(bench::TimingMethod::cupti, launch, flush);
    const bench::Timing e = time_with(bench::TimingMethod::events, launch, flush);
    ASSERT_STREQ(c.method, "cupti") << c.fallback_reason;
    EXPECT_TRUE(c.fallback_reason.empty()) << c.fallback_reason;
    EXPECT_EQ(c.kernels, 1);
    EXPECT_EQ(c.iters, 21);
    ASSERT_STREQ(e.method, "events");
    EXPECT_EQ(e.kernels, 0);
    std::printf("spin %lld cycles, flush %d: cupti median %.2f us (min %.2f max %.2f), events median %.2f us\n",
                cycles, int(flush), c.median_us, c.min_us, c.max_us, e.median_us);
    // ~50 us at the peak clock; a lower clock makes it longer, never much shorter.
    EXPECT_GT(c.median_us, 40.0);
    EXPECT_LT(c.median_us, 150.0);
    EXPECT_LE(c.min_us, c.median_us);
    EXPECT_LE(c.median_us, c.max_us);
    EXPECT_LE(c.median_us, e.median_us + 0.25);  // kernel time excludes the launch gap events see
    EXPECT_LT(e.median_us - c.median_us, 5.0);   // ... which is a few us at most
  }
}

TEST_F(CuptiTimer, TwoKernelsInOneCallAreSummed) {
  const long long a = cycles_for_us(30), b = cycles_for_us(20);
  const bench::Timing ta = time_with(bench::TimingMethod::cupti, [a](cudaStream_t s) { return spin(a, s); });
  const bench::Timing tb = time_with(bench::TimingMethod::cupti, [b](cudaStream_t s) { return spin(b, s); });
  const bench::Timing both = time_with(bench::TimingMethod::cupti, [a, b](cudaStream_t s) {
    if (cudaError_t e = spin(a, s); e != cudaSuccess) return e;
    return spin(b, s);
  });
  ASSERT_STREQ(both.method, "cupti") << both.fallback_reason;
  EXPECT_EQ(ta.kernels, 1);
  EXPECT_EQ(tb.kernels, 1);
  EXPECT_EQ(both.kernels, 2);
  std::printf("spin a %.2f us + spin b %.2f us = %.2f; one call of both: %.2f us\n", ta.median_us, tb.median_us,
              ta.median_us + tb.median_us, both.median_us);
  EXPECT_NEAR(both.median_us, ta.median_us + tb.median_us, 0.05 * (ta.median_us + tb.median_us));
  EXPECT_GT(both.median_us, ta.median_us);
  EXPECT_GT(both.median_us, tb.median_us);
}

TEST_F(CuptiTimer, ACallWithoutAKernelFallsBackToEvents) {
  const size_t bytes = size_t{64} << 20;
  void* buf = nullptr;
  ASSERT_EQ(cudaMalloc(&buf, bytes), cudaSuccess);
  const bench::Timing t =
      time_with(bench::TimingMethod::cupti, [&](cudaStream_t s) { return cudaMemsetAsync(buf, 3, bytes, s); });
  EXPECT_STREQ(t.method, "events");
  EXPECT_NE(t.fallback_reason.find("no kernel activity record"), std::string::npos) << t.fallback_reason;
  EXPECT_GT(t.median_us, 0.0);
  EXPECT_EQ(cudaFree(buf), cudaSuccess);
  // CUPTI is still usable afterwards: the fallback was about that call, not about CUPTI.
  EXPECT_TRUE(bench::cupti_available());
  const long long cycles = cycles_for_us(10);
  const bench::Timing after = time_with(bench::TimingMethod::cupti, [cycles](cudaStream_t s) { return spin(cycles, s); });
  EXPECT_STREQ(after.method, "cupti") << after.fallback_reason;
}

TEST_F(CuptiTimer, LaunchErrorsArePropagatedNotHidden) {
  bench::TimingOptions opt;
  opt.method = bench::TimingMethod::cupti;
  bench::Timing t;
  t.median_us = -1;
  EXPECT_EQ(bench::time_on_device([](cudaStream_t) { return cudaErrorInvalidValue; }, opt, nullptr, &t),
            cudaErrorInvalidValue);
  EXPECT_EQ(t.median_us, -1);
  // A launch that fails only in the timed calls (not in the warm-up).
  int calls = 0;
  opt.warmup = 2;
  opt.iters = 5;
  const long long cycles = cycles_for_us(5);
  EXPECT_EQ(bench::time_on_device(
                [&](cudaStream_t s) { return ++calls > 3 ? cudaErrorInvalidValue : spin(cycles, s); }, opt, nullptr, &t),
            cudaErrorInvalidValue);
  EXPECT_EQ(t.median_us, -1);
  // And the next session still works.
  const bench::Timing ok = time_with(bench::TimingMethod::cupti, [cycles](cudaStream_t s) { return spin(cycles, s); });
  EXPECT_STREQ(ok.method, "cupti") << ok.fallback_reason;
}

TEST(EventTimer, SaysItUsedEvents) {
  const long long cycles = cycles_for_us(10);
  const bench::Timing t = time_with(bench::TimingMethod::events, [cycles](cudaStream_t s) { return spin(cycles, s); });
  EXPECT_STREQ(t.method, "events");
  EXPECT_TRUE(t.fallback_reason.empty());
  EXPECT_EQ(t.kernels, 0);
  EXPECT_GT(t.median_us, 5.0);
}

}  // namespace
}  // namespace tilegemm
