// align_clocks (trace/host_tracks.hpp) on the synthetic trace: CUPTI's kernel start is put at the
// first in-kernel timestamp (the earliest CTA entry where the lanes carry one, else the earliest
// role's begin), and the last role's end is measured against CUPTI's kernel end.
#include <gtest/gtest.h>

#include "decoded_synthetic.hpp"
#include "trace/decode.hpp"
#include "trace/host_tracks.hpp"

namespace tilegemm::trace {
namespace {

DecodedTrace decoded(const test::SyntheticSpec& s) { return test::decoded_synthetic(s); }

uint64_t last_end(const DecodedTrace& t) {
  uint64_t last = 0;
  for (const LaneTrace& l : t.lanes) last = std::max(last, l.end_ns);
  return last;
}

TEST(TraceClock, CuptisKernelStartIsTheFirstCtasEntry) {
  test::SyntheticSpec s;
  s.entry_lead_ns = 1200;
  const DecodedTrace t = decoded(s);
  bench::ActivityRecord k;
  k.kind = bench::ActivityKind::kernel;
  k.name = "tilegemm_gemm";
  k.start_ns = 5'000'000;
  const uint64_t device_span = last_end(t) - (s.t0 + 900 - 1200);  // first entry (CTA 0) to the last end
  k.end_ns = k.start_ns + device_span + 700;
  const CallWindow w{4'000'000, 4'500'000, 6'000'000};
  const ClockAlignment a = align_clocks(t, w, &k);
  EXPECT_TRUE(a.has_cupti_kernel);
  EXPECT_EQ(int64_t(s.t0 + 900 - 1200) + a.offset_ns, int64_t(k.start_ns));  // CTA 0's entry
  EXPECT_EQ(a.last_role_to_kernel_end_ns, 700);
  EXPECT_EQ(a.host_call_to_first_ns, 1'000'000);
  // Without entry stamps the earliest role's begin takes the kernel's start, as before them.
  const DecodedTrace plain = decoded(test::SyntheticSpec{});
  const ClockAlignment b = align_clocks(plain, w, &k);
  EXPECT_EQ(int64_t(s.t0 + 900) + b.offset_ns, int64_t(k.start_ns));
  // Without CUPTI's record there is no kernel end to measure against.
  EXPECT_EQ(align_clocks(t, w, nullptr).last_role_to_kernel_end_ns, -1);
}

}  // namespace
}  // namespace tilegemm::trace
