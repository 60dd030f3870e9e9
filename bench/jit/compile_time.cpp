// NVRTC compile times for docs/JIT.md: the probe kernels with the production options, option
// variants (C++ standard, -minimal, -lineinfo, ptxas level, fast-compile, split compile), NVRTC's
// precompiled headers, and, with --toolkit-kernel, today's production kernel (gemm_kernel.cuh,
// which still needs the CUDA toolkit's headers) as a stand-in for a real GEMM's cost. Each
// compile adds "-time=-" so NVRTC reports its phases (frontend / NVVM optimizer / PTX -> SASS).
//
//   tilegemm_jit_compile_time [--repeats N] [--toolkit-kernel]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "jit/jit.hpp"
#include "jit/nvrtc_compile.hpp"
#include "jit/probe.hpp"

using namespace tilegemm;
using namespace tilegemm::jit;

namespace {

struct Sample {
  double seconds = 0;
  std::map<std::string, double> phase_ms;  // from -time=-
};

// "<file>, <phase name>, <ms>, ms" rows after NVRTC's CSV heading.
std::map<std::string, double> parse_phases(const std::string& log) {
  std::map<std::string, double> phases;
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream row(line);
    std::string cell;
    while (std::getline(row, cell, ',')) cells.push_back(cell.substr(cell.find_first_not_of(' ')));
    if (cells.size() == 4 && cells[3] == "ms") phases[cells[1]] += std::atof(cells[2].c_str());
  }
  return phases;
}

bool compile(const KernelSource& src, const HeaderSet& headers, std::vector<std::string> options, Sample* out,
             std::string* log = nullptr) {
  options.push_back("-time=-");
  CompileOutput o;
  const Status s = compile_to_cubin(src.code, src.kernel_name + ".cu", src.label, headers, options, &o);
  if (log) *log = o.log;
  if (!s.ok()) {
    std::fprintf(stderr, "compile failed: %s\n", s.message.c_str());
    return false;
  }
  out->seconds = o.seconds;
  out->phase_ms = parse_phases(o.log);
  return true;
}

void report(const char* what, std::vector<Sample> samples) {
  if (samples.empty()) return;
  std::sort(samples.begin(), samples.end(), [](const Sample& a, const Sample& b) { return a.seconds < b.seconds; });
  std::map<std::string, double> phase_sum;
  double total = 0;
  for (const Sample& s : samples) {
    total += s.seconds;
    for (const auto& [k, v] : s.phase_ms) phase_sum[k] += v;
  }
  std::printf("| %-44s | %3zu | %6.3f | %6.3f | %6.3f |", what, samples.size(), samples.front().seconds,
              samples[samples.size() / 2].seconds, samples.back().seconds);
  for (const auto& [k, v] : phase_sum)
    std::printf(" %s %.0f%%;", k.c_str(), 100.0 * v / 1000.0 / total);
  std::printf("\n");
}

std::vector<std::string> replace_option(std::vector<std::string> opts, const std::string& prefix,
                                        const std::string& replacement) {
  std::vector<std::string> out;
  for (const std::string& o : opts)
    if (o.rfind(prefix, 0) != 0) out.push_back(o);
  if (!replacement.empty()) out.push_back(replacement);
  return out;
}

// Today's production kernel needs <cstdint> and cuda.h (which includes stdlib.h and stdint.h);
// these stand-ins give NVRTC libcu++'s integer types instead of the C library's.
const char kIntShim[] =
    "#pragma once\n#include <cuda/std/cstdint>\n"
    "using cuda::std::int8_t; using cuda::std::uint8_t; using cuda::std::int16_t; using cuda::std::uint16_t;\n"
    "using cuda::std::int32_t; using cuda::std::uint32_t; using cuda::std::int64_t; using cuda::std::uint64_t;\n"
    "using cuda::std::uintptr_t;\n";
const EmbeddedHeader kToolkitShims[] = {{"cstdint", kIntShim}, {"stdint.h", kIntShim}, {"stdlib.h", "#pragma once\n"}};

KernelSource toolkit_kernel(const std::string& params) {
  KernelSource s;
  s.kernel_name = "gemm_toolkit";
  s.label = "gemm_kernel.cuh<" + params + ">";
  s.code = "#include \"kernels/sm90/gemm_kernel.cuh\"\n"
           "template __global__ void tilegemm::sm90::gemm_bf16_nt_kernel<" + params + ">(\n"
           "  const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap,\n"
           "  const __grid_constant__ CUtensorMap, int, int, int, float, tilegemm::sched::Mapping,\n"
           "  __nv_bfloat16*, int64_t, tilegemm::sm90::SplitKArgs);\n";
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 3;
  bool toolkit = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--repeats") && i + 1 < argc) repeats = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--toolkit-kernel")) toolkit = true;
    else {
      std::fprintf(stderr, "usage: %s [--repeats N] [--toolkit-kernel]\n", argv[0]);
      return 2;
    }
  }
  const HeaderSet headers = embedded_header_set();
  const std::vector<std::string> base = compile_options();
  std::printf("NVRTC %s; production options:", nvrtc_version().c_str());
  for (const std::string& o : base) std::printf(" %s", o.c_str());
  std::printf("\n\n| case | n | min s | median s | max s | phases (share of wall time) |\n|---|---|---|---|---|---|\n");

  auto probes = [&](const std::vector<std::string>& opts) {
    std::vector<Sample> samples;
    for (int r = 0; r < repeats; ++r)
      for (int k = 1; k <= 8; ++k) {
        Sample s;
        if (compile(probe_source(k), headers, opts, &s)) samples.push_back(s);
      }
    return samples;
  };
  report("probe k=1..8, production options", probes(base));
  report("probe, -std=c++20", probes(replace_option(base, "-std=", "-std=c++20")));
  report("probe, without -minimal", probes(replace_option(base, "-minimal", "")));
  report("probe, without -lineinfo", probes(replace_option(base, "-lineinfo", "")));
  std::vector<std::string> dopt = base;
  dopt.push_back("-dopt=on");
  report("probe, -dopt=on (implicit without -G)", probes(dopt));
  std::vector<std::string> o1 = base;
  o1.push_back("-Xptxas=-O1");
  report("probe, -Xptxas=-O1", probes(o1));
  std::vector<std::string> ofc = base;
  ofc.push_back("-Ofc=max");
  report("probe, -Ofc=max (fast-compile, slower code)", probes(ofc));

  // Automatic PCH: the first compile may create it, the later ones may use it.
  const std::string pch_dir = std::filesystem::temp_directory_path() / "tilegemm_jit_pch_probe";
  std::filesystem::remove_all(pch_dir);
  std::filesystem::create_directories(pch_dir);
  std::vector<std::string> pch = base;
  pch.push_back("-pch");
  pch.push_back("-pch-dir=" + pch_dir);
  std::string log;
  Sample first;
  compile(probe_source(1), headers, pch, &first, &log);
  report("probe, -pch: first compile", {first});
  std::printf("  (NVRTC log of the first -pch compile: %s)\n", log.substr(0, log.find("File name")).c_str());
  report("probe, -pch: later compiles", probes(pch));

  // Warming several kernels: one thread after another vs two threads (the runtime compiles
  // different kernels concurrently).
  for (int threads : {1, 2}) {
    RuntimeConfig config;  // memory only
    config.warn = [](const std::string&) {};
    Runtime rt(std::move(config));
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        for (int k = 1 + t; k <= 16; k += threads) {
          CubinInfo info;
          if (!rt.get_cubin(probe_source(k), &info).ok()) std::fprintf(stderr, "probe %d failed\n", k);
        }
      });
    for (auto& th : pool) th.join();
    std::printf("  16 probe kernels on %d thread(s): %.3f s wall\n", threads,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }

  {  // the cost of asking again: key (SHA-256 of the source) + map lookup, per call
    RuntimeConfig config;
    Runtime rt(std::move(config));
    const KernelSource src = probe_source(1);
    CubinInfo info;
    rt.get_cubin(src, &info);
    constexpr int kCalls = 100000;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kCalls; ++i) rt.get_cubin(src, &info);
    std::printf("  get_cubin memory hit (%zu-byte source): %.2f us per call\n", src.code.size(),
                1e6 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / kCalls);
  }

  if (toolkit) {
    const std::string src = std::string(TILEGEMM_SOURCE_DIR) + "/src";
    std::vector<std::string> tk = replace_option(base, "-minimal", "");  // cuda_bf16.h needs the full set
    tk.push_back("-I" + src);
    tk.push_back("-I/usr/local/cuda/include");
    tk.push_back("-I/usr/local/cuda/include/cccl");
    const HeaderSet shims{kToolkitShims, "shims"};
    for (const char* p : {"128, 256, 4, 2, 128, false", "128, 128, 6, 1, 128, false", "64, 128, 8, 1, 128, true"}) {
      std::vector<Sample> s17, s20;
      for (int r = 0; r < repeats; ++r) {
        Sample a, b;
        if (compile(toolkit_kernel(p), shims, tk, &a)) s17.push_back(a);
        if (compile(toolkit_kernel(p), shims, replace_option(tk, "-std=", "-std=c++20"), &b)) s20.push_back(b);
      }
      report(("toolkit " + std::string(p) + " c++17").c_str(), s17);
      report(("toolkit " + std::string(p) + " c++20").c_str(), s20);
    }
    const std::string tk_pch_dir = std::filesystem::temp_directory_path() / "tilegemm_jit_pch_toolkit";
    std::filesystem::remove_all(tk_pch_dir);
    std::filesystem::create_directories(tk_pch_dir);
    std::vector<std::string> tkp = tk;
    tkp.push_back("-pch");
    tkp.push_back("-pch-dir=" + tk_pch_dir);
    Sample create;
    compile(toolkit_kernel("128, 256, 4, 2, 128, false"), shims, tkp, &create, &log);
    report("toolkit 128x256, -pch: first compile", {create});
    std::printf("  (NVRTC log: %s)\n", log.substr(0, log.find("File name")).c_str());
    for (const char* p : {"128, 256, 4, 2, 128, false", "128, 128, 6, 1, 128, false"}) {
      std::vector<Sample> used;
      for (int r = 0; r < repeats; ++r) {
        Sample s;
        if (compile(toolkit_kernel(p), shims, tkp, &s, &log)) used.push_back(s);
      }
      report(("toolkit " + std::string(p) + ", -pch: later").c_str(), used);
    }
    std::printf("  (NVRTC log of the last: %s)\n", log.substr(0, log.find("File name")).c_str());
  }
  return 0;
}
