// The sm90 path (gemm() -> route -> planner -> JIT kernel, src/sm90/gemm/) against the CPU
// reference: M, N that are no multiple of any tile, ragged K, ldd > N and padded lda/ldb, forced
// configurations of every kind the template instantiates (tile widths with the TMA-store and the
// direct epilogue, 1 or 2 consumers, clusters 2x1 and 1x2, static launches), every mapping kind;
// split-K on decode shapes (the planner's choice and forced split counts, bit-for-bit determinism);
// odd leading dimensions, offsets and K (repacked or read in place). Inputs random normal (seeded), D's elements
// poisoned with NaN, every other byte of D's allocation (guards before/after, the gap between N and
// ldd) set to a pattern that must survive.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "api/route.hpp"
#include "api/sm90_launch.hpp"
#include "plan/device_profile.hpp"
#include "plan/planner.hpp"
#include "core/layout_names.hpp"
#include "forced_config.hpp"
#include "plan/config_spec.hpp"
#include "reference/device_fill.hpp"
#include "reference/guards.hpp"
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
  std::string mapping;      // "" = the config's (the planner's) mapping
  std::string config;       // --config spec; "" = the planner's choice
  bool expect_sm90 = true;  // what route() must say
  int expect_splits = -1;   // >= 0: the split count the launched config must have
  int expect_row_repacks = -1;  // >= 0: operands route() repacks because their rows start inside sectors (h200)
  int expect_narrow_transposes = -1;  // >= 0: MN-major operands narrower than 64 route() copies into K-major (h200)
  bool narrow_transposes = true;      // GemmOptions::narrow_transposes
  bool narrow_mn_chunks = false;      // GemmOptions::narrow_mn_chunks
  int expect_b_chunk = -1;            // >= 0: the launched config's kernel B chunk (sm90::b_mn_chunk)
  Major a_major = Major::k_major;  // A [M, K]: k_major = [M][lda], mn_major = [K][lda] (lda >= M)
  Major b_major = Major::k_major;  // B [N, K] likewise
  int max_ctas = 0;                // GemmOptions::max_ctas
  std::string expect_epilogue;     // non-empty: the launched config's epilogue (sm90::epilogue_name)

  std::string name() const {
    return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " lda+" + std::to_string(lda_pad) +
           " ldb+" + std::to_string(ldb_pad) + " ldd+" + std::to_string(ldd_pad) + " offset " +
           std::to_string(offset) + " alpha " + std::to_string(alpha) + " mapping '" + mapping + "' config '" +
           config + "' layout " + layout_name(a_major, b_major) + " max_ctas " + std::to_string(max_ctas);
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
  const bool a_mn = cs.a_major == Major::mn_major, b_mn = cs.b_major == Major::mn_major;
  const int64_t lda = round8(a_mn ? cs.m : cs.k) + cs.lda_pad, ldb = round8(b_mn ? cs.n : cs.k) + cs.ldb_pad,
                ldd = round8(cs.n) + cs.ldd_pad;
  const size_t a_elems = size_t(kGuard + cs.offset + (a_mn ? cs.k : cs.m) * lda + kGuard);
  const size_t b_elems = size_t(kGuard + cs.offset + (b_mn ? cs.k : cs.n) * ldb + kGuard);
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
  args.a = MatrixRef{a_base + first, cs.m, cs.k, lda, DType::bf16, cs.a_major};
  args.b = MatrixRef{b_base + first, cs.n, cs.k, ldb, DType::bf16, cs.b_major};
  args.d = MutMatrixRef{d_base + first, cs.m, cs.n, ldd, DType::bf16, row_major};
  args.alpha = cs.alpha;
  EXPECT_EQ(detail::route(args).path == detail::Path::sm90, cs.expect_sm90) << detail::route(args).reason;
  if (cs.expect_row_repacks >= 0) {
    const plan::DeviceProfile h200 = *plan::find_builtin_profile("h200");
    int row_repacks = 0;
    for (const auto& pk : detail::route(args, &h200).packs)
      row_repacks += pk.why.find("32-B sector boundaries") != std::string::npos;
    EXPECT_EQ(row_repacks, cs.expect_row_repacks);
  }
  if (cs.expect_narrow_transposes >= 0) {
    const plan::DeviceProfile h200 = *plan::find_builtin_profile("h200");
    int transposes = 0;
    for (const auto& pk : detail::route(args, &h200).packs)
      transposes += pk.transposes() && pk.why.find("rows along") != std::string::npos;
    EXPECT_EQ(transposes, cs.expect_narrow_transposes);
  }
  detail::GemmOptions options;
  ASSERT_TRUE(test::forced_config(cs.config, &options));
  if (!cs.mapping.empty()) {
    const sched::Parsed<sched::Mapping> m = sched::parse_mapping(cs.mapping);
    ASSERT_TRUE(m.ok()) << m.error;
    options.mapping = m.value;
  }
  options.max_ctas = cs.max_ctas;
  options.narrow_transposes = cs.narrow_transposes;
  options.narrow_mn_chunks = cs.narrow_mn_chunks;
  const Status st = detail::gemm_with_options(args, options);
  ASSERT_TRUE(st.ok()) << st.argument << ": " << st.message;
  const std::optional<plan::Config> ran = detail::last_sm90_config();
  EXPECT_EQ(ran.has_value(), cs.expect_sm90);
  if (ran && cs.expect_splits >= 0) EXPECT_EQ(ran->split_k, cs.expect_splits) << plan::describe(*ran);
  if (ran && cs.expect_b_chunk >= 0) EXPECT_EQ(sm90::b_mn_chunk(*ran), cs.expect_b_chunk) << plan::describe(*ran);
  if (ran && !cs.expect_epilogue.empty())
    EXPECT_EQ(std::string(sm90::epilogue_id(ran->epilogue)), cs.expect_epilogue) << plan::describe(*ran);
  if (ran && cs.max_ctas > 0) {  // held to max_ctas: persistent, or a k-split cluster whose CTAs fit
    const plan::Problem kp = plan::kernel_problem(detail::route(args).problem, *ran);
    if (ran->cluster_k > 1)
      EXPECT_LE(plan::kernel_shape(kp, *ran).tiles * ran->cluster_k, cs.max_ctas) << plan::describe(*ran);
    else
      EXPECT_TRUE(ran->persistent) << plan::describe(*ran);
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
  EXPECT_EQ(changed, 0u) << "elements outside D were written";
  EXPECT_EQ(nan_left, 0u) << "elements of D left unwritten (poison) or NaN";

  // Reference on the checked rows: A restricted to those rows, full B.
  const std::vector<int64_t> rows = checked_rows(cs.m);
  const int64_t nr = int64_t(rows.size());
  std::vector<__nv_bfloat16> a_rows(size_t(nr * cs.k));
  for (int64_t i = 0; i < nr; ++i)
    for (int64_t kk = 0; kk < cs.k; ++kk)
      a_rows[size_t(i * cs.k + kk)] = a_host[size_t(first + (a_mn ? kk * lda + rows[i] : rows[i] * lda + kk))];
  const ref::HostView<__nv_bfloat16> a_view{a_rows.data(), nr, cs.k, cs.k, Major::k_major};
  const ref::HostView<__nv_bfloat16> b_view{b_host.data() + first, cs.n, cs.k, ldb, cs.b_major};
  std::vector<float> expected(size_t(nr * cs.n)), out(size_t(nr * cs.n));
  ref::cpu_gemm(a_view, b_view, nullptr, cs.alpha, 0.0f, expected.data());
  for (int64_t i = 0; i < nr; ++i)
    for (int64_t c = 0; c < cs.n; ++c)
      out[size_t(i * cs.n + c)] = __bfloat162float(d_after[size_t(first + rows[i] * ldd + c)]);
  const ref::CheckResult r = ref::check(out.data(), expected.data(), out.size(), DType::bf16);
  EXPECT_TRUE(r.passed) << "calc_diff " << r.calc_diff << " max_rel " << r.max_rel << " non_finite " << r.non_finite
                        << " mismatches " << r.mismatches;
}

// Tile shapes of every kind the template instantiates: TMA-store epilogue (BN % 64 == 0, full or
// part staging), direct epilogue (BN % 64 != 0), one consumer (BM 64) or two (BM 128), narrow BN.
const char* const kTiles[] = {"128x256", "128x192", "128x176", "128x144", "128x128", "64x128", "64x256", "128x48"};

int64_t blocks(int64_t extent, int tile) { return (extent + tile - 1) / tile; }

// `tile` with a 2-CTA cluster along `axis` ('m' or 'n') when the tile grid is even along it (the
// kernel needs complete pairs; the planner's cluster.pairs rule), else without.
// With MN-major operands the multicast half must also be whole 64-element chunks.
std::string with_cluster(const std::string& tile, char axis, int64_t m, int64_t n, Major a = Major::k_major,
                         Major b = Major::k_major) {
  const int bm = std::stoi(tile.substr(0, tile.find('x'))), bn = std::stoi(tile.substr(tile.find('x') + 1));
  const bool b_ok = b == Major::k_major || (bn / 2) % 64 == 0, a_ok = a == Major::k_major || (bm / 2) % 64 == 0;
  if (axis == 'm' && b_ok && blocks(m, bm) % 2 == 0) return tile + ",cluster=2x1";
  if (axis == 'n' && a_ok && blocks(n, bn) % 2 == 0) return tile + ",cluster=1x2";
  return tile;
}

TEST(Sm90PathGpu, OddShapesEveryTileKindTwoSeeds) {
  // M, N no multiple of any tile; K below one k-block, ragged K, K = one k-block; even and odd
  // numbers of blocks along M and N (clusters when complete, below). Leading dimensions are N, K
  // rounded up to 8 (1x1x8: ldd = 8): the TMA edges do the rest.
  const FastCase shapes[] = {{1, 1, 8},    {129, 257, 72}, {1000, 3000, 520}, {777, 256, 64},
                             {64, 64, 16}, {300, 8, 1000}, {200, 5, 64},      {130, 1001, 136}};
  for (uint64_t seed : {11u, 12u})
    for (const FastCase& s : shapes) {
      run_fast_case(s, seed);  // the planner's choice
      for (const char* tile : kTiles)
        for (char axis : {'-', 'm', 'n'}) {
          FastCase cs = s;
          cs.config = with_cluster(tile, axis, s.m, s.n);
          run_fast_case(cs, seed + 100);
        }
    }
}

TEST(Sm90PathGpu, SplitLinesRepackedWhereTheModelSaysSoAndRightEitherWay) {
  // Rows that start inside 32-B L2 sectors (ld or base an odd multiple of 16 B): route() repacks an
  // operand when the time model says it pays (and the kernel reads the copy), otherwise the kernel
  // reads the operand in place. Both must be right.
  FastCase big{3000, 3000, 3000};  // lda = ldb = 3000: rows 6000 B apart
  big.expect_row_repacks = 0;      // (h200's model: the 2x1 cluster halves B's extra cost; none copied)
  run_fast_case(big, 71);
  FastCase narrow{128, 3000, 3000};  // one m-block: every CTA reads A's 128 rows off sectors
  narrow.expect_row_repacks = 1;     // (h200's model: A, 770 KB, is copied)
  run_fast_case(narrow, 75);
  FastCase shifted{2048, 2048, 2048};
  shifted.offset = 8;               // every base 16 B past alignment
  run_fast_case(shifted, 72);
  FastCase mn{1000, 3000, 3000};
  mn.a_major = Major::mn_major;     // A [K][M], M = 1000: columns 2000 B apart
  run_fast_case(mn, 73);
  FastCase decode{1, 7168, 5000};   // the weights are read once: never copied first
  decode.expect_row_repacks = 0;
  run_fast_case(decode, 74);
}

// An M x N x K case with A stored MN-major (TN or TT, by B's major).
FastCase mn_a_case(int64_t m, int64_t n, int64_t k, Major b_major) {
  FastCase cs{m, n, k};
  cs.a_major = Major::mn_major;
  cs.b_major = b_major;
  return cs;
}

TEST(Sm90PathGpu, NarrowMnMajorOperandsCopiedIntoKMajorOrReadInPlace) {
  // An MN-major A (or B) with fewer than 64 rows along M (N): route() copies it into K-major lines
  // when the model says that pays (the kernel then runs swap-AB's narrow tiles over the copy), else
  // the kernel reads it in place. Both must be right, with padded and odd leading dimensions and
  // pointers off alignment (the copy reads any element stride), and with forced configs.
  for (int64_t m : {1, 2, 8, 24, 40, 63}) {
    FastCase cs = mn_a_case(m, 3000, 2056, Major::k_major);  // TT
    // (h200's model copies A at M = 8 and 24 here; at the other M it decides by a narrow margin,
    // so only the result is checked, both ways.)
    cs.expect_narrow_transposes = m == 8 || m == 24 ? 1 : -1;
    run_fast_case(cs, 301 + uint64_t(m));
    cs.narrow_transposes = false;  // read in place
    run_fast_case(cs, 401 + uint64_t(m));
  }
  FastCase tn = mn_a_case(8, 6144, 4096, Major::mn_major);  // TN, both MN-major
  tn.expect_narrow_transposes = 1;
  run_fast_case(tn, 311);
  tn.lda_pad = 1;  // lda = 9: no TMA map; the transposing copy reads it
  tn.offset = 3;   // every pointer 6 B off alignment
  run_fast_case(tn, 312);
  FastCase nn{3000, 24, 2048};  // NN with N = 24: B is the narrow one
  nn.b_major = Major::mn_major;
  nn.expect_narrow_transposes = 1;
  run_fast_case(nn, 313);
  for (const char* spec : {"64x16,swapab", "64x32,swapab,splitk=2", "128x16,swapab,streamk", "64x64"}) {
    FastCase forced = mn_a_case(24, 5120, 1000, Major::k_major);
    forced.config = spec;  // planned over the K-major copy
    run_fast_case(forced, 320);
  }
}

TEST(Sm90PathGpu, NarrowMnChunksReadInPlace) {
  // MN-major operands in chunks of 16 or 32 elements along MN (32-B / 64-B swizzled smem, one TMA
  // box per chunk: sm90/swizzle.hpp), forced and as the planner picks them with
  // GemmOptions::narrow_mn_chunks: swap-AB over a small MN-major A read in place (16-, 32-, 48-wide
  // tiles, split, k-split cluster, stream-K), small-N tiles of an MN-major B (multicast halves,
  // ping-pong), the 32-row multicast half of a 64-row MN-major A; padded and odd leading dimensions.
  auto mn_a = [](int64_t m, int64_t n, int64_t k, Major b_major) {
    FastCase cs = mn_a_case(m, n, k, b_major);
    cs.narrow_transposes = false;  // read in place
    return cs;
  };
  struct Forced {
    int64_t m;
    const char* spec;
    int b_chunk;
  };
  for (const Forced& f : {Forced{1, "64x16,swapab", 16}, Forced{8, "64x16,swapab", 16}, Forced{13, "128x16,swapab", 16},
                          Forced{24, "64x32,swapab,splitk=2", 32}, Forced{32, "128x32,swapab,splitk=2,dsm", 32},
                          Forced{40, "128x48,swapab", 16}, Forced{48, "64x48,swapab,streamk", 16},
                          Forced{56, "128x64,swapab", 64}}) {
    for (Major b_major : {Major::k_major, Major::mn_major}) {
      FastCase cs = mn_a(f.m, 3000, 2056, b_major);
      cs.config = f.spec;
      cs.expect_b_chunk = f.b_chunk;
      run_fast_case(cs, 501 + uint64_t(f.m));
      cs.lda_pad = 8;  // lda = M + 8: the box's rows past M read the padding, which must not count
      run_fast_case(cs, 502 + uint64_t(f.m));
    }
  }
  // The planner's own picks with narrow chunks allowed (read in place or copied, as it predicts).
  for (int64_t m : {8, 16, 24, 40}) {
    FastCase cs = mn_a(m, 6144, 4096, Major::k_major);
    cs.narrow_transposes = true;
    cs.narrow_mn_chunks = true;
    run_fast_case(cs, 520 + uint64_t(m));
  }
  // Small N of an MN-major B: unswapped tiles 48, 96 (multicast halves of 48), 160 ping-pong.
  for (const char* spec : {"128x48", "128x96,cluster=2x1", "128x160,pingpong", "64x16"}) {
    FastCase nn{3000, 200, 1000};
    nn.b_major = Major::mn_major;
    nn.narrow_transposes = false;
    nn.config = spec;
    run_fast_case(nn, 530);
    nn.ldb_pad = 24;
    run_fast_case(nn, 531);
  }
  // A 64-row MN-major A multicast in 32-row halves (1x2 cluster: chunks of 32).
  FastCase pair = mn_a(1000, 3000, 520, Major::k_major);
  pair.config = "64x128,cluster=1x2";
  run_fast_case(pair, 540);
}

TEST(Sm90PathGpu, StaticLaunchesAndDeepOrShallowRings) {
  for (const char* spec : {"128x256,static", "128x128,static,cluster=2x1", "64x128,static", "128x128,stages=3",
                           "128x256,stages=3", "64x64,stages=12"}) {
    FastCase cs{1000, 3000, 520};
    cs.config = spec;
    run_fast_case(cs, 13);
  }
}

TEST(Sm90PathGpu, LargeWithRaggedK) {
  // 4096^2 with K = 4104: 64 full k-blocks and one of 8 (zero-filled rest).
  for (uint64_t seed : {21u, 22u}) run_fast_case({4096, 4096, 4104}, seed);
  for (const char* spec : {"128x128", "128x256,cluster=1x2", "128x256,cluster=2x1"}) {
    FastCase c{4096, 4096, 4104};
    c.config = spec;
    run_fast_case(c, 23);
  }
}

TEST(Sm90PathGpu, PaddedLeadingDimensionsAndGuards) {
  // ldd > N: the TMA store must clip at N, so the gap between rows keeps its guard bytes; lda/ldb
  // padded by 8 (the padding is random data that must not be read as K).
  for (uint64_t seed : {31u, 32u}) {
    std::vector<std::string> specs = {""};
    for (const char* t : kTiles) specs.push_back(t);
    for (const std::string& spec : specs) {
      FastCase cs{129, 257, 72, /*lda_pad=*/8, /*ldb_pad=*/8, /*ldd_pad=*/16 /* 264+16 = 280 */};
      cs.config = spec.empty() ? spec : with_cluster(spec, 'm', cs.m, cs.n);
      cs.alpha = -0.75f;
      run_fast_case(cs, seed);
      FastCase wide{1000, 300, 520, 8, 16, 40};  // 304 + 40 = 344
      wide.config = spec.empty() ? spec : with_cluster(spec, 'n', wide.m, wide.n);
      run_fast_case(wide, seed + 5);
    }
  }
}

TEST(Sm90PathGpu, PartialBoxTilesOddShapesGuardsTwoSeeds) {
  // BN not a multiple of 64 (the TMA store's last box overlaps its neighbour, config.hpp
  // store_boxes): N ragged inside a tile, inside a 16-column wgmma block and inside a column pair
  // (odd N: the < 8 tail columns by plain stores); ldd > N keeps its guards.
  const FastCase shapes[] = {{1000, 577, 520},  {777, 2113, 136, 8, 8, 24}, {129, 143, 72},
                             {256, 176, 64},    {300, 145, 1000, 0, 0, 40}, {130, 353, 8},
                             {4096, 576, 7168}, {4096, 2112, 704}};
  for (uint64_t seed : {61u, 62u})
    for (const FastCase& s : shapes)
      for (const char* tile : {"128x144", "128x176", "64x80"}) {
        FastCase cs = s;
        cs.config = with_cluster(tile, 'm', s.m, s.n);
        cs.alpha = seed == 62u ? -0.5f : 1.0f;
        run_fast_case(cs, seed);
      }
}

TEST(Sm90PathGpu, EveryMappingKind) {
  const char* names[] = {"linear-n", "linear-m", "grouped-m:8", "grouped-m:3", "grouped-n:4",
                         "box:2x3",  "morton",   "hilbert"};
  for (const char* name : names)
    for (const char* spec : {"128x256,cluster=2x1", "128x128,cluster=1x2", "128x192", "64x128"}) {
      FastCase cs{1000, 3072, 520};  // 8 x 12 tiles of 128x256, 8 x 24, 16 x 24: even both ways
      cs.mapping = name;
      cs.config = spec;
      run_fast_case(cs, 41);
    }
}

TEST(Sm90PathGpu, OddLeadingDimensionsOffsetsAndKStayOnTheSm90Kernel) {
  // What TMA cannot describe in place: A or B repacked into an aligned workspace, D stored from
  // registers (element-wise when not pair-aligned); K % 8 != 0 read with the zero fill.
  FastCase odd_ld{129, 257, 72, /*lda_pad=*/4};  // lda = 76: not a multiple of 8
  run_fast_case(odd_ld, 51);
  FastCase odd_ldd{65, 100, 64, 0, 0, /*ldd_pad=*/3};  // ldd = 107
  run_fast_case(odd_ldd, 52);
  FastCase misaligned{65, 128, 64};
  misaligned.offset = 1;  // every pointer 2 bytes off 16-B alignment
  run_fast_case(misaligned, 53);
  FastCase odd_k{33, 64, 13};  // K = 13, lda = 16: K not a multiple of 8
  run_fast_case(odd_k, 54);
}

// ---- split-K (decode shapes) ----

TEST(Sm90PathGpu, DecodeShapesPlannedTwoSeeds) {
  for (uint64_t seed : {71u, 72u})
    for (int64_t m : {1, 7, 64, 128})
      for (int64_t n : {576, 2112, 1000})
        for (int64_t k : {512, 7168, 520}) run_fast_case(FastCase{m, n, k}, seed);
}

TEST(Sm90PathGpu, DecodeShapesForcedSplits) {
  // Forced counts (only clamped to the k-blocks: K = 512 has 8, 520 has 9). Odd N (577, 1001: the
  // the last 4-column group of a row is partial), both consumer counts, a split count that does not
  // divide the k-blocks (3 of 112, 8 of 9) and more units than SMs (8 x 34).
  const FastCase shapes[] = {{1, 576, 7168}, {7, 1001, 520}, {64, 2112, 512}, {128, 1000, 7168}, {128, 577, 520}};
  for (int splits : {2, 3, 8}) {
    for (const FastCase& s : shapes)
      for (const char* tile : {"64x128", "128x128", "64x48"}) {
        FastCase cs = s;
        cs.config = std::string(tile) + ",splitk=" + std::to_string(splits);
        cs.expect_splits = splits;
        run_fast_case(cs, 80 + uint64_t(splits));
      }
  }
}

TEST(Sm90PathGpu, SplitKGuardBandsAndAlpha) {
  // ldd > N and padded lda/ldb with split-K: the fix-up's store writes only columns < N of rows < M.
  for (uint64_t seed : {101u, 102u})
    for (const char* spec : {"", "64x128,splitk=3", "64x128,splitk=8"}) {
      FastCase cs{7, 1001, 7168, /*lda_pad=*/8, /*ldb_pad=*/8, /*ldd_pad=*/24};
      cs.alpha = -0.75f;
      cs.config = spec;
      run_fast_case(cs, seed);
      FastCase one{1, 577, 520, 16, 8, 40};
      one.alpha = 0.5f;
      one.config = spec;
      run_fast_case(one, seed + 10);
    }
}

TEST(Sm90PathGpu, SplitKIsDeterministic) {
  // Same inputs twice -> the same bits (fixed K ranges, fixed summation order in the fix-up).
  for (FastCase cs : {FastCase{128, 2112, 7168}, FastCase{1, 576, 7168}, FastCase{7, 1001, 7168}}) {
    if (cs.m == 7) cs.config = "64x128,splitk=8";
    std::vector<__nv_bfloat16> first, second;
    run_fast_case(cs, 111, &first);
    run_fast_case(cs, 111, &second);
    ASSERT_EQ(first.size(), second.size());
    EXPECT_EQ(std::memcmp(first.data(), second.data(), first.size() * 2), 0) << cs.name() << ": results differ";
  }
}

TEST(Sm90PathGpu, ClusterKSplitsEqualTheWorkspaceFixupBitForBit) {
  // A k-split cluster (`dsm`: the slices of a tile are one cluster, summed in slice 0's shared
  // memory) adds the same partials in the same order as the workspace fix-up, so the two give the
  // same bits; each is also checked against the reference. Cluster sizes 2, 3, 4, 8 (3: not a
  // power of two), one and two consumers, swap-AB decode, odd N, K not a multiple of the slices'
  // k-blocks, more clusters than fit at once (128x1000 with 64x48: 42 tiles x 8 = 336 CTAs).
  const FastCase shapes[] = {{1, 576, 7168}, {7, 1001, 520}, {64, 2112, 512}, {128, 1000, 7168}, {128, 577, 520}};
  for (int splits : {2, 3, 4, 8}) {
    for (const FastCase& s : shapes)
      for (const char* tile : {"64x128", "128x128", "64x48", "64x16,swapab"}) {
        if (std::string(tile).find("swapab") != std::string::npos && s.m > 64) continue;
        // The receive area (S - 1 partials of 64 x BN floats per consumer) must leave room for
        // three stages: 128x128 up to 2 slices, 64x128 up to 4.
        const plan::Config tc = plan::parse_config_spec(tile).spec.config;
        if ((splits - 1) * (tc.bm / 64) * 64 * tc.bn * 4 >= 128 * 1024) continue;
        FastCase cs = s;
        cs.config = std::string(tile) + ",splitk=" + std::to_string(splits);
        cs.expect_splits = splits;
        std::vector<__nv_bfloat16> workspace_sum, cluster_sum;
        run_fast_case(cs, 90 + uint64_t(splits), &workspace_sum);
        cs.config += ",dsm";
        run_fast_case(cs, 90 + uint64_t(splits), &cluster_sum);
        ASSERT_EQ(workspace_sum.size(), cluster_sum.size());
        EXPECT_EQ(std::memcmp(workspace_sum.data(), cluster_sum.data(), cluster_sum.size() * 2), 0)
            << cs.name() << ": the cluster's sum differs from the workspace's";
      }
  }
}

TEST(Sm90PathGpu, ClusterKResidentClusters) {
  // How many k-split clusters of each size the device holds at once (one CTA per SM): the planner
  // offers a k-split cluster only when all of its clusters fit (plan/planner.cpp). Printed for
  // docs/PLANNER.md; asserted: at least one, and never more CTAs than SMs.
  std::string why;
  const auto d = plan::query_live_profile(0, &why);
  ASSERT_TRUE(d.has_value()) << why;
  plan::Problem p;
  p.m = 1;
  p.n = 576;
  p.k = 7168;
  for (int size = 2; size <= 8; ++size) {
    plan::Config c = plan::parse_config_spec("64x16,swapab,splitk=" + std::to_string(size) + ",dsm").spec.config;
    const plan::Candidate cand = plan::evaluate_config(p, *d, c, false);
    ASSERT_TRUE(cand.feasible()) << cand.reason;
    detail::PreparedKernel k;
    const Status st = detail::prepare_kernel(cand.config, 0, &k);
    ASSERT_TRUE(st.ok()) << st.message;
    std::printf("k-split clusters of %d (%d B smem): %d resident = %d CTAs of %d SMs\n", size,
                cand.smem_bytes, k.resident_ctas / size, k.resident_ctas, d->sm_count);
    EXPECT_GE(k.resident_ctas, size);
    EXPECT_LE(k.resident_ctas, d->sm_count);
  }
}

TEST(Sm90PathGpu, MaxCtasPlansForTheSmsItHolds) {
  // GemmOptions::max_ctas (tensor parallelism leaves SMs to its collective): the planner plans for
  // that many SMs, persistent launches and k-split clusters whose CTAs all fit; the results are
  // right. Decode shapes whose uncapped plan is a k-split cluster, M = 128 splits, a static-sized
  // square; caps of 8 (the smallest clusters and splits), 33 (odd) and 100.
  const FastCase shapes[] = {{1, 576, 7168}, {1, 2112, 7168}, {8, 4096, 4096}, {128, 576, 7168}, {515, 777, 1031}};
  for (int cap : {8, 33, 100})
    for (FastCase cs : shapes) {
      cs.max_ctas = cap;
      run_fast_case(cs, 120 + uint64_t(cap));
    }
  // Forced configs that cannot be held to the cap are errors naming "config", not a silent change.
  detail::GemmOptions options;
  ASSERT_TRUE(test::forced_config("64x16,swapab,splitk=8,dsm", &options));
  options.max_ctas = 32;  // 9 tiles x 8 slices = 72 CTAs
  DeviceBuffer a(7168 * 2), b(size_t(576) * 7168 * 2), d(576 * 2);
  ASSERT_EQ(cudaMemset(a.p, 0, 7168 * 2), cudaSuccess);
  ASSERT_EQ(cudaMemset(b.p, 0, size_t(576) * 7168 * 2), cudaSuccess);
  GemmArgs args;
  args.a = MatrixRef{a.p, 1, 7168, 7168, DType::bf16, Major::k_major};
  args.b = MatrixRef{b.p, 576, 7168, 7168, DType::bf16, Major::k_major};
  args.d = MutMatrixRef{d.p, 1, 576, 576, DType::bf16, Major::k_major};
  Status st = detail::gemm_with_options(args, options);
  EXPECT_EQ(st.code, ErrorCode::invalid_argument);
  EXPECT_EQ(st.argument, "config") << st.message;
  ASSERT_TRUE(test::forced_config("64x16,swapab,static", &options));
  st = detail::gemm_with_options(args, options);
  EXPECT_EQ(st.code, ErrorCode::invalid_argument);
  EXPECT_EQ(st.argument, "config") << st.message;
  ASSERT_TRUE(test::forced_config("64x16,swapab,splitk=2,dsm", &options));  // 18 CTAs: within 32
  EXPECT_TRUE(detail::gemm_with_options(args, options).ok());
}

FastCase with_layout(FastCase cs, const char* layout) {
  parse_layout(layout, &cs.a_major, &cs.b_major);
  return cs;
}

// ---- stream-K (the k-blocks of the last waves shared, summed in the kernel) ----

TEST(Sm90PathGpu, StreamKForcedTwoSeeds) {
  // Tile counts below one wave (every tile shared), just over one wave, and between waves (whole
  // tiles first, then the last two waves' worth shared), both consumer counts, TMA-store and
  // direct epilogues, ragged M, N and K, padded leading dimensions.
  const FastCase shapes[] = {{1, 576, 7168}, {7, 1001, 520}, {300, 1000, 2000}, {1000, 3000, 1000},
                             {2000, 5000, 777}, {4096, 2112, 1024, 8, 0, 24}};
  for (uint64_t seed : {121u, 122u})
    for (const FastCase& s : shapes)
      for (const char* tile : {"128x256", "128x128", "64x48", "128x64"}) {
        FastCase cs = s;
        cs.config = std::string(tile) + ",streamk";
        cs.alpha = 0.75f;
        run_fast_case(cs, seed);
      }
}

TEST(Sm90PathGpu, StreamKIsDeterministicAndLeavesItsCountersZero) {
  // Same inputs twice -> the same bits, whatever order the pieces of a shared tile finish in; and a
  // different k-split in between on the same stream (the counters it used must be back at 0, or
  // the next launch would sum too early or never).
  const FastCase shapes[] = {FastCase{2000, 5000, 777}, FastCase{300, 1000, 7168}};
  for (FastCase cs : shapes) {
    cs.config = "128x256,streamk";
    std::vector<__nv_bfloat16> first, second;
    run_fast_case(cs, 131, &first);
    FastCase other{128, 2112, 7168};
    other.config = "64x128,splitk=8";
    run_fast_case(other, 132);
    run_fast_case(cs, 131, &second);
    ASSERT_EQ(first.size(), second.size());
    EXPECT_EQ(std::memcmp(first.data(), second.data(), first.size() * 2), 0) << cs.name() << ": results differ";
  }
}

// ---- swap-AB (Dᵀ = B·Aᵀ, D stored column-major by the kernel) ----

TEST(Sm90PathGpu, SwapAbForcedEveryLayout) {
  // Decode batches, one and two consumers, the narrow BN over M (covering it or not: M = 33 with
  // BN = 16 has three column tiles), unsplit, stream-K and split-K, padded leading dimensions, in
  // every layout (an MN-major A becomes the kernel's MN-major B: BN = 64 only).
  const FastCase shapes[] = {{1, 576, 7168}, {7, 1001, 520}, {33, 2112, 1000, 8, 16, 24}, {64, 640, 4096}};
  for (const char* layout : {"nt", "nn", "tn", "tt"})
    for (const FastCase& s : shapes)
      for (const char* spec : {"64x16,swapab", "128x32,swapab,streamk", "64x64,swapab,splitk=4", "128x64,swapab"}) {
        FastCase cs = with_layout(s, layout);
        if (cs.a_major == Major::mn_major && std::string(spec).find("x64,") == std::string::npos) continue;
        cs.config = spec;
        cs.alpha = -1.25f;
        run_fast_case(cs, 141);
      }
}

TEST(Sm90PathGpu, SwapAbTransposedTmaStores) {
  // Swap-AB tiles of 64 columns and more store D through transposed staging boxes (stmatrix .trans,
  // then TMA) when D's rows are whole 16-B chunks: one box (BN 64), boxes overlapping the last
  // (80, 160), every box staged at once and in slots (stage=64), ping-pong, stream-K and split-K,
  // batches that leave a box partly past M and tiles past N, padded ldd. With N % 8 != 0 the same
  // configs keep the direct epilogue.
  const FastCase shapes[] = {{300, 2048, 512}, {77, 1000, 136, 8, 0, 24}, {200, 4104, 264}, {129, 640, 1000},
                             {300, 1001, 256}};
  const char* specs[] = {"128x160,swapab", "128x64,swapab", "64x80,swapab", "128x256,swapab,stage=64",
                         "128x128,swapab,pingpong", "128x96,swapab,streamk", "128x160,swapab,splitk=2"};
  for (const char* layout : {"nt", "nn"})  // (A MN-major would make the kernel's B MN-major: BN 64 only)
    for (const FastCase& s : shapes)
      for (const char* spec : specs) {
        FastCase cs = with_layout(s, layout);
        cs.config = spec;
        cs.alpha = 0.75f;
        cs.expect_epilogue = s.n % 8 == 0 ? "tma_store" : "direct";
        run_fast_case(cs, 151);
      }
}

// ---- MN-major operands (NN, TN, TT) ----


TEST(Sm90PathGpu, EveryLayoutOddShapesPlannedAndForcedTwoSeeds) {
  // Ragged M, N and K in all four layouts (with both operands MN-major, K needs no 8-multiple),
  // the planner's choice and forced tiles of both consumer counts, TMA-store and direct epilogues,
  // clusters along both axes (the multicast halves of MN-major tiles are whole chunks).
  const FastCase shapes[] = {{129, 257, 72}, {1000, 3000, 520}, {777, 256, 64}, {64, 64, 16},
                             {300, 136, 1000}, {1, 2112, 7168}, {128, 576, 7168}, {130, 1001, 136}};
  for (uint64_t seed : {201u, 202u})
    for (const char* layout : {"nn", "tn", "tt"})
      for (const FastCase& s : shapes) {
        run_fast_case(with_layout(s, layout), seed);
        for (const char* tile : {"128x256", "128x128", "64x128", "128x192"})
          for (char axis : {'-', 'm', 'n'}) {
            FastCase cs = with_layout(s, layout);
            cs.config = with_cluster(tile, axis, s.m, s.n, cs.a_major, cs.b_major);
            run_fast_case(cs, seed + 7);
          }
        // The narrowest tile, or the direct epilogue where B is K-major (an MN-major B is whole
        // 64-column chunks, so BN % 64 == 0 and the TMA-store epilogue).
        FastCase other = with_layout(s, layout);
        other.config = other.b_major == Major::mn_major ? "64x64" : "128x176";
        run_fast_case(other, seed + 9);
      }
}

TEST(Sm90PathGpu, MnMajorOddKPaddedAndSplit) {
  // K = 13 and 1001 (not a multiple of 8) run on the sm90 kernel in TN and NN; padded lda/ldb;
  // split-K with MN-major operands; every mapping kind in one layout.
  for (const char* layout : {"tn", "nn", "tt"}) {
    FastCase padded = with_layout(FastCase{257, 384, 520, /*lda_pad=*/8, /*ldb_pad=*/24, /*ldd_pad=*/16}, layout);
    padded.alpha = -0.75f;
    run_fast_case(padded, 211);
    FastCase split = with_layout(FastCase{7, 1024, 7168}, layout);
    split.config = "64x128,splitk=6";
    split.expect_splits = 6;
    run_fast_case(split, 212);
  }
  for (int64_t k : {13, 1001}) {
    FastCase tn = with_layout(FastCase{200, 300, k}, "tn");
    run_fast_case(tn, 213);
    FastCase nn = with_layout(FastCase{200, 304, k}, "nn");
    run_fast_case(nn, 214);
  }
  for (const char* mapping : {"linear-n", "hilbert", "box:2x3", "grouped-n:4"}) {
    FastCase cs = with_layout(FastCase{1000, 3072, 520}, "tn");
    cs.mapping = mapping;
    cs.config = "128x256,cluster=2x1";
    run_fast_case(cs, 215);
  }
}

// ---- extents at the kernel's bound (plan::kMaxKernelExtent = 2^31 - 1024) ----------------------

// One matrix of an edge case: `elements` bf16 values plus a guard band after them, filled with the
// seeded normal stream (the guard too), D's elements poisoned.
struct EdgeBuffer {
  static constexpr int64_t kTail = 512;  // guard elements after the matrix
  DeviceBuffer buf;
  int64_t elements;
  uint64_t seed;
  EdgeBuffer(int64_t n, uint64_t s) : buf(size_t(n + kTail) * 2), elements(n), seed(s) {}
  __nv_bfloat16* ptr() const { return static_cast<__nv_bfloat16*>(buf.p); }
  // Value i of the allocation as filled (fill_normal_bf16: RN to bf16).
  float value(int64_t i) const { return __bfloat162float(__float2bfloat16_rn(ref::normal_value(seed, uint64_t(i), 1.0f))); }
};

// Extents at the largest the sm90 kernel takes and one step past it (the fallback): the int32
// tile arithmetic at the edge -- a tile past the last row or column, its first column + BN, the
// tile count's ceil_div -- which wrapped negative at 2^31 - 1 before the bound existed (the planner
// divided by zero). Random normal A and B, D poisoned; every element of D must be written, nothing
// after it, and sampled elements (the first and last 300 rows or columns, 64 spread between) match
// the FP32 sum of their K = 8 products. 4 to 69 GB per case: a case the GPU has no room for is
// skipped (and said).
TEST(Sm90PathGpu, ExtentsAtTheKernelsBound) {
  const int64_t edge = plan::kMaxKernelExtent;
  struct EdgeCase {
    int64_t m, n;
    const char* config;  // "" = the planner's
    bool sm90;
  };
  const EdgeCase cases[] = {{1, edge, "", true},         {1, edge, "64x208", true},  // N: swap-AB's BM, then BN 208
                            {edge, 8, "", true},         {edge, 8, "128x16", true},  // M: BM rows past the edge
                            {1, edge + 8, "", false}};   // past the bound: the fallback
  constexpr int64_t k = 8;
  int ran = 0;
  for (const EdgeCase& x : cases) {
    const std::string name = std::to_string(x.m) + "x" + std::to_string(x.n) + "x8 config '" + x.config + "'";
    SCOPED_TRACE(name);
    const int64_t a_n = x.m * k, b_n = x.n * k, d_n = x.m * x.n;
    size_t free_bytes = 0, total = 0;
    ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
    const double need = double(a_n + b_n + d_n) * 2.0 + 4e9;  // + the planner's workspaces, headroom
    if (double(free_bytes) < need) {
      std::printf("[ SKIPPED  ] %s: needs %.1f GB, %.1f GB free\n", name.c_str(), need / 1e9, double(free_bytes) / 1e9);
      continue;
    }
    ++ran;
    EdgeBuffer a(a_n, 901), b(b_n, 902), d(d_n, 903);
    ASSERT_EQ(ref::fill_normal_bf16(a.ptr(), size_t(a_n + EdgeBuffer::kTail), a.seed, 1.0f, nullptr), cudaSuccess);
    ASSERT_EQ(ref::fill_normal_bf16(b.ptr(), size_t(b_n + EdgeBuffer::kTail), b.seed, 1.0f, nullptr), cudaSuccess);
    ASSERT_EQ(ref::fill_normal_bf16(d.ptr(), size_t(d_n + EdgeBuffer::kTail), d.seed, 1.0f, nullptr), cudaSuccess);
    ASSERT_EQ(ref::poison(d.ptr(), size_t(d_n), 2, nullptr), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

    GemmArgs args;
    args.a = MatrixRef{a.ptr(), x.m, k, k, DType::bf16, Major::k_major};
    args.b = MatrixRef{b.ptr(), x.n, k, k, DType::bf16, Major::k_major};
    args.d = MutMatrixRef{d.ptr(), x.m, x.n, x.n, DType::bf16, row_major};
    ASSERT_TRUE(validate(args).ok()) << validate(args).message;
    const detail::Route route = detail::route(args);
    EXPECT_EQ(route.path == detail::Path::sm90, x.sm90) << route.reason;
    detail::GemmOptions options;
    ASSERT_TRUE(test::forced_config(x.config, &options));
    const Status st = detail::gemm_with_options(args, options);
    ASSERT_TRUE(st.ok()) << st.argument << ": " << st.message;
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(detail::last_sm90_config().has_value(), x.sm90);

    // Every element of D written (none left holding the poison), the guard after it untouched.
    const ref::Expected poisoned{true, 0}, filled{false, d.seed};
    uint64_t not_poison = 0, guard_changed = 0;
    ASSERT_EQ(ref::count_changed(d.ptr(), size_t(d_n), DType::bf16, poisoned, nullptr, nullptr, &not_poison), cudaSuccess);
    EXPECT_EQ(not_poison, uint64_t(d_n)) << "elements of D left unwritten";
    const ref::Region d_region{0, d_n, d_n, 1};
    ASSERT_EQ(ref::count_changed(d.ptr(), size_t(d_n + EdgeBuffer::kTail), DType::bf16, filled, &d_region, nullptr,
                                 &guard_changed),
              cudaSuccess);
    EXPECT_EQ(guard_changed, 0u) << "elements after D were written";

    // Sampled elements against the FP32 sum of their products (the fill's values, recomputed).
    const bool tall = x.m > x.n;
    const int64_t long_extent = tall ? x.m : x.n, short_extent = tall ? x.n : x.m;
    std::vector<int64_t> lines;
    for (int64_t i = 0; i < 300; ++i) lines.push_back(i);
    for (int i = 1; i <= 64; ++i) lines.push_back(300 + int64_t(i) * (long_extent - 600) / 65);
    for (int64_t i = long_extent - 300; i < long_extent; ++i) lines.push_back(i);
    std::vector<float> out, expected;
    for (int64_t line : lines)
      for (int64_t j = 0; j < short_extent; ++j) {
        const int64_t row = tall ? line : j, col = tall ? j : line;
        __nv_bfloat16 got;
        ASSERT_EQ(cudaMemcpy(&got, d.ptr() + row * x.n + col, 2, cudaMemcpyDeviceToHost), cudaSuccess);
        float sum = 0.0f;
        for (int64_t kk = 0; kk < k; ++kk) sum += a.value(row * k + kk) * b.value(col * k + kk);
        out.push_back(__bfloat162float(got));
        expected.push_back(sum);
      }
    const ref::CheckResult r = ref::check(out.data(), expected.data(), out.size(), DType::bf16);
    EXPECT_TRUE(r.passed) << "calc_diff " << r.calc_diff << " max_rel " << r.max_rel << " non_finite " << r.non_finite
                          << " mismatches " << r.mismatches;
  }
  if (ran == 0) GTEST_SKIP() << "no case fits in this GPU's free memory";
}

}  // namespace
}  // namespace tilegemm
