// The process's tuning cache (tuning.hpp).
#include "api/tuning.hpp"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <vector>

#include <cuda_runtime_api.h>

#include "jit/disk_cache.hpp"
#include "jit/embedded_headers.hpp"
#include "plan/config_spec.hpp"
#include "plan/planner.hpp"

#ifndef TILEGEMM_VERSION
#error "TILEGEMM_VERSION must be defined (src/api/CMakeLists.txt passes PROJECT_VERSION)"
#endif

namespace tilegemm::detail {
namespace {

void warn_stderr(const std::string& message) { std::fprintf(stderr, "tilegemm: %s\n", message.c_str()); }

std::mutex g_process_mutex;
std::shared_ptr<const TuningState>& process_slot() {
  static auto* slot = new std::shared_ptr<const TuningState>;  // never destroyed
  return *slot;
}

std::shared_ptr<const TuningState> from_environment() {
  std::string why_off;
  std::string path = tuning_cache_path([](const char* name) { return std::getenv(name); }, &why_off);
  return std::make_shared<const TuningState>(std::move(path), std::move(why_off));
}

}  // namespace

std::string tuning_cache_path(const std::function<const char*(const char*)>& getenv, std::string* why_off) {
  const char* v = getenv(kTuningEnv);
  const std::string value = v == nullptr ? std::string() : std::string(v);
  if (value == "off") {
    if (why_off) *why_off = std::string(kTuningEnv) + "=off";
    return {};
  }
  if (!value.empty()) return value;
  std::string why_no_root;
  const std::string root = jit::resolve_cache_root(getenv, &why_no_root);
  if (root.empty()) {
    if (why_off) *why_off = "no cache directory (" + why_no_root + ") and no " + kTuningEnv + "=PATH";
    return {};
  }
  return root + "/" + kTuningFileName;
}

std::string tuning_library_version() {
  return std::string(TILEGEMM_VERSION) + "+kernel." + std::string(jit::embedded_headers_digest().substr(0, 12));
}

Status tuning_device(int device, plan::TuningDevice* out) {
  static std::mutex mutex;
  static auto* known = new std::map<int, plan::TuningDevice>;  // never destroyed
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = known->find(device); it != known->end()) {
    *out = it->second;
    return Status::success();
  }
  cudaDeviceProp prop{};
  if (cudaError_t e = cudaGetDeviceProperties(&prop, device); e != cudaSuccess) {
    (void)cudaGetLastError();
    return Status{ErrorCode::no_device, "device",
                  "cannot read device " + std::to_string(device) + "'s properties: " + cudaGetErrorString(e)};
  }
  plan::TuningDevice key;
  key.gpu = prop.name;
  key.sm_count = prop.multiProcessorCount;
  if (cudaDriverGetVersion(&key.driver_version) != cudaSuccess) key.driver_version = 0;
  key.library_version = tuning_library_version();
  known->emplace(device, key);
  *out = key;
  return Status::success();
}

TuningState::TuningState(std::string path, std::string why_off, Warn warn)
    : path_(std::move(path)), why_off_(std::move(why_off)), warn_(warn ? std::move(warn) : Warn(warn_stderr)) {
  if (path_.empty()) return;
  std::vector<std::string> warnings;
  cache_ = plan::TuningCache::load(path_, &warnings);
  for (const std::string& w : warnings) warn_once("load: " + w, w);  // each of the file's problems, once
}

void TuningState::warn_once(const std::string& kind, const std::string& message) const {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!warned_.insert(kind).second) return;
  }
  warn_(message);
}

plan::TunedLookup TuningState::lookup(const plan::TuningDevice& device, const plan::Problem& p,
                                      const plan::DeviceProfile& profile) const {
  if (off()) return {};
  plan::TunedLookup r = plan::lookup_tuned(cache_, device, p, profile);
  if (r.kind != plan::TunedLookup::Kind::none && !r.hit())
    warn_once(plan::tuned_kind_name(r.kind), "tuning cache " + path_ + ": " + r.reason +
                                                 "; ignored, the model decides (further such entries are ignored "
                                                 "without a warning)");
  return r;
}

std::shared_ptr<const TuningState> process_tuning() {
  std::lock_guard<std::mutex> lock(g_process_mutex);
  std::shared_ptr<const TuningState>& slot = process_slot();
  if (!slot) slot = from_environment();
  return slot;
}

plan::TunedLookup process_lookup(int device, const plan::Problem& p, const plan::DeviceProfile& profile) {
  const std::shared_ptr<const TuningState> tuning = process_tuning();
  plan::TuningDevice key;
  if (tuning->off() || !tuning_device(device, &key).ok()) return {};
  return tuning->lookup(key, p, profile);
}

void reload_process_tuning(const std::string& path) {
  auto state = std::make_shared<const TuningState>(path, path.empty() ? "reload_process_tuning(\"\")" : "");
  {
    std::lock_guard<std::mutex> lock(g_process_mutex);
    process_slot() = std::move(state);
  }
  forget_plans();
}

Planning planning_for(const plan::DeviceProfile& device, int max_ctas, plan::PlanOptions options) {
  Planning p{plan::with_sm_limit(device, max_ctas), options, false};
  p.capped = p.profile.sm_count < device.sm_count;
  if (p.capped) p.options.allow_static = false;
  return p;
}

// A launch held to max_ctas CTAs: persistent, or a k-split cluster whose CTAs (one per slice, not
// persistent) all fit.
Status check_within_ctas(const plan::Problem& p, const plan::Config& c, int max_ctas) {
  const std::string head = "config " + plan::describe(c) + " cannot be held to max_ctas = " + std::to_string(max_ctas);
  if (c.cluster_k > 1) {
    const int64_t ctas = plan::kernel_shape(plan::kernel_problem(p, c), c).tiles * c.cluster_k;
    if (ctas > max_ctas)
      return Status{ErrorCode::invalid_argument, "config",
                    head + ": a k-split cluster launches one CTA per slice (" + std::to_string(ctas) +
                        " here); use the split without dsm, which sums through the workspace on the persistent grid"};
  } else if (!c.persistent) {
    return Status{ErrorCode::invalid_argument, "config",
                  head + ": a static launch runs one CTA per tile; use a persistent config"};
  }
  return Status::success();
}

ConfigChoice model_or_tuned(const plan::Problem& p, const plan::DeviceProfile& profile, const plan::TunedLookup& tuned,
                            const plan::PlanOptions& options) {
  ConfigChoice choice;
  if (tuned.hit()) {
    choice.found = true;
    choice.config = tuned.candidate.config;
    choice.tuned = true;
    return choice;
  }
  const plan::Selection sel = plan::select_config(p, profile, options);
  choice.found = sel.found;
  choice.config = sel.config;
  return choice;
}

}  // namespace tilegemm::detail
