// Runtime: the in-memory map of cubins (one entry per cache key), the disk cache behind it, and the
// loaded kernels. Locking: `map_mutex` guards only the map; an entry is filled (disk read or NVRTC)
// by the thread that inserted it, outside that lock, while threads asking for the same key wait on
// the entry's condition variable. Entries that failed are removed so a later call tries again.
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "jit/cache_key.hpp"
#include "jit/disk_cache.hpp"
#include "jit/jit.hpp"

namespace tilegemm::jit {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

enum class EntryState { pending, ready, failed };

struct Entry {
  std::mutex mutex;
  std::condition_variable done;
  EntryState state = EntryState::pending;
  Status status;  // when failed
  // Set once by the filling thread before `state` leaves pending; read-only afterwards.
  std::shared_ptr<const std::vector<uint8_t>> cubin;
  CubinOrigin origin = CubinOrigin::compiled;
  double compile_seconds = 0.0;
  std::string label, kernel_name, key_hex, cache_path;
  // The loaded kernel: made once under load_mutex, published through `kernel`.
  std::mutex load_mutex;
  std::unique_ptr<Kernel> owned_kernel;
  std::atomic<const Kernel*> kernel{nullptr};
};

bool is_identifier(const std::string& s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

Status check_source(const KernelSource& src) {
  if (!is_identifier(src.kernel_name))
    return Status{ErrorCode::invalid_argument, "kernel_name",
                  "kernel_name = '" + src.kernel_name + "' (label '" + src.label +
                      "'): must be a C identifier, the extern \"C\" entry point the source defines"};
  if (src.code.empty())
    return Status{ErrorCode::invalid_argument, "code",
                  "code is empty (kernel '" + src.kernel_name + "'): it must define the entry point"};
  return {};
}

}  // namespace

const char* to_string(CubinOrigin origin) {
  switch (origin) {
    case CubinOrigin::memory: return "memory";
    case CubinOrigin::disk: return "disk";
    case CubinOrigin::compiled: return "compiled";
  }
  return "?";
}

struct Runtime::State {
  RuntimeConfig config;
  std::array<std::atomic<bool>, kCacheProblemKinds> warned{};
  std::atomic<uint64_t> memory_hits{0}, disk_hits{0}, compiles{0}, compile_failures{0};
  std::atomic<uint64_t> invalid_files{0}, write_failures{0}, unusable_dirs{0};
  DiskCache disk;
  mutable std::mutex map_mutex;
  std::map<Digest, std::shared_ptr<Entry>> entries;

  explicit State(RuntimeConfig c)
      : config(std::move(c)),
        disk(config.cache_root, [this](CacheProblem kind, const std::string& msg) { report(kind, msg); }) {
    if (!config.warn) config.warn = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  }

  // Counts every problem; warns about the first of each kind only.
  void report(CacheProblem kind, const std::string& msg) {
    (kind == CacheProblem::invalid_file   ? invalid_files
     : kind == CacheProblem::write_failed ? write_failures
                                          : unusable_dirs)++;
    if (!warned[static_cast<int>(kind)].exchange(true))
      config.warn("tilegemm: warning: " + msg + " (further problems of this kind are not reported)");
  }

  Digest key_of(const KernelSource& src) const {
    const KeyEnvironment& env = key_environment();
    KeyInputs in;
    in.source = src.code;
    in.kernel_name = src.kernel_name;
    in.options = config.options;
    in.header_digest = config.headers.digest;
    in.nvrtc_version = env.nvrtc_version;
    in.driver_version = env.driver_version;
    in.library_version = env.library_version;
    return cache_key(in);
  }

  // Disk, else NVRTC (and store). Runs in the inserting thread only.
  Status fill(Entry& e, const KernelSource& src, const Digest& key, std::string* log) {
    e.label = src.label;
    e.kernel_name = src.kernel_name;
    e.key_hex = to_hex(key);
    e.cache_path = disk.path(key);
    std::vector<uint8_t> bytes;
    EntryMeta meta;
    if (disk.read(key, &bytes, &meta) == DiskCache::Lookup::hit) {
      ++disk_hits;
      e.origin = CubinOrigin::disk;
      e.compile_seconds = meta.compile_seconds;
      e.cubin = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
      return {};
    }
    CompileOutput out;
    Status s = compile_to_cubin(src.code, src.kernel_name + ".cu", src.label, config.headers, config.options, &out);
    *log = std::move(out.log);
    if (!s.ok()) {
      ++compile_failures;
      return s;
    }
    ++compiles;
    e.origin = CubinOrigin::compiled;
    e.compile_seconds = out.seconds;
    e.cubin = std::make_shared<const std::vector<uint8_t>>(std::move(out.cubin));
    if (!disk.write(key, EntryMeta{src.label, src.kernel_name, out.seconds}, *e.cubin)) e.cache_path.clear();
    return {};
  }

  // The ready entry for `src` (filled by this thread or another one).
  Status entry_for(const KernelSource& src, std::shared_ptr<Entry>* out, CubinInfo* info) {
    const auto t0 = Clock::now();
    if (Status s = check_source(src); !s.ok()) return s;
    const Digest key = key_of(src);
    std::shared_ptr<Entry> e;
    bool fill_here = false;
    {
      std::lock_guard<std::mutex> lock(map_mutex);
      std::shared_ptr<Entry>& slot = entries[key];
      if (!slot) {
        slot = std::make_shared<Entry>();
        fill_here = true;
      }
      e = slot;
    }
    std::string log;
    CubinOrigin origin = CubinOrigin::memory;
    if (fill_here) {
      Status s = fill(*e, src, key, &log);
      {
        std::lock_guard<std::mutex> lock(e->mutex);
        e->state = s.ok() ? EntryState::ready : EntryState::failed;
        e->status = s;
      }
      e->done.notify_all();
      if (!s.ok()) {
        std::lock_guard<std::mutex> lock(map_mutex);
        if (auto it = entries.find(key); it != entries.end() && it->second == e) entries.erase(it);
        return s;
      }
      origin = e->origin;
    } else {
      std::unique_lock<std::mutex> lock(e->mutex);
      e->done.wait(lock, [&] { return e->state != EntryState::pending; });
      if (e->state == EntryState::failed) return e->status;
      ++memory_hits;
    }
    if (info != nullptr) {
      info->origin = origin;
      info->seconds = since(t0);
      info->compile_seconds = e->compile_seconds;
      info->key = e->key_hex;
      info->cubin = e->cubin;
      info->cache_path = e->cache_path;
      info->log = std::move(log);
    }
    *out = std::move(e);
    return {};
  }
};

Runtime::Runtime(RuntimeConfig config) : state_(std::make_unique<State>(std::move(config))) {}

Runtime::~Runtime() {
  for (auto& [key, e] : state_->entries)
    if (e->owned_kernel) e->owned_kernel->unload();
}

Status Runtime::get_cubin(const KernelSource& source, CubinInfo* info) {
  std::shared_ptr<Entry> e;
  return state_->entry_for(source, &e, info);
}

Status Runtime::get_kernel(const KernelSource& source, const Kernel** kernel, CubinInfo* info) {
  *kernel = nullptr;
  std::shared_ptr<Entry> e;
  if (Status s = state_->entry_for(source, &e, info); !s.ok()) return s;
  if (const Kernel* k = e->kernel.load(std::memory_order_acquire)) {
    *kernel = k;
    return {};
  }
  std::lock_guard<std::mutex> lock(e->load_mutex);
  if (!e->owned_kernel) {
    std::unique_ptr<Kernel> k(new Kernel());
    if (Status s = k->load(*e->cubin, e->kernel_name, e->label, e->key_hex); !s.ok()) return s;
    e->owned_kernel = std::move(k);
    e->kernel.store(e->owned_kernel.get(), std::memory_order_release);
  }
  *kernel = e->owned_kernel.get();
  return {};
}

std::vector<KernelRecord> Runtime::records() const {
  std::vector<KernelRecord> out;
  std::lock_guard<std::mutex> lock(state_->map_mutex);
  for (const auto& [key, e] : state_->entries) {
    std::lock_guard<std::mutex> entry_lock(e->mutex);
    if (e->state != EntryState::ready) continue;
    out.push_back(KernelRecord{e->label, e->kernel_name, e->key_hex, e->origin, e->compile_seconds,
                               e->cubin->size(), e->cache_path, e->kernel.load() != nullptr});
  }
  return out;
}

CacheCounters Runtime::counters() const {
  const State& s = *state_;
  return CacheCounters{s.memory_hits, s.disk_hits,     s.compiles,      s.compile_failures,
                       s.invalid_files, s.write_failures, s.unusable_dirs};
}

std::string Runtime::cache_dir() const { return state_->disk.dir(); }

const RuntimeConfig& Runtime::config() const { return state_->config; }

Runtime& runtime() {
  // Never destroyed: kernels stay loaded until the process ends (the driver tears them down).
  static Runtime* const rt = [] {
    RuntimeConfig config;
    std::string why_none;
    config.cache_root = resolve_cache_root([](const char* name) { return std::getenv(name); }, &why_none);
    const bool explained_off = config.cache_root.empty() && why_none == std::string(kCacheDirEnv) + "=off";
    auto* r = new Runtime(std::move(config));
    if (r->config().cache_root.empty() && !explained_off)
      r->config().warn("tilegemm: warning: no kernel cache directory (" + why_none +
                       "); compiled kernels are kept in memory only");
    return r;
  }();
  return *rt;
}

}  // namespace tilegemm::jit
