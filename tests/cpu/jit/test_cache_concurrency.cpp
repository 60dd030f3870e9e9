// Many askers, one compile: threads of one process asking for the same kernel share one NVRTC run;
// processes warming the same empty cache directory at once leave exactly one valid entry per
// kernel and no temporary files.
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <latch>
#include <set>
#include <thread>

#include "jit/cubin_elf.hpp"
#include "jit/disk_cache.hpp"
#include "jit/probe.hpp"
#include "jit_test_util.hpp"

extern char** environ;

namespace tilegemm::jit::test {

constexpr int kWorkerKernels = 3;  // probe k_steps 1..3

// A worker process (see jit_test_main.cpp): wait for the go file, then compile every probe kernel
// into `cache_root`, starting at a different kernel per worker. Exit status 0 when all succeeded.
int run_cache_worker(const char* cache_root) {
  const char* go = std::getenv("TILEGEMM_JIT_TEST_WORKER_GO");
  const int index = std::atoi(std::getenv("TILEGEMM_JIT_TEST_WORKER_INDEX") ? std::getenv("TILEGEMM_JIT_TEST_WORKER_INDEX") : "0");
  for (int i = 0; go != nullptr && !std::filesystem::exists(go) && i < 10000; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  RuntimeConfig config;
  config.cache_root = cache_root;
  Runtime rt(std::move(config));
  for (int i = 0; i < kWorkerKernels; ++i) {
    CubinInfo info;
    const Status s = rt.get_cubin(probe_source(1 + (index + i) % kWorkerKernels), &info);
    if (!s.ok()) {
      std::fprintf(stderr, "worker %d: %s\n", index, s.message.c_str());
      return 1;
    }
  }
  return 0;
}

namespace {

Digest from_hex(const std::string& hex) {
  Digest d{};
  for (size_t i = 0; i < d.size(); ++i) d[i] = static_cast<uint8_t>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  return d;
}

TEST(CacheThreads, SameKernelIsCompiledOnce) {
  TempDir dir;
  TestRuntime rt(dir.path.string());
  constexpr int kThreads = 8;
  std::latch start(kThreads);
  std::vector<CubinInfo> infos(kThreads);
  std::vector<Status> statuses(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      statuses[t] = rt->get_cubin(probe_source(5), &infos[t]);
    });
  for (auto& th : threads) th.join();
  int compiled = 0;
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_TRUE(statuses[t].ok()) << statuses[t].message;
    compiled += infos[t].origin == CubinOrigin::compiled;
    EXPECT_EQ(infos[t].cubin, infos[0].cubin);  // one shared object
  }
  EXPECT_EQ(compiled, 1);
  EXPECT_EQ(rt->counters().compiles, 1u);
  EXPECT_EQ(rt->counters().memory_hits, uint64_t(kThreads - 1));
}

TEST(CacheThreads, DifferentKernelsEachCompiledOnce) {
  TestRuntime rt("");
  constexpr int kThreads = 6;
  std::latch start(kThreads);
  std::vector<Status> statuses(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      CubinInfo info;
      statuses[t] = rt->get_cubin(probe_source(1 + t % 3), &info);
    });
  for (auto& th : threads) th.join();
  for (const Status& s : statuses) EXPECT_TRUE(s.ok()) << s.message;
  EXPECT_EQ(rt->counters().compiles, 3u);
  EXPECT_EQ(rt->records().size(), 3u);
}

// A failed compile is not remembered as a result: the next call tries again and fails the same way.
TEST(CacheThreads, FailuresAreNotCached) {
  TestRuntime rt("");
  const KernelSource bad{"extern \"C\" __global__ void bad() { undeclared(); }", "bad", "bad"};
  CubinInfo info;
  EXPECT_FALSE(rt->get_cubin(bad, &info).ok());
  EXPECT_FALSE(rt->get_cubin(bad, &info).ok());
  EXPECT_EQ(rt->counters().compile_failures, 2u);
  EXPECT_TRUE(rt->records().empty());
}

TEST(CacheThreads, InvalidSourceArgumentsAreNamed) {
  TestRuntime rt("");
  CubinInfo info;
  Status s = rt->get_cubin(KernelSource{"x", "not an identifier", "l"}, &info);
  EXPECT_EQ(s.code, ErrorCode::invalid_argument);
  EXPECT_EQ(s.argument, "kernel_name");
  s = rt->get_cubin(KernelSource{"", "k", "l"}, &info);
  EXPECT_EQ(s.argument, "code");
}

TEST(CacheProcesses, FourProcessesWarmOneEmptyDirectory) {
  constexpr int kWorkers = 4;
  TempDir cache, control;
  ASSERT_TRUE(files_in(cache.path).empty());
  const std::string go = (control.path / "go").string();
  std::vector<pid_t> pids;
  for (int w = 0; w < kWorkers; ++w) {
    std::vector<std::string> env_storage;
    for (char** e = environ; *e != nullptr; ++e)
      if (std::strncmp(*e, "TILEGEMM_", 9) != 0) env_storage.emplace_back(*e);
    env_storage.push_back("TILEGEMM_JIT_TEST_WORKER=" + cache.path.string());
    env_storage.push_back("TILEGEMM_JIT_TEST_WORKER_GO=" + go);
    env_storage.push_back("TILEGEMM_JIT_TEST_WORKER_INDEX=" + std::to_string(w));
    std::vector<char*> envp;
    for (std::string& s : env_storage) envp.push_back(s.data());
    envp.push_back(nullptr);
    char exe[] = "/proc/self/exe";
    char* argv[] = {exe, nullptr};
    pid_t pid = 0;
    ASSERT_EQ(::posix_spawn(&pid, exe, nullptr, nullptr, argv, envp.data()), 0);
    pids.push_back(pid);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // let them start, then release all
  std::ofstream(go) << "go";
  for (pid_t pid : pids) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "worker status " << status;
  }

  // Nothing but the cubin-v1 directory, in it one file per kernel and no temporary file.
  EXPECT_EQ(files_in(cache.path), std::vector<std::string>{"cubin-v1"});
  const std::vector<std::string> names = files_in(cache.path / "cubin-v1");
  ASSERT_EQ(names.size(), size_t(kWorkerKernels));
  std::set<std::string> labels;
  for (const std::string& name : names) {
    ASSERT_EQ(name.size(), 64u + 6u) << name;  // <key hex>.cubin
    ASSERT_EQ(name.substr(64), ".cubin") << name;
    std::ifstream in(cache.path / "cubin-v1" / name, std::ios::binary);
    const std::vector<uint8_t> file((std::istreambuf_iterator<char>(in)), {});
    EntryMeta meta;
    std::span<const uint8_t> cubin;
    ASSERT_EQ(decode_entry(file, from_hex(name.substr(0, 64)), &meta, &cubin), "") << name;
    EXPECT_EQ(check_cubin_elf(cubin, 90), "") << name;
    labels.insert(meta.label);
  }
  EXPECT_EQ(labels, (std::set<std::string>{"probe k_steps=1", "probe k_steps=2", "probe k_steps=3"}));

  TestRuntime reader(cache.path.string());  // a later process finds them all
  for (int k = 1; k <= kWorkerKernels; ++k) {
    CubinInfo info;
    ASSERT_TRUE(reader->get_cubin(probe_source(k), &info).ok());
    EXPECT_EQ(info.origin, CubinOrigin::disk);
  }
  EXPECT_TRUE(reader.warning_lines().empty());
}

}  // namespace
}  // namespace tilegemm::jit::test
