// The process's tuning cache (plan/tuning_cache.hpp): which file, loaded once, the device's key,
// each kind of problem warned about once, and the one function that decides between the tuned
// config and the model's pick -- gemm() (gemm.cpp resolve_config) and `tilegemm explain`
// (explain_call.cpp) both call it, so explain shows what gemm() runs.
//
//   TILEGEMM_TUNING=off       gemm() never reads a tuning cache (the model decides)
//   TILEGEMM_TUNING=PATH      read PATH
//   unset                     <JIT cache root>/tuning.json (TILEGEMM_CACHE_DIR, XDG_CACHE_HOME, HOME:
//                             jit/disk_cache.hpp); TILEGEMM_CACHE_DIR=off means no file, so none
// GemmOptions::use_tuning_cache = false turns it off for one call.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "plan/tuning_cache.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm::detail {

inline constexpr char kTuningEnv[] = "TILEGEMM_TUNING";  // "off", or the cache file
inline constexpr char kTuningFileName[] = "tuning.json";

// The file gemm() reads, from the environment (`getenv` is a parameter so tests can supply one);
// "" when tuning is off, and then *why_off says why.
std::string tuning_cache_path(const std::function<const char*(const char*)>& getenv, std::string* why_off);

// The library as the cache keys it: the project version and the digest of the kernel headers the
// JIT compiles, "0.9.0+kernel.1a2b3c4d5e6f", so configs measured with other kernel code are stale.
std::string tuning_library_version();

// The key of CUDA device `device`: its name and SM count, the driver and the library version. Read
// once per device.
Status tuning_device(int device, plan::TuningDevice* out);

// One tuning cache and its warnings. Each kind of problem (an unreadable file or entry, a stale
// entry, an unparsable config, a config that fails the planner's rules) is reported once to `warn`
// (default: a "tilegemm: ..." line on stderr); every lookup still returns the kind and the reason.
class TuningState {
 public:
  using Warn = std::function<void(const std::string&)>;
  // Loads `path` now ("" = off: `why_off` says why, and every lookup is a miss).
  TuningState(std::string path, std::string why_off, Warn warn = {});

  plan::TunedLookup lookup(const plan::TuningDevice& device, const plan::Problem& p,
                           const plan::DeviceProfile& profile) const;

  bool off() const { return path_.empty(); }
  const std::string& path() const { return path_; }
  const std::string& why_off() const { return why_off_; }
  const plan::TuningCache& cache() const { return cache_; }

 private:
  void warn_once(const std::string& kind, const std::string& message) const;

  std::string path_, why_off_;
  Warn warn_;
  plan::TuningCache cache_;
  mutable std::mutex mutex_;
  mutable std::set<std::string> warned_;  // kinds already reported
};

// The process's state, made from the environment on first use (thread-safe) and kept until
// reload_process_tuning() replaces it.
std::shared_ptr<const TuningState> process_tuning();
// Loads `path` ("" = off) as the process's tuning cache and forgets every plan gemm() cached, so the
// next calls consult it (the GPU test of the cache; a program that tuned in-process).
void reload_process_tuning(const std::string& path);
// What the process's tuning cache says for a routed problem on CUDA device `device`: a miss when
// tuning is off or the device's key cannot be read.
plan::TunedLookup process_lookup(int device, const plan::Problem& p, const plan::DeviceProfile& profile);
// Drops gemm()'s plan cache (defined in gemm.cpp).
void forget_plans();

// The configuration gemm() runs for a routed problem when none is forced: the tuning cache's when
// `tuned` is a hit, else the planner's choice (select_config).
struct ConfigChoice {
  bool found = false;  // false only when no candidate fits the profile
  plan::Config config;
  bool tuned = false;  // from the tuning cache
};
ConfigChoice model_or_tuned(const plan::Problem& p, const plan::DeviceProfile& profile, const plan::TunedLookup& tuned,
                            const plan::PlanOptions& options = {});

// What gemm() plans with under GemmOptions::max_ctas (resolve_config; explain_call shows the same):
// below the device's SM count, plan::with_sm_limit's profile, persistent launches only, and the
// tuning cache not read (its entries were measured on the whole device); else the device as is.
struct Planning {
  plan::DeviceProfile profile;
  plan::PlanOptions options;
  bool capped = false;
};
Planning planning_for(const plan::DeviceProfile& device, int max_ctas, plan::PlanOptions options = {});

// Whether config c can be held to max_ctas CTAs (a capped Planning): a persistent launch, or a
// k-split cluster whose CTAs (one per slice, not persistent) all fit. Otherwise invalid_argument
// naming "config". gemm() (resolve_config) and explain (explain_call) both apply it to a forced
// config; the planner's own picks pass it by construction (allow_static off, visit_cluster_k).
Status check_within_ctas(const plan::Problem& p, const plan::Config& c, int max_ctas);

}  // namespace tilegemm::detail
