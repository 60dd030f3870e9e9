// The on-disk half of the JIT cache: one file per kernel, <root>/cubin-v1/<key hex>.cubin,
// written atomically (unique temp file in the same directory, fsync, rename) and checked on read.
//
// File layout (little-endian), kEntryHeaderBytes = 88:
//   0  char[8]  magic "TGCUBIN\0"        8  u32 format version (1)   12 u32 meta bytes
//   16 u64 payload bytes                 24 u8[32] cache key          56 u8[32] SHA-256(meta || payload)
//   88 meta ("label=...\nkernel=...\ncompile_seconds=...\n"), then the payload (the cubin).
// A file whose length, magic, version, key or checksum is wrong is reported and rebuilt.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "jit/sha256.hpp"

namespace tilegemm::jit {

inline constexpr char kCacheDirEnv[] = "TILEGEMM_CACHE_DIR";  // a path, or "off"
inline constexpr size_t kEntryHeaderBytes = 88;
inline constexpr uint32_t kEntryFormatVersion = 1;

// Where the disk cache lives: $TILEGEMM_CACHE_DIR, else $XDG_CACHE_HOME/tilegemm (absolute
// XDG_CACHE_HOME only, as the XDG Base Directory spec says), else $HOME/.cache/tilegemm.
// Returns "" when there is none: TILEGEMM_CACHE_DIR=off, or no variable set; `why_none` then says
// which. `getenv` is a parameter so tests can supply an environment.
std::string resolve_cache_root(const std::function<const char*(const char*)>& getenv, std::string* why_none);

struct EntryMeta {
  std::string label;        // human-readable config name
  std::string kernel_name;  // entry point
  double compile_seconds = 0.0;
};

std::vector<uint8_t> encode_entry(const Digest& key, const EntryMeta& meta, std::span<const uint8_t> payload);

// Empty string when `file` is a valid entry for `key`; else what is wrong ("truncated: ...").
// On success `payload` views into `file`.
std::string decode_entry(std::span<const uint8_t> file, const Digest& key, EntryMeta* meta,
                         std::span<const uint8_t>* payload);

enum class CacheProblem : int { invalid_file = 0, unusable_dir = 1, write_failed = 2 };
inline constexpr int kCacheProblemKinds = 3;

class DiskCache {
 public:
  using Report = std::function<void(CacheProblem, const std::string&)>;

  // `root` "" disables the disk cache. Nothing touches the file system until the first read/write.
  DiskCache(std::string root, Report report);

  enum class Lookup { hit, miss, invalid };
  // hit: `cubin` and `meta` filled. invalid: the file exists but is not a valid entry (reported).
  Lookup read(const Digest& key, std::vector<uint8_t>* cubin, EntryMeta* meta);
  // false when the entry could not be stored (reported; the caller keeps it in memory).
  bool write(const Digest& key, const EntryMeta& meta, std::span<const uint8_t> cubin);

  std::string path(const Digest& key) const;  // "" when the disk cache is off or unusable
  std::string dir() const;                    // <root>/cubin-v1, or "" when off or unusable
  bool writable() const;

 private:
  void open_dir() const;  // once: create the directory, probe that it can be written

  std::string root_;
  Report report_;
  mutable std::once_flag opened_;
  mutable std::string dir_;  // set by open_dir
  mutable bool readable_ = false, writable_ = false;
};

}  // namespace tilegemm::jit
