// Precompiling what gemm() will run (`tilegemm warmup`, the CI cubin audit): for a problem and a
// device profile, the route and the configuration, exactly as gemm() decides them (with `load`, on
// the current GPU: the tuning cache's entry when it has one, api/tuning.hpp; else the planner's
// choice), and its kernels fetched from the JIT cache or compiled (and, with a GPU, loaded).
#pragma once

#include <string>
#include <vector>

#include "jit/jit.hpp"
#include "plan/device_profile.hpp"
#include "plan/problem.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm::detail {

struct WarmedKernel {
  std::string label;      // the generated source's label
  jit::CubinInfo cubin;   // where it came from (memory, disk, compiled), seconds, key, bytes
};

struct WarmupResult {
  std::string path;          // "sm90" or "fallback"
  std::string route_reason;  // fallback: why
  plan::Config config;       // sm90: what gemm() runs (the tuned config or the planner's choice)
  std::vector<WarmedKernel> kernels;  // sm90: the GEMM kernel, and the split-K reduce when it splits
};

// `load`: also load the kernels into the driver (needs a GPU); otherwise only the cubins (no GPU).
Status warmup_problem(const plan::Problem& problem, const plan::DeviceProfile& profile, bool load, WarmupResult* out);

// The kernels an sm90 route runs with `config` (the GEMM kernel, the pack kernels of its repacked
// operands, the split-K reduce when it splits), fetched or compiled, and loaded when `load`. Safe to
// call from several threads at once (the JIT runtime compiles each key once); `tilegemm fuzz` warms
// its problems' kernels this way.
struct Route;
Status warmup_route(const Route& r, const plan::Config& config, bool load, std::vector<WarmedKernel>* out);

}  // namespace tilegemm::detail
