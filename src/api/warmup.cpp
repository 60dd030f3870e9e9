// warmup_problem (warmup.hpp).
#include "api/warmup.hpp"

#include "api/route.hpp"
#include "api/tuning.hpp"
#include "jit/codegen.hpp"
#include "plan/config_spec.hpp"
#include "plan/planner.hpp"

#include <cuda_runtime_api.h>

namespace tilegemm::detail {

namespace {

Status fetch(const jit::GeneratedSource& g, bool load, std::vector<WarmedKernel>* out) {
  const jit::KernelSource source{g.code, g.kernel_name, g.label};
  WarmedKernel w;
  w.label = g.label;
  if (load) {
    const jit::Kernel* kernel = nullptr;
    if (Status s = jit::get_kernel(source, &kernel, &w.cubin); !s.ok()) return s;
  } else {
    if (Status s = jit::get_cubin(source, &w.cubin); !s.ok()) return s;
  }
  out->push_back(std::move(w));
  return Status::success();
}

}  // namespace

Status warmup_problem(const plan::Problem& problem, const plan::DeviceProfile& profile, bool load, WarmupResult* out) {
  MatrixRef c_storage;
  const GemmArgs args = placeholder_args(problem, &c_storage);
  if (Status s = validate(args); !s.ok()) return s;
  const Route r = route(args, &profile);
  out->path = path_name(r.path);
  out->route_reason = r.reason;
  out->kernels.clear();
  if (r.path != Path::sm90) return Status::success();
  // On the GPU, what gemm() will run there: the tuning cache's config or the model's pick.
  int device = 0;
  const plan::TunedLookup tuned =
      load && cudaGetDevice(&device) == cudaSuccess ? process_lookup(device, r.problem, profile) : plan::TunedLookup{};
  const ConfigChoice choice = model_or_tuned(r.problem, profile, tuned);
  if (!choice.found)
    return Status{ErrorCode::unsupported, "device", "no kernel configuration fits device profile " + profile.name};
  out->config = choice.config;
  return warmup_route(r, choice.config, load, &out->kernels);
}

Status warmup_route(const Route& r, const plan::Config& config, bool load, std::vector<WarmedKernel>* out) {
  if (Status s = fetch(jit::gemm_kernel_source(config), load, out); !s.ok()) return s;
  for (const Pack& pk : r.packs)
    if (Status s = fetch(jit::pack_source(pk.elem_bytes, pk.transposes(), false, pack_l2_default()), load, out); !s.ok()) return s;
  return Status::success();
}

}  // namespace tilegemm::detail
