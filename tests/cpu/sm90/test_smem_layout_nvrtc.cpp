// The JIT compiles kernels with NVRTC, so smem_layout.hpp must compile there too (no std headers,
// no include path), and give NVRTC the same numbers as the host. NVRTC is loaded with dlopen so test_sm90 needs no link-time NVRTC dependency;
// without the library the test is skipped. Compiling to PTX needs no GPU.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sm90/smem_layout.hpp"

namespace tilegemm::sm90 {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The subset of nvrtc.h this test calls (nvrtcResult is an int-sized enum, nvrtcProgram a pointer).
using CreateFn = int (*)(void**, const char*, const char*, int, const char* const*, const char* const*);
using CompileFn = int (*)(void*, int, const char* const*);
using LogSizeFn = int (*)(void*, size_t*);
using LogFn = int (*)(void*, char*);
using DestroyFn = int (*)(void**);

TEST(SmemLayoutNvrtc, CompilesUnderNvrtcForSm90a) {
  void* lib = dlopen("libnvrtc.so.13", RTLD_NOW);
  if (!lib) lib = dlopen("libnvrtc.so", RTLD_NOW);
  if (!lib) GTEST_SKIP() << "libnvrtc not found: " << dlerror();
  auto create = reinterpret_cast<CreateFn>(dlsym(lib, "nvrtcCreateProgram"));
  auto compile = reinterpret_cast<CompileFn>(dlsym(lib, "nvrtcCompileProgram"));
  auto log_size = reinterpret_cast<LogSizeFn>(dlsym(lib, "nvrtcGetProgramLogSize"));
  auto get_log = reinterpret_cast<LogFn>(dlsym(lib, "nvrtcGetProgramLog"));
  auto destroy = reinterpret_cast<DestroyFn>(dlsym(lib, "nvrtcDestroyProgram"));
  ASSERT_TRUE(create && compile && log_size && get_log && destroy);

  const std::string src_dir = std::string(TILEGEMM_SOURCE_DIR) + "/src/";
  const std::string layout_hpp = read_file(src_dir + "sm90/smem_layout.hpp");
  const std::string host_device_hpp = read_file(src_dir + "core/host_device.hpp");
  ASSERT_FALSE(layout_hpp.empty());
  ASSERT_FALSE(host_device_hpp.empty());
  const char* headers[] = {layout_hpp.c_str(), host_device_hpp.c_str()};
  const char* names[] = {"sm90/smem_layout.hpp", "core/host_device.hpp"};
  const char* program = R"(
#include "sm90/smem_layout.hpp"
using namespace tilegemm::sm90;
constexpr SmemLayout kL = compute_smem_layout(128, 128, 64, 4, 2);
static_assert(kL.total_bytes == 164928, "same layout as on the host");
static_assert(compute_smem_layout(128, 256, 64, 4, 2, 2, 128).total_bytes == 230464, "part-staged D");
static_assert(max_stages_that_fit(128, 256, 64, 2, kSmemLimitPerBlock, 2, 128) == 4, "4 stages");
extern "C" __global__ void probe(int* out, int s) {
  const SmemLayout L = compute_smem_layout(64, 128, 64, max_stages_that_fit(64, 128, 64, 4), 4);
  out[0] = L.a_offset(s) + L.b_offset(s) + L.full_barrier(s) + kL.total_bytes;
}
)";
  void* prog = nullptr;
  ASSERT_EQ(create(&prog, program, "probe.cu", 2, headers, names), 0);
  const char* opts[] = {"-arch=compute_90a", "-std=c++17"};
  const int rc = compile(prog, 2, opts);
  size_t n = 0;
  log_size(prog, &n);
  std::string log(n, '\0');
  if (n > 0) get_log(prog, log.data());
  destroy(&prog);
  EXPECT_EQ(rc, 0) << "NVRTC log:\n" << log;
}

}  // namespace
}  // namespace tilegemm::sm90
