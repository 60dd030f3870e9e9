// The tuning cache: configurations `tilegemm tune` measured fastest, which gemm() runs instead of
// the model's pick (host only; docs/PLANNER.md "The tuning cache").
//
// One JSON file (schema "tilegemm.tuning/1"), a list of entries. An entry is keyed by
//   - the device: GPU name, SM count, driver version, library version (TuningDevice), and
//   - the problem: everything the planner looks at, the same fields gemm()'s plan cache keys on
//     (src/api/gemm.cpp plan_key): M, N, K, the operand majors, the output dtype, C (accumulate),
//     and whether D takes TMA stores, C/D element pairs are aligned and TMA can read C;
// and holds the winning config as a --config spec (config_spec_text), its measured median, the
// model's prediction for it, the model's own pick with its measured and predicted time, and the date.
//
// The cache never makes a result wrong or a call fail: lookup_tuned() re-checks the stored config
// with evaluate_config() for the problem at hand, and an entry of another device key (stale), an
// unreadable spec or a config that fails the planner's rules is reported and ignored, so the model
// decides. Writes are atomic (a temp file in the same directory, then rename).
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "plan/planner.hpp"
#include "plan/problem.hpp"

namespace tilegemm::plan {

inline constexpr const char* kTuningJsonSchema = "tilegemm.tuning/1";

// The device and build a measurement holds for. Two keys differ when any field does.
struct TuningDevice {
  std::string gpu;             // cudaDeviceProp::name, e.g. "NVIDIA H200"
  int sm_count = 0;
  int driver_version = 0;      // cudaDriverGetVersion, e.g. 13000
  std::string library_version;  // the library and its kernel code (api/tuning.hpp)
  bool operator==(const TuningDevice&) const = default;
  std::string label() const;   // "NVIDIA H200, 132 SMs, driver 13000, library 0.9.0+kernel.1a2b3c4d5e6f"
};

// The planner's view of a problem as the cache keys it: "4096x4096x4096 a=k_major b=k_major
// out=bf16 accumulate=0 d_tma=1 cd_pairs=1 c_tma=1". Leading dimensions are not part of it (the
// planner does not read them; neither does the plan cache), nor whether C is D: an entry's config is
// completed for the call's own problem (evaluate_config), which keeps an in-place call off the
// staged boxes that may not read C in place (Problem::c_in_place).
std::string tuning_problem_key(const Problem& p);

struct TunedTime {
  std::string config;         // --config spec (config_spec_text)
  double measured_us = 0;     // median kernel time, checked first (tilegemm tune)
  double predicted_us = 0;    // the time model's prediction for this config
};

struct TuningEntry {
  TuningDevice device;
  Problem problem;            // the key fields above; leading dimensions 0
  TunedTime best;             // what gemm() runs
  TunedTime model;            // the model's own pick, as measured in the same run
  std::string label;          // describe() of the best config, for people reading the file
  std::string date;           // UTC, ISO 8601: "2026-12-05T10:11:12Z"
};

class TuningCache {
 public:
  // The file at `path`: a missing file is an empty cache (no warning). A file that is not the
  // schema's JSON gives an empty cache and one warning; an entry with a missing or wrong-typed field
  // is dropped with a warning naming it, the others are kept.
  static TuningCache load(const std::string& path, std::vector<std::string>* warnings);
  static TuningCache parse(const std::string& text, const std::string& origin, std::vector<std::string>* warnings);

  // The entry for exactly this device and problem, or null.
  const TuningEntry* find(const TuningDevice& device, const Problem& p) const;
  // An entry for this problem under another device key (a stale one), or null.
  const TuningEntry* find_other_device(const TuningDevice& device, const Problem& p) const;
  // Adds `e`, replacing the entry with the same device and problem.
  void put(TuningEntry e);

  const std::vector<TuningEntry>& entries() const { return entries_; }
  std::string to_json() const;
  // Writes to_json() to `path` atomically: a unique temp file in the same directory (created if
  // missing), flushed and fsync'ed, then renamed over `path`, so a reader sees the old file or the
  // new one, never part of one. On failure the message names the path and the OS error.
  Status save(const std::string& path) const;

 private:
  std::vector<TuningEntry> entries_;
  std::unordered_map<std::string, size_t> index_;           // device label + problem key -> entry
  std::unordered_map<std::string, size_t> by_problem_;      // problem key -> some entry (any device)
};

// What the cache says for one problem on one device, as gemm() and `tilegemm explain` both read it.
struct TunedLookup {
  enum class Kind {
    none,        // no entry for this problem
    hit,         // an entry whose config passes the planner's rules: gemm() runs `candidate`
    stale,       // entries for this problem exist only for another GPU, driver or library
    unparsable,  // the entry's config spec does not parse
    infeasible,  // the entry's config fails evaluate_config for this problem and device
  };
  Kind kind = Kind::none;
  std::optional<TuningEntry> entry;  // hit, unparsable, infeasible: the entry; stale: the other key's
  Candidate candidate;               // hit: the stored config completed and scored for this problem
  std::string reason;                // stale, unparsable, infeasible: why it is ignored, one sentence
  bool hit() const { return kind == Kind::hit; }
};
const char* tuned_kind_name(TunedLookup::Kind k);  // "none", "hit", "stale", "unparsable", "infeasible"

TunedLookup lookup_tuned(const TuningCache& cache, const TuningDevice& device, const Problem& p,
                         const DeviceProfile& profile);

// "2026-12-05T10:11:12Z": now, UTC.
std::string utc_now_iso8601();

}  // namespace tilegemm::plan
