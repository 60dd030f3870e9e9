// NVRTC compiles the probe kernel to an sm_90a cubin from the embedded headers alone; the probe
// really needs the "a" architecture; errors come back as values carrying the NVRTC log; and the
// cubin check accepts what NVRTC makes and rejects what it should.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "jit/cubin_elf.hpp"
#include "jit/nvrtc_compile.hpp"
#include "jit/probe.hpp"

namespace tilegemm::jit {
namespace {

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

std::vector<std::string> with_arch(const std::string& arch) {
  std::vector<std::string> o = compile_options();
  std::replace(o.begin(), o.end(), std::string("-arch=sm_90a"), arch);
  return o;
}

Status compile(const KernelSource& s, const std::vector<std::string>& options, CompileOutput* out) {
  return compile_to_cubin(s.code, s.kernel_name + ".cu", s.label, embedded_header_set(), options, out);
}

TEST(NvrtcCompile, OptionsAreTheAgreedOnes) {
  const std::vector<std::string> o = compile_options();
  EXPECT_TRUE(has(o, "-arch=sm_90a"));
  EXPECT_TRUE(has(o, "-std=c++17") || has(o, "-std=c++20"));
  EXPECT_TRUE(has(o, "-default-device"));
  for (const std::string& opt : o) {
    EXPECT_EQ(opt.find("fast_math"), std::string::npos) << opt;
    EXPECT_NE(opt.rfind("-I", 0), 0u) << "no include path: " << opt;
    EXPECT_EQ(opt.find("include-path"), std::string::npos) << opt;
  }
}

TEST(NvrtcCompile, ProbeBecomesAnSm90Cubin) {
  CompileOutput out;
  const Status s = compile(probe_source(2), compile_options(), &out);
  ASSERT_TRUE(s.ok()) << s.message;
  ASSERT_GE(out.cubin.size(), 4u);
  EXPECT_EQ(out.cubin[0], 0x7f);
  EXPECT_EQ(out.cubin[1], 'E');
  EXPECT_EQ(out.cubin[2], 'L');
  EXPECT_EQ(out.cubin[3], 'F');
  CubinHeader h;
  EXPECT_EQ(check_cubin_elf(out.cubin, 90, &h), "");
  EXPECT_EQ(h.sm, 90);
  EXPECT_GT(out.seconds, 0.0);
  // The entry point is in the cubin under its extern "C" name (the symbol string table holds it).
  const std::string bytes(out.cubin.begin(), out.cubin.end());
  EXPECT_NE(bytes.find("tg_probe_k2"), std::string::npos);
}

TEST(NvrtcCompile, ProbeNeedsSm90a) {
  CompileOutput out;
  const Status s = compile(probe_source(1), with_arch("-arch=sm_90"), &out);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code, ErrorCode::cuda_error);
  EXPECT_NE(s.message.find("wgmma"), std::string::npos) << s.message;
}

TEST(NvrtcCompile, SyntaxErrorComesBackWithTheLog) {
  KernelSource bad{"extern \"C\" __global__ void broken(int* p) { p[0] = ; }\n", "broken", "bad config 7"};
  CompileOutput out;
  const Status s = compile(bad, compile_options(), &out);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code, ErrorCode::cuda_error);
  EXPECT_EQ(s.argument, "kernel_source");
  EXPECT_NE(s.message.find("bad config 7"), std::string::npos) << s.message;
  EXPECT_NE(s.message.find("broken.cu(1)"), std::string::npos) << "the NVRTC log names the line: " << s.message;
  EXPECT_FALSE(out.log.empty());
}

// Only embedded headers exist for NVRTC: no toolkit, no source tree on the include path.
TEST(NvrtcCompile, NothingButEmbeddedHeadersIsIncludable) {
  for (const char* header : {"<cuda_bf16.h>", "<cstdint>", "\"kernels/sm90/ptx.cuh\""}) {
    KernelSource src{std::string("#include ") + header + "\nextern \"C\" __global__ void k(int* p) { p[0] = 1; }\n",
                     "k", header};
    CompileOutput out;
    const Status s = compile(src, compile_options(), &out);
    ASSERT_FALSE(s.ok()) << header << " was found";
    EXPECT_NE(s.message.find("open source file"), std::string::npos) << s.message;
  }
}

TEST(NvrtcCompile, ComputeArchitectureGivesNoCubin) {
  CompileOutput out;
  const Status s = compile(probe_source(1), with_arch("-arch=compute_90a"), &out);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.argument, "options");
}

TEST(CubinElf, RejectsWhatIsNotAnSm90Cubin) {
  CompileOutput out;
  ASSERT_TRUE(compile(probe_source(1), compile_options(), &out).ok());
  const std::vector<uint8_t> good = out.cubin;
  EXPECT_EQ(check_cubin_elf(good, 90), "");
  EXPECT_NE(check_cubin_elf({}, 90), "");
  EXPECT_NE(check_cubin_elf(std::vector<uint8_t>(good.begin(), good.begin() + 63), 90), "");
  std::vector<uint8_t> bad = good;
  bad[1] = 'X';
  EXPECT_NE(check_cubin_elf(bad, 90).find("magic"), std::string::npos);
  bad = good;
  bad[18] = 62;  // EM_X86_64
  EXPECT_NE(check_cubin_elf(bad, 90).find("e_machine"), std::string::npos);
  EXPECT_NE(check_cubin_elf(good, 80).find("sm_90"), std::string::npos);
  // Cut anywhere past the header: the section table or a section's bytes leave the file.
  for (size_t cut : {good.size() / 4, good.size() / 2, good.size() - 1}) {
    const std::vector<uint8_t> part(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(cut));
    EXPECT_NE(check_cubin_elf(part, 90).find("truncated"), std::string::npos) << "cut at " << cut;
  }
  // A kernel built for another SM is recognised as such (ABI 8 keeps the SM in bits 8-15).
  KernelSource plain{"extern \"C\" __global__ void k(int* p) { p[0] = 1; }\n", "k", "plain"};
  ASSERT_TRUE(compile(plain, with_arch("-arch=sm_80"), &out).ok());
  CubinHeader h;
  EXPECT_NE(check_cubin_elf(out.cubin, 90, &h), "");
  EXPECT_EQ(h.sm, 80);
}

}  // namespace
}  // namespace tilegemm::jit
