// The traced kernel (Config::trace, docs/TRACE.md) under NVRTC, without a GPU, for a set of configs
// that covers every epilogue (TMA store whole-tile and in parts, direct), the k-split fix-up
// (stream-K and split-K), swap-AB, 1 and 2 consumers, clusters and MN-major operands:
//   - the untraced source is exactly the source it was before tracing existed (no `.trace` field),
//     so an untraced kernel keeps its cache key; the traced one differs and says "trace";
//   - with cuobjdump: the untraced SASS reads no timer and no SM id, the traced SASS reads
//     %globaltimer and %smid, keeps HGMMA and has no local memory (no spills, no stack), and NVRTC
//     did not serialize the wgmma pipeline;
//   - with TILEGEMM_SASS_BASELINE_SRC=<a checkout before tracing> (e.g. the main branch): the
//     untraced SASS is identical, instruction for instruction, to the same config compiled from
//     that checkout's headers (docs/TRACE.md records the run).
// TILEGEMM_KEEP_SASS=<dir> keeps every SASS listing there.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "api/route.hpp"
#include "jit/codegen.hpp"
#include "jit_test_util.hpp"
#include "plan/config_spec.hpp"
#include "plan/planner.hpp"

namespace tilegemm::jit {
namespace {

plan::Problem problem(int64_t m, int64_t n, int64_t k, const char* layout = "nt") {
  plan::Problem p;
  p.m = m;
  p.n = n;
  p.k = k;
  EXPECT_TRUE(plan::parse_layout(layout, &p.a_major, &p.b_major));
  return p;
}

// Planner picks and ranked candidates chosen to cover the template's branches.
std::vector<sm90::Config> covering_configs() {
  const auto d = *plan::find_builtin_profile("h200");
  std::vector<sm90::Config> out;
  for (const plan::Problem& p : {problem(4096, 4096, 4096), problem(128, 7168, 2048), problem(1, 7168, 2048),
                                 problem(4096, 4096, 4096, "tn")})
    out.push_back(plan::select_config(p, d).config);
  const std::vector<std::function<bool(const sm90::Config&)>> wanted = {
      [](const sm90::Config& c) { return c.epilogue == sm90::Epilogue::direct; },
      [](const sm90::Config& c) { return c.epilogue == sm90::Epilogue::tma_store && sm90::partly_staged(c); },
      [](const sm90::Config& c) { return c.cluster_size() == 2; },
      [](const sm90::Config& c) { return c.bm == 64; },
      [](const sm90::Config& c) { return c.stream_k && c.split_k > 1 && c.epilogue == sm90::Epilogue::tma_store; },
      [](const sm90::Config& c) { return c.stream_k && c.split_k == 1; },
      [](const sm90::Config& c) { return c.d_col_major; },
  };
  for (const auto& want : wanted) {
    bool found = false;
    for (const plan::Problem& p : {problem(4096, 4096, 4096), problem(4096, 1232, 336), problem(128, 576, 7168),
                                   problem(1, 576, 7168)}) {
      for (const plan::Candidate& c : plan::make_plan(p, d).ranked)
        if (want(c.config)) {
          out.push_back(c.config);
          found = true;
          break;
        }
      if (found) break;
    }
    EXPECT_TRUE(found) << "no candidate for one of the wanted branches";
  }
  // One of each kernel: a pick may already be the candidate a wanted branch found.
  std::vector<sm90::Config> unique;
  std::vector<std::string> sources;
  for (const sm90::Config& c : out) {
    const std::string code = gemm_kernel_source(c).code;
    if (std::find(sources.begin(), sources.end(), code) != sources.end()) continue;
    sources.push_back(code);
    unique.push_back(c);
  }
  return unique;
}

sm90::Config traced(sm90::Config c) {
  c.trace = true;
  return c;
}

// The headers of another checkout (its src/ and include/), under the embedded headers' names; a
// header that checkout does not have is left out (the untraced kernel does not include it).
struct BaselineHeaders {
  std::vector<std::string> names, texts;
  std::vector<EmbeddedHeader> headers;
  explicit BaselineHeaders(const std::filesystem::path& root) {
    for (const EmbeddedHeader& h : embedded_headers()) {
      for (const char* dir : {"src", "include"}) {
        std::ifstream f(root / dir / std::string(h.name), std::ios::binary);
        if (!f) continue;
        std::ostringstream text;
        text << f.rdbuf();
        names.emplace_back(h.name);
        texts.push_back(text.str());
        break;
      }
    }
    for (size_t i = 0; i < names.size(); ++i) headers.push_back(EmbeddedHeader{names[i], texts[i]});
  }
  HeaderSet set() const { return HeaderSet{headers, "sass-baseline"}; }
};

std::string compile(Runtime& rt, const sm90::Config& c, std::string* log = nullptr) {
  const GeneratedSource g = gemm_kernel_source(c);
  CubinInfo info;
  const Status s = rt.get_cubin(KernelSource{g.code, g.kernel_name, g.label}, &info);
  EXPECT_TRUE(s.ok()) << g.label << ": " << s.message;
  if (log) *log = info.log;
  return info.cubin ? std::string(info.cubin->begin(), info.cubin->end()) : std::string();
}

// cuobjdump -sass of a cubin, without the lines that name the file.
std::string sass_of(const std::filesystem::path& dir, const std::string& cubin, const std::string& name) {
  const std::filesystem::path file = dir / (name + ".cubin");
  std::ofstream(file, std::ios::binary).write(cubin.data(), static_cast<std::streamsize>(cubin.size()));
  std::istringstream all(test::run_command("cuobjdump -sass " + file.string() + " 2>&1"));
  std::string out, line;
  while (std::getline(all, line))
    if (line.find(file.string()) == std::string::npos) out += line + "\n";
  if (const char* keep = std::getenv("TILEGEMM_KEEP_SASS"); keep != nullptr && keep[0] != '\0')
    std::ofstream(std::filesystem::path(keep) / (name + ".sass")) << out;  // for reading by hand
  return out;
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = 0; (at = text.find(what, at)) != std::string::npos; at += what.size()) ++n;
  return n;
}

TEST(TraceKernel, UntracedSourceIsUnchangedAndTracedSourceDiffers) {
  for (const sm90::Config& c : covering_configs()) {
    const GeneratedSource off = gemm_kernel_source(c), on = gemm_kernel_source(traced(c));
    EXPECT_EQ(off.code.find("trace"), std::string::npos) << off.code;
    EXPECT_NE(on.code.find(".trace = true"), std::string::npos) << on.code;
    EXPECT_NE(on.code, off.code);
    EXPECT_EQ(on.label, off.label + " trace");
  }
}

TEST(TraceKernel, TracedSassReadsTimersUntracedDoesNot) {
  test::TempDir dir;
  test::TestRuntime rt("");
  int i = 0;
  for (const sm90::Config& c : covering_configs()) {
    const std::string label = gemm_kernel_source(c).label;
    SCOPED_TRACE(label);
    std::string log_on;
    const std::string off = compile(*rt.runtime, c), on = compile(*rt.runtime, traced(c), &log_on);
    ASSERT_FALSE(off.empty());
    ASSERT_FALSE(on.empty());
    EXPECT_EQ(log_on.find("serializ"), std::string::npos) << "NVRTC serialized the traced wgmma pipeline:\n" << log_on;
    if (!test::have_cuobjdump()) continue;
    const std::string s_off = sass_of(dir.path, off, "off" + std::to_string(i));
    const std::string s_on = sass_of(dir.path, on, "on" + std::to_string(i));
    ++i;
    for (const char* reg : {"SR_GLOBALTIMER", "SMID", "SR_CLOCK"}) EXPECT_EQ(count(s_off, reg), 0) << reg;
    EXPECT_GT(count(s_on, "SR_GLOBALTIMER"), 0);
    EXPECT_GT(count(s_on, "SMID"), 0);  // %smid reads SR_VIRTUALSMID
    EXPECT_GT(count(s_on, "HGMMA"), 0);
    EXPECT_EQ(count(s_on, "LDL") + count(s_on, "STL"), 0) << "the traced kernel spills to local memory";
    const std::string res = test::run_command("cuobjdump -res-usage " + (dir.path / ("on" + std::to_string(i - 1) + ".cubin")).string());
    EXPECT_NE(res.find("STACK:0"), std::string::npos) << res;
    std::printf("  %-60s SASS lines: untraced %d, traced %d\n", label.c_str(), count(s_off, "\n"), count(s_on, "\n"));
  }
  const char* require = std::getenv("TILEGEMM_REQUIRE_CUOBJDUMP");
  if (require && std::string(require) == "1") EXPECT_TRUE(test::have_cuobjdump()) << "cuobjdump/nvdisasm not on PATH";
}

// For the baseline comparison: covering_configs and, beyond them, the top candidates of problems
// that reach the other epilogue branches (C bf16 and fp32, in place, fp32 out, D that TMA cannot
// describe, swap-AB with C, MN-major operands), one of each kernel.
std::vector<sm90::Config> baseline_configs() {
  const auto d = *plan::find_builtin_profile("h200");
  std::vector<sm90::Config> out = covering_configs();
  std::vector<std::string> sources;
  for (const sm90::Config& c : out) sources.push_back(gemm_kernel_source(c).code);
  auto with = [](plan::Problem p, auto&& f) {
    f(p);
    return p;
  };
  const std::vector<plan::Problem> problems = {
      with(problem(4096, 4096, 4096), [](plan::Problem& p) { p.accumulate = true; }),
      with(problem(4096, 1232, 336), [](plan::Problem& p) { p.accumulate = true; }),
      with(problem(4096, 4096, 4096), [](plan::Problem& p) { p.out = DType::fp32; }),
      with(problem(1000, 3000, 512), [](plan::Problem& p) { p.out = DType::fp32; p.accumulate = true; }),
      with(problem(4096, 4096, 4096), [](plan::Problem& p) { p.accumulate = true; p.c_in_place = true; }),
      with(problem(2001, 3001, 1024), [](plan::Problem& p) { p.d_tma = false; p.cd_pairs = false; }),
      with(problem(2001, 3001, 1024), [](plan::Problem& p) { p.d_tma = false; p.accumulate = true; p.c_tma = false; }),
      with(problem(64, 8192, 4096), [](plan::Problem& p) { p.accumulate = true; }),
      with(problem(300, 11008, 4096), [](plan::Problem& p) { p.accumulate = true; }),
      with(problem(300, 11008, 4096), [](plan::Problem& p) { p.accumulate = true; p.c_in_place = true; }),
      problem(8, 8192, 8192), problem(4096, 4096, 4096, "nn"), problem(2048, 2048, 2048, "tt"),
      problem(4096, 576, 7168, "tn")};
  // And given tiles of widths a multiple of 16 on the branches the BN % 16 == 8 work touched:
  // swap-AB's transposed staging with C (sub-boxes of 16 and 32, split), its overlapping boxes
  // without C, the column-major direct epilogue's C chunks, the direct epilogue with C.
  const plan::Problem mid_c = with(problem(300, 11008, 4096), [](plan::Problem& p) { p.accumulate = true; });
  const plan::Problem mid_fp32 = with(problem(300, 11008, 4096), [](plan::Problem& p) {
    p.accumulate = true;
    p.out = DType::fp32;
  });
  const std::pair<plan::Problem, const char*> given[] = {
      {mid_c, "128x112,swapab"},          {mid_c, "128x160,swapab,splitk=2"}, {mid_c, "64x176,swapab,pingpong"},
      {problem(300, 11008, 4096), "128x144,swapab"}, {mid_fp32, "128x112,swapab"},
      {mid_fp32, "64x48,swapab"},         {mid_c, "128x48"}};
  for (const auto& [p, spec] : given) {
    const plan::ParsedConfigSpec parsed = plan::parse_config_spec(spec);
    EXPECT_TRUE(parsed.error.empty()) << spec << ": " << parsed.error;
    const plan::Candidate c = plan::evaluate_config(p, d, parsed.spec.config, false);
    EXPECT_EQ(c.rule, plan::Rule::none) << spec << ": " << c.reason;
    const std::string code = gemm_kernel_source(c.config).code;
    if (std::find(sources.begin(), sources.end(), code) != sources.end()) continue;
    sources.push_back(code);
    out.push_back(c.config);
  }
  for (const plan::Problem& p : problems) {
    int taken = 0;
    for (const plan::Candidate& c : plan::make_plan(p, d).ranked) {
      if (taken == 4) break;
      const std::string code = gemm_kernel_source(c.config).code;
      if (std::find(sources.begin(), sources.end(), code) != sources.end()) continue;
      sources.push_back(code);
      out.push_back(c.config);
      ++taken;
    }
  }
  return out;
}

// Configs the baseline checkout cannot build (a tile width it does not have) are left out and
// counted; every other one must give the same SASS.
TEST(TraceKernel, UntracedSassEqualsBaselineCheckout) {
  const char* root = std::getenv("TILEGEMM_SASS_BASELINE_SRC");
  if (root == nullptr || root[0] == '\0') GTEST_SKIP() << "set TILEGEMM_SASS_BASELINE_SRC to a checkout to compare with";
  if (!test::have_cuobjdump()) GTEST_SKIP() << "no cuobjdump on PATH";
  const BaselineHeaders baseline(root);
  ASSERT_FALSE(baseline.headers.empty()) << root << " has none of the kernel headers";
  test::TempDir dir;
  test::TestRuntime ours("");
  RuntimeConfig bc;
  bc.headers = baseline.set();
  bc.warn = [](const std::string&) {};
  Runtime theirs(bc);
  int i = 0, compared = 0, not_in_baseline = 0;
  for (const sm90::Config& c : baseline_configs()) {
    const std::string label = gemm_kernel_source(c).label;
    SCOPED_TRACE(label);
    const GeneratedSource g = gemm_kernel_source(c);
    CubinInfo base_info;
    if (!theirs.get_cubin(KernelSource{g.code, g.kernel_name, g.label}, &base_info).ok()) {
      std::printf("  %-60s not built by %s\n", label.c_str(), root);
      ++not_in_baseline;
      continue;
    }
    const std::string a = sass_of(dir.path, compile(*ours.runtime, c), "ours" + std::to_string(i));
    const std::string b = sass_of(dir.path, std::string(base_info.cubin->begin(), base_info.cubin->end()),
                                  "base" + std::to_string(i));
    ++i;
    ASSERT_GT(count(a, "HGMMA"), 0);
    EXPECT_TRUE(a == b) << "the untraced SASS differs from " << root << "'s";
    compared += a == b;
    std::printf("  %-60s %d SASS lines, identical to %s: %s\n", label.c_str(), count(a, "\n"), root,
                a == b ? "yes" : "NO");
  }
  EXPECT_EQ(compared, i);
  EXPECT_GT(i, 0);
  std::printf("  %d kernels compared, %d identical, %d not built by the baseline\n", i, compared, not_in_baseline);
}

}  // namespace
}  // namespace tilegemm::jit
