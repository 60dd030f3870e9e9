// The SM90 fast path (src/kernels/sm90/gemm_kernel.cuh behind gemm()'s select_path) against the CPU
// reference: M, N that are no multiple of any tile, ragged K, ldd > N and padded lda/ldb, every
// instantiated tile configuration, every mapping kind; split-K on decode shapes (the rule's choice
// and forced split counts, bit-for-bit determinism); and problems the rule sends to the fallback.
// Inputs random normal (seeded), D's elements poisoned with NaN, every other byte of D's
// allocation (guards before/after, the gap between N and ldd) set to a pattern that must survive.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "api/fast_path.hpp"
#include "kernels/sm90/gemm_launch.hpp"
#include "reference/device_fill.hpp"
#include "reference/reference.hpp"
#include "schedule/mapping_names.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm {
namespace {

constexpr int64_t kGuard = 256;  // bf16 elements before and after each matrix (512 B: keeps 16-B alignment)
constexpr unsigned char kGuardByte = 0x5A;

struct FastCase {
  int64_t m, n, k;
  int64_t lda_pad = 0, ldb_pad = 0, ldd_pad = 0;  // elements beyond the packed leading dimension
  int64_t offset = 0;                              // elements every pointer is moved off alignment
  float alpha = 1.0f;
  sched::Mapping mapping{sched::MappingKind::grouped_m, 8};
  sm90::TileConfig config = sm90::TileConfig::automatic;
  bool expect_fast = true;  // what select_path's rule must say
  bool probe = false;       // call sm90::launch_gemm directly, bypassing the rule, and only report
  int splits = 0;           // split-K: 0 = the rule, n >= 1 forced (LaunchOptions::splits)
  int expect_splits = -1;   // >= 0: call sm90::launch_gemm directly and check the split count that ran

  std::string name() const {
    return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " lda+" + std::to_string(lda_pad) +
           " ldb+" + std::to_string(ldb_pad) + " ldd+" + std::to_string(ldd_pad) + " offset " +
           std::to_string(offset) + " alpha " + std::to_string(alpha) + " mapping " + sched::mapping_name(mapping) +
           " config " + sm90::tile_config_name(config) + " splits " + std::to_string(splits);
  }
};

struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(size_t bytes) { EXPECT_EQ(cudaMalloc(&p, bytes), cudaSuccess); }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

std::vector<float> to_floats(const std::vector<__nv_bfloat16>& v) {
  std::vector<float> f(v.size());
  for (size_t i = 0; i < v.size(); ++i) f[i] = __bfloat162float(v[i]);
  return f;
}

// Rows of D compared with the reference: all of them for small problems, otherwise 64 spread over
// M plus the last 130 (the partial last m-tile and the one before it, whatever the tile). Every
// element of D is still scanned for NaN (poison left behind) and the guards are checked in full.
std::vector<int64_t> checked_rows(int64_t m) {
  std::vector<int64_t> rows;
  if (m <= 300) {
    for (int64_t r = 0; r < m; ++r) rows.push_back(r);
    return rows;
  }
  for (int i = 0; i < 64; ++i) rows.push_back(i * (m - 131) / 63);
  for (int64_t r = m - 130; r < m; ++r) rows.push_back(r);
  return rows;
}

// d_out (optional): D's whole allocation after the call, for bit-for-bit comparisons.
void run_fast_case(const FastCase& cs, uint64_t seed, std::vector<__nv_bfloat16>* d_out = nullptr) {
  SCOPED_TRACE(cs.name());
  // Leading dimensions: the packed one rounded up to 8 elements (16-B TMA strides), plus the pad.
  auto round8 = [](int64_t x) { return (x + 7) / 8 * 8; };
  const int64_t lda = round8(cs.k) + cs.lda_pad, ldb = round8(cs.k) + cs.ldb_pad, ldd = round8(cs.n) + cs.ldd_pad;
  const size_t a_elems = size_t(kGuard + cs.offset + cs.m * lda + kGuard);
  const size_t b_elems = size_t(kGuard + cs.offset + cs.n * ldb + kGuard);
  const size_t d_elems = size_t(kGuard + cs.offset + cs.m * ldd + kGuard);
  DeviceBuffer a_buf(a_elems * 2), b_buf(b_elems * 2), d_buf(d_elems * 2);
  auto* a_base = static_cast<__nv_bfloat16*>(a_buf.p);
  auto* b_base = static_cast<__nv_bfloat16*>(b_buf.p);
  auto* d_base = static_cast<__nv_bfloat16*>(d_buf.p);
  const int64_t first = kGuard + cs.offset;

  ASSERT_EQ(ref::fill_normal_bf16(a_base, a_elems, seed, 1.0f, nullptr), cudaSuccess);
  ASSERT_EQ(ref::fill_normal_bf16(b_base, b_elems, seed + 1, 1.0f, nullptr), cudaSuccess);
  ASSERT_EQ(cudaMemset(d_base, kGuardByte, d_elems * 2), cudaSuccess);
  for (int64_t r = 0; r < cs.m; ++r)
    ASSERT_EQ(ref::poison(d_base + first + r * ldd, size_t(cs.n), 2, nullptr), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  std::vector<__nv_bfloat16> a_host(a_elems), b_host(b_elems), d_before(d_elems), d_after(d_elems);
  ASSERT_EQ(cudaMemcpy(a_host.data(), a_base, a_elems * 2, cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(b_host.data(), b_base, b_elems * 2, cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d_before.data(), d_base, d_elems * 2, cudaMemcpyDeviceToHost), cudaSuccess);

  GemmArgs args;
  args.a = MatrixRef{a_base + first, cs.m, cs.k, lda, DType::bf16, Major::k_major};
  args.b = MatrixRef{b_base + first, cs.n, cs.k, ldb, DType::bf16, Major::k_major};
  args.d = MatrixRef{d_base + first, cs.m, cs.n, ldd, DType::bf16, row_major};
  args.alpha = cs.alpha;
  if (!cs.probe) EXPECT_EQ(detail::sm90_eligible(args), cs.expect_fast) << detail::sm90_ineligible_reason(args);
  if (cs.probe || cs.expect_splits >= 0) {
    sm90::GemmProblem p{args.a.ptr, args.b.ptr, const_cast<void*>(args.d.ptr), int(cs.m), int(cs.n), int(cs.k),
                        lda, ldb, ldd, cs.alpha, nullptr};
    sm90::LaunchOptions o;
    o.mapping = cs.mapping;
    o.config = cs.config;
    o.splits = cs.splits;
    const sm90::LaunchResult lr = sm90::launch_gemm(p, o);
    ASSERT_TRUE(lr.ok()) << lr.message;
    if (cs.expect_splits >= 0) EXPECT_EQ(lr.splits, cs.expect_splits) << "split count that ran";
  } else {
    detail::GemmOptions options;
    options.mapping = cs.mapping;
    options.sm90_config = cs.config;
    options.sm90_splits = cs.splits;
    const Status st = detail::gemm_with_options(args, options);
    ASSERT_TRUE(st.ok()) << st.argument << ": " << st.message;
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d_after.data(), d_base, d_elems * 2, cudaMemcpyDeviceToHost), cudaSuccess);
  if (d_out != nullptr) *d_out = d_after;

  // Nothing outside D's elements changed (guards, and the ldd - N gap of every row).
  size_t changed = 0, nan_left = 0;
  for (int64_t i = 0; i < int64_t(d_elems); ++i) {
    const int64_t rel = i - first;
    const bool in_d = rel >= 0 && rel < cs.m * ldd && rel % ldd < cs.n;
    if (!in_d && std::memcmp(&d_before[i], &d_after[i], 2) != 0) ++changed;
    if (in_d && !(__bfloat162float(d_after[i]) == __bfloat162float(d_after[i]))) ++nan_left;
  }
  if (!cs.probe) {
    EXPECT_EQ(changed, 0u) << "elements outside D were written";
    EXPECT_EQ(nan_left, 0u) << "elements of D left unwritten (poison) or NaN";
  }

  // Reference on the checked rows: A restricted to those rows, full B.
  const std::vector<int64_t> rows = checked_rows(cs.m);
  const int64_t nr = int64_t(rows.size());
  std::vector<__nv_bfloat16> a_rows(size_t(nr * cs.k));
  for (int64_t i = 0; i < nr; ++i)
    std::memcpy(&a_rows[size_t(i * cs.k)], &a_host[size_t(first + rows[i] * lda)], size_t(cs.k) * 2);
  const ref::HostView<__nv_bfloat16> a_view{a_rows.data(), nr, cs.k, cs.k, Major::k_major};
  const ref::HostView<__nv_bfloat16> b_view{b_host.data() + first, cs.n, cs.k, ldb, Major::k_major};
  std::vector<float> expected(size_t(nr * cs.n)), out(size_t(nr * cs.n));
  ref::cpu_gemm(a_view, b_view, nullptr, cs.alpha, 0.0f, expected.data());
  for (int64_t i = 0; i < nr; ++i)
    for (int64_t c = 0; c < cs.n; ++c)
      out[size_t(i * cs.n + c)] = __bfloat162float(d_after[size_t(first + rows[i] * ldd + c)]);
  const ref::CheckResult r = ref::check(out.data(), expected.data(), out.size(), DType::bf16);
  if (cs.probe) {
    std::printf("[probe] %s: outside-D writes %zu, NaN %zu, calc_diff %.3g, mismatches %zu -> %s\n",
                cs.name().c_str(), changed, nan_left, r.calc_diff, r.mismatches, r.passed ? "matches" : "DIFFERS");
    return;
  }
  EXPECT_TRUE(r.passed) << "calc_diff " << r.calc_diff << " max_rel " << r.max_rel << " non_finite " << r.non_finite
                        << " mismatches " << r.mismatches;
}

constexpr sm90::TileConfig kConfigs[] = {sm90::TileConfig::t128x256, sm90::TileConfig::t128x192,
                                         sm90::TileConfig::t128x176, sm90::TileConfig::t128x144,
                                         sm90::TileConfig::t128x128, sm90::TileConfig::t64x128};

TEST(FastPathGpu, OddShapesEveryConfigTwoSeeds) {
  // M, N no multiple of any tile; K below one k-block, ragged K, K = one k-block; 129 and 1000 give
  // an even number of 128-row blocks (2-CTA clusters on 128x256), 777 an odd one (no cluster).
  // Leading dimensions are N, K rounded up to 8 (1x1x8: ldd = 8): the TMA edges do the rest.
  const FastCase shapes[] = {{1, 1, 8},    {129, 257, 72}, {1000, 3000, 520}, {777, 256, 64},
                             {64, 64, 16}, {300, 8, 1000}, {200, 5, 64},      {130, 1001, 136}};
  for (uint64_t seed : {11u, 12u})
    for (const FastCase& s : shapes) {
      run_fast_case(s, seed);  // the selection rule's choice
      for (sm90::TileConfig c : kConfigs) {
        FastCase cs = s;
        cs.config = c;
        run_fast_case(cs, seed + 100);
      }
    }
}

TEST(FastPathGpu, LargeWithRaggedK) {
  // 4096^2 with K = 4104: 64 full k-blocks and one of 8 (zero-filled rest); 128x256 with clusters.
  for (uint64_t seed : {21u, 22u}) run_fast_case({4096, 4096, 4104}, seed);
  FastCase c{4096, 4096, 4104};
  c.config = sm90::TileConfig::t128x128;
  run_fast_case(c, 23);
}

TEST(FastPathGpu, PaddedLeadingDimensionsAndGuards) {
  // ldd > N: the TMA store must clip at N, so the gap between rows keeps its guard bytes; lda/ldb
  // padded by 8 (the padding is random data that must not be read as K).
  for (uint64_t seed : {31u, 32u})
    for (sm90::TileConfig c : {sm90::TileConfig::automatic, sm90::TileConfig::t128x256, sm90::TileConfig::t128x192,
                               sm90::TileConfig::t128x176, sm90::TileConfig::t128x144, sm90::TileConfig::t128x128,
                               sm90::TileConfig::t64x128}) {
      FastCase cs{129, 257, 72, /*lda_pad=*/8, /*ldb_pad=*/8, /*ldd_pad=*/16 /* 264+16 = 280 */};
      cs.config = c;
      cs.alpha = -0.75f;
      run_fast_case(cs, seed);
      FastCase wide{1000, 300, 520, 8, 16, 40};  // 304 + 40 = 344
      wide.config = c;
      run_fast_case(wide, seed + 5);
    }
}

TEST(FastPathGpu, DirectEpilogueConfigsOddShapesGuardsTwoSeeds) {
  // 128x144 / 128x176 (BLOCK_N not a multiple of 64: direct bounds-checked stores, no TMA store):
  // N ragged inside a tile, inside a 16-column wgmma block and inside a column pair (odd N);
  // even / odd number of 128-row blocks (clusters or not); ldd > N (the gap keeps its guards).
  const FastCase shapes[] = {{1000, 577, 520},  {777, 2113, 136, 8, 8, 24}, {129, 143, 72},
                             {256, 176, 64},    {300, 145, 1000, 0, 0, 40}, {130, 353, 8},
                             {4096, 576, 7168}, {4096, 2112, 704}};
  for (uint64_t seed : {61u, 62u})
    for (const FastCase& s : shapes)
      for (sm90::TileConfig c : {sm90::TileConfig::t128x144, sm90::TileConfig::t128x176}) {
        FastCase cs = s;
        cs.config = c;
        cs.alpha = seed == 62u ? -0.5f : 1.0f;
        run_fast_case(cs, seed);
      }
  // The rule picks them for the suite's small-N large-M shapes.
  EXPECT_EQ(sm90::choose_tile_config(4096, 576, 132), sm90::TileConfig::t128x144);
  EXPECT_EQ(sm90::choose_tile_config(4096, 2112, 132), sm90::TileConfig::t128x176);
  for (uint64_t seed : {63u, 64u}) {
    run_fast_case({4096, 576, 7168}, seed);
    run_fast_case({4096, 2112, 7168}, seed);
  }
}

TEST(FastPathGpu, EveryMappingKind) {
  const char* names[] = {"linear-n", "linear-m", "grouped-m:8", "grouped-m:3", "grouped-n:4",
                         "box:2x3",  "morton",   "hilbert"};
  for (const char* name : names) {
    const sched::Parsed<sched::Mapping> m = sched::parse_mapping(name);
    ASSERT_TRUE(m.ok()) << m.error;
    for (sm90::TileConfig c : kConfigs) {
      FastCase cs{1000, 3000, 520};  // 8 x 12 tiles of 128x256 (clusters), 8 x 24, 16 x 24
      cs.mapping = m.value;
      cs.config = c;
      run_fast_case(cs, 41);
    }
  }
}

TEST(FastPathGpu, IneligibleProblemsStayOnTheFallback) {
  FastCase odd_ld{129, 257, 72, /*lda_pad=*/4};  // lda = 76: not a multiple of 8
  odd_ld.expect_fast = false;
  run_fast_case(odd_ld, 51);
  FastCase odd_ldd{65, 100, 64, 0, 0, /*ldd_pad=*/3};  // ldd = 103
  odd_ldd.expect_fast = false;
  run_fast_case(odd_ldd, 52);
  FastCase misaligned{65, 128, 64};
  misaligned.offset = 1;  // every pointer 2 bytes off 16-B alignment
  misaligned.expect_fast = false;
  run_fast_case(misaligned, 53);
  FastCase odd_k{33, 64, 13};  // K = 13, lda = 16: K not a multiple of 8
  odd_k.expect_fast = false;
  run_fast_case(odd_k, 54);
  FastCase fp32_like{70, 90, 40, 0, 0, /*ldd_pad=*/1};  // ldd = 97
  fp32_like.expect_fast = false;
  run_fast_case(fp32_like, 55);
}

// ---- split-K (decode shapes) ----

int device_sms() {
  int device = 0, sms = 0;
  EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
  EXPECT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), cudaSuccess);
  return sms;
}

// The split count the automatic choice should run (config rule, then split rule; the splittable
// configs run one CTA per SM without clusters, so their persistent grid is the SM count).
int expected_auto_splits(int64_t m, int64_t n, int64_t k, int sms) {
  const sm90::TileConfig c = sm90::choose_tile_config(m, n, sms);
  int bm = 0;
  if (c == sm90::TileConfig::t64x128) bm = 64;
  if (c == sm90::TileConfig::t128x128) bm = 128;
  if (bm == 0) return 1;
  return sm90::choose_splits(sm90::ceil_div64(m, bm) * sm90::ceil_div64(n, 128), sms, sm90::ceil_div64(k, 64));
}

TEST(FastPathGpu, SplitRule) {
  EXPECT_EQ(sm90::choose_splits(17, 132, 112), 7);   // 1x2112x7168 on 64x128
  EXPECT_EQ(sm90::choose_splits(5, 132, 112), 26);   // 1x576x7168
  EXPECT_EQ(sm90::choose_splits(64, 132, 112), 2);   // 128x4096x7168
  EXPECT_EQ(sm90::choose_splits(66, 132, 112), 1);   // half the GPU busy: no split
  EXPECT_EQ(sm90::choose_splits(192, 132, 24), 1);   // more tiles than SMs
  EXPECT_EQ(sm90::choose_splits(5, 132, 8), 2);      // K = 512: >= 4 k-blocks per split
  EXPECT_EQ(sm90::choose_splits(5, 132, 9), 2);      // K = 520
  EXPECT_EQ(sm90::choose_splits(5, 132, 7), 1);      // < 2 splits of 4 k-blocks
  EXPECT_EQ(sm90::choose_splits(1, 132, 1000), 132);
}

TEST(FastPathGpu, DecodeShapesAutoSplitTwoSeeds) {
  const int sms = device_sms();
  for (uint64_t seed : {71u, 72u})
    for (int64_t m : {1, 7, 64, 128})
      for (int64_t n : {576, 2112, 1000})
        for (int64_t k : {512, 7168, 520}) {
          FastCase cs{m, n, k};
          cs.expect_splits = expected_auto_splits(m, n, k, sms);
          run_fast_case(cs, seed);
        }
}

TEST(FastPathGpu, DecodeShapesForcedSplits) {
  // Forced counts bypass the rule (only clamped to the k-blocks: K = 512 has 8, 520 has 9). Odd N
  // (577, 1001: the reduce's last 4-column group is partial), the 128x128 instantiation, a split
  // count that does not divide the k-blocks (3 of 112, 8 of 9) and more units than SMs (8 x 34).
  const FastCase shapes[] = {{1, 576, 7168}, {7, 1001, 520}, {64, 2112, 512}, {128, 1000, 7168}, {128, 577, 520}};
  for (int splits : {1, 2, 3, 8}) {
    for (const FastCase& s : shapes) {
      FastCase cs = s;
      cs.splits = splits;
      cs.expect_splits = splits;
      run_fast_case(cs, 80 + uint64_t(splits));
    }
    for (const FastCase& s : {FastCase{128, 1000, 520}, FastCase{7, 2112, 7168}, FastCase{200, 1001, 1024}}) {
      FastCase cs = s;
      cs.config = sm90::TileConfig::t128x128;
      cs.splits = splits;
      cs.expect_splits = splits;
      run_fast_case(cs, 90 + uint64_t(splits));
    }
    // A config without a split-K instantiation ignores the request.
    FastCase big{128, 1000, 520};
    big.config = sm90::TileConfig::t128x256;
    big.splits = splits;
    big.expect_splits = 1;
    run_fast_case(big, 95);
  }
}

TEST(FastPathGpu, SplitKGuardBandsAndAlpha) {
  // ldd > N and padded lda/ldb with split-K: the reduce writes only columns < N of rows < M.
  for (uint64_t seed : {101u, 102u})
    for (int splits : {0, 3, 8}) {
      FastCase cs{7, 1001, 7168, /*lda_pad=*/8, /*ldb_pad=*/8, /*ldd_pad=*/24};
      cs.alpha = -0.75f;
      cs.splits = splits;
      run_fast_case(cs, seed);
      FastCase one{1, 577, 520, 16, 8, 40};
      one.alpha = 0.5f;
      one.splits = splits;
      run_fast_case(one, seed + 10);
    }
}

TEST(FastPathGpu, SplitKIsDeterministic) {
  // Same inputs twice -> the same bits (fixed K ranges, fixed summation order in the reduce).
  for (FastCase cs : {FastCase{128, 2112, 7168}, FastCase{1, 576, 7168}, FastCase{7, 1001, 7168}}) {
    if (cs.m == 7) cs.splits = 8;
    std::vector<__nv_bfloat16> first, second;
    run_fast_case(cs, 111, &first);
    run_fast_case(cs, 111, &second);
    ASSERT_EQ(first.size(), second.size());
    EXPECT_EQ(std::memcmp(first.data(), second.data(), first.size() * 2), 0) << cs.name() << ": results differ";
  }
}

// Not a pass/fail test: what the kernel does with a K that ends inside a 16-B chunk when lda > K
// (the padding holds random data). "matches" would mean TMA's zero fill is per element and the
// K % 8 rule in api/fast_path.hpp could go.
TEST(FastPathGpu, ProbeKTailInsideA16ByteChunk) {
  FastCase cs{129, 264, 13};
  cs.probe = true;
  run_fast_case(cs, 61);
  FastCase cs2{1000, 304, 1003};
  cs2.probe = true;
  run_fast_case(cs2, 62);
}

}  // namespace
}  // namespace tilegemm
