// The timer's host-side logic (timer.hpp, cupti_timer.hpp): summary statistics, the per-call
// kernel-time sum, the libcupti search list and loader, --timer resolution, and the fallback from
// CUPTI to events — on a CPU-only machine (CI) CUPTI is never usable, so the fallback is what runs.
// The measurements themselves are checked in tests/gpu/test_timer_gpu.cu.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <sys/wait.h>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "bench/cupti_timer.hpp"
#include "bench/timer.hpp"

namespace tilegemm::bench {
namespace {

bool has_cuda_device() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

TEST(TimerSummary, OddCountMedianIsTheMiddleValue) {
  const Timing t = summarize_times({9, 1, 5, 3, 7});
  EXPECT_EQ(t.iters, 5);
  EXPECT_DOUBLE_EQ(t.median_us, 5);
  EXPECT_DOUBLE_EQ(t.min_us, 1);
  EXPECT_DOUBLE_EQ(t.max_us, 9);
  EXPECT_DOUBLE_EQ(t.mean_us, 5);
}

TEST(TimerSummary, EvenCountMedianIsTheMeanOfTheTwoMiddleValues) {
  const Timing t = summarize_times({10, 2, 4, 100});
  EXPECT_EQ(t.iters, 4);
  EXPECT_DOUBLE_EQ(t.median_us, 7);
  EXPECT_DOUBLE_EQ(t.min_us, 2);
  EXPECT_DOUBLE_EQ(t.max_us, 100);
  EXPECT_DOUBLE_EQ(t.mean_us, 29);
}

TEST(TimerSummary, SingleAndEmpty) {
  const Timing one = summarize_times({3.5});
  EXPECT_EQ(one.iters, 1);
  EXPECT_DOUBLE_EQ(one.median_us, 3.5);
  EXPECT_DOUBLE_EQ(one.min_us, 3.5);
  EXPECT_DOUBLE_EQ(one.max_us, 3.5);
  const Timing none = summarize_times({});
  EXPECT_EQ(none.iters, 0);
  EXPECT_EQ(none.median_us, 0);
  EXPECT_EQ(none.mean_us, 0);
}

TEST(KernelTime, SumsEveryKernelOfTheCall) {
  // cuBLAS split-K: the GEMM, a gap, then the reduce. The gap is not kernel time.
  const std::vector<detail::KernelSpan> spans = {{1'000'000, 1'007'000, 41}, {1'009'500, 1'010'300, 42}};
  double us = 0;
  std::string error;
  ASSERT_TRUE(detail::kernel_time_us(spans, &us, &error)) << error;
  EXPECT_DOUBLE_EQ(us, 7.8);
  // Order of delivery does not matter.
  const std::vector<detail::KernelSpan> reversed = {spans[1], spans[0]};
  ASSERT_TRUE(detail::kernel_time_us(reversed, &us, &error)) << error;
  EXPECT_DOUBLE_EQ(us, 7.8);
  // A zero-length kernel is a record, not an error.
  ASSERT_TRUE(detail::kernel_time_us({{5, 5, 1}}, &us, &error)) << error;
  EXPECT_EQ(us, 0);
}

TEST(KernelTime, NoRecordOrIncompleteRecordIsAnError) {
  double us = -1;
  std::string error;
  EXPECT_FALSE(detail::kernel_time_us({}, &us, &error));
  EXPECT_NE(error.find("no kernel activity record"), std::string::npos) << error;
  EXPECT_EQ(us, -1);
  error.clear();
  EXPECT_FALSE(detail::kernel_time_us({{1000, 2000, 1}, {0, 2500, 2}}, &us, &error));
  EXPECT_NE(error.find("incomplete"), std::string::npos) << error;
  EXPECT_NE(error.find("correlation id 2"), std::string::npos) << error;
  error.clear();
  EXPECT_FALSE(detail::kernel_time_us({{3000, 0, 7}}, &us, &error));
  EXPECT_NE(error.find("incomplete"), std::string::npos) << error;
  error.clear();
  EXPECT_FALSE(detail::kernel_time_us({{3000, 2999, 8}}, &us, &error));
  EXPECT_NE(error.find("incomplete"), std::string::npos) << error;
  EXPECT_EQ(us, -1);
}

TEST(CuptiLibrary, CandidatesOverrideAlone) {
  const auto c = detail::cupti_library_candidates("/opt/x/libcupti.so", "/cuda", nullptr);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0], "/opt/x/libcupti.so");
}

TEST(CuptiLibrary, CandidatesSonameFirstThenEachRootNoDuplicates) {
  const auto c = detail::cupti_library_candidates(nullptr, "/usr/local/cuda/", "");
  ASSERT_GE(c.size(), 4u);
  EXPECT_EQ(c[0], "libcupti.so.13");
  EXPECT_EQ(c[1], "libcupti.so");
  const auto has = [&c](const std::string& p) { return std::find(c.begin(), c.end(), p) != c.end(); };
  EXPECT_TRUE(has("/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13"));
  EXPECT_TRUE(has("/usr/local/cuda/extras/CUPTI/lib64/libcupti.so"));
  EXPECT_TRUE(has("/usr/local/cuda/lib64/libcupti.so.13"));
  EXPECT_TRUE(has("/usr/local/cuda/lib/libcupti.so"));
  for (size_t i = 0; i < c.size(); ++i)
    for (size_t j = i + 1; j < c.size(); ++j) EXPECT_NE(c[i], c[j]);
  // CUDA_HOME comes before the /usr/local/cuda default.
  const auto d = detail::cupti_library_candidates("", "/opt/cuda-13", nullptr);
  ASSERT_GE(d.size(), 3u);
  EXPECT_EQ(d[2], "/opt/cuda-13/extras/CUPTI/lib64/libcupti.so.13");
  EXPECT_TRUE(std::find(d.begin(), d.end(), "/usr/local/cuda/lib64/libcupti.so.13") != d.end());
}

TEST(CuptiLibrary, MissingFilesAreReportedNotFatal) {
  detail::CuptiLibrary lib;
  std::string reason;
  EXPECT_FALSE(lib.load({"/nonexistent/libcupti.so.13", "/nonexistent/other.so"}, &reason));
  EXPECT_FALSE(lib.loaded());
  EXPECT_NE(reason.find("cannot load libcupti"), std::string::npos) << reason;
  EXPECT_NE(reason.find("/nonexistent/libcupti.so.13"), std::string::npos) << reason;
  EXPECT_NE(reason.find("/nonexistent/other.so"), std::string::npos) << reason;
  EXPECT_EQ(lib.version(), 0u);
  EXPECT_FALSE(lib.result_string(CUPTI_ERROR_UNKNOWN).empty());
  reason.clear();
  EXPECT_FALSE(lib.load({}, &reason));
  EXPECT_NE(reason.find("cannot load libcupti"), std::string::npos) << reason;
}

TEST(CuptiLibrary, ALibraryWithoutTheFunctionsIsRejected) {
  detail::CuptiLibrary lib;
  std::string reason;
  EXPECT_FALSE(lib.load({"libm.so.6"}, &reason));
  EXPECT_FALSE(lib.loaded());
  EXPECT_NE(reason.find("no symbol cupti"), std::string::npos) << reason;
}

// Exit status of the child processes below: 0 = checks passed, 2 = no libcupti here, else failed.
bool passed_or_no_library(int status) { return WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 2); }

TEST(CuptiLibrary, TheInstalledLibraryLoadsWithEverySymbol) {
  // In a child process (threadsafe style re-runs this test alone): this process must not have
  // libcupti loaded, or the timer's probe would take it for a profiler's. Loading resolves symbols
  // only; nothing that needs a GPU is called.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        detail::CuptiLibrary lib;
        std::string reason;
        if (!lib.load(detail::cupti_library_candidates(nullptr, std::getenv("CUDA_HOME"), std::getenv("CUDA_PATH")),
                      &reason)) {
          std::fprintf(stderr, "no libcupti on this machine: %s\n", reason.c_str());
          std::exit(2);
        }
        // Any CUPTI with the KernelN record prefix the timer reads; error strings resolve.
        const bool ok = lib.loaded() && !lib.path.empty() && lib.version() >= 18u &&
                        !lib.result_string(CUPTI_ERROR_MAX_LIMIT_REACHED).empty();
        std::fprintf(stderr, "%s: CUPTI API %u\n", lib.path.c_str(), lib.version());
        std::exit(ok ? 0 : 1);
      },
      passed_or_no_library, "");
}

// Both names of a two-valued option parse back to their value (each parse starting from the other).
template <class E, class Name, class Parse>
void expect_names_round_trip(E a, E b, Name name, Parse parse) {
  for (E v : {a, b}) {
    E parsed = v == a ? b : a;
    ASSERT_TRUE(parse(name(v), &parsed));
    EXPECT_EQ(parsed, v);
  }
}

TEST(TimingMethodNames, RoundTrip) {
  expect_names_round_trip(TimingMethod::events, TimingMethod::cupti, timing_method_name, parse_timing_method);
  TimingMethod m = TimingMethod::cupti;
  EXPECT_FALSE(parse_timing_method("CUPTI", &m));
  EXPECT_FALSE(parse_timing_method("", &m));
  EXPECT_EQ(m, TimingMethod::cupti);
  EXPECT_EQ(TimingOptions{}.method, TimingMethod::cupti);  // the default: cupti where it works
}

TEST(FlushKindNames, RoundTripAndWriteIsTheDefault) {
  expect_names_round_trip(FlushKind::write, FlushKind::read, flush_kind_name, parse_flush_kind);
  FlushKind k = FlushKind::read;
  EXPECT_FALSE(parse_flush_kind("memset", &k));
  EXPECT_FALSE(parse_flush_kind("", &k));
  EXPECT_EQ(k, FlushKind::read);  // untouched on failure
  EXPECT_EQ(TimingOptions{}.flush, FlushKind::write);
  EXPECT_TRUE(TimingOptions{}.flush_l2);
}

TEST(ChooseTimer, EventsAlwaysWork) {
  std::string error;
  const auto c = choose_timer("events", &error);
  ASSERT_TRUE(c) << error;
  EXPECT_EQ(c->method, TimingMethod::events);
  EXPECT_TRUE(c->fallback_reason.empty());
  EXPECT_NE(c->description.find("CUDA events"), std::string::npos);
  EXPECT_FALSE(choose_timer("nvtx", &error));
  EXPECT_NE(error.find("--timer 'nvtx'"), std::string::npos) << error;
}

TEST(ChooseTimer, DefaultIsCuptiWhenAvailableElseEventsWithTheReason) {
  std::string error;
  const auto c = choose_timer("", &error);
  ASSERT_TRUE(c) << error;
  const auto named = choose_timer("cupti", &error);
  if (cupti_available()) {
    EXPECT_EQ(c->method, TimingMethod::cupti);
    EXPECT_TRUE(c->fallback_reason.empty());
    EXPECT_TRUE(cupti_unavailable_reason().empty());
    ASSERT_TRUE(named) << error;
    EXPECT_EQ(named->method, TimingMethod::cupti);
    EXPECT_EQ(default_timing_method(), TimingMethod::cupti);
  } else {
    EXPECT_EQ(c->method, TimingMethod::events);
    EXPECT_FALSE(c->fallback_reason.empty());
    EXPECT_EQ(c->fallback_reason, cupti_unavailable_reason());
    EXPECT_NE(c->description.find("CUPTI unavailable"), std::string::npos) << c->description;
    EXPECT_FALSE(named);  // asked for by name: refused, never silently replaced
    EXPECT_NE(error.find("--timer cupti"), std::string::npos) << error;
    EXPECT_EQ(default_timing_method(), TimingMethod::events);
  }
}

TEST(CuptiProbe, WithoutADeviceCuptiIsNotEvenLoaded) {
  if (has_cuda_device()) GTEST_SKIP() << "a CUDA device is present";
  EXPECT_FALSE(cupti_available());
  EXPECT_NE(cupti_unavailable_reason().find("no CUDA device"), std::string::npos) << cupti_unavailable_reason();
}

TEST(CuptiProbe, DisabledByEnvironment) {
  // A fresh process (threadsafe death-test style re-runs this test alone), so the probe runs again.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("TILEGEMM_CUPTI_LIB", "none", 1);
        const bool ok = !cupti_available() && cupti_unavailable_reason() == "disabled by TILEGEMM_CUPTI_LIB=none" &&
                        default_timing_method() == TimingMethod::events;
        std::exit(ok ? 0 : 1);
      },
      testing::ExitedWithCode(0), "");
}

TEST(CuptiProbe, LeftAloneWhenAProfilerIsAttached) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("CUDA_INJECTION64_PATH", "/opt/nsight/libToolsInjection64.so", 1);
        const std::string reason = cupti_unavailable_reason();
        std::exit(!cupti_available() && reason.find("profiling tool is attached") != std::string::npos ? 0 : 1);
      },
      testing::ExitedWithCode(0), "");
}

TEST(CuptiProbe, LeftAloneWhenSomethingElseLoadedIt) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        detail::CuptiLibrary other;  // stands in for a profiler's copy
        std::string reason;
        if (!other.load({"libcupti.so.13", "libcupti.so"}, &reason)) std::exit(2);
        reason = cupti_unavailable_reason();
        std::exit(!cupti_available() && reason.find("already loaded") != std::string::npos ? 0 : 1);
      },
      passed_or_no_library, "");
}

TEST(TimeOnDevice, CuptiRequestedFallsBackToEventsWithoutCrashing) {
  // No kernel is launched: CUPTI (where it works) sees no kernel record and events measure; without
  // a device CUPTI is unavailable and the events path reports the CUDA error. Either way the CUPTI
  // side never fails the call by itself.
  int calls = 0;
  const auto launch = [&calls](cudaStream_t) {
    ++calls;
    return cudaSuccess;
  };
  TimingOptions opt;
  opt.method = TimingMethod::cupti;
  opt.flush_l2 = false;
  opt.warmup = 2;
  opt.iters = 3;
  Timing t;
  t.median_us = -1;
  const cudaError_t e = time_on_device(launch, opt, nullptr, &t);
  if (!has_cuda_device()) {
    EXPECT_NE(e, cudaSuccess);
    EXPECT_EQ(t.median_us, -1);  // untouched on error
    EXPECT_EQ(calls, 2);         // the events path ran its warm-up, then its first sync failed
  } else {
    ASSERT_EQ(e, cudaSuccess) << cudaGetErrorString(e);
    EXPECT_STREQ(t.method, "events");
    EXPECT_FALSE(t.fallback_reason.empty());
    EXPECT_EQ(t.iters, 3);
  }
}

TEST(TimeOnDevice, BadOptionsAreRefusedBeforeAnyLaunch) {
  int calls = 0;
  const auto launch = [&calls](cudaStream_t) {
    ++calls;
    return cudaSuccess;
  };
  Timing t;
  for (TimingMethod m : {TimingMethod::events, TimingMethod::cupti}) {
    TimingOptions opt;
    opt.method = m;
    opt.iters = 0;
    EXPECT_EQ(time_on_device(launch, opt, nullptr, &t), cudaErrorInvalidValue);
    opt.iters = 1;
    opt.warmup = -1;
    EXPECT_EQ(time_on_device(launch, opt, nullptr, &t), cudaErrorInvalidValue);
    opt.warmup = 0;
    EXPECT_EQ(time_on_device(launch, opt, nullptr, nullptr), cudaErrorInvalidValue);
  }
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace tilegemm::bench
