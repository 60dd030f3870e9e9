// Tensor parallelism (include/tilegemm/tp.hpp) on the GPU.
//   Loopback: W virtual ranks on this one GPU, one host thread and stream each, run the whole chunk
//   protocol (steps, events, transfers as device copies, the fixed-order sum). All-gather + GEMM
//   must give every rank the gathered A bit for bit and the bits of the single gemm() of the
//   gathered problem with the configuration the call holds fixed; GEMM + reduce-scatter must match
//   the FP32 reference of the whole K and give the same bits run to run and with the overlap off.
//   NCCL, world size 1 (ncclCommInitAll over device 0): the same checks through the product path.
//   NCCL, every device of the machine when it has several: each rank against the single-GPU
//   result, and a rank that never joins surfacing as an error (tp::synchronize) instead of a hang.
#include <algorithm>
#include <array>
#include <chrono>
#include <memory>
#include <string>
#include <cstdint>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "api/route.hpp"
#include "reference/device_fill.hpp"
#include "reference/gpu_gemm.hpp"
#include "reference/reference.hpp"
#include "tilegemm/tp.hpp"
#include "tp/nccl_library.hpp"
#include "tp/transport.hpp"
#include "tp/tp_gemm.hpp"

namespace tilegemm {
namespace {

// A device buffer of `bytes`, freed with the object.
class Buffer {
 public:
  explicit Buffer(size_t bytes) : bytes_(bytes) { EXPECT_EQ(cudaMalloc(&ptr_, std::max<size_t>(bytes, 16)), cudaSuccess); }
  ~Buffer() { cudaFree(ptr_); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  void* get() const { return ptr_; }
  size_t bytes() const { return bytes_; }
  std::vector<uint8_t> host() const {
    std::vector<uint8_t> h(bytes_);
    EXPECT_EQ(cudaMemcpy(h.data(), ptr_, bytes_, cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
  }

 private:
  void* ptr_ = nullptr;
  size_t bytes_;
};

void fill_bf16(const Buffer& b, uint64_t seed) {
  ASSERT_EQ(ref::fill_normal_bf16(static_cast<__nv_bfloat16*>(b.get()), b.bytes() / 2, seed, 1.0f, nullptr),
            cudaSuccess);
}
void poison(const Buffer& b) { ASSERT_EQ(cudaMemset(b.get(), 0xFF, b.bytes()), cudaSuccess); }  // NaN in bf16/fp32

MatrixRef kmajor(const Buffer& b, int64_t rows, int64_t cols, DType t = DType::bf16) {
  return MatrixRef{b.get(), rows, cols, cols, t, Major::k_major};
}
MutMatrixRef kmajor_out(const Buffer& b, int64_t rows, int64_t cols, DType t) {
  return MutMatrixRef{b.get(), rows, cols, cols, t, Major::k_major};
}

// Runs fn(transport, rank, stream) for every rank of a loopback world, each in its own thread.
std::vector<Status> run_loopback(int world, const std::function<Status(tp::detail::Transport&, int, cudaStream_t)>& fn) {
  tp::detail::LoopbackHub hub(world, std::chrono::seconds(30));
  std::vector<Status> status(static_cast<size_t>(world));
  std::vector<std::thread> threads;
  for (int r = 0; r < world; ++r)
    threads.emplace_back([&, r] {
      cudaSetDevice(0);
      cudaStream_t s = nullptr;
      cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
      tp::detail::LoopbackTransport t(hub, r);
      status[size_t(r)] = fn(t, r, s);
      const cudaError_t err = cudaStreamSynchronize(s);
      if (status[size_t(r)].ok() && err != cudaSuccess)
        status[size_t(r)] = Status{ErrorCode::cuda_error, "stream", cudaGetErrorString(err)};
      cudaStreamDestroy(s);
    });
  for (auto& t : threads) t.join();
  return status;
}

// What all_gather_gemm promises to equal: gemm() of the whole problem with the configuration the
// planner picks for it, its k-split removed.
Status gathered_reference(const GemmArgs& whole) {
  detail::LaunchChoice choice;
  if (Status s = detail::choose_launch(whole, detail::GemmOptions{}, &choice); !s.ok()) return s;
  detail::GemmOptions o;
  if (choice.route.path == detail::Path::sm90) {
    plan::Config c = choice.config;
    c.split_k = 1;
    c.stream_k = false;
    o.config = c;
    o.config_stages_given = true;
    o.config_ignore_preferences = true;
  }
  return detail::gemm_with_options(whole, o);
}

std::vector<float> to_floats(const Buffer& b, DType t) {
  const size_t n = b.bytes() / size_t(dtype_bytes(t));
  std::vector<float> out(n);
  EXPECT_EQ(ref::copy_to_host_float(b.get(), t == DType::bf16, n, out.data()), cudaSuccess);
  return out;
}

struct AgCase {
  int world;
  int64_t m, n, k;
  bool own_gather_buffer;  // a_gathered given by the caller (else the call's own)
};

class TpAllGatherLoopback : public ::testing::TestWithParam<AgCase> {};

TEST_P(TpAllGatherLoopback, GathersAAndMatchesTheSingleGemmBitForBit) {
  const AgCase p = GetParam();
  const int w = p.world;
  Buffer a(size_t(p.m * p.k) * 2);
  fill_bf16(a, 11);
  std::vector<std::unique_ptr<Buffer>> b, d, d_seq, gathered, expected;
  for (int r = 0; r < w; ++r) {
    b.push_back(std::make_unique<Buffer>(size_t(p.n * p.k) * 2));
    fill_bf16(*b.back(), 100 + uint64_t(r));
    d.push_back(std::make_unique<Buffer>(size_t(p.m * p.n) * 2));
    d_seq.push_back(std::make_unique<Buffer>(size_t(p.m * p.n) * 2));
    gathered.push_back(std::make_unique<Buffer>(size_t(p.m * p.k) * 2));
    expected.push_back(std::make_unique<Buffer>(size_t(p.m * p.n) * 2));
    poison(*d.back());
    poison(*d_seq.back());
    poison(*gathered.back());
    poison(*expected.back());
  }
  const auto call = [&](bool overlap, std::vector<std::unique_ptr<Buffer>>& out) {
    return run_loopback(w, [&](tp::detail::Transport& t, int r, cudaStream_t s) {
      const tp::RowRange own = tp::chunk_rows(p.m, w, r);
      tp::AllGatherGemmArgs args;
      args.m = p.m;
      args.a_shard = MatrixRef{static_cast<uint8_t*>(a.get()) + own.begin * p.k * 2, own.size(), p.k, p.k,
                               DType::bf16, Major::k_major};
      if (p.own_gather_buffer) args.a_gathered = kmajor_out(*gathered[size_t(r)], p.m, p.k, DType::bf16);
      args.b = kmajor(*b[size_t(r)], p.n, p.k);
      args.d = kmajor_out(*out[size_t(r)], p.m, p.n, DType::bf16);
      args.stream = s;
      args.overlap.enabled = overlap;
      return tp::detail::run_all_gather_gemm(t, args);
    });
  };
  for (const Status& s : call(true, d)) ASSERT_TRUE(s.ok()) << s.message;
  for (const Status& s : call(false, d_seq)) ASSERT_TRUE(s.ok()) << s.message;
  const std::vector<uint8_t> a_host = a.host();
  for (int r = 0; r < w; ++r) {
    GemmArgs whole;
    whole.a = kmajor(a, p.m, p.k);
    whole.b = kmajor(*b[size_t(r)], p.n, p.k);
    whole.d = kmajor_out(*expected[size_t(r)], p.m, p.n, DType::bf16);
    const Status s = gathered_reference(whole);
    ASSERT_TRUE(s.ok()) << s.message;
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    if (p.own_gather_buffer) EXPECT_TRUE(gathered[size_t(r)]->host() == a_host) << "rank " << r << ": gathered A";
    EXPECT_TRUE(d[size_t(r)]->host() == expected[size_t(r)]->host()) << "rank " << r << ": D, overlapped";
    EXPECT_TRUE(d_seq[size_t(r)]->host() == expected[size_t(r)]->host()) << "rank " << r << ": D, sequential";
    // And the single GEMM itself against the FP32 reference.
    Buffer ref_out(size_t(p.m * p.n) * 4);
    ASSERT_EQ(ref::gpu_gemm(whole.a, whole.b, nullptr, 1.0f, 0.0f, static_cast<float*>(ref_out.get()), nullptr),
              cudaSuccess);
    const std::vector<float> got = to_floats(*d[size_t(r)], DType::bf16), want = to_floats(ref_out, DType::fp32);
    const ref::CheckResult c = ref::check(got.data(), want.data(), got.size(), DType::bf16);
    EXPECT_TRUE(c.passed) << "rank " << r << ": calc_diff " << c.calc_diff << ", mismatches " << c.mismatches;
  }
}

INSTANTIATE_TEST_SUITE_P(Worlds, TpAllGatherLoopback,
                         ::testing::Values(AgCase{1, 300, 256, 192, true}, AgCase{2, 1000, 384, 512, true},
                                           AgCase{3, 1000, 384, 512, false}, AgCase{4, 4096, 1024, 1024, true},
                                           AgCase{8, 7, 136, 64, true}, AgCase{3, 515, 200, 100, true},
                                           AgCase{8, 2049, 520, 256, false}));

struct RsCase {
  int world;
  int64_t m, n, k_rank;
  DType partial, out;
  bool with_c;
};

class TpReduceScatterLoopback : public ::testing::TestWithParam<RsCase> {};

TEST_P(TpReduceScatterLoopback, SumsInRankOrderDeterministically) {
  const RsCase p = GetParam();
  const int w = p.world;
  const int64_t k_all = p.k_rank * w;
  // C has D's dtype (gemm()'s rule).
  Buffer a_all(size_t(p.m * k_all) * 2), b_all(size_t(p.n * k_all) * 2), c_all(size_t(p.m * p.n) * dtype_bytes(p.out));
  fill_bf16(a_all, 7);
  fill_bf16(b_all, 8);
  if (p.out == DType::fp32)
    ASSERT_EQ(ref::fill_normal_f32(static_cast<float*>(c_all.get()), size_t(p.m * p.n), 9, 1.0f, nullptr), cudaSuccess);
  else
    fill_bf16(c_all, 9);
  const float alpha = 0.75f, beta = p.with_c ? -0.5f : 0.0f;
  // Rank r's slice of K: columns [r·k_rank, (r+1)·k_rank) of A and B, as views with ld = K.
  const auto slice = [&](const Buffer& x, int64_t rows, int r) {
    return MatrixRef{static_cast<uint8_t*>(x.get()) + r * p.k_rank * 2, rows, p.k_rank, k_all, DType::bf16,
                     Major::k_major};
  };
  const int64_t out_bytes = dtype_bytes(p.out);
  std::vector<std::vector<std::unique_ptr<Buffer>>> runs(3);
  const auto call = [&](bool overlap, std::vector<std::unique_ptr<Buffer>>& out) {
    for (int r = 0; r < w; ++r) {
      out.push_back(std::make_unique<Buffer>(size_t(tp::chunk_rows(p.m, w, r).size() * p.n * out_bytes)));
      poison(*out.back());
    }
    return run_loopback(w, [&](tp::detail::Transport& t, int r, cudaStream_t s) {
      const tp::RowRange own = tp::chunk_rows(p.m, w, r);
      MatrixRef c{static_cast<uint8_t*>(c_all.get()) + own.begin * p.n * out_bytes, own.size(), p.n, p.n, p.out,
                  Major::k_major};
      tp::GemmReduceScatterArgs args;
      args.a = slice(a_all, p.m, r);
      args.b = slice(b_all, p.n, r);
      if (p.with_c) args.c = &c;
      args.d = MutMatrixRef{out[size_t(r)]->get(), own.size(), p.n, p.n, p.out, Major::k_major};
      args.partial_dtype = p.partial;
      args.alpha = alpha;
      args.beta = beta;
      args.stream = s;
      args.overlap.enabled = overlap;
      return tp::detail::run_gemm_reduce_scatter(t, args);
    });
  };
  for (const Status& s : call(true, runs[0])) ASSERT_TRUE(s.ok()) << s.message;
  for (const Status& s : call(true, runs[1])) ASSERT_TRUE(s.ok()) << s.message;
  for (const Status& s : call(false, runs[2])) ASSERT_TRUE(s.ok()) << s.message;
  Buffer ref_out(size_t(p.m * p.n) * 4);
  MatrixRef c_full{c_all.get(), p.m, p.n, p.n, p.out, Major::k_major};
  ASSERT_EQ(ref::gpu_gemm(kmajor(a_all, p.m, k_all), kmajor(b_all, p.n, k_all), p.with_c ? &c_full : nullptr, alpha,
                          beta, static_cast<float*>(ref_out.get()), nullptr),
            cudaSuccess);
  const std::vector<float> want = to_floats(ref_out, DType::fp32);
  for (int r = 0; r < w; ++r) {
    const tp::RowRange own = tp::chunk_rows(p.m, w, r);
    EXPECT_TRUE(runs[0][size_t(r)]->host() == runs[1][size_t(r)]->host()) << "rank " << r << ": run to run";
    if (w > 1)  // one rank is a plain gemm(): the partial's rounding is not applied
      EXPECT_TRUE(runs[0][size_t(r)]->host() == runs[2][size_t(r)]->host()) << "rank " << r << ": overlap on/off";
    const std::vector<float> got = to_floats(*runs[0][size_t(r)], p.out);
    const float* want_rows = want.data() + own.begin * p.n;
    if (p.partial == DType::fp32) {
      const ref::CheckResult c = ref::check(got.data(), want_rows, got.size(), p.out);
      EXPECT_TRUE(c.passed) << "rank " << r << ": calc_diff " << c.calc_diff << ", mismatches " << c.mismatches;
    } else {  // W bf16-rounded partials: an average check with room for W + 1 roundings
      EXPECT_LT(ref::calc_diff(got.data(), want_rows, got.size()), 1e-4) << "rank " << r;
      EXPECT_EQ(ref::count_non_finite(got.data(), got.size()), 0u) << "rank " << r;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Worlds, TpReduceScatterLoopback,
                         ::testing::Values(RsCase{1, 256, 256, 512, DType::fp32, DType::fp32, true},
                                           RsCase{2, 1000, 384, 256, DType::fp32, DType::fp32, false},
                                           RsCase{3, 1000, 384, 256, DType::fp32, DType::bf16, true},
                                           RsCase{4, 4096, 1024, 512, DType::bf16, DType::bf16, false},
                                           RsCase{8, 7, 136, 64, DType::fp32, DType::fp32, true},
                                           RsCase{5, 2049, 520, 136, DType::bf16, DType::fp32, true}));

// ---- NCCL -----------------------------------------------------------------------------------------

bool nccl_or_skip(std::string* why) {
  int version = 0;
  std::string path;
  const Status s = tp::nccl_version(&version, &path);
  if (!s.ok()) *why = s.message;
  return s.ok();
}

TEST(TpNccl, WorldOfOneMatchesGemm) {
  std::string why;
  if (!nccl_or_skip(&why)) GTEST_SKIP() << why;
  std::vector<ncclComm*> comms;
  const Status init = tp::init_local_comms({0}, &comms);
  ASSERT_TRUE(init.ok()) << init.message;
  const int64_t m = 777, n = 320, k = 256;
  Buffer a(size_t(m * k) * 2), b(size_t(n * k) * 2), g(size_t(m * k) * 2), d(size_t(m * n) * 2),
      want(size_t(m * n) * 2), d_rs(size_t(m * n) * 4), want_rs(size_t(m * n) * 4);
  fill_bf16(a, 1);
  fill_bf16(b, 2);
  poison(g);
  poison(d);
  poison(d_rs);
  tp::AllGatherGemmArgs ag;
  ag.m = m;
  ag.a_shard = kmajor(a, m, k);
  ag.a_gathered = kmajor_out(g, m, k, DType::bf16);
  ag.b = kmajor(b, n, k);
  ag.d = kmajor_out(d, m, n, DType::bf16);
  Status s = tp::all_gather_gemm(comms[0], ag);
  ASSERT_TRUE(s.ok()) << s.message;
  tp::GemmReduceScatterArgs rs;
  rs.a = kmajor(a, m, k);
  rs.b = kmajor(b, n, k);
  rs.d = kmajor_out(d_rs, m, n, DType::fp32);
  s = tp::gemm_reduce_scatter(comms[0], rs);
  ASSERT_TRUE(s.ok()) << s.message;
  s = tp::synchronize(comms[0], nullptr, 60.0);
  ASSERT_TRUE(s.ok()) << s.message;
  GemmArgs whole{kmajor(a, m, k), kmajor(b, n, k), nullptr, kmajor_out(want, m, n, DType::bf16)};
  ASSERT_TRUE(gathered_reference(whole).ok());
  GemmArgs plain{kmajor(a, m, k), kmajor(b, n, k), nullptr, kmajor_out(want_rs, m, n, DType::fp32)};
  ASSERT_TRUE(gemm(plain).ok());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_TRUE(g.host() == a.host());
  EXPECT_TRUE(d.host() == want.host());
  EXPECT_TRUE(d_rs.host() == want_rs.host());
  EXPECT_TRUE(tp::destroy_comm(comms[0]).ok());
}

TEST(TpNccl, RejectsACommunicatorOfAnotherDevice) {
  std::string why;
  if (!nccl_or_skip(&why)) GTEST_SKIP() << why;
  int count = 0;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  if (count < 2) GTEST_SKIP() << "needs 2 GPUs";
  std::vector<ncclComm*> comms;
  ASSERT_TRUE(tp::init_local_comms({1}, &comms).ok());
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  tp::AllGatherGemmArgs ag;
  const Status s = tp::all_gather_gemm(comms[0], ag);
  EXPECT_EQ(s.code, ErrorCode::invalid_argument);
  EXPECT_EQ(s.argument, "comm");
  EXPECT_NE(s.message.find("device 1"), std::string::npos) << s.message;
  EXPECT_TRUE(tp::destroy_comm(comms[0]).ok());
}

std::vector<ncclComm*> all_local_comms(int* count, std::string* skip) {
  std::vector<ncclComm*> comms;
  if (!nccl_or_skip(skip)) return comms;
  EXPECT_EQ(cudaGetDeviceCount(count), cudaSuccess);
  if (*count < 2) {
    *skip = "needs 2 or more GPUs (this machine has " + std::to_string(*count) + ")";
    return comms;
  }
  std::vector<int> devices(static_cast<size_t>(*count));
  for (int i = 0; i < *count; ++i) devices[size_t(i)] = i;
  const Status init = tp::init_local_comms(devices, &comms);
  EXPECT_TRUE(init.ok()) << init.message;
  return comms;
}

// Every device of the machine, one rank (thread) each. All-gather + GEMM: every rank's D against
// the single-GPU GEMM of the gathered problem on its own GPU, bit for bit. GEMM + reduce-scatter
// (K split across ranks): every rank's rows against the FP32 reference of the whole K.
TEST(TpNccl, EveryLocalGpuMatchesTheSingleGpuResult) {
  int count = 0;
  std::string skip;
  std::vector<ncclComm*> comms = all_local_comms(&count, &skip);
  if (comms.empty()) GTEST_SKIP() << skip;
  for (const auto& shape : std::vector<std::array<int64_t, 3>>{{4096, 1024, 2048}, {1001, 520, 264}}) {
    const int64_t m = shape[0], n = shape[1], k = shape[2];
    std::vector<std::string> failures(static_cast<size_t>(count));
    std::vector<std::thread> threads;
    for (int r = 0; r < count; ++r)
      threads.emplace_back([&, r] {
        cudaSetDevice(r);
        std::string& fail = failures[size_t(r)];
        const tp::RowRange own = tp::chunk_rows(m, count, r);
        // Every rank fills the same whole A (and, for the reduce-scatter, the same whole B), so each
        // can compute the expected result alone.
        const int64_t k_all = k * count;
        Buffer a(size_t(m * k_all) * 2), b(size_t(n * k) * 2), b_all(size_t(n * k_all) * 2), d(size_t(m * n) * 2),
            want(size_t(m * n) * 2), rs(size_t(own.size() * n) * 4), rs_want(size_t(m * n) * 4);
        ref::fill_normal_bf16(static_cast<__nv_bfloat16*>(a.get()), size_t(m * k_all), 5, 1.0f, nullptr);
        ref::fill_normal_bf16(static_cast<__nv_bfloat16*>(b.get()), size_t(n * k), 50 + uint64_t(r), 1.0f, nullptr);
        ref::fill_normal_bf16(static_cast<__nv_bfloat16*>(b_all.get()), size_t(n * k_all), 6, 1.0f, nullptr);
        const MatrixRef a_mk{a.get(), m, k, k, DType::bf16, Major::k_major};  // the first m·k elements
        tp::AllGatherGemmArgs ag;
        ag.m = m;
        ag.a_shard = MatrixRef{static_cast<uint8_t*>(a.get()) + own.begin * k * 2, own.size(), k, k, DType::bf16,
                               Major::k_major};
        ag.b = kmajor(b, n, k);
        ag.d = kmajor_out(d, m, n, DType::bf16);
        Status s = tp::all_gather_gemm(comms[size_t(r)], ag);
        tp::GemmReduceScatterArgs rsa;
        rsa.a = MatrixRef{static_cast<uint8_t*>(a.get()) + r * k * 2, m, k, k_all, DType::bf16, Major::k_major};
        rsa.b = MatrixRef{static_cast<uint8_t*>(b_all.get()) + r * k * 2, n, k, k_all, DType::bf16, Major::k_major};
        rsa.d = MutMatrixRef{rs.get(), own.size(), n, n, DType::fp32, Major::k_major};
        rsa.partial_dtype = DType::fp32;
        if (s.ok()) s = tp::gemm_reduce_scatter(comms[size_t(r)], rsa);
        if (s.ok()) s = tp::synchronize(comms[size_t(r)], nullptr, 120.0);
        GemmArgs whole{a_mk, kmajor(b, n, k), nullptr, kmajor_out(want, m, n, DType::bf16)};
        if (s.ok()) s = gathered_reference(whole);
        if (s.ok() && ref::gpu_gemm(kmajor(a, m, k_all), kmajor(b_all, n, k_all), nullptr, 1.0f, 0.0f,
                                    static_cast<float*>(rs_want.get()), nullptr) != cudaSuccess)
          s = Status{ErrorCode::cuda_error, "reference", "gpu_gemm failed"};
        if (cudaDeviceSynchronize() != cudaSuccess && s.ok()) s = Status{ErrorCode::cuda_error, "sync", "failed"};
        if (!s.ok()) {
          fail = s.message;
          return;
        }
        if (d.host() != want.host()) fail += "all-gather + GEMM: D differs from the single GEMM; ";
        const std::vector<float> got = to_floats(rs, DType::fp32), ref_all = to_floats(rs_want, DType::fp32);
        const ref::CheckResult c = ref::check(got.data(), ref_all.data() + own.begin * n, got.size(), DType::fp32);
        if (!c.passed) fail += "GEMM + reduce-scatter: calc_diff " + std::to_string(c.calc_diff) + ", " +
                               std::to_string(c.mismatches) + " mismatches";
      });
    for (auto& t : threads) t.join();
    for (int r = 0; r < count; ++r)
      EXPECT_TRUE(failures[size_t(r)].empty()) << "rank " << r << " of " << count << " (" << m << "x" << n << "x"
                                               << k << "): " << failures[size_t(r)];
  }
  for (ncclComm* c : comms) EXPECT_TRUE(tp::destroy_comm(c).ok());
}

// A rank that fails mid-way (it stops calling after a first, complete round, so every connection
// exists and the next round's transfers wait on the GPU, not in ncclGroupEnd): the others must get
// an error from tp::synchronize within its timeout, not hang.
TEST(TpNccl, AMissingRankIsAnErrorNotAHang) {
  int count = 0;
  std::string skip;
  std::vector<ncclComm*> comms = all_local_comms(&count, &skip);
  if (comms.empty()) GTEST_SKIP() << skip;
  const int64_t m = 1024, n = 256, k = 256;
  std::vector<Status> first(static_cast<size_t>(count)), second(static_cast<size_t>(count));
  std::vector<std::thread> threads;
  for (int r = 0; r < count; ++r)
    threads.emplace_back([&, r] {
      cudaSetDevice(r);
      const tp::RowRange own = tp::chunk_rows(m, count, r);
      Buffer a(size_t(own.size() * k) * 2), b(size_t(n * k) * 2), d(size_t(m * n) * 2);
      fill_bf16(a, 1);
      fill_bf16(b, 2);
      tp::AllGatherGemmArgs ag;
      ag.m = m;
      ag.a_shard = kmajor(a, own.size(), k);
      ag.b = kmajor(b, n, k);
      ag.d = kmajor_out(d, m, n, DType::bf16);
      Status s = tp::all_gather_gemm(comms[size_t(r)], ag);
      if (s.ok()) s = tp::synchronize(comms[size_t(r)], nullptr, 60.0);
      first[size_t(r)] = s;
      if (!s.ok() || r + 1 == count) return;  // the last rank stays away from the second round
      s = tp::all_gather_gemm(comms[size_t(r)], ag);
      if (s.ok()) s = tp::synchronize(comms[size_t(r)], nullptr, 5.0);
      second[size_t(r)] = s;
      cudaDeviceSynchronize();  // the abort lets the stuck kernels exit
    });
  for (auto& t : threads) t.join();
  for (int r = 0; r < count; ++r) ASSERT_TRUE(first[size_t(r)].ok()) << "rank " << r << ": " << first[size_t(r)].message;
  for (int r = 0; r + 1 < count; ++r) {
    EXPECT_EQ(second[size_t(r)].code, ErrorCode::cuda_error) << "rank " << r;
    EXPECT_EQ(second[size_t(r)].argument, "comm") << "rank " << r << ": " << second[size_t(r)].message;
  }
  std::string why;
  const tp::detail::NcclLibrary* lib = tp::detail::nccl_library(&why);
  cudaSetDevice(count - 1);
  if (lib != nullptr) (void)lib->comm_abort(comms.back());  // the others were aborted by synchronize
  cudaSetDevice(0);
}

}  // namespace
}  // namespace tilegemm
