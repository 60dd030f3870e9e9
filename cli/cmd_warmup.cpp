// `tilegemm warmup --suite FILE|NAME [--shape MxNxK]... [--layout L|all] [--device D] [--json]`:
// compiles (or loads from the JIT's disk cache) every kernel gemm() would run for the shapes, so
// the first real call does not pay NVRTC. With a Hopper GPU the kernels are also loaded and the
// planner uses the live device's profile, as gemm() does; without one the cubins are compiled for
// the --device profile (default h200) and stored in the disk cache.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "api/warmup.hpp"
#include "bench/device_info.hpp"
#include "bench/suite.hpp"
#include "commands.hpp"
#include "core/layout_names.hpp"
#include "plan/config_spec.hpp"
#include "plan/device_profile.hpp"

namespace tilegemm::cli {

namespace {

struct WarmupArgs {
  std::string suite;
  std::vector<std::string> shapes;
  std::string layout = "nt";
  std::string device;
  bool json = false;
};

[[noreturn]] void fail(const std::string& message) { usage_error("warmup", message); }

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

void run_warmup(const WarmupArgs& a) {
  // Usage errors first: they need no GPU.
  std::string error, suite_name;
  if (a.shapes.empty() && a.suite.empty()) {
    std::string names;
    for (const std::string& n : bench::builtin_suite_names()) names += (names.empty() ? "" : ", ") + n;
    fail("--suite FILE|NAME or --shape MxNxK is required (builtin suites: " + names + ")");
  }
  const auto resolved = bench::resolve_shapes(a.shapes, a.suite, "", &suite_name, &error);
  if (!resolved) fail(error);
  const std::vector<bench::Shape>& shapes = *resolved;
  std::vector<std::string> layouts;
  if (a.layout == "all") {
    layouts = {"nt", "nn", "tn", "tt"};
  } else {
    Major am, bm;
    if (!parse_layout(a.layout, &am, &bm)) fail("--layout \"" + a.layout + "\": must be nt, nn, tn, tt or all");
    layouts = {a.layout};
  }
  std::optional<plan::DeviceProfile> given;
  if (!a.device.empty()) {
    given = plan::find_builtin_profile(a.device);
    if (!given) fail("--device \"" + a.device + "\": must be one of " + plan::builtin_profile_names());
  }

  const bench::DeviceInfo dev = bench::probe_device();
  const bool gpu = dev.is_sm90();
  plan::DeviceProfile profile;
  std::string profile_note;
  if (given) {
    profile = *given;
    profile_note = "--device " + a.device;
  } else if (std::string why; gpu && plan::query_live_profile(0, &why)) {
    profile = *plan::query_live_profile(0, &why);
    profile_note = "live GPU 0";
  } else {
    profile = *plan::find_builtin_profile("h200");
    profile_note = "no Hopper GPU (" + (gpu ? why : dev.not_sm90_reason()) + "): built-in h200";
  }
  const bool load = gpu && !given;  // a profile of another device compiles only

  const bool progress = !a.json && isatty(fileno(stderr));
  nlohmann::json items = nlohmann::json::array();
  int compiled = 0, from_disk = 0, from_memory = 0, fallback = 0;
  std::vector<double> compile_seconds;
  const auto start = std::chrono::steady_clock::now();
  const size_t total = shapes.size() * layouts.size();
  size_t done = 0;
  for (const std::string& layout : layouts) {
    for (const bench::Shape& s : shapes) {
      plan::Problem p;
      p.m = s.m;
      p.n = s.n;
      p.k = s.k;
      parse_layout(layout, &p.a_major, &p.b_major);
      if (progress) {
        fmt::print(stderr, "\r[{}/{}] {} {}x{}x{} ...{:20}", done + 1, total, layout, s.m, s.n, s.k, "");
        std::fflush(stderr);
      }
      detail::WarmupResult r;
      if (Status st = detail::warmup_problem(p, profile, load, &r); !st.ok()) {
        if (progress) fmt::print(stderr, "\n");
        std::fprintf(stderr, "tilegemm warmup: %s %ldx%ldx%ld: %s\n", layout.c_str(), long(s.m), long(s.n),
                     long(s.k), st.message.c_str());
        throw CLI::RuntimeError(1);
      }
      ++done;
      nlohmann::json item = {{"m", s.m}, {"n", s.n}, {"k", s.k}, {"layout", layout}, {"path", r.path}};
      if (r.path != "sm90") {
        ++fallback;
        item["route_reason"] = r.route_reason;
        items.push_back(item);
        continue;
      }
      item["config"] = plan::describe(r.config);
      nlohmann::json kernels = nlohmann::json::array();
      for (const detail::WarmedKernel& k : r.kernels) {
        const char* origin = jit::to_string(k.cubin.origin);
        switch (k.cubin.origin) {
          case jit::CubinOrigin::compiled:
            ++compiled;
            compile_seconds.push_back(k.cubin.compile_seconds);
            break;
          case jit::CubinOrigin::disk: ++from_disk; break;
          case jit::CubinOrigin::memory: ++from_memory; break;
        }
        kernels.push_back({{"label", k.label}, {"origin", origin}, {"seconds", k.cubin.seconds},
                           {"compile_seconds", k.cubin.compile_seconds}, {"key", k.cubin.key},
                           {"cache_path", k.cubin.cache_path}});
        if (!a.json && !progress)
          fmt::print("{} {}x{}x{}: {} ({}, {:.3f} s)\n", layout, s.m, s.n, s.k, k.label, origin, k.cubin.seconds);
      }
      item["kernels"] = kernels;
      items.push_back(item);
    }
  }
  if (progress) fmt::print(stderr, "\r{:80}\r", "");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double cmin = compile_seconds.empty() ? 0 : *std::min_element(compile_seconds.begin(), compile_seconds.end());
  const double cmax = compile_seconds.empty() ? 0 : *std::max_element(compile_seconds.begin(), compile_seconds.end());
  const std::string cache = jit::runtime().cache_dir();
  if (a.json) {
    const nlohmann::json doc = {
        {"schema", "tilegemm.warmup/1"},
        {"suite", suite_name},
        {"device_profile", profile.name},
        {"profile_note", profile_note},
        {"loaded", load},
        {"cache_dir", cache.empty() ? nlohmann::json(nullptr) : nlohmann::json(cache)},
        {"items", items},
        {"summary",
         {{"problems", total}, {"fallback", fallback}, {"compiled", compiled}, {"from_disk", from_disk},
          {"from_memory", from_memory}, {"seconds", seconds},
          {"compile_seconds", {{"min", cmin}, {"median", median(compile_seconds)}, {"max", cmax}}}}}};
    fmt::print("{}\n", doc.dump(2));
    return;
  }
  fmt::print("tilegemm warmup: {} problem(s) of '{}' on the {} profile ({}){}\n", total, suite_name, profile.name,
             profile_note, load ? ", kernels loaded" : ", cubins only");
  fmt::print("  compiled {}, from the disk cache {}, already in memory {}, on the fallback {} ({:.2f} s)\n", compiled,
             from_disk, from_memory, fallback, seconds);
  if (!compile_seconds.empty())
    fmt::print("  compile seconds per kernel: min {:.3f}, median {:.3f}, max {:.3f}\n", cmin, median(compile_seconds),
               cmax);
  fmt::print("  disk cache: {}\n", cache.empty() ? "off (memory only)" : cache);
}

}  // namespace

void add_warmup_command(CLI::App& app) {
  auto args = std::make_shared<WarmupArgs>();
  auto* cmd = app.add_subcommand(
      "warmup", "Compile (or load from the disk cache) every kernel gemm() would run for a suite, ahead of time");
  cmd->add_option("--suite", args->suite, suite_option_help(""));
  cmd->add_option("--shape", args->shapes, "shape(s) MxNxK instead of a suite (repeatable)");
  cmd->add_option("--layout", args->layout, "nt | nn | tn | tt | all (DeepGEMM names)")->capture_default_str();
  cmd->add_option("--device", args->device,
                  "compile for this profile's picks: " + plan::builtin_profile_names() +
                      " (default: the live GPU, else h200; cubins only)");
  cmd->add_flag("--json", args->json, "print the result as JSON (schema tilegemm.warmup/1)");
  cmd->callback([args] { run_warmup(*args); });
}

}  // namespace tilegemm::cli
