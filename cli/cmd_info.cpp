// `tilegemm info [--json]`: the device facts the kernels and the planner depend on. On a machine
// without a Hopper GPU it still prints what it knows (versions) and exits with code 3.
#include <cstdio>
#include <string>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "bench/device_info.hpp"
#include "bench/timer.hpp"
#include "commands.hpp"

namespace tilegemm::cli {
namespace {

constexpr int kExitNoHopper = 3;

std::string cuda_version(int v) {  // 13000 -> "13.0"; 0 -> "none"
  if (v <= 0) return "none";
  return fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
}

nlohmann::json info_json(const bench::DeviceInfo& d, size_t flush_bytes) {
  nlohmann::json j = {{"runtime_version", cuda_version(d.runtime_version)},
                      {"driver_version", cuda_version(d.driver_version)},
                      {"cublaslt_version", d.cublaslt_version},
                      {"device_count", d.device_count},
                      {"present", d.present},
                      {"sm90", d.is_sm90()}};
  if (!d.is_sm90()) j["reason"] = d.not_sm90_reason();
  if (d.present)
    j["device"] = {{"index", d.index},
                   {"name", d.name},
                   {"compute_capability", fmt::format("{}.{}", d.cc_major, d.cc_minor)},
                   {"sms", d.sm_count},
                   {"global_mem_bytes", d.global_mem_bytes},
                   {"l2_bytes", d.l2_bytes},
                   {"smem_optin_per_block_bytes", d.smem_optin_per_block},
                   {"smem_per_sm_bytes", d.smem_per_sm},
                   {"sm_clock_mhz", d.sm_clock_khz / 1000.0},
                   {"mem_clock_mhz", d.mem_clock_khz / 1000.0},
                   {"mem_bus_bits", d.mem_bus_bits},
                   {"peak_dram_gbps", d.peak_dram_gbps()},
                   {"l2_flush_bytes", flush_bytes}};
  return j;
}

void print_text(const bench::DeviceInfo& d, size_t flush_bytes) {
  if (d.present) {
    fmt::print("device {}: {} (compute capability {}.{})\n", d.index, d.name, d.cc_major, d.cc_minor);
    fmt::print("  SMs                     {}\n", d.sm_count);
    fmt::print("  global memory           {:.1f} GiB\n", d.global_mem_bytes / double(1 << 30));
    fmt::print("  L2 cache                {:.1f} MiB\n", d.l2_bytes / double(1 << 20));
    fmt::print("  smem per block (opt-in) {} KiB\n", d.smem_optin_per_block / 1024);
    fmt::print("  smem per SM             {} KiB\n", d.smem_per_sm / 1024);
    fmt::print("  SM clock (peak)         {} MHz\n", d.sm_clock_khz / 1000);
    fmt::print("  memory clock (peak)     {} MHz, {}-bit bus ({:.0f} GB/s from clock x bus)\n", d.mem_clock_khz / 1000,
               d.mem_bus_bits, d.peak_dram_gbps());
    if (flush_bytes) fmt::print("  bench L2 flush          {} MiB memset before every timed call\n", flush_bytes >> 20);
  }
  fmt::print("  CUDA driver / runtime   {} / {}\n", cuda_version(d.driver_version), cuda_version(d.runtime_version));
  fmt::print("  cuBLASLt                {}\n", d.cublaslt_version);
  if (d.present) fmt::print("  sm_90a kernels          {}\n", d.is_sm90() ? "yes" : "no");
}

int run_info(bool json) {
  const bench::DeviceInfo d = bench::probe_device();
  size_t flush_bytes = 0;
  if (d.present && cudaSetDevice(d.index) == cudaSuccess) flush_bytes = bench::l2_flush_bytes();
  if (json)
    fmt::print("{}\n", info_json(d, flush_bytes).dump(2));
  else
    print_text(d, flush_bytes);
  if (!d.is_sm90()) {
    std::fprintf(stderr, "tilegemm info: no Hopper (sm_90) GPU found: %s\n", d.not_sm90_reason().c_str());
    return kExitNoHopper;
  }
  return 0;
}

}  // namespace

void add_info_command(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("info", "Show the GPU, its limits and the CUDA/cuBLASLt versions (exit 3 without a Hopper GPU)");
  cmd->add_flag("--json", *json, "JSON on stdout instead of text");
  cmd->callback([json] {
    if (const int rc = run_info(*json); rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace tilegemm::cli
