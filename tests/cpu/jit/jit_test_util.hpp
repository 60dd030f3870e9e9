// Helpers shared by the JIT tests: a fresh temporary directory, a Runtime over it whose warnings
// are collected, and the files a cache directory holds.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "jit/jit.hpp"

namespace tilegemm::jit::test {

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string templ = (std::filesystem::temp_directory_path() / "tilegemm_jit_test_XXXXXX").string();
    path = ::mkdtemp(templ.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

// A Runtime on `cache_root` ("" = memory only) that records its warnings.
struct TestRuntime {
  std::shared_ptr<std::vector<std::string>> warnings = std::make_shared<std::vector<std::string>>();
  std::shared_ptr<std::mutex> warnings_mutex = std::make_shared<std::mutex>();
  std::unique_ptr<Runtime> runtime;

  explicit TestRuntime(const std::string& cache_root) {
    RuntimeConfig c;
    c.cache_root = cache_root;
    c.warn = [w = warnings, m = warnings_mutex](const std::string& line) {
      std::lock_guard<std::mutex> lock(*m);
      w->push_back(line);
    };
    runtime = std::make_unique<Runtime>(std::move(c));
  }
  Runtime* operator->() { return runtime.get(); }
  std::vector<std::string> warning_lines() {
    std::lock_guard<std::mutex> lock(*warnings_mutex);
    return *warnings;
  }
};

// Names of the regular files directly in `dir`, sorted.
inline std::vector<std::string> files_in(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// stdout (and whatever the command redirects into it) of a shell command.
inline std::string run_command(const std::string& command) {
  std::string out;
  if (FILE* f = ::popen(command.c_str(), "r")) {
    std::array<char, 4096> buf;
    while (size_t n = std::fread(buf.data(), 1, buf.size(), f)) out.append(buf.data(), n);
    ::pclose(f);
  }
  return out;
}

// cuobjdump and nvdisasm on PATH (.ci/run installs them from PyPI): the SASS audits need both.
inline bool have_cuobjdump() {
  static const bool found =
      run_command("command -v cuobjdump >/dev/null 2>&1 && command -v nvdisasm >/dev/null 2>&1 && echo yes")
          .find("yes") != std::string::npos;
  return found;
}

}  // namespace tilegemm::jit::test
