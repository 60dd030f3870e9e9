// gemm(): validate -> check the device -> skip empty problems -> route -> (sm90) plan -> JIT
// kernel -> launch, or the fallback kernel. One path; docs/ARCHITECTURE.md draws it.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include <cuda_runtime_api.h>

#include "api/fallback_gemm.hpp"
#include "api/route.hpp"
#include "api/sm90_launch.hpp"
#include "api/stream_workspace.hpp"
#include "api/trace_capture.hpp"
#include "api/tuning.hpp"
#include "jit/jit.hpp"
#include "plan/config_spec.hpp"
#include "plan/device_profile.hpp"
#include "plan/planner.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm::detail {
namespace {

Status launch_error(const char* what, cudaError_t err) {
  return Status{ErrorCode::cuda_error, "launch",
                fmt::format("{} failed to launch: {} ({})", what, cudaGetErrorString(err), cudaGetErrorName(err))};
}

// ---- the current device: checked once, its planner profile read once --------------------------
struct DeviceState {
  Status status;                // check_device() for this ordinal
  plan::DeviceProfile profile;  // live profile (query_live_profile), when status is ok
};
std::mutex g_device_mutex;
std::map<int, DeviceState>& device_states() {
  static auto* m = new std::map<int, DeviceState>;  // never destroyed
  return *m;
}

// NOTES: called on every gemm(); after the first call per device it is one cudaGetDevice and a
// map lookup (check_device's four queries and the profile's property read happen once).
Status current_device(int* device, const plan::DeviceProfile** profile) {
  if (cudaGetDevice(device) != cudaSuccess) {
    (void)cudaGetLastError();
    return check_device();  // says why (no driver, no device)
  }
  std::lock_guard<std::mutex> lock(g_device_mutex);
  auto it = device_states().find(*device);
  if (it == device_states().end()) {
    DeviceState st;
    st.status = check_device();
    if (st.status.ok()) {
      std::string why;
      if (auto p = plan::query_live_profile(*device, &why)) {
        st.profile = *p;
      } else {
        st.status = Status{ErrorCode::no_device, "device", "cannot read the device's planner profile: " + why};
      }
    }
    it = device_states().emplace(*device, std::move(st)).first;
  }
  if (profile) *profile = &it->second.profile;
  return it->second.status;
}

// ---- plans: the planner's view of an sm90-routed call -> its prepared kernel ---------------------
// Everything the planner looks at is in the key: the device, the shape, the operand majors, the
// output dtype, C (and whether it is D), whether D takes TMA stores and aligned element pairs, whether
// A's and B's rows start on 32-B sector boundaries (the tuning cache keys its entries on the same
// fields but C being D: plan::tuning_problem_key; an entry is completed for the call's problem,
// evaluate_config); and whether the tuning cache may decide.
struct PlanKey {
  int device;
  int64_t m, n, k;
  Major a_major, b_major;
  DType out;
  bool accumulate, d_tma, cd_pairs, c_tma, c_in_place, a_sectored, b_sectored, a_lined, b_lined, tuning;
  int max_ctas;           // GemmOptions::max_ctas: planned for that many SMs
  bool narrow_mn_chunks;  // GemmOptions::narrow_mn_chunks: the planner's candidates
  bool operator==(const PlanKey&) const = default;
};
PlanKey plan_key(int device, const plan::Problem& p, const GemmOptions& options) {
  return PlanKey{device, p.m, p.n, p.k, p.a_major, p.b_major, p.out, p.accumulate, p.d_tma, p.cd_pairs, p.c_tma,
                 p.c_in_place, p.a_rows_sectored, p.b_rows_sectored, p.a_rows_lined, p.b_rows_lined, options.use_tuning_cache, std::max(0, options.max_ctas),
                 options.narrow_mn_chunks};
}
struct PlanKeyHash {
  size_t operator()(const PlanKey& k) const {
    size_t h = std::hash<int64_t>{}(k.m);
    h = h * 1000003u ^ std::hash<int64_t>{}(k.n);
    h = h * 1000003u ^ std::hash<int64_t>{}(k.k);
    h = h * 1000003u ^ std::hash<int>{}(k.device);
    h = h * 1000003u ^ std::hash<int>{}(static_cast<int>(k.out));
    h = h * 1000003u ^ std::hash<int>{}(k.max_ctas);
    size_t bits = static_cast<size_t>(k.a_major) | static_cast<size_t>(k.b_major) << 1 |
                  static_cast<size_t>(k.accumulate) << 2 | static_cast<size_t>(k.d_tma) << 3 |
                  static_cast<size_t>(k.cd_pairs) << 4 | static_cast<size_t>(k.c_tma) << 5 |
                  static_cast<size_t>(k.tuning) << 6 | static_cast<size_t>(k.a_sectored) << 7 |
                  static_cast<size_t>(k.b_sectored) << 8 | static_cast<size_t>(k.c_in_place) << 9 |
                  static_cast<size_t>(k.narrow_mn_chunks) << 10 | static_cast<size_t>(k.a_lined) << 11 |
                  static_cast<size_t>(k.b_lined) << 12;
    return h * 8192u + bits;
  }
};
std::shared_mutex g_plan_mutex;
std::unordered_map<PlanKey, PreparedKernel, PlanKeyHash>& plans() {
  static auto* m = new std::unordered_map<PlanKey, PreparedKernel, PlanKeyHash>;  // never destroyed
  return *m;
}

// choose_launch's answers for plans that no gemm() call has prepared (a caller that plans once and
// then runs a forced configuration, e.g. tensor parallelism's steps): the same key, the config.
std::unordered_map<PlanKey, plan::Config, PlanKeyHash>& chosen() {
  static auto* m = new std::unordered_map<PlanKey, plan::Config, PlanKeyHash>;  // never destroyed
  return *m;
}

thread_local std::optional<plan::Config> t_last_config;

// Where prepare_kernel found a traced call's kernel, from the JIT cache counters around it.
std::string jit_origin(const jit::CacheCounters& before, const jit::CacheCounters& after) {
  if (after.compiles > before.compiles) return "compiled (NVRTC)";
  if (after.disk_hits > before.disk_hits) return "disk cache";
  if (after.memory_hits > before.memory_hits) return "memory cache";
  return "prepared-kernel map";
}

// The Config gemm() runs for an sm90-routed call: options.config completed and checked, or the
// tuning cache's entry, or the planner's choice (model_or_tuned; options.mapping applied to either).
// With options.max_ctas below the SM count, planned as planning_for says (tuning.hpp).
Status resolve_config(const Route& r, int device, const plan::DeviceProfile& profile, const GemmOptions& options,
                      plan::Config* out) {
  const Planning planning = planning_for(profile, options.max_ctas, plan_options(options));
  if (options.config) {
    const plan::Candidate c =
        plan::evaluate_config(r.problem, planning.profile, *options.config, options.config_stages_given);
    const bool waived = options.config_ignore_preferences && plan::is_preference_rule(c.rule);
    if (!c.feasible() && !waived)
      return Status{ErrorCode::invalid_argument, "config",
                    "config " + plan::describe(c.config) + " cannot run this problem: " + plan::rule_id(c.rule) +
                        ": " + c.reason};
    if (planning.capped)
      if (Status s = check_within_ctas(r.problem, c.config, planning.profile.sm_count); !s.ok()) return s;
    *out = c.config;
  } else {
    const plan::TunedLookup tuned =
        options.use_tuning_cache && !planning.capped ? process_lookup(device, r.problem, profile) : plan::TunedLookup{};
    const ConfigChoice choice = model_or_tuned(r.problem, planning.profile, tuned, planning.options);
    if (!choice.found)
      return Status{ErrorCode::unsupported, "device",
                    "no kernel configuration fits device profile " + profile.name + " (" + profile.source + ")"};
    *out = choice.config;
  }
  if (options.mapping) out->mapping = *options.mapping;
  return Status::success();
}

// The unsplit config of the same tile: what runs when a k-split call cannot have its workspace.
Status unsplit_config(const Route& r, const plan::DeviceProfile& profile, plan::Config c, plan::Config* out) {
  c.split_k = 1;
  c.cluster_k = 1;
  c.stream_k = false;
  c.sk_runs = false;
  const plan::Candidate cand = plan::evaluate_config(r.problem, profile, c, /*stages_given=*/false);
  if (!cand.feasible()) return Status{ErrorCode::cuda_error, "launch", "no unsplit config: " + cand.reason};
  *out = cand.config;
  return Status::success();
}

// The call's workspace: the k-split counters (kKSplitCounterBytes, always first, so that they stay
// where they were zeroed whatever else a call puts after them), the operand copies (r.pack_bytes)
// and then, 256-B aligned, the k-split partials. Per (device, stream), grown when too small; inside
// a CUDA graph capture the graph gets its own (*graph_owned: cudaMallocAsync on the capturing
// stream, counters zeroed by a captured memset, freed after the GEMM).
void* call_workspace(int device, cudaStream_t stream, size_t bytes, size_t min_bytes, bool* graph_owned) {
  *graph_owned = false;
  void* ws = stream_workspace(device, stream, bytes, min_bytes, kKSplitCounterBytes);
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (ws == nullptr && cudaStreamIsCapturing(stream, &capture) == cudaSuccess &&
      capture == cudaStreamCaptureStatusActive) {
    // NOTES: inside a CUDA graph capture the stream's workspace cannot be allocated (cudaMalloc
    // is not a stream operation), so the graph gets its own: cudaMallocAsync/cudaFreeAsync on the
    // capturing stream become a memory-allocation node before the GEMM and a free node after it,
    // so every replay has its workspace and the graph stays relaunchable.
    void* ptr = nullptr;
    if (cudaMallocAsync(&ptr, bytes, stream) == cudaSuccess) {
      if (cudaMemsetAsync(ptr, 0, kKSplitCounterBytes, stream) == cudaSuccess) {
        ws = ptr;
        *graph_owned = true;
      } else {
        (void)cudaGetLastError();
        (void)cudaFreeAsync(ptr, stream);
      }
    } else {
      (void)cudaGetLastError();
    }
  }
  return ws;
}

Status run_sm90(const Route& r, int device, const plan::DeviceProfile& profile, const GemmOptions& options,
                const GemmArgs& original) {
  PreparedKernel prepared;
  const bool planned = !options.config && !options.mapping && !options.trace;
  const PlanKey key = plan_key(device, r.problem, options);
  bool found = false;
  if (planned) {
    std::shared_lock lock(g_plan_mutex);
    auto it = plans().find(key);
    if (it != plans().end()) {
      prepared = it->second;
      found = true;
    }
  }
  if (!found) {
    plan::Config config;
    {
      TraceSpan span(options.trace, "plan");
      if (Status s = resolve_config(r, device, profile, options, &config); !s.ok()) return s;
      config.trace = options.trace != nullptr;  // the same config, traced
    }
    TraceSpan span(options.trace, "JIT kernel");
    const jit::CacheCounters before = options.trace ? jit::runtime().counters() : jit::CacheCounters{};
    if (Status s = prepare_kernel(config, device, &prepared); !s.ok()) return s;
    if (options.trace) span.set_detail(jit_origin(before, jit::runtime().counters()));
    if (planned) {
      std::unique_lock lock(g_plan_mutex);
      plans().emplace(key, prepared);
    }
  }
  if (options.max_ctas > 0) {  // (resolve_config planned for them: persistent, clusters that fit)
    const int cluster = prepared.config.cluster_size();
    prepared.resident_ctas = std::min(prepared.resident_ctas, std::max(cluster, options.max_ctas / cluster * cluster));
  }
  const cudaStream_t stream = r.args.stream;
  size_t split_bytes = ksplit_workspace_bytes(r.args, prepared);
  const size_t pack_offset = kKSplitCounterBytes;
  const size_t split_offset = (pack_offset + r.pack_bytes + 255) / 256 * 256;
  void* workspace = nullptr;
  bool graph_workspace = false;  // allocated in the captured graph, freed there after the GEMM
  if (r.pack_bytes + split_bytes > 0) {
    // Room for any k-split of this device at once (2 partial tiles of 128 x 256 per CTA).
    const size_t min_bytes = split_bytes > 0 ? split_offset + size_t(prepared.resident_ctas) * 2 * 128 * 256 * sizeof(float) : 0;
    workspace = call_workspace(device, stream, split_offset + split_bytes, min_bytes, &graph_workspace);
    if (workspace == nullptr && !r.packs.empty()) {
      // No memory for the operand copies: the fallback kernel reads the operands where they are.
      t_last_config.reset();
      if (cudaError_t err = launch_fallback_gemm(original); err != cudaSuccess)
        return launch_error("the fallback GEMM kernel", err);
      return Status::success();
    }
    if (workspace == nullptr) {  // no memory for the k-split: the unsplit kernel of the same tile
      plan::Config unsplit;
      if (Status s = unsplit_config(r, profile, prepared.config, &unsplit); !s.ok()) return s;
      if (Status s = prepare_kernel(unsplit, device, &prepared); !s.ok()) return s;
      split_bytes = 0;
    }
  }
  uint8_t* const ws = static_cast<uint8_t*>(workspace);
  Status launched = launch_packs(r, ws ? ws + pack_offset : nullptr, stream, options.pdl);
  MatrixRef c_copy;
  const GemmArgs args = launch_args(r, ws ? ws + pack_offset : nullptr, &c_copy);
  if (launched.ok() && options.trace) {
    TraceSpan span(options.trace, "trace buffer");
    launched = options.trace->prepare(args, prepared);
  }
  if (launched.ok()) {
    TraceSpan span(options.trace, "launch");
    const KSplitWorkspace ksplit =
        split_bytes > 0 ? KSplitWorkspace{reinterpret_cast<float*>(ws + split_offset), reinterpret_cast<uint32_t*>(ws)}
                        : KSplitWorkspace{};
    launched = launch_sm90(args, prepared, ksplit, options.trace ? options.trace->target() : TraceTarget{}, options.pdl);
  }
  if (options.trace) options.trace->launched = launched.ok();
  if (graph_workspace && cudaFreeAsync(workspace, stream) != cudaSuccess && launched.ok())
    return launch_error("the workspace's release (cudaFreeAsync)", cudaGetLastError());
  if (!launched.ok()) return launched;
  t_last_config = prepared.config;
  return Status::success();
}

// The route of a call on a device with `profile`: what gemm() runs, and what choose_launch says.
Route call_route(const GemmArgs& args, const GemmOptions& options, const plan::DeviceProfile* profile) {
  return options.force_fallback ? fallback_route(args, "forced")
                                 : route(args, profile, model_copies(options));
}

}  // namespace

bool pdl_setting(const std::function<const char*(const char*)>& getenv) {
  const char* v = getenv(kPdlEnv);
  if (v == nullptr) return true;
  const std::string value(v);
  return value != "off" && value != "0";
}

bool pdl_default() {
  static const bool on = pdl_setting([](const char* name) { return std::getenv(name); });
  return on;
}

bool env_switch(const std::function<const char*(const char*)>& getenv, const char* name) {
  const char* v = getenv(name);
  if (v == nullptr) return false;
  const std::string value(v);
  return value == "on" || value == "1";
}

bool pack_l2_default() {
  static const bool on = env_switch([](const char* name) { return std::getenv(name); }, kPackL2Env);
  return on;
}

plan::PlanOptions plan_options(const GemmOptions& options) {
  plan::PlanOptions o;
  o.narrow_mn_chunks = options.narrow_mn_chunks;
  return o;
}

ModelCopies model_copies(const GemmOptions& options) {
  return ModelCopies{options.row_repacks, options.narrow_transposes, plan_options(options)};
}

Status gemm_with_options(const GemmArgs& args, const GemmOptions& options) {
  if (options.trace) options.trace->begin_call();
  {
    TraceSpan span(options.trace, "validate");
    if (Status s = validate(args); !s.ok()) return s;
  }
  int device = 0;
  const plan::DeviceProfile* profile = nullptr;
  {
    TraceSpan span(options.trace, "device");
    if (Status s = current_device(&device, &profile); !s.ok()) return s;
  }
  // Empty problems. M = 0 or N = 0: D has no elements, nothing to do. K = 0: D = beta·C, or 0
  // without C (alpha times an empty sum); a pure epilogue, which the fallback does.
  if (args.d.rows == 0 || args.d.cols == 0) return Status::success();
  if (options.mapping && !sched::is_valid(*options.mapping))
    return Status{ErrorCode::invalid_argument, "mapping", "mapping: group, box_m and box_n must be >= 1"};

  Route r;
  {
    TraceSpan span(options.trace, "route");
    r = call_route(args, options, profile);
    span.set_detail(path_name(r.path));
  }
  if (r.path == Path::fallback) {
    if (options.trace)
      return Status{ErrorCode::unsupported, "trace",
                    "this call runs on the fallback kernel (" + r.reason + "), which has no traced variant"};
    t_last_config.reset();
    if (cudaError_t err = launch_fallback_gemm(args); err != cudaSuccess)
      return launch_error("the fallback GEMM kernel", err);
    return Status::success();
  }
  return run_sm90(r, device, *profile, options, args);
}

Status choose_launch(const GemmArgs& args, const GemmOptions& options, LaunchChoice* out) {
  if (Status s = validate(args); !s.ok()) return s;
  out->route = options.force_fallback ? fallback_route(args, "forced") : route(args);
  if (out->route.path == Path::fallback) return Status::success();
  if (args.d.rows == 0 || args.d.cols == 0) {
    out->route.path = Path::fallback;
    out->route.reason = "empty output: nothing is launched";
    return Status::success();
  }
  int device = 0;
  const plan::DeviceProfile* profile = nullptr;
  if (Status s = current_device(&device, &profile); !s.ok()) return s;
  out->route = call_route(args, options, profile);  // with the device's profile, exactly as gemm() routes
  if (out->route.path == Path::fallback) return Status::success();
  // The planner's own choice is the same for every call with the same plan key: answer from
  // gemm()'s prepared plans or from earlier answers, as cheaply as gemm() itself does.
  const bool planned = !options.config && !options.mapping && !options.trace;
  const PlanKey key = plan_key(device, out->route.problem, options);
  if (planned) {
    std::shared_lock lock(g_plan_mutex);
    if (auto it = plans().find(key); it != plans().end()) {
      out->config = it->second.config;
      return Status::success();
    }
    if (auto it = chosen().find(key); it != chosen().end()) {
      out->config = it->second;
      return Status::success();
    }
  }
  if (Status s = resolve_config(out->route, device, *profile, options, &out->config); !s.ok()) return s;
  if (planned) {
    std::unique_lock lock(g_plan_mutex);
    chosen().emplace(key, out->config);
  }
  return Status::success();
}

std::optional<plan::Config> last_sm90_config() { return t_last_config; }

void forget_plans() {
  std::unique_lock lock(g_plan_mutex);
  plans().clear();
  chosen().clear();
}

}  // namespace tilegemm::detail

namespace tilegemm {
Status gemm(const GemmArgs& args) { return detail::gemm_with_options(args, {}); }
}  // namespace tilegemm
