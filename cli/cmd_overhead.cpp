// `tilegemm overhead [--shape MxNxK] [--calls N] [--no-pdl]`: the host cost of one gemm() call on a
// warm cache, beside cuBLASLt's for the same problem (both validate their arguments the same way).
//   host:   N calls issued back to back, timed on the host clock around the issuing loop
//           (N small enough that the launch queue never fills and blocks the host);
//   stream: 10 x N calls between two CUDA events (the GPU's view: launch gaps + kernel time;
//           tilegemm's calls use programmatic dependent launch, GemmOptions::pdl, unless --no-pdl,
//           so each kernel's prologue may overlap the end of the one before).
// No L2 flush, no check: the kernels are the ones `tilegemm bench` checks.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "api/route.hpp"
#include "bench/device_info.hpp"
#include "bench/suite.hpp"
#include "commands.hpp"
#include "cuda_holders.hpp"
#include "reference/cublaslt.hpp"
#include "reference/device_fill.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm::cli {

namespace {

struct OverheadArgs {
  std::string shape = "1x576x7168";
  int calls = 500;
  int repeats = 7;
  bool json = false;
  bool no_pdl = false;
  bool own_stream = false;
};

struct Side {
  double host_us = 0;    // median over repeats of (host time of the loop) / calls
  double stream_us = 0;  // median over repeats of (event time of 10 x calls) / (10 x calls)
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

bool measure(const std::function<Status()>& call, int calls, int repeats, cudaStream_t on, Side* out,
             std::string* error) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<double> host, stream;
  for (int r = 0; r < repeats; ++r) {
    cudaDeviceSynchronize();
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i)
      if (Status s = call(); !s.ok()) {
        *error = s.message;
        return false;
      }
    const auto t1 = std::chrono::steady_clock::now();
    cudaDeviceSynchronize();
    host.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / calls);
    cudaEventRecord(start, on);
    for (int i = 0; i < 10 * calls; ++i) (void)call();
    cudaEventRecord(stop, on);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    stream.push_back(1000.0 * ms / (10.0 * calls));
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  out->host_us = median(host);
  out->stream_us = median(stream);
  return true;
}

void run_overhead(const OverheadArgs& a) {
  std::string error;
  const auto shape = bench::parse_shape(a.shape, &error);
  if (!shape) usage_error("overhead", error);
  if (a.calls < 1 || a.calls > 1000) usage_error("overhead", "--calls " + std::to_string(a.calls) + ": must be in [1, 1000] (the launch queue must not fill)");
  const bench::DeviceInfo dev = bench::probe_device();
  if (!dev.is_sm90()) {
    std::fprintf(stderr, "tilegemm overhead: no Hopper (sm_90) GPU found: %s\n", dev.not_sm90_reason().c_str());
    throw CLI::RuntimeError(3);
  }
  const int64_t m = shape->m, n = shape->n, k = shape->k;
  DeviceBuffers buffers;
  void* const a_ptr = buffers.get(size_t(m * k) * 2);
  void* const b_ptr = buffers.get(size_t(n * k) * 2);
  void* const d_ptr = buffers.get(size_t(m * n) * 2);
  if (a_ptr == nullptr || b_ptr == nullptr || d_ptr == nullptr) {
    std::fprintf(stderr, "tilegemm overhead: out of device memory\n");
    throw CLI::RuntimeError(1);
  }
  ref::fill_normal_bf16(static_cast<__nv_bfloat16*>(a_ptr), size_t(m * k), 1, 1.0f, nullptr);
  ref::fill_normal_bf16(static_cast<__nv_bfloat16*>(b_ptr), size_t(n * k), 2, 1.0f, nullptr);
  // With --own-stream both sides run on a non-blocking stream of their own (cuda_holders.hpp).
  OwnedStream own;
  if (a.own_stream && own.create() != cudaSuccess) {
    std::fprintf(stderr, "tilegemm overhead: cudaStreamCreateWithFlags failed\n");
    throw CLI::RuntimeError(1);
  }
  const cudaStream_t stream = own.get();
  GemmArgs args;
  args.stream = stream;
  args.a = MatrixRef{a_ptr, m, k, k, DType::bf16, Major::k_major};
  args.b = MatrixRef{b_ptr, n, k, k, DType::bf16, Major::k_major};
  args.d = MutMatrixRef{d_ptr, m, n, n, DType::bf16, row_major};
  ref::CublasLt lt;
  detail::GemmOptions options;
  if (a.no_pdl) options.pdl = false;  // (else the default: on unless TILEGEMM_PDL=off)
  const std::function<Status()> ours = [&] { return detail::gemm_with_options(args, options); };
  const std::function<Status()> theirs = [&] { return ref::cublaslt_gemm(lt, args); };
  // Warm: compile/load our kernel, make cuBLASLt's plan.
  for (const auto* f : {&ours, &theirs})
    if (Status s = (*f)(); !s.ok()) {
      std::fprintf(stderr, "tilegemm overhead: %s\n", s.message.c_str());
      throw CLI::RuntimeError(1);
    }
  Side t, c;
  if (!measure(ours, a.calls, a.repeats, stream, &t, &error) || !measure(theirs, a.calls, a.repeats, stream, &c, &error)) {
    std::fprintf(stderr, "tilegemm overhead: %s\n", error.c_str());
    throw CLI::RuntimeError(1);
  }
  if (a.json) {
    fmt::print("{}\n", nlohmann::json{{"schema", "tilegemm.overhead/1"}, {"shape", a.shape}, {"calls", a.calls},
                                      {"repeats", a.repeats}, {"pdl", options.pdl}, {"own_stream", a.own_stream},
                                      {"tilegemm", {{"host_us", t.host_us}, {"stream_us", t.stream_us}}},
                                      {"cublaslt", {{"host_us", c.host_us}, {"stream_us", c.stream_us}}},
                                      {"host_diff_us", t.host_us - c.host_us}}
                           .dump(2));
    return;
  }
  fmt::print("tilegemm overhead: {} on {}, warm caches, median of {} repeats{}\n", a.shape, dev.name, a.repeats,
             options.pdl ? "" : ", tilegemm without programmatic dependent launch");
  fmt::print("  host time per call ({} calls issued back to back): tilegemm {:.2f} us, cuBLASLt {:.2f} us, "
             "difference {:+.2f} us\n",
             a.calls, t.host_us, c.host_us, t.host_us - c.host_us);
  fmt::print("  stream time per call ({} calls between two events): tilegemm {:.2f} us, cuBLASLt {:.2f} us\n",
             10 * a.calls, t.stream_us, c.stream_us);
}

}  // namespace

void add_overhead_command(CLI::App& app) {
  auto args = std::make_shared<OverheadArgs>();
  auto* cmd = app.add_subcommand("overhead", "Host cost of one gemm() call on a warm cache, beside cuBLASLt's");
  cmd->add_option("--shape", args->shape, "MxNxK (NT, bf16)")->capture_default_str();
  cmd->add_option("--calls", args->calls, "calls per timed loop (<= 1000)")->capture_default_str();
  cmd->add_option("--repeats", args->repeats, "timed loops (median)")->capture_default_str()->check(CLI::Range(1, 100));
  cmd->add_flag("--json", args->json, "JSON output");
  cmd->add_flag("--no-pdl", args->no_pdl,
                "tilegemm's calls in plain stream order (GemmOptions::pdl off; default: programmatic dependent "
                "launch)");
  cmd->add_flag("--own-stream", args->own_stream,
                "Both sides on a non-blocking stream of their own instead of the default stream");
  cmd->callback([args] { run_overhead(*args); });
}

}  // namespace tilegemm::cli
