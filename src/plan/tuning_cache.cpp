// The tuning cache's file, keys and lookup (tuning_cache.hpp).
#include "plan/tuning_cache.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "plan/config_spec.hpp"

namespace tilegemm::plan {
namespace {

using nlohmann::ordered_json;

std::string bit(bool b) { return b ? "1" : "0"; }

std::string entry_key(const TuningDevice& d, const Problem& p) { return d.label() + " | " + tuning_problem_key(p); }

// ---- JSON <-> entry -----------------------------------------------------------------------------

ordered_json time_json(const TunedTime& t) {
  return ordered_json{{"config", t.config}, {"measured_us", t.measured_us}, {"predicted_us", t.predicted_us}};
}

ordered_json entry_json(const TuningEntry& e) {
  const Problem& p = e.problem;
  return ordered_json{
      {"device", {{"gpu", e.device.gpu}, {"sm_count", e.device.sm_count}, {"driver_version", e.device.driver_version},
                  {"library_version", e.device.library_version}}},
      {"problem", {{"m", p.m}, {"n", p.n}, {"k", p.k}, {"a_major", to_string(p.a_major)},
                   {"b_major", to_string(p.b_major)}, {"out", to_string(p.out)}, {"accumulate", p.accumulate},
                   {"d_tma", p.d_tma}, {"cd_pairs", p.cd_pairs}, {"c_tma", p.c_tma},
                   {"a_rows_sectored", p.a_rows_sectored}, {"b_rows_sectored", p.b_rows_sectored},
                   {"a_rows_lined", p.a_rows_lined}, {"b_rows_lined", p.b_rows_lined}}},
      {"best", time_json(e.best)},
      {"model", time_json(e.model)},
      {"label", e.label},
      {"date", e.date}};
}

// One field of an entry; a missing or wrong-typed one throws a message naming it, and the caller
// drops the entry.
const nlohmann::json& member(const nlohmann::json& j, const char* name) {
  if (!j.is_object() || !j.contains(name)) throw std::runtime_error(std::string("missing \"") + name + "\"");
  return j.at(name);
}
template <typename T>
T field(const nlohmann::json& j, const char* name) {
  const nlohmann::json& v = member(j, name);
  try {
    return v.get<T>();
  } catch (const nlohmann::json::exception&) {
    throw std::runtime_error(std::string("\"") + name + "\": " + v.dump() + " has the wrong type");
  }
}

Major major_of(const std::string& s, const char* name) {
  if (s == to_string(Major::k_major)) return Major::k_major;
  if (s == to_string(Major::mn_major)) return Major::mn_major;
  throw std::runtime_error(std::string("\"") + name + "\": \"" + s + "\" is not k_major or mn_major");
}

DType out_of(const std::string& s) {
  if (s == to_string(DType::bf16)) return DType::bf16;
  if (s == to_string(DType::fp32)) return DType::fp32;
  throw std::runtime_error("\"out\": \"" + s + "\" is not bf16 or fp32");
}

TunedTime time_of(const nlohmann::json& j) {
  return TunedTime{field<std::string>(j, "config"), field<double>(j, "measured_us"), field<double>(j, "predicted_us")};
}

TuningEntry entry_of(const nlohmann::json& j) {
  TuningEntry e;
  const nlohmann::json& d = member(j, "device");
  e.device = TuningDevice{field<std::string>(d, "gpu"), field<int>(d, "sm_count"), field<int>(d, "driver_version"),
                          field<std::string>(d, "library_version")};
  const nlohmann::json& p = member(j, "problem");
  e.problem.m = field<int64_t>(p, "m");
  e.problem.n = field<int64_t>(p, "n");
  e.problem.k = field<int64_t>(p, "k");
  e.problem.a_major = major_of(field<std::string>(p, "a_major"), "a_major");
  e.problem.b_major = major_of(field<std::string>(p, "b_major"), "b_major");
  e.problem.out = out_of(field<std::string>(p, "out"));
  e.problem.accumulate = field<bool>(p, "accumulate");
  e.problem.d_tma = field<bool>(p, "d_tma");
  e.problem.cd_pairs = field<bool>(p, "cd_pairs");
  e.problem.c_tma = field<bool>(p, "c_tma");
  // (Entries written before these fields existed were all measured with aligned lines.)
  e.problem.a_rows_sectored = p.contains("a_rows_sectored") ? field<bool>(p, "a_rows_sectored") : true;
  e.problem.b_rows_sectored = p.contains("b_rows_sectored") ? field<bool>(p, "b_rows_sectored") : true;
  e.problem.a_rows_lined = p.contains("a_rows_lined") ? field<bool>(p, "a_rows_lined") : e.problem.a_rows_sectored;
  e.problem.b_rows_lined = p.contains("b_rows_lined") ? field<bool>(p, "b_rows_lined") : e.problem.b_rows_sectored;
  e.best = time_of(member(j, "best"));
  e.model = time_of(member(j, "model"));
  e.label = j.contains("label") ? field<std::string>(j, "label") : std::string();
  e.date = j.contains("date") ? field<std::string>(j, "date") : std::string();
  return e;
}

// ---- atomic write -------------------------------------------------------------------------------

Status write_error(const std::string& what, const std::string& path) {
  return Status{ErrorCode::invalid_argument, "cache",
                "tuning cache " + path + ": " + what + " failed: " + std::strerror(errno)};
}

// A temp name no other writer (thread or process) picks.
std::string temp_name(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  static const uint64_t salt = [] {
    std::random_device rd;
    return (uint64_t(rd()) << 32) ^ rd();
  }();
  return path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1)) + "." +
         std::to_string(salt % 1000000007u);
}

}  // namespace

std::string TuningDevice::label() const {
  return gpu + ", " + std::to_string(sm_count) + " SMs, driver " + std::to_string(driver_version) + ", library " +
         library_version;
}

std::string tuning_problem_key(const Problem& p) {
  return std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k) + " a=" + to_string(p.a_major) +
         " b=" + to_string(p.b_major) + " out=" + to_string(p.out) + " accumulate=" + bit(p.accumulate) +
         " d_tma=" + bit(p.d_tma) + " cd_pairs=" + bit(p.cd_pairs) + " c_tma=" + bit(p.c_tma) +
         (p.a_rows_sectored && p.b_rows_sectored
              ? std::string()  // (the keys of aligned problems are as before these fields)
              : " a_sectored=" + bit(p.a_rows_sectored) + " b_sectored=" + bit(p.b_rows_sectored)) +
         (p.a_lined() && p.b_lined() ? std::string() : " a_lined=" + bit(p.a_lined()) + " b_lined=" + bit(p.b_lined()));
}

TuningCache TuningCache::load(const std::string& path, std::vector<std::string>* warnings) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return {};  // no file yet: nothing tuned
  std::stringstream text;
  text << f.rdbuf();
  return parse(text.str(), path, warnings);
}

TuningCache TuningCache::parse(const std::string& text, const std::string& origin, std::vector<std::string>* warnings) {
  TuningCache cache;
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object() || doc.value("schema", std::string()) != kTuningJsonSchema ||
      !doc.contains("entries") || !doc["entries"].is_array()) {
    warnings->push_back("tuning cache " + origin + " is not a " + kTuningJsonSchema +
                        " file (unparsable JSON, or no \"schema\"/\"entries\"): ignored, the model decides");
    return cache;
  }
  const nlohmann::json& list = doc["entries"];
  for (size_t i = 0; i < list.size(); ++i) {
    try {
      cache.put(entry_of(list[i]));
    } catch (const std::exception& e) {
      warnings->push_back("tuning cache " + origin + ": entry " + std::to_string(i) + " ignored: " + e.what());
    }
  }
  return cache;
}

const TuningEntry* TuningCache::find(const TuningDevice& device, const Problem& p) const {
  const auto it = index_.find(entry_key(device, p));
  return it == index_.end() ? nullptr : &entries_[it->second];
}

const TuningEntry* TuningCache::find_other_device(const TuningDevice& device, const Problem& p) const {
  const auto it = by_problem_.find(tuning_problem_key(p));
  if (it == by_problem_.end()) return nullptr;
  if (!(entries_[it->second].device == device)) return &entries_[it->second];
  for (const TuningEntry& e : entries_)  // rare: the same problem tuned on several devices
    if (!(e.device == device) && tuning_problem_key(e.problem) == it->first) return &e;
  return nullptr;
}

void TuningCache::put(TuningEntry e) {
  e.problem.lda = e.problem.ldb = e.problem.ldd = 0;
  const std::string key = entry_key(e.device, e.problem);
  by_problem_.emplace(tuning_problem_key(e.problem), entries_.size());
  if (const auto it = index_.find(key); it != index_.end()) {
    entries_[it->second] = std::move(e);
    return;
  }
  index_.emplace(key, entries_.size());
  entries_.push_back(std::move(e));
}

std::string TuningCache::to_json() const {
  ordered_json list = ordered_json::array();
  for (const TuningEntry& e : entries_) list.push_back(entry_json(e));
  return ordered_json{{"schema", kTuningJsonSchema}, {"entries", list}}.dump(2) + "\n";
}

Status TuningCache::save(const std::string& path) const {
  const std::filesystem::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path(), ec);
  const std::string text = to_json();
  const std::string tmp = temp_name(path);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return write_error("creating the temp file " + tmp, path);
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t w = ::write(fd, text.data() + done, text.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      const Status s = write_error("writing " + tmp, path);
      ::close(fd);
      ::unlink(tmp.c_str());
      return s;
    }
    done += static_cast<size_t>(w);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const Status s = write_error("flushing " + tmp, path);
    ::unlink(tmp.c_str());
    return s;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const Status s = write_error("renaming " + tmp + " over it", path);
    ::unlink(tmp.c_str());
    return s;
  }
  return Status::success();
}

const char* tuned_kind_name(TunedLookup::Kind k) {
  switch (k) {
    case TunedLookup::Kind::none: return "none";
    case TunedLookup::Kind::hit: return "hit";
    case TunedLookup::Kind::stale: return "stale";
    case TunedLookup::Kind::unparsable: return "unparsable";
    case TunedLookup::Kind::infeasible: return "infeasible";
  }
  return "unknown";
}

TunedLookup lookup_tuned(const TuningCache& cache, const TuningDevice& device, const Problem& p,
                         const DeviceProfile& profile) {
  TunedLookup r;
  const TuningEntry* e = cache.find(device, p);
  if (e == nullptr) {
    if (const TuningEntry* other = cache.find_other_device(device, p)) {
      r.kind = TunedLookup::Kind::stale;
      r.entry = *other;
      r.reason = "the entry for " + tuning_problem_key(p) + " was measured on " + other->device.label() +
                 ", not on " + device.label();
    }
    return r;
  }
  r.entry = *e;
  const ParsedConfigSpec spec = parse_config_spec(e->best.config, "config");
  if (!spec.ok()) {
    r.kind = TunedLookup::Kind::unparsable;
    r.reason = "the entry for " + tuning_problem_key(p) + " has an unreadable config: " + spec.error;
    return r;
  }
  r.candidate = evaluate_config(p, profile, spec.spec.config, spec.spec.stages_given);
  if (!r.candidate.feasible()) {
    r.kind = TunedLookup::Kind::infeasible;
    r.reason = "the entry's config " + e->best.config + " cannot run " + tuning_problem_key(p) + ": " +
               rule_id(r.candidate.rule) + ": " + r.candidate.reason;
    return r;
  }
  r.kind = TunedLookup::Kind::hit;
  return r;
}

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace tilegemm::plan
