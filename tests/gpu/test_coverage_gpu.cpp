// Every problem on the tensor cores (issue: four layouts, C/beta, fp32 out, odd sizes and strides):
// fp32 output, D = alpha·A·Bᵀ + beta·C with C bf16 or fp32 (and in place, C = D), a column-major D
// (the transposed problem) with C in either major, leading dimensions that are not multiples of 8
// elements and pointers off 16-B alignment on every matrix (A and B repacked, D and C stored
// element by element), K not a multiple of 8 with the K-major operands' padding holding garbage,
// split-K with C and fp32 output. Each case: inputs random normal, D poisoned, every byte outside
// D's elements (guards before and after, the ld gaps) checked unchanged, every element of D checked
// against the FP32 CPU reference, and route() must have sent it to the sm90 kernel.
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "api/route.hpp"
#include "core/layout_names.hpp"
#include "forced_config.hpp"
#include "plan/config_spec.hpp"
#include "sm90/gemm/config.hpp"
#include "reference/device_fill.hpp"
#include "reference/reference.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm {
namespace {

constexpr int64_t kGuardBytes = 512;
constexpr unsigned char kGuardByte = 0x5A;

struct Case {
  int64_t m, n, k;
  Major a_major = Major::k_major, b_major = Major::k_major;
  DType out = DType::bf16;
  Major d_major = row_major;
  bool with_c = false;
  bool in_place = false;  // C is D
  Major c_major = row_major;
  float alpha = 1.0f, beta = 0.0f;
  int64_t lda_pad = 0, ldb_pad = 0, ldc_pad = 0, ldd_pad = 0;  // elements beyond the line length
  int64_t a_off = 0, b_off = 0, c_off = 0, d_off = 0;          // elements past a 512-B boundary
  std::string config;                                          // --config spec; "" = the planner's

  std::string name() const {
    std::string s = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " " +
                    layout_name(a_major, b_major) + " out " + to_string(out) + " D " +
                    (d_major == row_major ? "row" : "col");
    if (with_c)
      s += std::string(" C ") + (in_place ? "=D" : c_major == row_major ? "row" : "col") + " beta " + std::to_string(beta);
    s += " alpha " + std::to_string(alpha) + " pads " + std::to_string(lda_pad) + "/" + std::to_string(ldb_pad) + "/" +
         std::to_string(ldc_pad) + "/" + std::to_string(ldd_pad) + " offs " + std::to_string(a_off) + "/" +
         std::to_string(b_off) + "/" + std::to_string(c_off) + "/" + std::to_string(d_off) + " config '" + config + "'";
    return s;
  }
};

// One matrix in its own allocation: guard bytes, then `off` elements, then the stored lines.
struct Stored {
  int64_t rows = 0, cols = 0, ld = 0;  // logical shape; ld in elements
  Major major = row_major;
  DType dtype = DType::bf16;
  int64_t off = 0;
  void* buf = nullptr;
  size_t bytes = 0;
  std::vector<unsigned char> host;  // the whole allocation as read back

  int elem() const { return dtype_bytes(dtype); }
  int64_t lines() const { return major == row_major ? rows : cols; }
  int64_t line_len() const { return major == row_major ? cols : rows; }
  size_t first() const { return size_t(kGuardBytes + off * elem()); }
  void* ptr() const { return static_cast<unsigned char*>(buf) + first(); }
  // Byte offset in the allocation of element (r, c).
  size_t at(int64_t r, int64_t c) const {
    return first() + size_t(major == row_major ? r * ld + c : c * ld + r) * size_t(elem());
  }
  float value(int64_t r, int64_t c) const {
    const unsigned char* p = host.data() + at(r, c);
    if (dtype == DType::fp32) {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    __nv_bfloat16 h;
    std::memcpy(&h, p, 2);
    return __bfloat162float(h);
  }
  bool is_element(size_t byte) const {  // inside one of the rows x cols elements
    if (byte < first()) return false;
    const size_t rel = (byte - first()) / size_t(elem());
    const int64_t line = int64_t(rel) / ld, pos = int64_t(rel) % ld;
    return line < lines() && pos < line_len();
  }
};

bool alloc(Stored& s, int64_t rows, int64_t cols, Major major, DType dtype, int64_t pad, int64_t off) {
  s.rows = rows;
  s.cols = cols;
  s.major = major;
  s.dtype = dtype;
  s.off = off;
  s.ld = (major == row_major ? cols : rows) + pad;
  s.bytes = size_t(2 * kGuardBytes) + size_t(off + s.lines() * s.ld) * size_t(s.elem());
  return cudaMalloc(&s.buf, s.bytes) == cudaSuccess;
}

// Fills the whole allocation with random normal values (so the ld gaps and guards of inputs hold
// garbage the kernel must never read as data), or, for D, guard bytes with the elements poisoned.
cudaError_t fill(Stored& s, uint64_t seed) {
  if (s.dtype == DType::fp32) return ref::fill_normal_f32(static_cast<float*>(s.buf), s.bytes / 4, seed, 1.0f, nullptr);
  return ref::fill_normal_bf16(static_cast<__nv_bfloat16*>(s.buf), s.bytes / 2, seed, 1.0f, nullptr);
}
cudaError_t poison_output(Stored& s) {
  if (cudaError_t e = cudaMemset(s.buf, kGuardByte, s.bytes); e != cudaSuccess) return e;
  for (int64_t line = 0; line < s.lines(); ++line) {
    auto* p = static_cast<unsigned char*>(s.ptr()) + size_t(line * s.ld) * size_t(s.elem());
    if (cudaError_t e = ref::poison(p, size_t(s.line_len()), size_t(s.elem()), nullptr); e != cudaSuccess) return e;
  }
  return cudaSuccess;
}
bool read_back(Stored& s) {
  s.host.resize(s.bytes);
  return cudaMemcpy(s.host.data(), s.buf, s.bytes, cudaMemcpyDeviceToHost) == cudaSuccess;
}

// Runs one case; `d_bits` (optional) receives D's allocation after the call.
void run_case(const Case& cs, uint64_t seed, std::vector<unsigned char>* d_bits = nullptr,
              plan::Config* ran_config = nullptr) {
  SCOPED_TRACE(cs.name());
  Stored a, b, c, d;
  ASSERT_TRUE(alloc(a, cs.m, cs.k, cs.a_major, DType::bf16, cs.lda_pad, cs.a_off));
  ASSERT_TRUE(alloc(b, cs.n, cs.k, cs.b_major, DType::bf16, cs.ldb_pad, cs.b_off));
  ASSERT_TRUE(alloc(d, cs.m, cs.n, cs.d_major, cs.out, cs.ldd_pad, cs.d_off));
  const bool separate_c = cs.with_c && !cs.in_place;
  if (separate_c) ASSERT_TRUE(alloc(c, cs.m, cs.n, cs.c_major, cs.out, cs.ldc_pad, cs.c_off));
  ASSERT_EQ(fill(a, seed), cudaSuccess);
  ASSERT_EQ(fill(b, seed + 1), cudaSuccess);
  if (separate_c) ASSERT_EQ(fill(c, seed + 2), cudaSuccess);
  if (cs.in_place) {
    ASSERT_EQ(fill(d, seed + 2), cudaSuccess);  // D holds C's values (and garbage in its gaps)
  } else {
    ASSERT_EQ(poison_output(d), cudaSuccess);
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_TRUE(read_back(a) && read_back(b) && read_back(d));
  if (separate_c) ASSERT_TRUE(read_back(c));
  const std::vector<unsigned char> d_before = d.host;

  GemmArgs args;
  args.a = MatrixRef{a.ptr(), cs.m, cs.k, a.ld, DType::bf16, cs.a_major};
  args.b = MatrixRef{b.ptr(), cs.n, cs.k, b.ld, DType::bf16, cs.b_major};
  args.d = MutMatrixRef{d.ptr(), cs.m, cs.n, d.ld, cs.out, cs.d_major};
  MatrixRef c_ref;
  if (cs.with_c) {
    c_ref = cs.in_place ? MatrixRef(args.d) : MatrixRef{c.ptr(), cs.m, cs.n, c.ld, cs.out, cs.c_major};
    args.c = &c_ref;
    args.beta = cs.beta;
  }
  args.alpha = cs.alpha;
  ASSERT_TRUE(validate(args).ok()) << validate(args).message;
  const detail::Route r = detail::route(args);
  ASSERT_EQ(r.path, detail::Path::sm90) << r.reason;
  detail::GemmOptions options;
  ASSERT_TRUE(test::forced_config(cs.config, &options));
  const Status st = detail::gemm_with_options(args, options);
  ASSERT_TRUE(st.ok()) << st.argument << ": " << st.message;
  ASSERT_TRUE(detail::last_sm90_config().has_value());
  const plan::Config ran = *detail::last_sm90_config();
  SCOPED_TRACE(plan::describe(ran));
  if (ran_config) *ran_config = ran;
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_TRUE(read_back(d));
  if (d_bits) *d_bits = d.host;

  // Nothing outside D's elements changed; no element of D left poisoned.
  size_t changed = 0;
  for (size_t i = 0; i < d.bytes; ++i)
    if (!d.is_element(i) && d.host[i] != d_before[i]) ++changed;
  EXPECT_EQ(changed, 0u) << "bytes outside D's elements were written";

  // The reference over every element: C as floats (D's values before the call when in place).
  std::vector<__nv_bfloat16> a_h(size_t(cs.m * cs.k)), b_h(size_t(cs.n * cs.k));
  for (int64_t i = 0; i < cs.m; ++i)
    for (int64_t kk = 0; kk < cs.k; ++kk) a_h[size_t(i * cs.k + kk)] = __float2bfloat16(a.value(i, kk));
  for (int64_t j = 0; j < cs.n; ++j)
    for (int64_t kk = 0; kk < cs.k; ++kk) b_h[size_t(j * cs.k + kk)] = __float2bfloat16(b.value(j, kk));
  std::vector<float> c_h;
  if (cs.with_c) {
    Stored before = cs.in_place ? d : c;
    if (cs.in_place) before.host = d_before;
    c_h.resize(size_t(cs.m * cs.n));
    for (int64_t i = 0; i < cs.m; ++i)
      for (int64_t j = 0; j < cs.n; ++j) c_h[size_t(i * cs.n + j)] = before.value(i, j);
  }
  const ref::HostView<__nv_bfloat16> av{a_h.data(), cs.m, cs.k, cs.k, Major::k_major};
  const ref::HostView<__nv_bfloat16> bv{b_h.data(), cs.n, cs.k, cs.k, Major::k_major};
  const ref::HostView<float> cv{c_h.data(), cs.m, cs.n, cs.n, row_major};
  std::vector<float> expected(size_t(cs.m * cs.n)), out(size_t(cs.m * cs.n));
  ref::cpu_gemm(av, bv, cs.with_c ? &cv : nullptr, cs.alpha, cs.beta, expected.data());
  for (int64_t i = 0; i < cs.m; ++i)
    for (int64_t j = 0; j < cs.n; ++j) out[size_t(i * cs.n + j)] = d.value(i, j);
  const ref::CheckResult res = ref::check(out.data(), expected.data(), out.size(), cs.out);
  EXPECT_TRUE(res.passed) << "calc_diff " << res.calc_diff << " max_rel " << res.max_rel << " non_finite "
                          << res.non_finite << " mismatches " << res.mismatches;
  cudaFree(a.buf);
  cudaFree(b.buf);
  cudaFree(d.buf);
  if (separate_c) cudaFree(c.buf);
}

const int64_t kShapes[][3] = {{1, 7, 13}, {129, 257, 72}, {300, 136, 1000}, {777, 520, 136}, {64, 1001, 64}};

TEST(CoverageGpu, Fp32OutputEveryLayout) {
  for (const auto& s : kShapes)
    for (Major am : {Major::k_major, Major::mn_major})
      for (Major bm : {Major::k_major, Major::mn_major}) {
        Case cs{s[0], s[1], s[2], am, bm, DType::fp32};
        cs.alpha = 0.75f;
        run_case(cs, 31);
      }
}

TEST(CoverageGpu, WithCBf16AndFp32SeparateAndInPlace) {
  for (const auto& s : kShapes)
    for (DType out : {DType::bf16, DType::fp32})
      for (bool in_place : {false, true}) {
        Case cs{s[0], s[1], s[2]};
        cs.out = out;
        cs.with_c = true;
        cs.in_place = in_place;
        cs.alpha = 1.5f;
        cs.beta = in_place ? 1.0f : -0.5f;
        run_case(cs, 41);
      }
}

TEST(CoverageGpu, ColumnMajorDWithCInEitherMajor) {
  for (const auto& s : kShapes)
    for (Major cm : {row_major, col_major}) {
      Case cs{s[0], s[1], s[2], Major::k_major, Major::mn_major};
      cs.d_major = col_major;
      cs.with_c = true;
      cs.c_major = cm;
      cs.beta = 2.0f;
      cs.ldd_pad = 3;
      cs.ldc_pad = 5;
      run_case(cs, 51);
      cs.out = DType::fp32;
      cs.in_place = true;
      run_case(cs, 52);
    }
}

TEST(CoverageGpu, OddStridesAndOffsetsOnEveryMatrix) {
  // Leading dimensions and offsets that break TMA's 16-B rules (A, B repacked), an odd ldd and an
  // odd D offset (element-wise stores), an odd C (element-wise loads), in every layout.
  for (const auto& s : kShapes)
    for (Major am : {Major::k_major, Major::mn_major})
      for (Major bm : {Major::k_major, Major::mn_major}) {
        Case cs{s[0], s[1], s[2], am, bm};
        cs.lda_pad = 1;
        cs.ldb_pad = 3;
        cs.ldd_pad = 1;
        cs.a_off = 3;
        cs.b_off = 1;
        cs.d_off = 5;
        run_case(cs, 61);
        cs.with_c = true;
        cs.beta = 0.25f;
        cs.ldc_pad = 7;
        cs.c_off = 1;
        cs.out = DType::fp32;
        run_case(cs, 62);
      }
}

TEST(CoverageGpu, KTailInsideA16ByteChunkReadsZeros) {
  // K % 8 != 0 with lda, ldb multiples of 8: the TMA box runs past K into the padding, which
  // holds random values; the zero fill must be per element for the result to be right.
  for (int64_t k : {1, 13, 70, 1001})
    for (Major am : {Major::k_major, Major::mn_major})
      for (Major bm : {Major::k_major, Major::mn_major}) {
        Case cs{200, 136, k, am, bm};
        cs.lda_pad = am == Major::k_major ? (8 - k % 8) % 8 + 8 : 8;
        cs.ldb_pad = bm == Major::k_major ? (8 - k % 8) % 8 + 8 : 8;
        const detail::Route r = [&] {
          GemmArgs g;
          g.a = MatrixRef{reinterpret_cast<void*>(0x10000), cs.m, cs.k, (am == Major::k_major ? k : cs.m) + cs.lda_pad,
                          DType::bf16, am};
          g.b = MatrixRef{reinterpret_cast<void*>(0x90000000), cs.n, cs.k,
                          (bm == Major::k_major ? k : cs.n) + cs.ldb_pad, DType::bf16, bm};
          g.d = MutMatrixRef{reinterpret_cast<void*>(0x190000000), cs.m, cs.n, cs.n, DType::bf16, row_major};
          return detail::route(g);
        }();
        EXPECT_TRUE(r.packs.empty()) << "aligned leading dimensions: read in place";
        run_case(cs, 71);
      }
}

TEST(CoverageGpu, SplitKWithCAndFp32AndOddD) {
  // Decode shapes the planner splits, and forced splits: piece 0's epilogue adds beta·C and writes
  // fp32 or bf16, vectorised or (odd ldd) element by element.
  for (const auto& s : {std::array<int64_t, 3>{1, 576, 7168}, {128, 2112, 7168}, {7, 300, 4000}}) {
    for (DType out : {DType::bf16, DType::fp32}) {
      Case cs{s[0], s[1], s[2]};
      cs.out = out;
      cs.with_c = true;
      cs.beta = 0.5f;
      run_case(cs, 81);
      cs.config = "64x128,splitk=4";
      cs.ldd_pad = 1;
      cs.in_place = true;
      run_case(cs, 82);
      // The same split as a k-split cluster (slice 0 sums in shared memory, then the same epilogue).
      cs.config = "64x128,splitk=4,dsm";
      run_case(cs, 83);
      cs.config = "128x64,splitk=2,dsm";
      cs.ldd_pad = 0;
      cs.in_place = false;
      run_case(cs, 84);
    }
  }
}

TEST(CoverageGpu, SwapAbWithCAndFp32AndOddD) {
  // Swap-AB's column-major stores with C read element by element (in place too), fp32 output,
  // odd leading dimensions, a column-major D (route: the transposed problem, then swapped back).
  for (const auto& s : {std::array<int64_t, 3>{1, 576, 7168}, {7, 1000, 520}, {48, 2112, 777}}) {
    for (DType out : {DType::bf16, DType::fp32}) {
      for (const char* tile : {"64x16,swapab", "128x48,swapab,streamk"}) {
        Case cs{s[0], s[1], s[2]};
        cs.out = out;
        cs.with_c = true;
        cs.beta = -0.5f;
        cs.config = tile;
        run_case(cs, 85);
        cs.ldd_pad = 1;
        cs.in_place = true;
        run_case(cs, 86);
        cs.in_place = false;
        cs.d_major = col_major;
        run_case(cs, 87);
      }
    }
  }
}

TEST(CoverageGpu, SwapAbMidSizeMWithCAndFp32) {
  // Swap-AB past decode with fp32 out or C (planner.cpp, swap_mid_m): fp32 D stored column-major
  // from the registers, bf16 D with C through the transposed staging boxes, by two consumers
  // (BM = 128), with several column tiles side by side (grouped_n), split, in place; and the
  // planner's own picks.
  for (const auto& s : {std::array<int64_t, 3>{300, 1536, 520}, {200, 1000, 1000}, {160, 2048, 600}}) {
    for (DType out : {DType::bf16, DType::fp32}) {
      for (const char* tile : {"", "128x160,swapab,mapping=grouped-n:8", "128x112,swapab,splitk=2",
                               "64x176,swapab,pingpong"}) {
        Case cs{s[0], s[1], s[2]};
        cs.out = out;
        cs.with_c = out == DType::bf16 || s[0] != 300;  // fp32 also without C
        cs.beta = 0.75f;
        cs.config = tile;
        run_case(cs, 88);
        if (!cs.with_c) continue;
        cs.in_place = true;
        run_case(cs, 89);
      }
    }
  }
}

TEST(CoverageGpu, SwapAbTransposedStagingWithC) {
  // Swap-AB with bf16 D and C: C TMA-loaded into the transposed staging boxes, read back with
  // ldmatrix .trans, D stored from them by TMA (store_tile_staged's kTrans). Tiles of whole boxes
  // (128, 192 columns) and with a partial last box of 16, 32 or 48 columns (sub-boxes of 16 and 32
  // kernel columns); one slot and every box staged; split-K and stream-K (the fix-up's sum staged),
  // ping-pong (a consumer's second 64-row block reloads the slots); several tiles per CTA. D's M
  // (the kernel's N) ends inside a sub-box (131: the sub-boxes past it skipped), D's N (the kernel's
  // M) is not a multiple of 64; padded leading dimensions; in place.
  const char* tiles[] = {"128x80,swapab",         "128x112,swapab,splitk=2", "64x144,swapab",
                         "128x160,swapab,stage=64", "128x176,swapab,streamk", "64x208,swapab,pingpong",
                         "128x240,swapab,stage=128", "128x192,swapab",        "128x128,swapab,pingpong"};
  for (const auto& s : {std::array<int64_t, 3>{300, 1000, 520}, {131, 2056, 300}, {200, 4104, 64}})
    for (const char* tile : tiles)
      for (bool in_place : {false, true}) {
        Case cs{s[0], s[1], s[2]};
        cs.with_c = true;
        cs.in_place = in_place;
        cs.beta = 0.75f;
        cs.alpha = 1.25f;
        cs.ldd_pad = in_place ? 0 : 8;
        cs.ldc_pad = 24;
        cs.config = tile;
        plan::Config ran;
        run_case(cs, in_place ? 121 : 122, nullptr, &ran);
        EXPECT_TRUE(ran.d_col_major && ran.epilogue == sm90::Epilogue::tma_store)
            << cs.name() << ": " << plan::describe(ran);
      }
}

TEST(CoverageGpu, TilesEightColumnsPastAMultipleOfSixteen) {
  // Tile widths with BN % 16 == 8 (wgmma's N step is 8): the staged epilogues' last box overlaps
  // its neighbour from an odd 8-column group of the fragment (TMA store, the threads' copy-out with
  // an odd ldd, C staged, fp32), the direct epilogue's odd group count (narrow tiles, in place),
  // ping-pong, a 1x2 cluster, split-K and stream-K, an MN-major A; N ends inside the last tile of
  // every width here.
  // (Ping-pong at 120 columns: within the threads' copy-out's 144 and the direct epilogue's 128
  // accumulators with C; a 1x2 cluster needs an even count of column tiles: N = 1100; one staging
  // box at a time is 64 bf16 or 32 fp32 columns.)
  struct Tile {
    const char* spec;
    int64_t n;
  };
  const Tile tiles[] = {{"128x200", 1000},         {"64x72", 1000},           {"128x120,pingpong", 1000},
                        {"128x88", 1000},          {"128x24", 1000},          {"64x40", 1000},
                        {"128x200,cluster=1x2", 1100}, {"128x200,streamk", 1000}, {"64x72,splitk=3", 1000},
                        {"128x136,stage=", 1000}};
  for (const Tile& tile : tiles)
    for (bool with_c : {false, true})
      for (int64_t ldd_pad : {0, 1})
        for (DType out : {DType::bf16, DType::fp32}) {
          Case cs{300, tile.n, 520};
          cs.config = tile.spec;
          if (cs.config.back() == '=') cs.config += std::to_string(sm90::store_box_cols(out));
          cs.out = out;
          cs.with_c = with_c;
          cs.beta = with_c ? 0.75f : 0.0f;
          cs.alpha = 1.25f;
          cs.ldd_pad = ldd_pad;
          cs.ldc_pad = ldd_pad ? 3 : 0;
          cs.in_place = with_c && ldd_pad == 1 && out == DType::fp32;
          plan::Config ran;
          run_case(cs, 131, nullptr, &ran);
          EXPECT_EQ(ran.bn % 16, 8) << plan::describe(ran);
        }
  Case tt{300, 1000, 520, Major::mn_major, Major::k_major};
  tt.config = "128x200";
  run_case(tt, 132);
  // Swap-AB: the transposed staging boxes with C, whose last box ends in an 8-column tail
  // (ldmatrix / stmatrix .x2, sub-boxes of 8 kernel columns), a last box that is only that tail
  // (64x72), without C the overlapping transposed boxes, fp32 from the registers (an odd count of
  // 8-column groups), decode tiles (a k-split cluster too), in place.
  struct Sw {
    const char* tile;
    int64_t m;
  };
  const Sw swaps[] = {{"128x152,swapab", 300},          {"64x72,swapab", 300},  {"128x104,swapab,splitk=2", 300},
                      {"64x88,swapab,pingpong", 170},   {"128x200,swapab,streamk", 390}, {"64x24,swapab", 20},
                      {"64x40,swapab,splitk=4,dsm", 37}};
  for (const Sw& sw : swaps)
    for (DType out : {DType::bf16, DType::fp32})
      for (int with_c = 0; with_c < 3; ++with_c) {  // none, separate, in place
        Case cs{sw.m, 2056, 520};
        cs.config = sw.tile;
        cs.out = out;
        cs.with_c = with_c > 0;
        cs.in_place = with_c == 2;
        cs.beta = cs.with_c ? -0.5f : 0.0f;
        cs.ldc_pad = 24;
        plan::Config ran;
        run_case(cs, 133, nullptr, &ran);
        EXPECT_TRUE(ran.d_col_major && ran.bn % 16 == 8) << plan::describe(ran);
      }
}

TEST(CoverageGpu, StreamKWithCAndFp32AndOddD) {
  // The last piece of a shared tile runs the Config's epilogue on the sum: C TMA-loaded into the
  // staging (or read by the threads: odd ldd/ldc), fp32 output, in place.
  for (const auto& s : {std::array<int64_t, 3>{300, 1000, 2000}, {2000, 2100, 777}}) {
    for (DType out : {DType::bf16, DType::fp32}) {
      for (const char* tile : {"128x256,streamk", "128x128,streamk", "64x48,streamk"}) {
        Case cs{s[0], s[1], s[2]};
        cs.out = out;
        cs.with_c = true;
        cs.beta = 0.5f;
        cs.config = tile;
        run_case(cs, 83);
        cs.ldd_pad = 1;
        cs.in_place = true;
        run_case(cs, 84);
      }
    }
  }
}

TEST(CoverageGpu, StreamKOverRunsOfTiles) {
  // Stream-K over runs (Config::sk_runs, schedule/stream_k.hpp): the members of a run walk the same
  // k-blocks side by side and a tile's pieces are E workers apart. Runs of 3 (300 rows in 128-row
  // tiles, one grouped_m strip), of 8 (16 m-blocks in strips of 8, data-parallel tiles first), of
  // 2 along N (swap-AB's grouped_n), with C in place and fp32 output.
  struct Run {
    std::array<int64_t, 3> shape;
    const char* tile;
  };
  for (const Run& r : {Run{{300, 1000, 2000}, "128x128,streamk,runs"}, Run{{2000, 2100, 777}, "128x128,streamk,runs"},
                       Run{{190, 3000, 1500}, "64x48,streamk,runs"},
                       Run{{300, 14336, 512}, "128x152,swapab,streamk,runs,mapping=grouped-n:8"}}) {
    for (DType out : {DType::bf16, DType::fp32}) {
      Case cs{r.shape[0], r.shape[1], r.shape[2]};
      cs.out = out;
      cs.config = r.tile;
      plan::Config ran;
      run_case(cs, 91, nullptr, &ran);
      EXPECT_TRUE(ran.stream_k && ran.sk_runs) << plan::describe(ran);
      cs.with_c = true;
      cs.beta = 0.5f;
      cs.ldd_pad = 1;
      cs.in_place = true;
      run_case(cs, 92);
    }
  }
}

TEST(CoverageGpu, TilesOf256RowsTwoConsumersOf128) {
  // BM = 256 (Config::row_blocks 2 cooperative): each consumer computes rows [128c, 128c + 128) as
  // two 64-row blocks and stores them one after the other. M = 777 ends 9 rows into the last
  // tile; MN-major A in 64-element chunks (four per stage); swap-AB's transposed store; clusters
  // sharing B (2x1) and A (1x2, 128-row halves); the threads' copy-out (odd ldd) and C in place.
  struct Wide {
    const char* tile;
    Major a_major, b_major;
    DType out;
    bool with_c;
    int64_t ldd_pad;
  };
  const Major K = Major::k_major, MN = Major::mn_major;
  const Wide cases[] = {{"256x152", K, K, DType::bf16, false, 0},          {"256x128", MN, K, DType::fp32, true, 1},
                        {"256x112,swapab", K, K, DType::bf16, false, 0},   {"256x112,swapab", K, K, DType::bf16, true, 0},
                        {"256x176,stage=64", K, MN, DType::bf16, false, 0}, {"256x128,cluster=2x1", K, K, DType::fp32, false, 0},
                        {"256x128,cluster=1x2", MN, K, DType::bf16, false, 0}, {"256x96", K, K, DType::bf16, true, 1}};
  for (const Wide& w : cases) {
    Case cs{777, 1000, 520};
    cs.config = w.tile;
    cs.a_major = w.a_major;
    cs.b_major = w.b_major;
    cs.out = w.out;
    cs.ldd_pad = w.ldd_pad;
    if (w.with_c) {
      cs.with_c = true;
      cs.in_place = true;
      cs.beta = 0.5f;
      cs.alpha = 1.5f;
    }
    plan::Config ran;
    run_case(cs, 95, nullptr, &ran);
    EXPECT_EQ(ran.bm, 256) << plan::describe(ran);
    EXPECT_EQ(ran.row_blocks(), 2) << plan::describe(ran);
  }
}

TEST(CoverageGpu, TilesOf256RowsWithCEveryStaging) {
  // A cooperative 256-row tile with C: each consumer stores two 64-row blocks through its slots, and
  // the second block's first C boxes are loaded into the slots as the first block stores its last
  // boxes (store_tile_staged's c_rows_follow). One slot and several, all of a tile's boxes staged or
  // a part, an overlapping last box, swap-AB's transposed boxes; M ending inside a consumer's second
  // block (2001, 600: that block's C box partly past M) and inside its first (777: the second block
  // wholly past M, nothing loaded for it); several tiles per CTA (2001 x 3000); C separate and in
  // place, bf16 and fp32. (In place, a last box that overlaps its neighbour reads C from the
  // registers: the direct epilogue, which a 256-row tile takes only up to BN = 128 (config.hpp), so
  // 256x176 runs with a separate C alone.)
  struct Wc {
    const char* config;
    DType out;
    bool overlaps;  // the last box overlaps its neighbour: in place, C is read from the registers (direct)
  };
  const Wc cases[] = {{"256x128", DType::bf16, false},          {"256x128,stage=64", DType::bf16, false},
                      {"256x176,stage=64", DType::bf16, true},  {"256x128,stage=32", DType::fp32, false},
                      {"256x112", DType::fp32, true},           {"256x152,swapab,stage=64", DType::bf16, false}};
  for (const Wc& w : cases)
    for (const auto& s : {std::array<int64_t, 3>{2001, 3000, 200}, {777, 1000, 520}, {600, 1000, 136}})
      for (bool in_place : {false, true}) {
        const plan::ParsedConfigSpec spec = plan::parse_config_spec(w.config);
        ASSERT_TRUE(spec.ok()) << spec.error;
        if (in_place && w.overlaps && spec.spec.config.bn > 128) continue;  // no 256-row direct epilogue
        Case cs{s[0], s[1], s[2]};
        cs.config = w.config;
        cs.out = w.out;
        cs.with_c = true;
        cs.in_place = in_place;
        cs.beta = 0.75f;
        cs.alpha = -1.25f;
        cs.ldd_pad = 8;  // rows of whole 16-B chunks: TMA stores D
        cs.ldc_pad = 16;
        plan::Config ran;
        run_case(cs, in_place ? 151 : 152, nullptr, &ran);
        EXPECT_EQ(ran.bm, 256) << cs.name() << ": " << plan::describe(ran);
        const sm90::Epilogue want = in_place && w.overlaps ? sm90::Epilogue::direct : sm90::Epilogue::tma_store;
        EXPECT_EQ(ran.epilogue, want) << cs.name() << ": " << plan::describe(ran);
      }
}

TEST(CoverageGpu, ForcedTilesEveryEpilogueVariant) {
  // Whole and partial 128-B boxes, one and two consumers, clusters, bf16 and fp32 output: with C
  // the partial widths take the direct epilogue (pairs, and element-wise with an odd ldd); without
  // C the staged epilogues with the last box overlapping its neighbour (TMA store, and the
  // threads' copy-out with an odd ldd). N = 500 ends inside a tile, inside a 16-B chunk.
  const char* tiles[] = {"128x256", "128x144", "64x208", "128x48", "128x80", "128x256,cluster=2x1", "64x128,cluster=1x2"};
  for (const char* tile : tiles)
    for (bool with_c : {true, false})
      for (int64_t ldd_pad : {0, 1}) {
        Case cs{256, with_c ? 512 : 500, 200};
        cs.config = tile;
        cs.with_c = with_c;
        cs.beta = with_c ? 1.0f : 0.0f;
        cs.ldd_pad = ldd_pad;
        cs.ldc_pad = ldd_pad;
        run_case(cs, with_c ? 91 : 93);
        cs.out = DType::fp32;
        run_case(cs, with_c ? 92 : 94);
      }
}

TEST(CoverageGpu, SmemStoresSeveralTilesPerCta) {
  // An odd ldd (a D TMA cannot describe): the staged boxes go to D by the consumers' threads.
  // Several tiles per CTA, so every staging slot is reused across tiles; one and two consumers;
  // whole and partial staging (fp32 with C stages part of the tile at 128x256); k-split pieces that
  // store nothing (split-K, stream-K); an overlapping last box (128x144); an odd D offset; in place.
  const char* tiles[] = {"128x256", "128x128", "64x128", "128x256,splitk=2", "128x128,streamk", "128x144"};
  for (const char* tile : tiles)
    for (bool with_c : {false, true}) {
      if (with_c && std::string(tile) == "128x144") continue;  // with C the partial box is direct
      Case cs{2001, 3001, 300};
      cs.config = tile;
      cs.with_c = with_c;
      cs.beta = with_c ? 0.75f : 0.0f;
      cs.ldd_pad = 1;
      cs.ldc_pad = 3;
      cs.d_off = 1;
      run_case(cs, with_c ? 111 : 113);
      cs.out = DType::fp32;
      cs.in_place = with_c;
      run_case(cs, with_c ? 112 : 114);
    }
}

TEST(CoverageGpu, SmemStoresEveryStagingWidthAndAlignment) {
  // The threads' copy-out (a D that TMA cannot describe) with every staging width: box by box
  // through fewer slots than boxes, and the whole tile staged; K = 200 and 2001 x 2999 give several
  // tiles per CTA, so every slot is reused. bf16 and fp32, the last box overlapping its neighbour
  // (128x176, 128x208), one and two consumers, ping-pong (two 64-row blocks per consumer through
  // the same slots); D's rows 2 B off 4-B alignment (the offset odd), all at one position of a
  // 16-B chunk (ldd = N + 1 = 3000) or at two alternating ones (ldd = N + 5 = 3004); N ending inside
  // a chunk, M inside a tile; with C (read by the threads) and in place. (Rows that alternate
  // between 4-B aligned and not: ForcedTilesEveryEpilogueVariant, ldd 501.)
  struct Sp {
    const char* config;
    DType out;
  };
  const Sp cases[] = {{"128x256,stage=64", DType::bf16},   {"128x256,stage=128", DType::bf16},
                      {"128x256,stage=256", DType::bf16},  {"64x256,stage=128", DType::bf16},
                      {"128x176,stage=192", DType::bf16},  {"128x208,stage=256", DType::bf16},
                      {"128x128,pingpong,stage=128", DType::bf16},
                      {"128x256,stage=64", DType::fp32},   {"128x256,stage=128", DType::fp32},
                      {"128x128,stage=128", DType::fp32},  {"128x176,stage=96", DType::fp32}};
  for (const Sp& sp : cases)
    for (int64_t ldd_pad : {1, 5})
      for (bool with_c : {false, true}) {
        // With C a tile whose last box overlaps its neighbour is staged only when C is not D; in
        // place (ldd_pad 5 below) it is stored from the registers (direct epilogue).
        const int bn = plan::parse_config_spec(sp.config).spec.config.bn;
        const bool overlapping = bn % sm90::store_box_cols(sp.out) != 0;
        Case cs{2001, 2999, 200};
        cs.config = sp.config;
        cs.out = sp.out;
        cs.ldd_pad = ldd_pad;
        cs.d_off = ldd_pad == 1 ? 1 : 3;
        cs.with_c = with_c;
        cs.beta = with_c ? -0.5f : 0.0f;
        cs.ldc_pad = 3;
        cs.in_place = with_c && ldd_pad == 5;
        plan::Config ran;
        run_case(cs, with_c ? 121 : 123, nullptr, &ran);
        EXPECT_EQ(ran.epilogue, with_c && overlapping && cs.in_place ? sm90::Epilogue::direct : sm90::Epilogue::smem_stores)
            << cs.name() << ": " << plan::describe(ran);
      }
}

TEST(CoverageGpu, PingpongConsumersEveryEpilogue) {
  // Ping-pong consumers: each consumer warpgroup computes whole tiles, alternating, and passes over
  // the other's k-blocks in the ring. 2001 x 3000 gives every CTA two or more tiles (an odd count
  // on some, so one consumer has one more), K = 136 three k-blocks (the ring wraps mid-tile, one
  // ragged block), K = 1000 many. ldd 3000 takes the TMA store, ldd 3001 the threads' copy-out.
  // Covered: one and two 64-row blocks per consumer, clusters, C (staged through TMA block by
  // block, or read by the threads), fp32, in place, MN-major A and B; then the widest tiles the
  // template allows per epilogue (sm90::pingpong_max_accumulators).
  struct Pp {
    const char* config;
    int64_t k;
    Major a_major, b_major;
  };
  const Pp cases[] = {{"128x128,pingpong", 136, Major::k_major, Major::k_major},
                      {"128x128,pingpong", 1000, Major::k_major, Major::k_major},
                      {"64x256,pingpong", 136, Major::k_major, Major::k_major},
                      {"128x128,pingpong,cluster=2x1", 136, Major::k_major, Major::k_major},
                      {"128x128,pingpong,cluster=1x2", 200, Major::mn_major, Major::k_major},
                      {"128x128,pingpong", 136, Major::mn_major, Major::mn_major}};
  for (const Pp& pp : cases)
    for (bool with_c : {false, true})
      for (int64_t ldd_pad : {0, 1}) {
        Case cs{2001, 3000, pp.k, pp.a_major, pp.b_major};
        cs.config = pp.config;
        cs.with_c = with_c;
        cs.beta = with_c ? 0.75f : 0.0f;
        cs.alpha = 1.5f;
        cs.ldd_pad = ldd_pad;
        cs.ldc_pad = ldd_pad;
        run_case(cs, with_c ? 121 : 123);
        cs.out = DType::fp32;
        cs.in_place = with_c && ldd_pad == 1;
        run_case(cs, with_c ? 122 : 124);
      }
  // 128x176 (TMA store, overlapping last box), 128x144 (threads' copy-out), 128x96 with C (direct).
  for (DType out : {DType::bf16, DType::fp32}) {
    Case wide{2001, 3000, 1000};
    wide.config = "128x176,pingpong";
    wide.out = out;
    run_case(wide, 125);
    Case copy{2001, 3000, 136};
    copy.config = "128x144,pingpong";
    copy.ldd_pad = 1;
    copy.out = out;
    run_case(copy, 126);
    Case direct{2001, 3000, 136};
    direct.config = "128x96,pingpong";
    direct.with_c = true;
    direct.beta = -0.5f;
    direct.out = out;
    run_case(direct, 127);
  }
}

TEST(CoverageGpu, StagedCReloadedThroughFewSlots) {
  // C loaded by TMA into staging slots that are reloaded box by box (stage= narrower than the
  // tile), with the tile's last boxes wholly past N (no C box loaded, nothing stored): those must
  // not touch a slot the previous box's TMA store may still be reading. N = 3000 leaves 6 of the 8
  // fp32 boxes of a 256-wide edge tile inside D (2 of the 4 bf16 ones); ping-pong and cooperative,
  // one slot and two, several tiles per CTA.
  const char* tiles[] = {"64x256,pingpong,stage=32", "128x256,stage=32", "128x256,stage=64", "64x256,stage=32",
                         "128x128,pingpong,stage=32", "128x128,pingpong,stage=64"};
  for (const char* tile : tiles)
    for (DType out : {DType::fp32, DType::bf16}) {
      const int box = out == DType::fp32 ? 32 : 64;
      if (std::string(tile).find("stage=32") != std::string::npos && box == 64) continue;  // not a whole bf16 box
      Case cs{2001, 3000, 200};
      cs.config = tile;
      cs.out = out;
      cs.with_c = true;
      cs.beta = 0.75f;
      cs.alpha = 1.5f;
      run_case(cs, 131);
      cs.in_place = true;
      run_case(cs, 132);
    }
}

TEST(CoverageGpu, OverlappingLastBoxWithC) {
  // A staged tile whose last box overlaps its neighbour (BN not a whole number of 64 bf16 / 32 fp32
  // columns), with C: each box loads C's columns (TMA, or the threads where TMA cannot read C) and
  // the overlapping box stores the same values its neighbour did. Whole and partial staging,
  // ping-pong (tiles the direct epilogue with C also takes in place), split-K and stream-K (the fix-up's sum staged), several tiles per CTA; N ending
  // inside the overlapping box, before it (its columns all its neighbour's: skipped) and inside a
  // 16-B chunk (tail columns); C in place takes the direct epilogue instead.
  struct Ov {
    const char* config;
    DType out;
  };
  const Ov cases[] = {{"128x80", DType::bf16},           {"128x144,stage=64", DType::bf16},
                      {"128x144", DType::bf16},          {"128x112,pingpong", DType::bf16},
                      {"128x224,stage=128", DType::bf16}, {"64x208,splitk=2", DType::bf16},
                      {"128x176,streamk", DType::bf16},  {"128x144", DType::fp32},
                      {"128x80,stage=32", DType::fp32},  {"64x48", DType::fp32},
                      {"128x80,pingpong", DType::fp32}};
  for (const Ov& ov : cases)
    for (const auto& s : {std::array<int64_t, 3>{300, 1000, 520}, {131, 2056, 520}, {129, 1001, 520}})
      for (int variant = 0; variant < 3; ++variant) {  // C by TMA; C by the threads (odd ldc); in place
        Case cs{s[0], s[1], s[2]};
        cs.config = ov.config;
        cs.out = ov.out;
        cs.with_c = true;
        cs.beta = 0.75f;
        cs.alpha = -1.25f;
        cs.ldd_pad = 8 + (8 - s[1] % 8) % 8;  // rows of whole 16-B chunks: TMA stores D
        cs.ldc_pad = variant == 1 ? (s[1] % 2 == 0 ? 3 : 2) : cs.ldd_pad + 8;  // variant 1: an odd ldc
        cs.in_place = variant == 2;
        plan::Config ran;
        run_case(cs, 141 + variant, nullptr, &ran);
        const sm90::Epilogue want = variant == 2   ? sm90::Epilogue::direct
                                    : variant == 1 ? sm90::Epilogue::smem_stores
                                                   : sm90::Epilogue::tma_store;
        EXPECT_EQ(ran.epilogue, want) << cs.name() << ": " << plan::describe(ran);
      }
}

TEST(CoverageGpu, TwoAccumulatorSets) {
  // acc_sets = 2 (the planner's choice up to 32 accumulators per thread): the k16 steps alternate
  // between two accumulator sets, summed after the unit's k-blocks. K = 200 ends inside a k-block
  // (its zero-filled steps land in both sets), K = 40 is one ragged k-block; swap-AB decode,
  // k-splits (the sum before the fix-up), two consumers, ping-pong with one and two 64-row blocks,
  // C and fp32; one set forced as the control.
  const char* tiles[] = {"64x16,swapab,accsets=2", "64x64,accsets=2", "64x64,splitk=3,accsets=2",
                         "128x64,accsets=2",       "64x64,pingpong,accsets=2", "128x32,pingpong,accsets=2",
                         "128x48,streamk,accsets=2", "64x16,swapab,accsets=1"};
  for (const char* tile : tiles)
    for (int64_t k : {200, 40, 1000}) {
      Case cs{std::string(tile).find("swapab") != std::string::npos ? 5 : 300, 1000, k};
      cs.config = tile;
      run_case(cs, 141);
      cs.out = DType::fp32;
      cs.with_c = true;
      cs.beta = 0.5f;
      run_case(cs, 142);
    }
}

TEST(CoverageGpu, SwapAbNarrowestTile) {
  // BN = 8, wgmma's narrowest N (the planner offers it to swap-AB for M <= 8): one and two
  // consumers, split-K through the workspace and in a k-split cluster, stream-K, one accumulator
  // set; M = 1, 3, 8 with N off the 64-row tiles and K ending inside a k-block; fp32 out with C, an
  // odd ldd, a column-major D, in place, an MN-major A (copied into K-major lines first).
  const char* tiles[] = {"64x8,swapab",         "128x8,swapab",  "64x8,swapab,splitk=4", "64x8,swapab,splitk=4,dsm",
                         "64x8,swapab,streamk", "64x8,swapab,accsets=1"};
  for (const char* tile : tiles)
    for (int64_t m : {1, 3, 8}) {
      Case cs{m, 1000, 1000};
      cs.config = tile;
      run_case(cs, 151);
      cs.out = DType::fp32;
      cs.with_c = true;
      cs.beta = -0.5f;
      cs.ldd_pad = 1;
      run_case(cs, 152);
      cs.in_place = true;
      run_case(cs, 153);
      cs.in_place = false;
      cs.d_major = col_major;
      cs.a_major = Major::mn_major;
      run_case(cs, 154);
    }
}

TEST(CoverageGpu, BitwiseIdenticalAcrossRuns) {
  Case cs{300, 1001, 1000, Major::mn_major, Major::k_major, DType::fp32};
  cs.with_c = true;
  cs.beta = 0.5f;
  cs.lda_pad = 1;
  cs.ldd_pad = 1;
  std::vector<unsigned char> first, second;
  run_case(cs, 101, &first);
  run_case(cs, 101, &second);
  EXPECT_TRUE(first == second) << "two runs of the same problem differ";
}

}  // namespace
}  // namespace tilegemm
