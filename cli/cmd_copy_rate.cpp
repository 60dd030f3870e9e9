// `tilegemm copy-rate [--shape MxNxK ...] [--ctas P,...] [--iters N] [--json]`: how fast the
// operand copies gemm() makes before its kernel run, spread over the whole GPU (P = 0, gemm()'s
// launch) and confined to P SMs (launch_packs' pinned_ctas: one block of 512 threads per SM,
// sm90/gemm/params.hpp). The problem is NT with lda = ldb = K, so an odd K makes both A and B
// lines TMA cannot read, copied into aligned lines (docs/API.md). The figure decides whether the
// copies of an odd shape can run on a few SMs beside the GEMM on the others: a GEMM needs them
// at about its own pace to hide them.
// Per (shape, P): the copy launch between two CUDA events, L2 flushed (a memset of twice its size)
// before each, median of --iters; TB/s counts the bytes read and written.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "api/route.hpp"
#include "api/sm90_launch.hpp"
#include "bench/device_info.hpp"
#include "bench/suite.hpp"
#include "commands.hpp"
#include "cuda_holders.hpp"
#include "reference/device_fill.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm::cli {

namespace {

struct CopyRateArgs {
  std::vector<std::string> shapes{"1023x8191x2047", "2049x6001x4097", "6007x1501x513"};
  std::vector<int> ctas{0, 8, 16, 24, 32, 48};
  int iters = 15;
  bool json = false;
};

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "tilegemm copy-rate: %s\n", message.c_str());
  throw CLI::RuntimeError(1);
}

void run_copy_rate(const CopyRateArgs& a) {
  std::string error;
  std::vector<bench::Shape> shapes;
  for (const std::string& s : a.shapes) {
    const auto shape = bench::parse_shape(s, &error);
    if (!shape) usage_error("copy-rate", error);
    if (shape->k % 8 == 0)
      usage_error("copy-rate", "--shape " + s + ": K = " + std::to_string(shape->k) +
                                   " is a multiple of 8, so gemm() copies nothing (the rows are TMA's to read)");
    shapes.push_back(*shape);
  }
  for (int p : a.ctas)
    if (p < 0 || p > 1024) usage_error("copy-rate", "--ctas " + std::to_string(p) + ": must be in [0, 1024] (0: spread over the GPU)");
  if (a.iters < 1 || a.iters > 1000) usage_error("copy-rate", "--iters " + std::to_string(a.iters) + ": must be in [1, 1000]");
  const bench::DeviceInfo dev = bench::probe_device();
  if (!dev.is_sm90()) {
    std::fprintf(stderr, "tilegemm copy-rate: no Hopper (sm_90) GPU found: %s\n", dev.not_sm90_reason().c_str());
    throw CLI::RuntimeError(3);
  }
  const size_t l2 = size_t(std::max<int64_t>(dev.l2_bytes, 1));
  DeviceBuffers buffers;
  void* flush = buffers.get(2 * l2);
  cudaEvent_t start = nullptr, stop = nullptr;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  const std::unique_ptr<CUevent_st, decltype(&cudaEventDestroy)> own_start(start, cudaEventDestroy),
      own_stop(stop, cudaEventDestroy);
  nlohmann::json results = nlohmann::json::array();
  if (!a.json)
    fmt::print("tilegemm copy-rate: {} ({} SMs), operand copies of NT problems with lda = ldb = K, L2 flushed, "
               "median of {}\n{:>18} {:>10} {:>6} {:>10} {:>8}\n",
               dev.name, dev.sm_count, a.iters, "shape", "MB", "CTAs", "us", "TB/s");
  for (const bench::Shape& s : shapes) {
    DeviceBuffers operands;
    void* pa = operands.get(size_t(s.m * s.k) * 2);
    void* pb = operands.get(size_t(s.n * s.k) * 2);
    void* pd = operands.get(size_t(s.m * s.n) * 2);
    if (pa == nullptr || pb == nullptr || pd == nullptr || flush == nullptr) fail("out of device memory");
    ref::fill_normal_bf16(static_cast<__nv_bfloat16*>(pa), size_t(s.m * s.k), 1, 1.0f, nullptr);
    ref::fill_normal_bf16(static_cast<__nv_bfloat16*>(pb), size_t(s.n * s.k), 2, 1.0f, nullptr);
    GemmArgs args;
    args.a = MatrixRef{pa, s.m, s.k, s.k, DType::bf16, Major::k_major};
    args.b = MatrixRef{pb, s.n, s.k, s.k, DType::bf16, Major::k_major};
    args.d = MutMatrixRef{pd, s.m, s.n, s.n, DType::bf16, row_major};
    const detail::Route r = detail::route(args);
    if (r.packs.empty()) fail(fmt::format("{}x{}x{}: gemm() copies nothing here", s.m, s.n, s.k));
    void* workspace = operands.get(r.pack_bytes);
    if (workspace == nullptr) fail("out of device memory");
    double bytes = 0;  // read and written
    for (const detail::Pack& pk : r.packs) bytes += 2.0 * double(pk.rows) * double(pk.cols) * pk.elem_bytes;
    for (int p : a.ctas) {
      std::vector<double> us;
      for (int i = 0; i < a.iters + 2; ++i) {  // (two untimed: the JIT and a warm launch)
        cudaMemsetAsync(flush, i & 0xFF, 2 * l2);
        cudaEventRecord(start);
        if (Status st = detail::launch_packs(r, workspace, nullptr, false, p); !st.ok()) fail(st.message);
        cudaEventRecord(stop);
        if (cudaError_t e = cudaEventSynchronize(stop); e != cudaSuccess) fail(cudaGetErrorString(e));
        float ms = 0;
        cudaEventElapsedTime(&ms, start, stop);
        if (i >= 2) us.push_back(1000.0 * ms);
      }
      std::sort(us.begin(), us.end());
      const double t = us[us.size() / 2], tbps = bytes / (t * 1e-6) / 1e12;
      const std::string label = fmt::format("{}x{}x{}", s.m, s.n, s.k);
      results.push_back({{"shape", label}, {"bytes", bytes}, {"ctas", p}, {"median_us", t}, {"tb_per_s", tbps}});
      if (!a.json)
        fmt::print("{:>18} {:>10.1f} {:>6} {:>10.1f} {:>8.2f}\n", label, bytes / 1e6,
                   p == 0 ? std::string("all") : std::to_string(p), t, tbps);
    }
  }
  if (a.json)
    fmt::print("{}\n", nlohmann::json{{"schema", "tilegemm.copy-rate/1"}, {"device", dev.name}, {"sms", dev.sm_count},
                                      {"iters", a.iters}, {"results", results}}
                           .dump(2));
}

}  // namespace

void add_copy_rate_command(CLI::App& app) {
  auto args = std::make_shared<CopyRateArgs>();
  auto* cmd = app.add_subcommand(
      "copy-rate", "How fast gemm()'s operand copies run over the whole GPU and confined to P SMs (odd K)");
  cmd->add_option("--shape", args->shapes, "MxNxK with K not a multiple of 8 (NT, lda = ldb = K; repeatable)");
  cmd->add_option("--ctas", args->ctas, "Blocks of the copy, one per SM (0: gemm()'s launch over the whole GPU)")
      ->delimiter(',');
  cmd->add_option("--iters", args->iters, "Timed launches per (shape, CTAs) (median)")->capture_default_str();
  cmd->add_flag("--json", args->json, "JSON output (schema tilegemm.copy-rate/1)");
  cmd->callback([args] { run_copy_rate(*args); });
}

}  // namespace tilegemm::cli
