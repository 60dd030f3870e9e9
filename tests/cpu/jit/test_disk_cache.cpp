// The disk cache: entry format round trip and its damage detection; the runtime's disk behaviour
// (store, reuse by a new process-like runtime, rebuild of damaged files with one warning, a
// directory that cannot be used); the cache directory chosen from the environment.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "jit/cubin_elf.hpp"
#include "jit/disk_cache.hpp"
#include "jit/probe.hpp"
#include "jit_test_util.hpp"

namespace tilegemm::jit {
namespace {

namespace fs = std::filesystem;
using test::TempDir;
using test::TestRuntime;

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}
void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

TEST(CacheEntry, RoundTrip) {
  const Digest key = sha256("key");
  const std::vector<uint8_t> payload = {1, 2, 3, 0, 255};
  const std::vector<uint8_t> file = encode_entry(key, EntryMeta{"cfg\nA", "k", 0.25}, payload);
  EntryMeta meta;
  std::span<const uint8_t> got;
  ASSERT_EQ(decode_entry(file, key, &meta, &got), "");
  EXPECT_EQ(std::vector<uint8_t>(got.begin(), got.end()), payload);
  EXPECT_EQ(meta.label, "cfg A");  // one line
  EXPECT_EQ(meta.kernel_name, "k");
  EXPECT_DOUBLE_EQ(meta.compile_seconds, 0.25);
}

// Every truncation and every single flipped bit (of the header, the meta and the payload) is caught.
TEST(CacheEntry, EveryTruncationAndFlipIsDetected) {
  const Digest key = sha256("key");
  std::vector<uint8_t> payload(300);
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<uint8_t>(i * 31);
  const std::vector<uint8_t> file = encode_entry(key, EntryMeta{"label", "kernel", 1.5}, payload);
  for (size_t n = 0; n < file.size(); ++n)
    ASSERT_NE(decode_entry(std::span(file).first(n), key, nullptr, nullptr), "") << "truncated to " << n;
  for (size_t i = 0; i < file.size(); ++i)
    for (int bit = 0; bit < 8; ++bit) {
      std::vector<uint8_t> bad = file;
      bad[i] ^= static_cast<uint8_t>(1u << bit);
      ASSERT_NE(decode_entry(bad, key, nullptr, nullptr), "") << "byte " << i << " bit " << bit;
    }
  EXPECT_NE(decode_entry(file, sha256("other key"), nullptr, nullptr).find("key"), std::string::npos);
}

TEST(CacheRoot, FromTheEnvironment) {
  auto resolve = [](std::map<std::string, std::string> env, std::string* why = nullptr) {
    std::string ignored;
    return resolve_cache_root(
        [&env](const char* name) -> const char* {
          auto it = env.find(name);
          return it == env.end() ? nullptr : it->second.c_str();
        },
        why ? why : &ignored);
  };
  EXPECT_EQ(resolve({{"TILEGEMM_CACHE_DIR", "/x/y"}, {"HOME", "/h"}}), "/x/y");
  std::string why;
  EXPECT_EQ(resolve({{"TILEGEMM_CACHE_DIR", "off"}, {"HOME", "/h"}}, &why), "");
  EXPECT_EQ(why, "TILEGEMM_CACHE_DIR=off");
  EXPECT_EQ(resolve({{"XDG_CACHE_HOME", "/xdg"}, {"HOME", "/h"}}), "/xdg/tilegemm");
  EXPECT_EQ(resolve({{"XDG_CACHE_HOME", "relative"}, {"HOME", "/h"}}), "/h/.cache/tilegemm");
  EXPECT_EQ(resolve({{"TILEGEMM_CACHE_DIR", ""}, {"HOME", "/h"}}), "/h/.cache/tilegemm");
  EXPECT_EQ(resolve({}, &why), "");
  EXPECT_NE(why.find("HOME"), std::string::npos);
}

TEST(DiskCache, StoresAndReusesAcrossRuntimes) {
  TempDir dir;
  CubinInfo first, again, fresh;
  {
    TestRuntime rt(dir.path.string());
    ASSERT_TRUE(rt->get_cubin(probe_source(1), &first).ok());
    EXPECT_EQ(first.origin, CubinOrigin::compiled);
    ASSERT_TRUE(rt->get_cubin(probe_source(1), &again).ok());
    EXPECT_EQ(again.origin, CubinOrigin::memory);
    EXPECT_EQ(again.cubin, first.cubin);  // the same bytes object
    EXPECT_TRUE(rt.warning_lines().empty());
  }
  EXPECT_EQ(fs::path(first.cache_path).parent_path(), dir.path / "cubin-v1");
  EXPECT_EQ(fs::path(first.cache_path).filename(), first.key + ".cubin");
  EXPECT_EQ(test::files_in(dir.path / "cubin-v1"), std::vector<std::string>{first.key + ".cubin"});
  TestRuntime rt2(dir.path.string());  // as a new process would
  ASSERT_TRUE(rt2->get_cubin(probe_source(1), &fresh).ok());
  EXPECT_EQ(fresh.origin, CubinOrigin::disk);
  EXPECT_EQ(*fresh.cubin, *first.cubin);
  EXPECT_DOUBLE_EQ(fresh.compile_seconds, first.compile_seconds);
  EXPECT_EQ(rt2->counters().compiles, 0u);
  EXPECT_EQ(rt2->counters().disk_hits, 1u);
  const auto records = rt2->records();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].label, "probe k_steps=1");
  EXPECT_EQ(records[0].origin, CubinOrigin::disk);
  EXPECT_FALSE(records[0].loaded);
}

// Damaged entries: each is rebuilt (and valid afterwards); the runtime warns once for all of them.
TEST(DiskCache, DamagedFilesAreRebuiltWithOneWarning) {
  TempDir dir;
  std::vector<std::string> paths;
  {
    TestRuntime rt(dir.path.string());
    for (int k = 1; k <= 3; ++k) {
      CubinInfo info;
      ASSERT_TRUE(rt->get_cubin(probe_source(k), &info).ok());
      paths.push_back(info.cache_path);
    }
  }
  std::vector<uint8_t> f0 = read_file(paths[0]), f1 = read_file(paths[1]);
  f0.resize(f0.size() / 2);  // truncated
  write_file(paths[0], f0);
  f1[f1.size() - 100] ^= 0x40;  // one flipped bit in the cubin
  write_file(paths[1], f1);
  write_file(paths[2] + ".unrelated", {1, 2, 3});  // not an entry name: ignored

  TestRuntime rt(dir.path.string());
  for (int k = 1; k <= 3; ++k) {
    CubinInfo info;
    ASSERT_TRUE(rt->get_cubin(probe_source(k), &info).ok());
    EXPECT_EQ(info.origin, k == 3 ? CubinOrigin::disk : CubinOrigin::compiled) << k;
    EXPECT_EQ(check_cubin_elf(*info.cubin, 90), "");
  }
  const auto warnings = rt.warning_lines();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find(paths[0]), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("truncated"), std::string::npos) << warnings[0];
  EXPECT_EQ(rt->counters().invalid_files, 2u);
  TestRuntime later(dir.path.string());  // the rebuilt files are valid entries again
  for (int k = 1; k <= 3; ++k) {
    CubinInfo info;
    ASSERT_TRUE(later->get_cubin(probe_source(k), &info).ok());
    EXPECT_EQ(info.origin, CubinOrigin::disk) << k;
  }
  EXPECT_TRUE(later.warning_lines().empty());
}

TEST(DiskCache, FlippedByteAloneWarnsOnce) {
  TempDir dir;
  CubinInfo info;
  { TestRuntime rt(dir.path.string()); ASSERT_TRUE(rt->get_cubin(probe_source(4), &info).ok()); }
  std::vector<uint8_t> f = read_file(info.cache_path);
  f[kEntryHeaderBytes + 40] ^= 1;
  write_file(info.cache_path, f);
  TestRuntime rt(dir.path.string());
  CubinInfo again;
  ASSERT_TRUE(rt->get_cubin(probe_source(4), &again).ok());
  EXPECT_EQ(again.origin, CubinOrigin::compiled);
  ASSERT_EQ(rt.warning_lines().size(), 1u);
  EXPECT_NE(rt.warning_lines()[0].find("checksum"), std::string::npos) << rt.warning_lines()[0];
}

// A cache root below a regular file cannot be created: memory only, one warning, still correct.
TEST(DiskCache, UncreatableDirectoryFallsBackToMemory) {
  TempDir dir;
  write_file((dir.path / "plain_file").string(), {0});
  TestRuntime rt((dir.path / "plain_file" / "cache").string());
  CubinInfo a, b, c;
  ASSERT_TRUE(rt->get_cubin(probe_source(1), &a).ok());
  ASSERT_TRUE(rt->get_cubin(probe_source(2), &b).ok());
  ASSERT_TRUE(rt->get_cubin(probe_source(1), &c).ok());
  EXPECT_EQ(a.origin, CubinOrigin::compiled);
  EXPECT_EQ(c.origin, CubinOrigin::memory);
  EXPECT_EQ(a.cache_path, "");
  EXPECT_EQ(rt->cache_dir(), "");
  const auto warnings = rt.warning_lines();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("cannot create"), std::string::npos) << warnings[0];
  EXPECT_EQ(test::files_in(dir.path), std::vector<std::string>{"plain_file"});
}

// chmod 0555 does not stop root, so this runs for other users only.
TEST(DiskCache, ReadOnlyDirectoryServesEntriesAndKeepsNewOnesInMemory) {
  if (::geteuid() == 0) GTEST_SKIP() << "running as root: a 0555 directory is still writable";
  TempDir dir;
  CubinInfo old_entry;
  { TestRuntime rt(dir.path.string()); ASSERT_TRUE(rt->get_cubin(probe_source(1), &old_entry).ok()); }
  const fs::path sub = dir.path / "cubin-v1";
  fs::permissions(sub, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                           fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  TestRuntime rt(dir.path.string());
  CubinInfo a, b;
  ASSERT_TRUE(rt->get_cubin(probe_source(1), &a).ok());
  ASSERT_TRUE(rt->get_cubin(probe_source(2), &b).ok());
  EXPECT_EQ(a.origin, CubinOrigin::disk);
  EXPECT_EQ(b.origin, CubinOrigin::compiled);
  EXPECT_EQ(b.cache_path, "");
  ASSERT_EQ(rt.warning_lines().size(), 1u);
  EXPECT_EQ(test::files_in(sub).size(), 1u);
  fs::permissions(sub, fs::perms::owner_all, fs::perm_options::add);
}

TEST(DiskCache, NoRootMeansMemoryOnlyWithoutWarnings) {
  TestRuntime rt("");
  CubinInfo a;
  ASSERT_TRUE(rt->get_cubin(probe_source(1), &a).ok());
  EXPECT_EQ(a.cache_path, "");
  EXPECT_TRUE(rt.warning_lines().empty());
}

}  // namespace
}  // namespace tilegemm::jit
