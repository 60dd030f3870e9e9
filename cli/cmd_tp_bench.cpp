// `tilegemm tp-bench`: tensor-parallel GEMM with the collective overlapped (include/tilegemm/tp.hpp)
// against the same collective and GEMM one after the other, one host thread per rank.
//
//   --op ag   column-parallel: D [M, N] = all_gather(A [M, K]) · B [N, K]ᵀ per rank
//   --op rs   row-parallel:    D [M/W, N] = reduce_scatter(A [M, K] · B [N, K]ᵀ), K per rank = K
//   --shape   MxNxK: the per-rank problem (M = all tokens, N = this rank's output columns for ag,
//             K = this rank's slice of K for rs)
//   --world   ranks: one per GPU over NCCL (default: every GPU); with --loopback, W virtual ranks on
//             GPU 0 (the chunk protocol on one GPU: its times say nothing about overlap)
//
// Per iteration every rank records events around its call on its own stream after a host barrier
// (the host time until the call returns is shown beside: enqueuing is on the stream's clock too);
// an iteration's time is the slowest rank's; the table shows the median over --iters. Four runs:
// overlapped, sequential (the collective, then one GEMM: Overlap::enabled = false), GEMM alone
// (gemm() of the rank's whole local problem) and the collective alone; overlap efficiency =
// max(t_gemm, t_comm) / t_overlapped, speedup = t_sequential / t_overlapped.
#include <algorithm>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "bench/device_info.hpp"
#include "bench/suite.hpp"
#include "commands.hpp"
#include "reference/device_fill.hpp"
#include "tilegemm/tp.hpp"
#include "tp/tp_gemm.hpp"
#include "tp/transport.hpp"

namespace tilegemm::cli {
namespace {

struct TpBenchArgs {
  std::string op = "ag";
  std::string shape = "8192x3584x8192";
  int world = 0;
  bool loopback = false;
  int iters = 20;
  int reserved_sms = 0;
  std::string partial = "bf16";
  bool json = false;
};

enum class Mode { overlapped, sequential, gemm_only, comm_only };
constexpr Mode kModes[] = {Mode::overlapped, Mode::sequential, Mode::gemm_only, Mode::comm_only};
const char* mode_name(Mode m) {
  switch (m) {
    case Mode::overlapped: return "overlapped";
    case Mode::sequential: return "sequential";
    case Mode::gemm_only: return "gemm only";
    case Mode::comm_only: return "collective only";
  }
  return "?";
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// One rank's buffers and calls.
struct Rank {
  int device = 0;
  cudaStream_t stream = nullptr;
  void *a = nullptr, *b = nullptr, *d = nullptr, *gathered = nullptr;
  std::unique_ptr<tp::detail::Transport> transport;
  tp::AllGatherGemmArgs ag;
  tp::GemmReduceScatterArgs rs;
  GemmArgs local;  // the GEMM-only run: the rank's whole local problem
};

Status run_mode(Rank& r, bool ag, Mode mode) {
  switch (mode) {
    case Mode::gemm_only: return gemm(r.local);
    case Mode::overlapped:
    case Mode::sequential:
    case Mode::comm_only: {
      const bool overlap = mode == Mode::overlapped, comm = mode == Mode::comm_only;
      if (ag) {
        tp::AllGatherGemmArgs a = r.ag;
        a.overlap.enabled = overlap;
        return tp::detail::run_all_gather_gemm(*r.transport, a, comm);
      }
      tp::GemmReduceScatterArgs a = r.rs;
      a.overlap.enabled = overlap;
      return tp::detail::run_gemm_reduce_scatter(*r.transport, a, comm);
    }
  }
  return Status::success();
}

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "tilegemm tp-bench: %s\n", message.c_str());
  throw CLI::RuntimeError(1);
}

void run_tp_bench(const TpBenchArgs& o) {
  std::string error;
  const auto shape = bench::parse_shape(o.shape, &error);
  if (!shape) usage_error("tp-bench", error);
  const bool ag = o.op == "ag";
  const DType partial = o.partial == "fp32" ? DType::fp32 : DType::bf16;
  const bench::DeviceInfo dev = bench::probe_device();
  if (!dev.is_sm90()) {
    std::fprintf(stderr, "tilegemm tp-bench: no Hopper (sm_90) GPU found: %s\n", dev.not_sm90_reason().c_str());
    throw CLI::RuntimeError(3);
  }
  int gpus = 0;
  cudaGetDeviceCount(&gpus);
  const int world = o.world > 0 ? o.world : (o.loopback ? 2 : gpus);
  if (!o.loopback && world > gpus)
    usage_error("tp-bench", "--world " + std::to_string(world) + ": this machine has " + std::to_string(gpus) +
                                " GPUs (one rank per GPU; --loopback runs virtual ranks on one)");
  const int64_t m = shape->m, n = shape->n, k = shape->k;

  std::vector<ncclComm*> comms;
  std::unique_ptr<tp::detail::LoopbackHub> hub;
  if (o.loopback) {
    hub = std::make_unique<tp::detail::LoopbackHub>(world);
  } else {
    std::vector<int> devices(static_cast<size_t>(world));
    for (int i = 0; i < world; ++i) devices[size_t(i)] = i;
    if (Status s = tp::init_local_comms(devices, &comms); !s.ok()) fail(s.message);
  }
  int nccl = 0;
  std::string nccl_path;
  if (!o.loopback) (void)tp::nccl_version(&nccl, &nccl_path);

  std::vector<Rank> ranks(static_cast<size_t>(world));
  for (int r = 0; r < world; ++r) {
    Rank& x = ranks[size_t(r)];
    x.device = o.loopback ? 0 : r;
    cudaSetDevice(x.device);
    cudaStreamCreateWithFlags(&x.stream, cudaStreamNonBlocking);
    const tp::RowRange own = tp::chunk_rows(m, world, r);
    const size_t a_rows = size_t(ag ? own.size() : m);
    const size_t d_bytes = ag ? size_t(m * n) * 2 : size_t(own.size() * n) * 2;
    if (cudaMalloc(&x.a, std::max<size_t>(a_rows * size_t(k) * 2, 16)) != cudaSuccess ||
        cudaMalloc(&x.b, size_t(n * k) * 2) != cudaSuccess || cudaMalloc(&x.d, std::max<size_t>(d_bytes, 16)) != cudaSuccess ||
        cudaMalloc(&x.gathered, ag ? size_t(m * k) * 2 : size_t(m * n) * dtype_bytes(partial)) != cudaSuccess)
      fail("out of device memory on device " + std::to_string(x.device));
    ref::fill_normal_bf16(static_cast<__nv_bfloat16*>(x.a), a_rows * size_t(k), 1 + uint64_t(r), 1.0f, nullptr);
    ref::fill_normal_bf16(static_cast<__nv_bfloat16*>(x.b), size_t(n * k), 100 + uint64_t(r), 1.0f, nullptr);
    if (o.loopback) {
      x.transport = std::make_unique<tp::detail::LoopbackTransport>(*hub, r);
    } else {
      auto t = std::make_unique<tp::detail::NcclTransport>();
      if (Status s = tp::detail::NcclTransport::make(comms[size_t(r)], t.get()); !s.ok()) fail(s.message);
      x.transport = std::move(t);
    }
    if (ag) {
      x.ag.m = m;
      x.ag.a_shard = MatrixRef{x.a, own.size(), k, k, DType::bf16, Major::k_major};
      x.ag.a_gathered = MutMatrixRef{x.gathered, m, k, k, DType::bf16, Major::k_major};
      x.ag.b = MatrixRef{x.b, n, k, k, DType::bf16, Major::k_major};
      x.ag.d = MutMatrixRef{x.d, m, n, n, DType::bf16, Major::k_major};
      x.ag.stream = x.stream;
      x.ag.overlap.reserved_sms = o.reserved_sms;
      x.local = GemmArgs{MatrixRef{x.gathered, m, k, k, DType::bf16, Major::k_major}, x.ag.b, nullptr, x.ag.d};
    } else {
      x.rs.a = MatrixRef{x.a, m, k, k, DType::bf16, Major::k_major};
      x.rs.b = MatrixRef{x.b, n, k, k, DType::bf16, Major::k_major};
      x.rs.d = MutMatrixRef{x.d, own.size(), n, n, DType::bf16, Major::k_major};
      x.rs.partial_dtype = partial;
      x.rs.stream = x.stream;
      x.rs.overlap.reserved_sms = o.reserved_sms;
      x.local = GemmArgs{x.rs.a, x.rs.b, nullptr, MutMatrixRef{x.gathered, m, n, n, partial, Major::k_major}};
    }
    x.local.stream = x.stream;
  }

  // times[mode][iteration][rank] in ms: on the stream (events), and on the host (the call's return)
  std::vector<std::vector<std::vector<double>>> times(4, std::vector<std::vector<double>>(size_t(o.iters), std::vector<double>(size_t(world))));
  auto host_times = times;
  std::vector<std::string> errors(static_cast<size_t>(world));
  std::barrier sync(world);
  std::vector<std::thread> threads;
  for (int r = 0; r < world; ++r)
    threads.emplace_back([&, r] {
      Rank& x = ranks[size_t(r)];
      cudaSetDevice(x.device);
      cudaEvent_t start, stop;
      cudaEventCreate(&start);
      cudaEventCreate(&stop);
      for (int mi = 0; mi < 4; ++mi)
        for (int it = -2; it < o.iters; ++it) {  // two warm-up iterations (JIT, connections)
          sync.arrive_and_wait();
          cudaEventRecord(start, x.stream);
          const auto h0 = std::chrono::steady_clock::now();
          const Status s = errors[size_t(r)].empty() ? run_mode(x, ag, kModes[mi]) : Status::success();
          const double host_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - h0).count();
          cudaEventRecord(stop, x.stream);
          const cudaError_t e = cudaEventSynchronize(stop);
          if (!s.ok() && errors[size_t(r)].empty()) errors[size_t(r)] = std::string(mode_name(kModes[mi])) + ": " + s.message;
          if (e != cudaSuccess && errors[size_t(r)].empty()) errors[size_t(r)] = cudaGetErrorString(e);
          float ms = 0;
          cudaEventElapsedTime(&ms, start, stop);
          if (it >= 0) {
            times[size_t(mi)][size_t(it)][size_t(r)] = ms;
            host_times[size_t(mi)][size_t(it)][size_t(r)] = host_ms;
          }
        }
      cudaEventDestroy(start);
      cudaEventDestroy(stop);
    });
  for (auto& t : threads) t.join();
  for (int r = 0; r < world; ++r)
    if (!errors[size_t(r)].empty()) fail("rank " + std::to_string(r) + ": " + errors[size_t(r)]);

  double ms[4], host_ms[4];
  for (int mi = 0; mi < 4; ++mi) {
    std::vector<double> slowest, slowest_host;
    for (const auto& per_rank : times[size_t(mi)]) slowest.push_back(*std::max_element(per_rank.begin(), per_rank.end()));
    for (const auto& per_rank : host_times[size_t(mi)])
      slowest_host.push_back(*std::max_element(per_rank.begin(), per_rank.end()));
    ms[mi] = median(slowest);
    host_ms[mi] = median(slowest_host);
  }
  const double flops = 2.0 * double(m) * double(n) * double(k);  // per rank
  const double efficiency = std::max(ms[2], ms[3]) / ms[0];
  const double speedup = ms[1] / ms[0];
  const double comm_share = ms[3] / (ms[2] + ms[3]);
  for (Rank& x : ranks) {
    cudaSetDevice(x.device);
    cudaFree(x.a);
    cudaFree(x.b);
    cudaFree(x.d);
    cudaFree(x.gathered);
    cudaStreamDestroy(x.stream);
  }
  for (ncclComm* c : comms) (void)tp::destroy_comm(c);
  cudaSetDevice(0);

  const std::string transport = o.loopback ? "loopback (virtual ranks on GPU 0)" : fmt::format("NCCL {} ({})", nccl, nccl_path);
  if (o.json) {
    nlohmann::json j{{"schema", "tilegemm.tp_bench/1"}, {"op", o.op}, {"shape", o.shape}, {"world", world},
                     {"transport", transport}, {"gpu", dev.name}, {"iters", o.iters},
                     {"reserved_sms", o.reserved_sms}, {"partial_dtype", o.partial}};
    for (int mi = 0; mi < 4; ++mi) {
      j["ms"][mode_name(kModes[mi])] = ms[mi];
      j["host_ms"][mode_name(kModes[mi])] = host_ms[mi];
    }
    j["overlap_efficiency"] = efficiency;
    j["speedup_vs_sequential"] = speedup;
    j["comm_share_of_sequential"] = comm_share;
    fmt::print("{}\n", j.dump(2));
    return;
  }
  fmt::print("tilegemm tp-bench: {} {} per rank, world {}, {}; {} on each rank; median of {} (slowest rank per "
             "iteration)\n",
             ag ? "all-gather + GEMM" : "GEMM + reduce-scatter", o.shape, world, transport, dev.name, o.iters);
  for (int mi = 0; mi < 4; ++mi)
    fmt::print("  {:<16} {:9.3f} ms   host {:7.3f} ms{}\n", mode_name(kModes[mi]), ms[mi], host_ms[mi],
               kModes[mi] == Mode::gemm_only ? fmt::format("  ({:.0f} TFLOPS)", flops / (ms[mi] * 1e9)) : "");
  fmt::print("  collective share of (gemm + collective): {:.0f}%\n", 100 * comm_share);
  fmt::print("  overlap efficiency max(gemm, collective) / overlapped: {:.2f}; speedup over sequential: {:.2f}x\n",
             efficiency, speedup);
  if (o.loopback) fmt::print("  (loopback: every rank shares one GPU; these times do not measure overlap)\n");
}

}  // namespace

void add_tp_bench_command(CLI::App& app) {
  auto args = std::make_shared<TpBenchArgs>();
  auto* cmd = app.add_subcommand("tp-bench", "Tensor-parallel GEMM (NCCL) overlapped vs sequential, one thread per GPU");
  cmd->add_option("--op", args->op, "ag (all-gather + GEMM) or rs (GEMM + reduce-scatter)")
      ->capture_default_str()
      ->check(CLI::IsMember({"ag", "rs"}));
  cmd->add_option("--shape", args->shape, "MxNxK per rank (M: all tokens)")->capture_default_str();
  cmd->add_option("--world", args->world, "ranks (default: every GPU; 2 with --loopback)")->check(CLI::Range(1, 64));
  cmd->add_flag("--loopback", args->loopback, "virtual ranks on GPU 0 (protocol check, no overlap measured)");
  cmd->add_option("--iters", args->iters, "timed iterations (median)")->capture_default_str()->check(CLI::Range(1, 1000));
  cmd->add_option("--reserve-sms", args->reserved_sms, "SMs the GEMM leaves to the collective")
      ->capture_default_str()
      ->check(CLI::Range(0, 128));
  cmd->add_option("--partial", args->partial, "rs: partials on the wire, bf16 or fp32")
      ->capture_default_str()
      ->check(CLI::IsMember({"bf16", "fp32"}));
  cmd->add_flag("--json", args->json, "JSON output");
  cmd->callback([args] { run_tp_bench(*args); });
}

}  // namespace tilegemm::cli
