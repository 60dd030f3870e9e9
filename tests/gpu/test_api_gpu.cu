// gemm() through the fallback kernel against the CPU reference: odd shapes, all four A/B layouts,
// row- and column-major D, bf16 and fp32 out, ld larger than a row and not a multiple of 8,
// pointers one element off alignment, alpha/beta with C (C may be D itself), K = 0.
// Every matrix lives in an allocation with guard bands before and after it; inputs are random
// normal (never zeros), D's elements are poisoned with NaN before each run, and afterwards every
// byte of the allocation that is not an element of D (guards, and the gaps between rows when
// ld > row length) must be unchanged: the kernel writes D and nothing else.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "api/matrix_layout.hpp"
#include "reference/device_fill.hpp"
#include "reference/reference.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm {
namespace {

constexpr int64_t kGuardElements = 96;  // before and after every matrix
constexpr unsigned char kGuardByte = 0x5A;

int64_t element_bytes(DType t) { return dtype_bytes(t); }

float to_float(const unsigned char* p, DType t) {
  if (t == DType::fp32) {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  __nv_bfloat16 v;
  std::memcpy(&v, p, 2);
  return __bfloat162float(v);
}

// One matrix in a device allocation laid out as [guard | offset | span | guard] (in elements).
class DeviceMatrix {
 public:
  DeviceMatrix(int64_t rows, int64_t cols, DType dtype, Major major, int64_t ld_pad, int64_t offset)
      : first_(kGuardElements + offset) {
    const int64_t inner = major == Major::mn_major ? rows : cols;
    ref_ = {nullptr, rows, cols, std::max<int64_t>(1, inner + ld_pad), dtype, major};
    elements_ = first_ + layout::span_elements(ref_) + kGuardElements;
    status_ = cudaMalloc(&base_, bytes());
    ref_.ptr = static_cast<unsigned char*>(base_) + first_ * element_bytes(dtype);
  }
  ~DeviceMatrix() { cudaFree(base_); }
  DeviceMatrix(const DeviceMatrix&) = delete;
  DeviceMatrix& operator=(const DeviceMatrix&) = delete;

  cudaError_t status() const { return status_; }
  const MatrixRef& ref() const { return ref_; }
  // The same matrix as an output the library writes through.
  MutMatrixRef out() const {
    return {static_cast<unsigned char*>(base_) + first_ * element_bytes(ref_.dtype), ref_.rows, ref_.cols, ref_.ld,
            ref_.dtype, ref_.major};
  }
  void* base() const { return base_; }
  size_t elements() const { return static_cast<size_t>(elements_); }
  size_t bytes() const { return elements() * element_bytes(ref_.dtype); }
  // Index in the allocation of logical element (r, c).
  int64_t index(int64_t r, int64_t c) const {
    return first_ + layout::element_offset(r, c, ref_.ld, ref_.major == Major::mn_major);
  }
  // Random normal values over the whole allocation (guards included: they are never read).
  cudaError_t fill_normal(uint64_t seed, cudaStream_t s) const {
    return ref_.dtype == DType::fp32
               ? ref::fill_normal_f32(static_cast<float*>(base_), elements(), seed, 1.0f, s)
               : ref::fill_normal_bf16(static_cast<__nv_bfloat16*>(base_), elements(), seed, 1.0f, s);
  }
  // Guard pattern everywhere, then NaN over every logical element, one contiguous line at a time.
  cudaError_t poison_with_guards(cudaStream_t s) const {
    cudaError_t err = cudaMemsetAsync(base_, kGuardByte, bytes(), s);
    const int64_t outer = layout::outer_extent(ref_), inner = layout::inner_extent(ref_);
    for (int64_t line = 0; line < outer && inner > 0 && err == cudaSuccess; ++line)
      err = ref::poison(static_cast<unsigned char*>(base_) + (first_ + line * ref_.ld) * element_bytes(ref_.dtype),
                        static_cast<size_t>(inner), static_cast<size_t>(element_bytes(ref_.dtype)), s);
    return err;
  }
  cudaError_t download(std::vector<unsigned char>& out) const {
    out.resize(bytes());
    return cudaMemcpy(out.data(), base_, bytes(), cudaMemcpyDeviceToHost);
  }
  // The whole allocation as floats (for host views of inputs).
  std::vector<float> as_floats(const std::vector<unsigned char>& raw) const {
    std::vector<float> v(elements());
    for (size_t i = 0; i < v.size(); ++i) v[i] = to_float(&raw[i * element_bytes(ref_.dtype)], ref_.dtype);
    return v;
  }
  // Which elements of the allocation belong to the matrix.
  std::vector<bool> element_mask() const {
    std::vector<bool> mask(elements(), false);
    for (int64_t r = 0; r < ref_.rows; ++r)
      for (int64_t c = 0; c < ref_.cols; ++c) mask[index(r, c)] = true;
    return mask;
  }
  int64_t first() const { return first_; }

 private:
  void* base_ = nullptr;
  int64_t first_ = 0;
  int64_t elements_ = 0;
  MatrixRef ref_;
  cudaError_t status_ = cudaSuccess;
};

enum class CMode {
  none,          // no C, beta = 0
  separate,      // C in its own allocation (its own major and ld)
  aliases_d,     // C is D: same ptr, ld, major, dtype (D starts out holding C's values)
  nan_beta_zero  // C given but all NaN and beta = 0: C must not be read
};

struct Case {
  int64_t m, n, k;
  Major a_major = Major::k_major, b_major = Major::k_major, d_major = row_major;
  DType out = DType::bf16;
  int64_t ld_pad = 0;  // elements beyond the smallest legal ld, for every matrix
  int64_t offset = 0;  // elements by which every pointer is moved off the allocation's alignment
  CMode c_mode = CMode::none;
  Major c_major = row_major;
  float alpha = 1.0f, beta = 0.0f;

  std::string name() const {
    static const char* kC[] = {"", " C", " C=D", " C=NaN,beta=0"};
    return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " A " +
           to_string(a_major) + " B " + to_string(b_major) + " D " +
           (d_major == row_major ? "row" : "col") + " " + to_string(out) + " ld+" +
           std::to_string(ld_pad) + " offset " + std::to_string(offset) + kC[static_cast<int>(c_mode)] +
           (c_mode == CMode::separate ? (c_major == row_major ? "(row)" : "(col)") : "") +
           " alpha " + std::to_string(alpha) + " beta " + std::to_string(beta);
  }
};

struct Stream {
  cudaStream_t s = nullptr;
  Stream() { EXPECT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess); }
  ~Stream() { cudaStreamDestroy(s); }
};

void run_case(const Case& cs, uint64_t seed) {
  SCOPED_TRACE(cs.name());
  Stream stream;
  DeviceMatrix a(cs.m, cs.k, DType::bf16, cs.a_major, cs.ld_pad, cs.offset);
  DeviceMatrix b(cs.n, cs.k, DType::bf16, cs.b_major, cs.ld_pad, cs.offset);
  DeviceMatrix d(cs.m, cs.n, cs.out, cs.d_major, cs.ld_pad, cs.offset);
  // A separate C gets a different ld pad than D so that a kernel mixing up ldc and ldd fails.
  DeviceMatrix c(cs.m, cs.n, cs.out, cs.c_major, cs.ld_pad + 5, cs.offset);
  for (const DeviceMatrix* x : {&a, &b, &d, &c}) ASSERT_EQ(x->status(), cudaSuccess);

  ASSERT_EQ(a.fill_normal(seed, stream.s), cudaSuccess);
  ASSERT_EQ(b.fill_normal(seed + 1, stream.s), cudaSuccess);
  if (cs.c_mode == CMode::aliases_d) {
    ASSERT_EQ(d.fill_normal(seed + 2, stream.s), cudaSuccess);
  } else {
    ASSERT_EQ(d.poison_with_guards(stream.s), cudaSuccess);
  }
  if (cs.c_mode == CMode::separate) ASSERT_EQ(c.fill_normal(seed + 2, stream.s), cudaSuccess);
  if (cs.c_mode == CMode::nan_beta_zero)
    ASSERT_EQ(ref::poison(c.base(), c.elements(), element_bytes(cs.out), stream.s), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream.s), cudaSuccess);

  std::vector<unsigned char> a_raw, b_raw, c_raw, d_before, d_after;
  ASSERT_EQ(a.download(a_raw), cudaSuccess);
  ASSERT_EQ(b.download(b_raw), cudaSuccess);
  ASSERT_EQ(c.download(c_raw), cudaSuccess);
  ASSERT_EQ(d.download(d_before), cudaSuccess);

  GemmArgs args;
  args.a = a.ref();
  args.b = b.ref();
  args.d = d.out();
  const MatrixRef c_ref = cs.c_mode == CMode::aliases_d ? d.ref() : c.ref();
  if (cs.c_mode != CMode::none) args.c = &c_ref;
  args.alpha = cs.alpha;
  args.beta = cs.beta;
  args.stream = stream.s;
  const Status st = gemm(args);
  ASSERT_TRUE(st.ok()) << st.argument << ": " << st.message;
  ASSERT_EQ(cudaStreamSynchronize(stream.s), cudaSuccess);
  ASSERT_EQ(d.download(d_after), cudaSuccess);

  // Nothing outside D's elements changed.
  const std::vector<bool> mask = d.element_mask();
  const size_t eb = static_cast<size_t>(element_bytes(cs.out));
  size_t changed = 0;
  for (size_t i = 0; i < mask.size(); ++i)
    if (!mask[i] && std::memcmp(&d_before[i * eb], &d_after[i * eb], eb) != 0) ++changed;
  EXPECT_EQ(changed, 0u) << "elements outside D were written";
  if (cs.m == 0 || cs.n == 0) return;  // D has no elements: the guard check was the whole test

  // The result, row-major [M, N] as float.
  const size_t mn = static_cast<size_t>(cs.m * cs.n);
  std::vector<float> out(mn), expected(mn);
  for (int64_t r = 0; r < cs.m; ++r)
    for (int64_t col = 0; col < cs.n; ++col)
      out[r * cs.n + col] = to_float(&d_after[d.index(r, col) * eb], cs.out);

  // C as the reference sees it (only when it is read: beta != 0).
  const bool c_read = cs.c_mode != CMode::none && cs.beta != 0.0f;
  const DeviceMatrix& c_holder = cs.c_mode == CMode::aliases_d ? d : c;
  const std::vector<float> c_floats =
      c_holder.as_floats(cs.c_mode == CMode::aliases_d ? d_before : c_raw);
  const ref::HostView<float> c_view{c_floats.data() + c_holder.first(), cs.m, cs.n,
                                    c_holder.ref().ld, c_holder.ref().major};

  if (cs.k == 0) {
    // D = beta·C or 0, exactly: alpha·0 + beta·c rounds once, like the expectation here.
    size_t wrong = 0;
    for (int64_t r = 0; r < cs.m; ++r)
      for (int64_t col = 0; col < cs.n; ++col) {
        float e = c_read ? cs.beta * c_view.at(r, col) : 0.0f;
        if (cs.out == DType::bf16) e = __bfloat162float(__float2bfloat16_rn(e));
        if (!(out[r * cs.n + col] == e)) ++wrong;
      }
    EXPECT_EQ(wrong, 0u) << "K = 0 must give D = beta*C (or 0 without C)";
    return;
  }

  std::vector<__nv_bfloat16> a_host(a.elements()), b_host(b.elements());
  std::memcpy(a_host.data(), a_raw.data(), a_raw.size());
  std::memcpy(b_host.data(), b_raw.data(), b_raw.size());
  const ref::HostView<__nv_bfloat16> a_view{a_host.data() + a.first(), cs.m, cs.k, a.ref().ld, cs.a_major};
  const ref::HostView<__nv_bfloat16> b_view{b_host.data() + b.first(), cs.n, cs.k, b.ref().ld, cs.b_major};
  ref::cpu_gemm(a_view, b_view, c_read ? &c_view : nullptr, cs.alpha, c_read ? cs.beta : 0.0f,
                expected.data());
  const ref::CheckResult r = ref::check(out.data(), expected.data(), mn, cs.out);
  EXPECT_TRUE(r.passed) << "calc_diff " << r.calc_diff << " max_rel " << r.max_rel << " non_finite "
                        << r.non_finite << " mismatches " << r.mismatches;
}

// Every (A, B, D) major combination and both output dtypes for one shape/storage/C setting.
void run_all_layouts(Case base, uint64_t seed) {
  for (Major am : {Major::k_major, Major::mn_major})
    for (Major bm : {Major::k_major, Major::mn_major})
      for (Major dm : {row_major, col_major})
        for (DType out : {DType::bf16, DType::fp32}) {
          Case cs = base;
          cs.a_major = am;
          cs.b_major = bm;
          cs.d_major = dm;
          cs.out = out;
          run_case(cs, seed++);
        }
}

struct Shape {
  int64_t m, n, k;
};

TEST(ApiGpu, OddShapesEveryLayout) {
  // 1x1x1; sizes that are no multiple of anything; K below one k-slice; N below one tile; M = 1
  // decode against a long K; several tiles in both directions and many k-slices.
  for (Shape s : std::vector<Shape>{{1, 1, 1}, {17, 33, 65}, {127, 255, 31}, {1000, 7, 513},
                                    {1, 1000, 4096}, {257, 300, 1000}})
    run_all_layouts({s.m, s.n, s.k}, 100);
}

TEST(ApiGpu, LeadingDimensionsAndMisalignedPointers) {
  for (Shape s : std::vector<Shape>{{65, 129, 77}, {128, 64, 96}}) {
    Case wide{s.m, s.n, s.k};
    wide.ld_pad = 24;  // ld > row length, still a multiple of 8
    run_all_layouts(wide, 200);
    Case odd{s.m, s.n, s.k};
    odd.ld_pad = 3;  // ld not a multiple of 8: strides TMA cannot describe
    odd.offset = 1;  // every base pointer 2 (bf16) or 4 (fp32) bytes off alignment
    run_all_layouts(odd, 300);
  }
}

TEST(ApiGpu, AlphaBetaWithC) {
  for (Shape s : std::vector<Shape>{{127, 255, 31}, {33, 17, 100}})
    for (Major cm : {row_major, col_major}) {
      Case cs{s.m, s.n, s.k};
      cs.c_mode = CMode::separate;
      cs.c_major = cm;  // C's major independent of D's
      cs.alpha = 0.5f;
      cs.beta = -1.25f;
      cs.ld_pad = 3;
      cs.offset = 1;
      run_all_layouts(cs, 400);
    }
}

TEST(ApiGpu, BetaZeroDoesNotReadC) {
  Case cs{70, 90, 40};
  cs.c_mode = CMode::nan_beta_zero;
  cs.alpha = 2.0f;
  run_all_layouts(cs, 500);
}

TEST(ApiGpu, CAliasingDExactly) {
  Case cs{100, 80, 50};
  cs.c_mode = CMode::aliases_d;
  cs.alpha = -1.0f;
  cs.beta = 0.75f;
  cs.ld_pad = 3;
  run_all_layouts(cs, 600);
}

TEST(ApiGpu, KZeroWritesBetaCOrZero) {
  Case with_c{50, 70, 0};
  with_c.c_mode = CMode::separate;
  with_c.alpha = 3.0f;
  with_c.beta = 2.0f;
  run_all_layouts(with_c, 700);
  Case no_c{50, 70, 0};  // D was poisoned: every element must now be 0
  run_all_layouts(no_c, 800);
}

TEST(ApiGpu, EmptyMOrNWritesNothing) {
  // M = 0 or N = 0: D has no elements, so every byte of its allocation must stay as it was.
  for (Shape s : std::vector<Shape>{{0, 40, 30}, {40, 0, 30}, {0, 0, 0}}) {
    Case cs{s.m, s.n, s.k};
    cs.ld_pad = 2;
    run_case(cs, 900);
  }
}

}  // namespace
}  // namespace tilegemm
