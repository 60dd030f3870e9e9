// POSIX file handling for the disk cache (open/write/fsync/rename: rename within one directory
// replaces the target atomically, so a reader sees the old file or the new one, never a part).
#include "jit/disk_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <random>

namespace tilegemm::jit {
namespace {

constexpr char kMagic[8] = {'T', 'G', 'C', 'U', 'B', 'I', 'N', '\0'};
constexpr uint64_t kMaxFileBytes = uint64_t(1) << 30;  // a cubin is KBs to a few MBs

void put_le(uint8_t* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint64_t get_le(std::span<const uint8_t> in, size_t offset, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t(in[offset + i]) << (8 * i);
  return v;
}

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

std::string encode_meta(const EntryMeta& m) {
  char seconds[32];
  const auto r = std::to_chars(seconds, seconds + sizeof(seconds), m.compile_seconds);
  return "label=" + one_line(m.label) + "\nkernel=" + one_line(m.kernel_name) +
         "\ncompile_seconds=" + std::string(seconds, r.ptr) + "\n";
}

EntryMeta decode_meta(std::string_view text) {
  EntryMeta m;
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    const std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view k = line.substr(0, eq), v = line.substr(eq + 1);
    if (k == "label") m.label = v;
    if (k == "kernel") m.kernel_name = v;
    if (k == "compile_seconds") std::from_chars(v.data(), v.data() + v.size(), m.compile_seconds);
  }
  return m;
}

std::string errno_text(const char* what, const std::string& path) {
  return std::string(what) + " " + path + ": " + std::strerror(errno);
}

bool write_all(int fd, const uint8_t* p, size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// A name no other writer (thread, process, or process in another PID namespace) picks.
std::string temp_name(const std::string& final_path) {
  static std::atomic<uint64_t> counter{0};
  static const uint64_t salt = [] {
    std::random_device rd;
    return (uint64_t(rd()) << 32) ^ rd();
  }();
  return final_path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1)) + "." +
         std::to_string(salt % 1000000007u);
}

}  // namespace

std::string resolve_cache_root(const std::function<const char*(const char*)>& getenv, std::string* why_none) {
  auto value = [&](const char* name) -> std::string {
    const char* v = getenv(name);
    return v == nullptr ? std::string() : std::string(v);
  };
  const std::string explicit_dir = value(kCacheDirEnv);
  if (explicit_dir == "off") {
    if (why_none) *why_none = std::string(kCacheDirEnv) + "=off";
    return {};
  }
  if (!explicit_dir.empty()) return explicit_dir;
  const std::string xdg = value("XDG_CACHE_HOME");
  if (!xdg.empty() && xdg.front() == '/') return xdg + "/tilegemm";
  const std::string home = value("HOME");
  if (!home.empty()) return home + "/.cache/tilegemm";
  if (why_none)
    *why_none = std::string("none of ") + kCacheDirEnv + ", XDG_CACHE_HOME (absolute) and HOME is set";
  return {};
}

std::vector<uint8_t> encode_entry(const Digest& key, const EntryMeta& meta, std::span<const uint8_t> payload) {
  const std::string meta_text = encode_meta(meta);
  Sha256 h;
  h.update(meta_text);
  h.update(payload.data(), payload.size());
  const Digest checksum = h.finish();
  std::vector<uint8_t> out(kEntryHeaderBytes + meta_text.size() + payload.size());
  std::memcpy(out.data(), kMagic, 8);
  put_le(out.data() + 8, kEntryFormatVersion, 4);
  put_le(out.data() + 12, meta_text.size(), 4);
  put_le(out.data() + 16, payload.size(), 8);
  std::memcpy(out.data() + 24, key.data(), key.size());
  std::memcpy(out.data() + 56, checksum.data(), checksum.size());
  std::memcpy(out.data() + kEntryHeaderBytes, meta_text.data(), meta_text.size());
  if (!payload.empty()) std::memcpy(out.data() + kEntryHeaderBytes + meta_text.size(), payload.data(), payload.size());
  return out;
}

std::string decode_entry(std::span<const uint8_t> file, const Digest& key, EntryMeta* meta,
                         std::span<const uint8_t>* payload) {
  const std::string size = std::to_string(file.size());
  if (file.size() < kEntryHeaderBytes)
    return "truncated: " + size + " bytes, shorter than the " + std::to_string(kEntryHeaderBytes) + "-byte header";
  if (std::memcmp(file.data(), kMagic, 8) != 0) return "not a tilegemm cache entry (magic is not TGCUBIN)";
  const uint64_t version = get_le(file, 8, 4);
  if (version != kEntryFormatVersion)
    return "format version " + std::to_string(version) + ", expected " + std::to_string(kEntryFormatVersion);
  const uint64_t meta_bytes = get_le(file, 12, 4), payload_bytes = get_le(file, 16, 8);
  if (payload_bytes > kMaxFileBytes || kEntryHeaderBytes + meta_bytes + payload_bytes != file.size())
    return "truncated or padded: " + size + " bytes, the header announces " +
           std::to_string(kEntryHeaderBytes + meta_bytes + payload_bytes);
  if (!std::equal(key.begin(), key.end(), file.begin() + 24)) return "stored key differs from the file's name";
  Sha256 h;
  h.update(file.data() + kEntryHeaderBytes, meta_bytes + payload_bytes);
  const Digest checksum = h.finish();
  if (!std::equal(checksum.begin(), checksum.end(), file.begin() + 56))
    return "checksum mismatch: the content is not what was written";
  const auto* meta_begin = reinterpret_cast<const char*>(file.data() + kEntryHeaderBytes);
  if (meta) *meta = decode_meta(std::string_view(meta_begin, meta_bytes));
  if (payload) *payload = file.subspan(kEntryHeaderBytes + meta_bytes, payload_bytes);
  return {};
}

DiskCache::DiskCache(std::string root, Report report) : root_(std::move(root)), report_(std::move(report)) {}

void DiskCache::open_dir() const {
  std::call_once(opened_, [this] {
    if (root_.empty()) return;
    const std::string dir = root_ + "/cubin-v" + std::to_string(kEntryFormatVersion);
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec || !std::filesystem::is_directory(dir, ec)) {
      report_(CacheProblem::unusable_dir, "cannot create the kernel cache directory " + dir + " (" +
                                              (ec ? ec.message() : std::string("not a directory")) +
                                              "); compiled kernels are kept in memory only");
      return;
    }
    dir_ = dir;
    readable_ = true;
    writable_ = ::access(dir.c_str(), W_OK) == 0;
    if (!writable_)
      report_(CacheProblem::unusable_dir, errno_text("cannot write to the kernel cache directory", dir) +
                                              "; existing entries are read, new kernels are kept in memory only");
  });
}

std::string DiskCache::dir() const {
  open_dir();
  return dir_;
}

bool DiskCache::writable() const {
  open_dir();
  return writable_;
}

std::string DiskCache::path(const Digest& key) const {
  open_dir();
  return readable_ ? dir_ + "/" + to_hex(key) + ".cubin" : std::string();
}

DiskCache::Lookup DiskCache::read(const Digest& key, std::vector<uint8_t>* cubin, EntryMeta* meta) {
  const std::string file = path(key);
  if (file.empty()) return Lookup::miss;
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return Lookup::miss;
    report_(CacheProblem::invalid_file, errno_text("cannot open the cache file", file) + "; rebuilding it");
    return Lookup::invalid;
  }
  std::vector<uint8_t> bytes;
  struct stat st {};
  bool ok = ::fstat(fd, &st) == 0 && uint64_t(st.st_size) <= kMaxFileBytes;
  if (ok) {
    bytes.resize(static_cast<size_t>(st.st_size));
    size_t got = 0;
    while (ok && got < bytes.size()) {
      const ssize_t r = ::read(fd, bytes.data() + got, bytes.size() - got);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) ok = false;
      else got += static_cast<size_t>(r);
    }
  }
  ::close(fd);
  std::span<const uint8_t> payload;
  const std::string problem = ok ? decode_entry(bytes, key, meta, &payload) : errno_text("cannot read", file);
  if (!problem.empty()) {
    report_(CacheProblem::invalid_file, "cache file " + file + " is invalid (" + problem + "); rebuilding it");
    return Lookup::invalid;
  }
  cubin->assign(payload.begin(), payload.end());
  return Lookup::hit;
}

bool DiskCache::write(const Digest& key, const EntryMeta& meta, std::span<const uint8_t> cubin) {
  const std::string file = path(key);
  if (file.empty() || !writable_) return false;
  const std::vector<uint8_t> bytes = encode_entry(key, meta, cubin);
  const std::string tmp = temp_name(file);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  std::string failure;
  if (fd < 0) {
    failure = errno_text("cannot create", tmp);
  } else {
    if (!write_all(fd, bytes.data(), bytes.size())) failure = errno_text("cannot write", tmp);
    else if (::fsync(fd) != 0) failure = errno_text("cannot fsync", tmp);
    if (::close(fd) != 0 && failure.empty()) failure = errno_text("cannot close", tmp);
    if (failure.empty() && ::rename(tmp.c_str(), file.c_str()) != 0)
      failure = errno_text(("cannot rename to " + file + ":").c_str(), tmp);
    if (!failure.empty()) ::unlink(tmp.c_str());
  }
  if (!failure.empty()) {
    report_(CacheProblem::write_failed, failure + "; the kernel is kept in memory only");
    return false;
  }
  // Make the rename itself durable (POSIX leaves directory entries to an fsync of the directory).
  if (const int dfd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return true;
}

}  // namespace tilegemm::jit
