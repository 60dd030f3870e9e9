// One production path: the Config a gemm() call launches is exactly the one `tilegemm explain`
// presents as chosen (make_plan on the live device's profile), for every suite shape and more; the
// query API (detail::choose_launch) says the same before the call. Also: the JIT serves the second
// call of a shape from memory (no compile), and calls on a second stream work.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "api/route.hpp"
#include "api/sm90_launch.hpp"
#include "forced_config.hpp"
#include "jit/codegen.hpp"
#include "plan/config_spec.hpp"
#include "plan/device_profile.hpp"
#include "plan/planner.hpp"
#include "reference/device_fill.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm {
namespace {

struct Shape {
  int64_t m, n, k;
};

// The llm suite (bench/suites/llm.txt): squares, and M in {1, 128, 4096} x seven (N, K); then shapes of no suite.
const Shape kShapes[] = {
    {4096, 4096, 4096}, {6144, 6144, 6144}, {8192, 8192, 8192},
    {1, 2112, 7168},    {1, 576, 7168},     {1, 24576, 1536},  {1, 32768, 512},  {1, 7168, 16384},
    {1, 4096, 7168},    {1, 7168, 2048},    {128, 2112, 7168}, {128, 576, 7168}, {128, 24576, 1536},
    {128, 32768, 512},  {128, 7168, 16384}, {128, 4096, 7168}, {128, 7168, 2048}, {4096, 2112, 7168},
    {4096, 576, 7168},  {4096, 24576, 1536}, {4096, 32768, 512}, {4096, 7168, 16384}, {4096, 4096, 7168},
    {4096, 7168, 2048}, {3000, 5000, 1000}, {17, 40000, 4096}, {2048, 96, 8192},   {777, 1232, 336}};

struct Buffers {
  void* a = nullptr;
  void* b = nullptr;
  void* d = nullptr;
  ~Buffers() {
    cudaFree(a);
    cudaFree(b);
    cudaFree(d);
  }
};

// An NT problem in `buf` (lda = ldb = K, ldd = N): A and B random normal (seeds seed, seed + 1)
// unless seed is 0, D uninitialized. Call under ASSERT_NO_FATAL_FAILURE.
void nt_problem(Buffers& buf, int64_t m, int64_t n, int64_t k, uint64_t seed, GemmArgs* args) {
  ASSERT_EQ(cudaMalloc(&buf.a, size_t(m * k) * 2), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&buf.b, size_t(n * k) * 2), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&buf.d, size_t(m * n) * 2), cudaSuccess);
  if (seed != 0) {
    ASSERT_EQ(ref::fill_normal_bf16(static_cast<__nv_bfloat16*>(buf.a), size_t(m * k), seed, 1.0f, nullptr), cudaSuccess);
    ASSERT_EQ(ref::fill_normal_bf16(static_cast<__nv_bfloat16*>(buf.b), size_t(n * k), seed + 1, 1.0f, nullptr),
              cudaSuccess);
  }
  args->a = MatrixRef{buf.a, m, k, k, DType::bf16, Major::k_major};
  args->b = MatrixRef{buf.b, n, k, k, DType::bf16, Major::k_major};
  args->d = MutMatrixRef{buf.d, m, n, n, DType::bf16, row_major};
}

TEST(OnePathGpu, GemmLaunchesExactlyExplainsChoice) {
  int device = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  std::string why;
  const auto profile = plan::query_live_profile(device, &why);
  ASSERT_TRUE(profile.has_value()) << why;
  size_t a_max = 0, b_max = 0, d_max = 0;
  for (const Shape& s : kShapes) {
    a_max = std::max(a_max, size_t(s.m * s.k));
    b_max = std::max(b_max, size_t(s.n * s.k));
    d_max = std::max(d_max, size_t(s.m * s.n));
  }
  Buffers buf;
  ASSERT_EQ(cudaMalloc(&buf.a, a_max * 2), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&buf.b, b_max * 2), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&buf.d, d_max * 2), cudaSuccess);
  ASSERT_EQ(ref::fill_normal_bf16(static_cast<__nv_bfloat16*>(buf.a), a_max, 1, 1.0f, nullptr), cudaSuccess);
  ASSERT_EQ(ref::fill_normal_bf16(static_cast<__nv_bfloat16*>(buf.b), b_max, 2, 1.0f, nullptr), cudaSuccess);
  int checked = 0;
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(testing::Message() << s.m << "x" << s.n << "x" << s.k);
    GemmArgs args;
    args.a = MatrixRef{buf.a, s.m, s.k, s.k, DType::bf16, Major::k_major};
    args.b = MatrixRef{buf.b, s.n, s.k, s.k, DType::bf16, Major::k_major};
    args.d = MutMatrixRef{buf.d, s.m, s.n, s.n, DType::bf16, row_major};
    // What explain presents: the full plan on the same profile.
    const detail::Route r = detail::route(args);
    ASSERT_EQ(r.path, detail::Path::sm90) << r.reason;
    const plan::Plan pl = plan::make_plan(r.problem, *profile);
    ASSERT_FALSE(pl.ranked.empty());
    const std::string explained = jit::config_initializer(pl.chosen().config);
    // What the query API says gemm() will run.
    detail::LaunchChoice choice;
    ASSERT_TRUE(detail::choose_launch(args, {}, &choice).ok());
    EXPECT_EQ(jit::config_initializer(choice.config), explained);
    // What gemm() launched.
    const Status st = gemm(args);
    ASSERT_TRUE(st.ok()) << st.message;
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const std::optional<plan::Config> ran = detail::last_sm90_config();
    ASSERT_TRUE(ran.has_value());
    // A split-K call whose workspace could not be had runs the unsplit tile instead; not here.
    EXPECT_EQ(jit::config_initializer(*ran), explained) << "launched " << plan::describe(*ran) << ", explained "
                                                        << plan::describe(pl.chosen().config);
    ++checked;
  }
  EXPECT_GE(checked, 20);
}

TEST(OnePathGpu, ASecondStreamAndRepeatedCallsWork) {
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  Buffers buf;
  GemmArgs args;
  ASSERT_NO_FATAL_FAILURE(nt_problem(buf, 128, 576, 7168, 0, &args));  // split-K on the planner's choice
  args.stream = stream;
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(gemm(args).ok());
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

}  // namespace
}  // namespace tilegemm

namespace tilegemm {
namespace {

// A k-split call (split-K and stream-K) captured into a CUDA graph on a stream that never ran one
// before: the graph gets its own workspace (allocation, counters zeroed, free), keeps the split,
// and replays correctly, more than once (a graph whose allocation were not freed in it could not
// be relaunched; counters not back at 0 after a replay would break the next one).
TEST(OnePathGpu, SplitKInsideACudaGraphCaptureKeepsTheSplit) {
  for (const char* spec : {"64x48,splitk=8", "64x48,streamk"}) {
  SCOPED_TRACE(spec);
  detail::GemmOptions options;
  ASSERT_TRUE(test::forced_config(spec, &options));
  const int64_t m = 1, n = 576, k = 7168;
  Buffers buf, ref;
  GemmArgs args;
  ASSERT_NO_FATAL_FAILURE(nt_problem(buf, m, n, k, 5, &args));
  ASSERT_EQ(cudaMalloc(&ref.d, size_t(m * n) * 2), cudaSuccess);
  args.d = MutMatrixRef{ref.d, m, n, n, DType::bf16, row_major};
  // Eager, default stream: the reference bits (and the kernel compiled).
  ASSERT_TRUE(detail::gemm_with_options(args, options).ok());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::optional<plan::Config> eager = detail::last_sm90_config();
  ASSERT_TRUE(eager.has_value());
  ASSERT_TRUE(eager->stream_k) << plan::describe(*eager);

  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  args.d = MutMatrixRef{buf.d, m, n, n, DType::bf16, row_major};
  args.stream = stream;
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
  const Status st = detail::gemm_with_options(args, options);
  ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  ASSERT_TRUE(st.ok()) << st.message;
  const std::optional<plan::Config> captured = detail::last_sm90_config();
  ASSERT_TRUE(captured.has_value());
  EXPECT_TRUE(captured->stream_k && captured->split_k == eager->split_k) << "the capture fell back to the unsplit kernel";
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  std::vector<uint16_t> want(size_t(m * n)), got(size_t(m * n));
  ASSERT_EQ(cudaMemcpy(want.data(), ref.d, want.size() * 2, cudaMemcpyDeviceToHost), cudaSuccess);
  for (int replay = 0; replay < 3; ++replay) {
    ASSERT_EQ(cudaMemset(buf.d, 0xFF, size_t(m * n) * 2), cudaSuccess);  // NaN poison
    ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(got.data(), buf.d, got.size() * 2, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(got, want) << "replay " << replay << ": the split-K result is deterministic, so the bits match";
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
  }
}

// Programmatic dependent launch (GemmOptions::pdl): each kernel of a call (operand copies, the
// GEMM) may start before the kernel before it in the stream finishes and must wait for it before
// touching memory. A chain of calls where each reads the previous call's D (as A, through an
// operand copy where D's leading dimension is odd, and as C), with a k-split whose workspace
// counters the previous call just reset, must give the same bits with and without PDL, eagerly and
// captured in a graph; the buffers are poisoned between runs so a read of stale data shows.
TEST(OnePathGpu, ProgrammaticDependentLaunchChainsGiveTheSameBits) {
  const int64_t m = 256, k0 = 512, n1 = 1024, n2 = 768, n3 = 520;
  const int64_t ld1 = n1 + 1;  // odd: D1 is stored by the threads, and read as A through a copy
  struct Chain {
    void *a = nullptr, *b1 = nullptr, *b2 = nullptr, *b3 = nullptr, *d1 = nullptr, *d2 = nullptr, *d3 = nullptr;
    ~Chain() {
      for (void* p : {a, b1, b2, b3, d1, d2, d3}) cudaFree(p);
    }
  } c;
  const size_t d1_elems = size_t(m * ld1), d2_elems = size_t(m * n2), d3_elems = size_t(m * n3);
  for (auto [ptr, elems] : {std::pair{&c.a, size_t(m * k0)}, {&c.b1, size_t(n1 * k0)}, {&c.b2, size_t(n2 * n1)},
                            {&c.b3, size_t(n3 * n2)}, {&c.d1, d1_elems}, {&c.d2, d2_elems}, {&c.d3, d3_elems}})
    ASSERT_EQ(cudaMalloc(ptr, elems * 2), cudaSuccess);
  uint64_t seed = 40;
  for (auto [ptr, elems] : {std::pair{c.a, size_t(m * k0)}, {c.b1, size_t(n1 * k0)}, {c.b2, size_t(n2 * n1)},
                            {c.b3, size_t(n3 * n2)}})
    ASSERT_EQ(ref::fill_normal_bf16(static_cast<__nv_bfloat16*>(ptr), elems, ++seed, 0.125f, nullptr), cudaSuccess);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);

  // D1 = A·B1ᵀ (ldd odd); D2 = D1·B2ᵀ (A copied first: lda odd; forced split-K through the
  // workspace); D3 = D2·B3ᵀ + D2[:, :520] (C read from the previous D).
  auto run_chain = [&](bool pdl) -> Status {
    detail::GemmOptions o1, o2, o3;
    o1.pdl = o2.pdl = o3.pdl = pdl;
    if (!test::forced_config("128x128,splitk=4", &o2)) return Status{ErrorCode::invalid_argument, "config", "spec"};
    GemmArgs g1, g2, g3;
    g1.a = MatrixRef{c.a, m, k0, k0, DType::bf16, Major::k_major};
    g1.b = MatrixRef{c.b1, n1, k0, k0, DType::bf16, Major::k_major};
    g1.d = MutMatrixRef{c.d1, m, n1, ld1, DType::bf16, row_major};
    g2.a = MatrixRef{c.d1, m, n1, ld1, DType::bf16, Major::k_major};
    g2.b = MatrixRef{c.b2, n2, n1, n1, DType::bf16, Major::k_major};
    g2.d = MutMatrixRef{c.d2, m, n2, n2, DType::bf16, row_major};
    g3.a = MatrixRef{c.d2, m, n2, n2, DType::bf16, Major::k_major};
    g3.b = MatrixRef{c.b3, n3, n2, n2, DType::bf16, Major::k_major};
    g3.d = MutMatrixRef{c.d3, m, n3, n3, DType::bf16, row_major};
    const MatrixRef c3{c.d2, m, n3, n2, DType::bf16, row_major};
    g3.c = &c3;
    g3.beta = 1.0f;
    for (GemmArgs* g : {&g1, &g2, &g3}) g->stream = stream;
    for (int rep = 0; rep < 3; ++rep) {  // back to back: each chain's first call follows the last one's
      if (Status s = detail::gemm_with_options(g1, o1); !s.ok()) return s;
      if (Status s = detail::gemm_with_options(g2, o2); !s.ok()) return s;
      if (Status s = detail::gemm_with_options(g3, o3); !s.ok()) return s;
    }
    return Status::success();
  };
  auto poison = [&] {
    for (auto [ptr, elems] : {std::pair{c.d1, d1_elems}, {c.d2, d2_elems}, {c.d3, d3_elems}})
      ASSERT_EQ(cudaMemsetAsync(ptr, 0xFF, elems * 2, stream), cudaSuccess);  // NaN
  };
  auto result = [&] {
    std::vector<uint16_t> all(d1_elems + d2_elems + d3_elems);
    EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(all.data(), c.d1, d1_elems * 2, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(all.data() + d1_elems, c.d2, d2_elems * 2, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(all.data() + d1_elems + d2_elems, c.d3, d3_elems * 2, cudaMemcpyDeviceToHost), cudaSuccess);
    return all;
  };
  poison();
  ASSERT_TRUE(run_chain(false).ok());
  const std::vector<uint16_t> want = result();
  // (D3 holds numbers: the chain ran; NaN poison left anywhere in D2 or D3 would propagate.)
  size_t nan = 0;
  for (size_t i = d1_elems; i < want.size(); ++i) nan += (want[i] & 0x7F80) == 0x7F80 && (want[i] & 0x7F) != 0;
  ASSERT_EQ(nan, 0u);
  for (int run = 0; run < 2; ++run) {
    poison();
    const Status st = run_chain(true);
    ASSERT_TRUE(st.ok()) << st.argument << ": " << st.message;
    EXPECT_EQ(result(), want) << "eager run " << run << " with PDL";
  }
  // Captured with PDL (programmatic edges in the graph), replayed.
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
  const Status st = run_chain(true);
  ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  ASSERT_TRUE(st.ok()) << st.argument << ": " << st.message;
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  for (int replay = 0; replay < 2; ++replay) {
    poison();
    ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
    EXPECT_EQ(result(), want) << "graph replay " << replay;
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

// The operand copies confined to a few SMs (launch_packs' pinned_ctas, `tilegemm copy-rate`) write
// exactly what gemm()'s spread launch writes: 3 blocks of 512 threads stride over every line of A
// and B (odd K: both copied), the workspace poisoned before each.
TEST(OnePathGpu, PinnedOperandCopiesWriteWhatTheSpreadOnesDo) {
  const int64_t k = 1001;
  Buffers buf;
  GemmArgs args;
  ASSERT_NO_FATAL_FAILURE(nt_problem(buf, 1023, 2049, k, 31, &args));
  const detail::Route r = detail::route(args);
  ASSERT_EQ(r.packs.size(), 2u);
  std::vector<std::vector<uint8_t>> copies;
  for (int pinned : {0, 3}) {
    Buffers ws;
    ASSERT_EQ(cudaMalloc(&ws.a, r.pack_bytes), cudaSuccess);
    ASSERT_EQ(cudaMemset(ws.a, 0xA5, r.pack_bytes), cudaSuccess);
    const Status st = detail::launch_packs(r, ws.a, nullptr, false, pinned);
    ASSERT_TRUE(st.ok()) << st.message;
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    copies.emplace_back(r.pack_bytes);
    ASSERT_EQ(cudaMemcpy(copies.back().data(), ws.a, r.pack_bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  }
  EXPECT_TRUE(copies[0] == copies[1]);
  // (And the copy is A's lines: the first row of A's copy is A's first row.)
  std::vector<uint8_t> row(size_t(k) * 2);
  ASSERT_EQ(cudaMemcpy(row.data(), buf.a, row.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  const detail::Pack& pa = r.packs[0].operand == detail::Pack::Operand::a ? r.packs[0] : r.packs[1];
  EXPECT_TRUE(std::equal(row.begin(), row.end(), copies[1].begin() + static_cast<std::ptrdiff_t>(pa.offset)));
}

}  // namespace
}  // namespace tilegemm
