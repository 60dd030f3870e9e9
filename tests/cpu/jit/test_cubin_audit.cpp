// The CI cubin audit (no GPU): every configuration the planner picks for the suite shapes in all
// four layouts, plus 30 sampled candidates, compiles under NVRTC to an sm_90a cubin -- the proof
// that the planner's candidate space is the set of Configs the kernel template instantiates --
// and, when cuobjdump is on PATH (.ci/run installs it from PyPI), each cubin's SASS and resource
// usage are checked: HGMMA present, no local-memory traffic (LDL/STL, stack, spills), registers and
// shared memory within what the launch will request. Compile seconds are printed per kernel.
// TILEGEMM_REQUIRE_CUOBJDUMP=1 (set by .ci/run) turns a missing cuobjdump into a failure.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "api/route.hpp"
#include "jit/codegen.hpp"
#include "jit/cubin_elf.hpp"
#include "jit_test_util.hpp"
#include "plan/config_spec.hpp"
#include "plan/planner.hpp"
#include "sm90/gemm/traits.cuh"

namespace tilegemm::jit {
namespace {

// The benchmark suite (bench/suites/llm.txt).
const int64_t kSuite[][3] = {
    {4096, 4096, 4096}, {6144, 6144, 6144}, {8192, 8192, 8192}, {1, 2112, 7168},    {1, 576, 7168},
    {1, 24576, 1536},   {1, 32768, 512},    {1, 7168, 16384},   {1, 4096, 7168},    {1, 7168, 2048},
    {128, 2112, 7168},  {128, 576, 7168},   {128, 24576, 1536}, {128, 32768, 512},  {128, 7168, 16384},
    {128, 4096, 7168},  {128, 7168, 2048},  {4096, 2112, 7168}, {4096, 576, 7168},  {4096, 24576, 1536},
    {4096, 32768, 512}, {4096, 7168, 16384}, {4096, 4096, 7168}, {4096, 7168, 2048}};

using test::have_cuobjdump;
std::string run(const std::string& command) { return test::run_command(command); }

// Local-memory instructions of a SASS listing, in two kinds. `call_protocol`: ptxas passing a
// subroutine's return address through the stack when it has no register to spare: an
// `STL [R1], Rx` a few instructions before a `CALL.REL.NOINC`, Rx set to the address after that
// call, and the `LDL.LU Rn, [R1]` inside the callee (after its entry, before its RET) that takes it back (seen
// for the 64-bit integer division of the stream-K scheduler, schedule/stream_k.hpp, which is
// called only when an operand does not fit 32 bits: a cold path, no kernel value in local memory).
// `other`: everything else -- spills and dynamically indexed arrays.
struct LocalTraffic {
  int call_protocol = 0, other = 0;
};
LocalTraffic local_traffic(const std::string& sass) {
  struct Ins {
    uint64_t addr;
    std::string text;
  };
  std::vector<Ins> ins;
  const std::regex line(R"(/\*([0-9a-f]{4,})\*/\s+([^;]*);)");
  for (auto it = std::sregex_iterator(sass.begin(), sass.end(), line); it != std::sregex_iterator(); ++it)
    ins.push_back({std::stoull((*it)[1].str(), nullptr, 16), (*it)[2].str()});
  const std::regex ret_store(R"(^\s*STL\s+\[R1\],\s*(R\d+)\s*$)"), ret_load(R"(^\s*LDL\.LU\s+(R\d+),\s*\[R1\]\s*$)");
  auto is_ret_store = [&](size_t k, const std::string& reg) {
    size_t call = k + 1;
    while (call < ins.size() && call <= k + 4 && ins[call].text.find("CALL.REL.NOINC") == std::string::npos) {
      if (ins[call].text.find("BRA") != std::string::npos || ins[call].text.find(reg) != std::string::npos) return false;
      ++call;
    }
    if (call >= ins.size() || call > k + 4) return false;
    char want[32];
    std::snprintf(want, sizeof want, "0x%llx", static_cast<unsigned long long>(ins[call].addr + 0x10));
    const std::regex set_ret("^\\s*(MOV|IMAD\\.MOV\\.U32)\\s+" + reg + ",\\s*(RZ,\\s*RZ,\\s*)?" + want + "\\s*$");
    for (size_t b = k; b-- > 0 && b + 16 > k;)
      if (std::regex_search(ins[b].text, set_ret)) return true;
    return false;
  };
  std::set<uint64_t> targets;
  const std::regex call(R"(CALL\.REL\.NOINC\s+0x([0-9a-f]+))");
  for (const Ins& i : ins) {
    std::smatch m;
    if (std::regex_search(i.text, m, call)) targets.insert(std::stoull(m[1].str(), nullptr, 16));
  }
  auto is_ret_load = [&](size_t k) {  // inside a subroutine: a call target before it, no RET between
    for (size_t b = k + 1; b-- > 0;) {
      if (b < k && ins[b].text.find("RET") != std::string::npos) return false;
      if (targets.count(ins[b].addr) != 0) return true;
    }
    return false;
  };
  LocalTraffic t;
  for (size_t k = 0; k < ins.size(); ++k) {
    const std::string& x = ins[k].text;
    if (x.find("LDL") == std::string::npos && x.find("STL") == std::string::npos) continue;
    std::smatch m;
    const bool protocol = (std::regex_search(x, m, ret_store) && is_ret_store(k, m[1].str())) ||
                          (std::regex_search(x, m, ret_load) && is_ret_load(k));
    ++(protocol ? t.call_protocol : t.other);
  }
  return t;
}

// The audit's classifier on hand-written listings: a return address through the stack around a
// call is the call protocol; the same STL without its MOV of the return address, an LDL outside a
// subroutine, or any other local access is counted against the kernel.
TEST(CubinAudit, LocalTrafficKinds) {
  const std::string protocol =
      "        /*0100*/                   MOV R10, 0x140 ;\n"
      "        /*0110*/                   STL [R1], R10 ;\n"
      "        /*0120*/                   IMAD.MOV.U32 R4, RZ, RZ, R9 ;\n"
      "        /*0130*/                   CALL.REL.NOINC 0x200 ;\n"
      "        /*0140*/                   EXIT ;\n"
      "        /*0200*/                   IADD3 R5, R4, 0x1, RZ ;\n"
      "        /*0210*/                   LDL.LU R30, [R1] ;\n"
      "        /*0220*/                   MOV R12, R30 ;\n"
      "        /*0230*/                   RET.REL.NODEC R12 0x0 ;\n";
  const LocalTraffic a = local_traffic(protocol);
  EXPECT_EQ(a.call_protocol, 2);
  EXPECT_EQ(a.other, 0);
  const std::string spills =
      "        /*0100*/                   MOV R10, 0x999 ;\n"            // not the address after the call
      "        /*0110*/                   STL [R1], R10 ;\n"
      "        /*0120*/                   CALL.REL.NOINC 0x200 ;\n"
      "        /*0130*/                   LDL.LU R30, [R1] ;\n"         // not inside a subroutine
      "        /*0140*/                   STL.64 [R1+0x8], R16 ;\n"     // a spill
      "        /*0150*/                   EXIT ;\n"
      "        /*0200*/                   RET.REL.NODEC R12 0x0 ;\n"
      "        /*0210*/                   LDL R7, [R1+0x8] ;\n";       // after the subroutine's RET
  const LocalTraffic b = local_traffic(spills);
  EXPECT_EQ(b.call_protocol, 0);
  EXPECT_EQ(b.other, 4);
}

// R2UR instructions (register-to-uniform moves) inside the wgmma issue stretches of a listing: from
// each WARPGROUP.ARRIVE to the next WARPGROUP.DEPBAR. The mainloop keeps its descriptors in uniform
// registers (mainloop.cuh), so none should be there: each is a step on the path from a stage's
// full barrier to its first wgmma, which sets the k-block time of narrow tiles.
int moves_in_wgmma_issue(const std::string& sass) {
  std::istringstream in(sass);
  std::string line;
  bool issuing = false;
  int moves = 0;
  while (std::getline(in, line)) {
    if (line.find("WARPGROUP.ARRIVE") != std::string::npos) issuing = true;
    if (line.find("WARPGROUP.DEPBAR") != std::string::npos) issuing = false;
    if (issuing && line.find("R2UR") != std::string::npos) ++moves;
  }
  return moves;
}

TEST(CubinAudit, WgmmaIssueStretchCounter) {
  const std::string listing =
      "        /*0100*/                   R2UR UR4, R7 ;\n"  // before the stretch: not counted
      "        /*0110*/                   WARPGROUP.ARRIVE ;\n"
      "        /*0120*/                   R2UR UR12, R4 ;\n"
      "        /*0130*/                   HGMMA.64x32x16.F32.BF16 R40, gdesc[UR12], R40, UP0 ;\n"
      "        /*0140*/                   WARPGROUP.DEPBAR.LE gsb0, 0x1 ;\n"
      "        /*0150*/                   R2UR UR5, R9 ;\n";  // after it: not counted
  EXPECT_EQ(moves_in_wgmma_issue(listing), 1);
}

int field(const std::string& text, const std::string& name) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex(name + ":(\\d+)"))) return -1;
  return std::stoi(m[1]);
}

class Audit {
 public:
  Audit() : rt_(dir_.path.string()) {}

  // Compiles the kernel of `c` (once per distinct source) and audits its cubin; issue_moves() is
  // then the R2UR count of its wgmma issue stretches (moves_in_wgmma_issue), -1 without cuobjdump
  // or when the source was audited before.
  void check(const sm90::Config& c) {
    issue_moves_ = -1;
    const GeneratedSource g = gemm_kernel_source(c);
    if (!seen_.insert(g.code).second) return;
    SCOPED_TRACE(g.label);
    CubinInfo info;
    const Status s = rt_->get_cubin(KernelSource{g.code, g.kernel_name, g.label}, &info);
    ASSERT_TRUE(s.ok()) << s.message;
    ASSERT_TRUE(info.cubin && !info.cubin->empty());
    ASSERT_EQ(check_cubin_elf(*info.cubin, 90), "");
    // ptxas keeps the wgmma pipeline as written: no warpgroup.arrive of its own (C7519, "injected
    // ... to allow use of registers in GMMA"; it appeared where a run-time branch chose among wgmma
    // sequences of different lengths into the same accumulators, and that kernel, with five of
    // them, ran 15-19 % slower on tensor-bound shapes on the H100: docs/PERF.md, forty-sixth
    // session), and no serialized wgmma.
    EXPECT_EQ(info.log.find("C7519"), std::string::npos) << "ptxas injected warpgroup.arrive:\n" << info.log;
    EXPECT_EQ(info.log.find("serializ"), std::string::npos) << "ptxas serialized the wgmma:\n" << info.log;
    ++compiled_;
    std::string audit = "(no cuobjdump)";
    if (have_cuobjdump()) {
      const std::filesystem::path file = dir_.path / ("k" + std::to_string(compiled_) + ".cubin");
      std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(info.cubin->data()),
                                                  static_cast<std::streamsize>(info.cubin->size()));
      const std::string sass = run("cuobjdump -sass " + file.string() + " 2>&1");
      const std::string res = run("cuobjdump -res-usage " + file.string() + " 2>&1");
      int hgmma = 0, local = 0;
      for (size_t at = 0; (at = sass.find("HGMMA", at)) != std::string::npos; ++at) ++hgmma;
      for (const char* op : {"LDL", "STL"})
        for (size_t at = 0; (at = sass.find(op, at)) != std::string::npos; ++at) ++local;
      const LocalTraffic traffic = local_traffic(sass);
      EXPECT_EQ(traffic.call_protocol + traffic.other, local) << "a local-memory instruction the audit did not parse";
      const int reg = field(res, "REG"), stack = field(res, "STACK"), shared = field(res, "SHARED"),
                lmem = field(res, "LOCAL");
      const int smem = sm90::config_smem_layout(c).total_bytes;
      EXPECT_GT(hgmma, 0) << "no HGMMA in the SASS: the kernel is not on the tensor-core path";
      issue_moves_ = moves_in_wgmma_issue(sass);
      EXPECT_EQ(traffic.other, 0) << "LDL/STL in the SASS: local memory (spills or a dynamically indexed array)";
      ASSERT_GT(reg, 0) << res;
      // (A return address passed through the stack takes one 8-B slot.)
      EXPECT_LE(stack, traffic.call_protocol > 0 ? 8 : 0) << res;
      EXPECT_EQ(lmem, 0) << res;
      EXPECT_LE(reg * c.threads(), 65536) << "registers at entry do not fit one CTA per SM";
      if (c.producer_regs) EXPECT_LE(128 * (c.producer_regs + c.consumers() * c.consumer_regs), 65536);
      // (cuobjdump's SHARED counts the 1 KiB every sm_90 block has reserved, cudaDevAttrReservedSharedMemoryPerBlock,
      // which is not part of the opt-in limit: measured on the H200, a kernel with no __shared__ of its own shows
      // SHARED:1024, cudaFuncGetAttributes().sharedSizeBytes 0, and launches with 232448 B of dynamic smem.)
      EXPECT_LE(std::max(0, shared - 1024) + smem, 232448) << "static + dynamic shared memory above the opt-in limit";
      audit = "HGMMA " + std::to_string(hgmma) + ", REG " + std::to_string(reg) + ", smem " +
              std::to_string(shared + smem) + " B, LDL/STL " + std::to_string(traffic.other) +
              (traffic.call_protocol > 0 ? " (+" + std::to_string(traffic.call_protocol) + " return addresses)" : "") +
              ", R2UR in wgmma issue " + std::to_string(issue_moves_);
      ++audited_;
    }
    std::printf("  %-62s %.3f s  %s\n", g.label.c_str(), info.compile_seconds, audit.c_str());
    seconds_.push_back(info.compile_seconds);
  }
  int issue_moves() const { return issue_moves_; }

  void summary(const char* what) {
    std::sort(seconds_.begin(), seconds_.end());
    if (seconds_.empty()) return;
    std::printf("%s: %d kernels compiled, %d audited; compile seconds min %.3f median %.3f max %.3f\n", what,
                compiled_, audited_, seconds_.front(), seconds_[seconds_.size() / 2], seconds_.back());
    const char* require = std::getenv("TILEGEMM_REQUIRE_CUOBJDUMP");
    if (require && std::string(require) == "1") EXPECT_TRUE(have_cuobjdump()) << "cuobjdump/nvdisasm not on PATH";
  }

 private:
  test::TempDir dir_;
  test::TestRuntime rt_;
  std::set<std::string> seen_;
  std::vector<double> seconds_;
  int compiled_ = 0, audited_ = 0;
  int issue_moves_ = -1;
};

// The route of problem `p` (placeholder pointers), as gemm() takes it.
detail::Route route_problem(const plan::Problem& p) {
  MatrixRef c_storage;
  return detail::route(detail::placeholder_args(p, &c_storage));
}

// The candidate of a --config spec for the kernel problem `p` (a route's problem), as `explain
// --config` scores it: the spec parses and the config is feasible (fatal failures otherwise; call
// under ASSERT_NO_FATAL_FAILURE).
void forced_candidate(const plan::Problem& p, const plan::DeviceProfile& d, const char* spec, plan::Candidate* out) {
  const plan::ParsedConfigSpec parsed = plan::parse_config_spec(spec);
  ASSERT_TRUE(parsed.ok()) << parsed.error;
  *out = plan::evaluate_config(p, d, parsed.spec.config, false);
  ASSERT_TRUE(out->feasible()) << spec << ": " << out->reason;
}

// The route of an M x N x K problem in `layout` (placeholder pointers, packed), as gemm() takes it.
detail::Route route_of(const int64_t (&s)[3], const char* layout) {
  plan::Problem p;
  p.m = s[0];
  p.n = s[1];
  p.k = s[2];
  EXPECT_TRUE(plan::parse_layout(layout, &p.a_major, &p.b_major)) << layout;
  return route_problem(p);
}

TEST(CubinAudit, SuitePicksInEveryLayout) {
  const auto d = *plan::find_builtin_profile("h200");
  Audit audit;
  for (const char* layout : {"nt", "nn", "tn", "tt"}) {
    for (const auto& s : kSuite) {
      const detail::Route r = route_of(s, layout);
      // Every layout runs on the sm90 kernel (A and B K-major or MN-major).
      ASSERT_EQ(r.path, detail::Path::sm90) << layout << ": " << r.reason;
      const plan::Selection sel = plan::select_config(r.problem, d);
      ASSERT_TRUE(sel.found);
      audit.check(sel.config);
    }
  }
  audit.summary("planner picks");
}

TEST(CubinAudit, ThirtySampledCandidates) {
  const auto d = *plan::find_builtin_profile("h200");
  std::vector<sm90::Config> pool;
  for (const auto& s : {std::array<int64_t, 3>{4096, 4096, 4096}, {1, 576, 7168}, {128, 7168, 2048},
                        {4096, 576, 7168}, {777, 1232, 336}}) {
    plan::Problem p;
    p.m = s[0];
    p.n = s[1];
    p.k = s[2];
    const plan::Plan pl = plan::make_plan(p, d);
    for (const plan::Candidate& c : pl.ranked) pool.push_back(c.config);
  }
  std::mt19937 rng(20261201);  // fixed: the same sample on every run
  std::shuffle(pool.begin(), pool.end(), rng);
  Audit audit;
  std::set<std::string> sources;
  for (const sm90::Config& c : pool) {
    if (sources.size() >= 30) break;
    if (sources.insert(gemm_kernel_source(c).code).second) audit.check(c);
  }
  EXPECT_EQ(sources.size(), 30u);
  audit.summary("sampled candidates");
}

// The direct epilogue's variants the planner picks for fp32 output, C (bf16 and fp32; the C loads
// double-buffered in registers) and a D that TMA cannot describe (element-wise accesses): each
// compiles with HGMMA and without local memory.
TEST(CubinAudit, EpilogueVariantsOfThePlannersPicks) {
  const auto d = *plan::find_builtin_profile("h200");
  Audit audit;
  struct Variant {
    DType out;
    bool with_c;
    int64_t ldd_extra;  // ldd = N + extra (odd: element-wise stores)
  };
  const Variant variants[] = {{DType::fp32, false, 0}, {DType::bf16, true, 0}, {DType::fp32, true, 0},
                              {DType::bf16, false, 1}, {DType::bf16, true, 1}, {DType::fp32, true, 1},
                              {DType::fp32, false, 1}};
  for (const auto& s : {std::array<int64_t, 3>{4096, 4096, 4096}, {4096, 576, 7168}, {128, 7168, 2048},
                        {1, 4096, 7168}, {4096, 2112, 7168}}) {
    for (const Variant& v : variants) {
      plan::Problem p;
      p.m = s[0];
      p.n = s[1];
      p.k = s[2];
      p.out = v.out;
      p.accumulate = v.with_c;
      p.ldd = s[1] + v.ldd_extra;
      const detail::Route r = route_problem(p);
      ASSERT_EQ(r.path, detail::Path::sm90) << r.reason;
      const plan::Selection sel = plan::select_config(r.problem, d);
      ASSERT_TRUE(sel.found);
      audit.check(sel.config);
      // The unsplit config of the same tile too (what runs when a split-K call has no workspace).
      sm90::Config unsplit = sel.config;
      if (unsplit.split_k > 1) {
        unsplit.split_k = 1;
        unsplit.cluster_k = 1;
        audit.check(plan::evaluate_config(r.problem, d, unsplit, false).config);
      }
    }
  }
  audit.summary("epilogue variants");
}

// k-split clusters (`dsm`): swap-AB decode tiles the planner offers, and forced unswapped tiles
// of one and two consumers, with C and fp32 output: HGMMA, no local memory, the receive area
// within the shared memory the launch requests.
TEST(CubinAudit, ClusterKSplits) {
  const auto d = *plan::find_builtin_profile("h200");
  Audit audit;
  struct Forced {
    const char* spec;
    int64_t m, n, k;
  };
  const Forced cases[] = {{"64x16,swapab,splitk=8,dsm", 1, 576, 7168}, {"64x8,swapab,splitk=8,dsm", 1, 576, 7168},
                          {"64x32,swapab,splitk=4,dsm", 32, 576, 7168},
                          {"64x128,splitk=2,dsm", 128, 4096, 7168},    {"128x64,splitk=4,dsm", 128, 2112, 7168},
                          {"128x128,splitk=2,dsm", 128, 1024, 7168}};
  for (const Forced& f : cases)
    for (bool variant : {false, true}) {
      plan::Problem p;
      p.m = f.m;
      p.n = f.n;
      p.k = f.k;
      if (variant) {
        p.out = DType::fp32;
        p.accumulate = true;
      }
      const detail::Route r = route_problem(p);
      plan::Candidate cand;
      ASSERT_NO_FATAL_FAILURE(forced_candidate(r.problem, d, f.spec, &cand));
      ASSERT_GT(cand.config.cluster_k, 1);
      audit.check(cand.config);
    }
  audit.summary("k-split clusters");
}

// BM = 256 (two consumers of 128 rows, Config::row_blocks 2): the widest tiles the rule allows
// (176 accumulators per thread, TMA store), swap-AB's transposed store with C, MN-major operands,
// both clusters, the threads' copy-out at its 144 and the direct epilogue with C at 128: each
// compiles, HGMMA, no local memory.
TEST(CubinAudit, TilesOf256Rows) {
  const auto d = *plan::find_builtin_profile("h200");
  Audit audit;
  struct Forced {
    const char* spec;
    int64_t m, n, k;
    Major a_major, b_major;
    bool with_c;
    DType out;
    sm90::Epilogue epilogue = sm90::Epilogue::tma_store;
  };
  const Major K = Major::k_major, MN = Major::mn_major;
  const Forced cases[] = {{"256x176", 4096, 4096, 4096, K, K, false, DType::bf16},
                          {"256x152,swapab", 300, 14336, 4096, K, K, true, DType::bf16},
                          {"256x128,cluster=2x1", 4096, 4096, 4096, MN, MN, false, DType::bf16},
                          {"256x128,cluster=1x2", 4096, 4096, 4096, MN, K, true, DType::fp32},
                          {"256x128", 4096, 4096, 2048, K, K, true, DType::bf16, sm90::Epilogue::smem_stores},
                          {"256x128", 4096, 4096, 4096, K, K, true, DType::fp32, sm90::Epilogue::direct}};
  for (const Forced& f : cases) {
    plan::Problem p;
    p.m = f.m;
    p.n = f.n;
    p.k = f.k;
    p.a_major = f.a_major;
    p.b_major = f.b_major;
    p.accumulate = f.with_c;
    p.out = f.out;
    const detail::Route r = route_problem(p);
    plan::Candidate cand;
    ASSERT_NO_FATAL_FAILURE(forced_candidate(r.problem, d, f.spec, &cand));
    ASSERT_EQ(cand.config.bm, 256);
    plan::Config c = cand.config;
    if (f.epilogue != c.epilogue) {  // the epilogues an unaligned D would take
      c.epilogue = f.epilogue;
      c.stage_cols = f.epilogue == sm90::Epilogue::direct ? 0 : sm90::whole_stage_cols(c.bn, c.out_dtype);
      c.stages = sm90::config_max_stages(c, d.smem_per_block_optin);
      ASSERT_EQ(sm90::check_kernel_config(c), sm90::ConfigRule::ok) << plan::describe(c);
    }
    audit.check(c);
  }
  audit.summary("256-row tiles");
}

// MN-major operands in chunks narrower than 64 elements (sm90/swizzle.hpp; the planner offers them
// with PlanOptions::narrow_mn_chunks): swap-AB over a small MN-major A (16-, 32- and 48-wide tiles,
// split, a k-split cluster, with C), small-N tiles of an MN-major B (unswapped, multicast halves,
// ping-pong), a multicast half of a 64-row MN-major A: each compiles, HGMMA, no local memory, and
// its chunks are the narrow ones.
TEST(CubinAudit, NarrowMnChunks) {
  const auto d = *plan::find_builtin_profile("h200");
  Audit audit;
  struct Forced {
    const char* layout;
    const char* spec;
    int64_t m, n, k;
    bool with_c;
    int a_chunk, b_chunk;  // of the kernel's operands (swap-AB: A is the caller's B)
  };
  const Forced cases[] = {
      {"tt", "64x16,swapab", 8, 6144, 4096, false, 0, 16},
      {"tt", "128x32,swapab,splitk=2,dsm", 32, 4096, 4096, false, 0, 32},
      {"tt", "128x48,swapab", 40, 11008, 4096, true, 0, 16},
      {"tn", "64x32,swapab,splitk=4", 24, 5120, 5120, false, 64, 32},
      {"tn", "128x16,swapab,stage=64", 16, 4096, 4096, true, 64, 16},
      {"nn", "128x48", 4096, 48, 4096, false, 0, 16},
      {"nn", "128x96,cluster=2x1", 4096, 96, 4096, false, 0, 16},
      {"nn", "128x160,pingpong", 4096, 160, 4096, true, 0, 32},
      {"tt", "64x128,cluster=1x2", 4096, 4096, 4096, false, 32, 0},
  };
  for (const Forced& f : cases) {
    plan::Problem p;
    p.m = f.m;
    p.n = f.n;
    p.k = f.k;
    p.accumulate = f.with_c;
    ASSERT_TRUE(plan::parse_layout(f.layout, &p.a_major, &p.b_major)) << f.layout;
    MatrixRef c_storage;
    const detail::Route r = detail::route(detail::placeholder_args(p, &c_storage));  // (no profile: no copies)
    ASSERT_EQ(r.path, detail::Path::sm90) << r.reason;
    plan::Candidate cand;
    ASSERT_NO_FATAL_FAILURE(forced_candidate(r.problem, d, f.spec, &cand));
    EXPECT_EQ(sm90::a_mn_chunk(cand.config), f.a_chunk) << f.spec;
    EXPECT_EQ(sm90::b_mn_chunk(cand.config), f.b_chunk) << f.spec;
    EXPECT_TRUE(sm90::narrow_mn_chunks(cand.config)) << f.spec;
    audit.check(cand.config);
  }
  // The planner's picks with narrow chunks allowed, over the suite and small batches / small N in
  // the layouts with an MN-major operand (narrow lines priced per line, the suite keeps 64-wide
  // chunks; the small shapes take swap-AB's 16- and 32-wide tiles and NN's small-N ones).
  plan::PlanOptions narrow;
  narrow.narrow_mn_chunks = true;
  const int64_t small[][3] = {{8, 2048, 8192},  {16, 2048, 8192}, {16, 3072, 3072}, {16, 6144, 4096},
                              {32, 5120, 5120}, {4096, 16, 4096}, {4096, 32, 4096}, {8192, 16, 8192}};
  int narrow_picks = 0;
  for (const char* layout : {"nn", "tn", "tt"}) {
    auto pick = [&](const int64_t (&s)[3]) {
      const detail::Route r = route_of(s, layout);
      const plan::Selection sel = plan::select_config(r.problem, d, narrow);
      ASSERT_TRUE(sel.found);
      narrow_picks += sm90::narrow_mn_chunks(sel.config);
      audit.check(sel.config);
    };
    for (const auto& s : kSuite) pick(s);
    for (const auto& s : small) pick(s);
  }
  EXPECT_GT(narrow_picks, 10);
  audit.summary("narrow MN-major chunks");
}

// k-splits with C in every epilogue: the summing piece loads C's staging boxes when its unit
// starts, and L2-prefetches C's lines where they are read from global memory (kernel.cuh,
// mainloop.cuh): TMA-loaded slots (whole and one at a time, the last box overlapping its neighbour),
// the threads' copy-out (an odd ldd), the direct stores (a width of partial boxes with C in place),
// swap-AB's transposed boxes; bf16 and fp32 out.
// HGMMA, no local memory.
TEST(CubinAudit, KSplitsWithCInEveryEpilogue) {
  const auto d = *plan::find_builtin_profile("h200");
  Audit audit;
  struct Forced {
    const char* spec;
    int64_t m, n, k, ldd;
    sm90::Epilogue want;
    bool in_place = false;
  };
  const Forced cases[] = {{"64x64,splitk=2", 128, 2112, 7168, 0, sm90::Epilogue::tma_store},
                          {"128x256,splitk=2,stage=64", 256, 2048, 4096, 0, sm90::Epilogue::tma_store},
                          {"128x256,splitk=2", 256, 2001, 4096, 2001, sm90::Epilogue::smem_stores},
                          {"128x128,streamk", 1000, 2001, 4096, 2001, sm90::Epilogue::smem_stores},
                          {"128x144,splitk=2", 256, 2048, 4096, 0, sm90::Epilogue::direct, true},
                          {"128x144,splitk=2", 256, 2048, 4096, 0, sm90::Epilogue::tma_store},
                          {"128x176,swapab,splitk=2", 333, 4096, 4096, 0, sm90::Epilogue::tma_store}};
  for (const Forced& f : cases)
    for (DType out : {DType::bf16, DType::fp32}) {
      plan::Problem p;
      p.m = f.m;
      p.n = f.n;
      p.k = f.k;
      p.ldd = f.ldd;
      p.out = out;
      p.accumulate = true;
      p.c_in_place = f.in_place;
      const detail::Route r = route_problem(p);
      ASSERT_EQ(r.path, detail::Path::sm90) << r.reason;
      ASSERT_EQ(r.problem.c_in_place, f.in_place);
      plan::Candidate cand;
      ASSERT_NO_FATAL_FAILURE(forced_candidate(r.problem, d, f.spec, &cand));
      // (fp32 swap-AB D goes from the registers: stmatrix .trans moves 16-bit elements.)
      const bool swap_fp32 = cand.config.d_col_major && out == DType::fp32;
      EXPECT_EQ(cand.config.epilogue, swap_fp32 ? sm90::Epilogue::direct : f.want) << plan::describe(cand.config);
      EXPECT_TRUE(cand.config.stream_k && cand.config.with_c) << plan::describe(cand.config);
      audit.check(cand.config);
    }
  audit.summary("k-splits with C");
}

// The planner's picks with C (bf16 and fp32 out) over the suite, and the narrow two-accumulator-set
// tiles the time model's C term weighs (64x32 with C took 6 us more than without at 128x2112x7168,
// docs/PERF.md nineteenth session; an L2 prefetch of C, removed in the twentieth): HGMMA, no local
// memory.
TEST(CubinAudit, SuitePicksWithC) {
  const auto d = *plan::find_builtin_profile("h200");
  Audit audit;
  for (DType out : {DType::bf16, DType::fp32})
    for (const auto& s : kSuite) {
      plan::Problem p;
      p.m = s[0];
      p.n = s[1];
      p.k = s[2];
      p.out = out;
      p.accumulate = true;
      const detail::Route r = route_problem(p);
      ASSERT_EQ(r.path, detail::Path::sm90) << r.reason;
      const plan::Selection sel = plan::select_config(r.problem, d);
      ASSERT_TRUE(sel.found);
      audit.check(sel.config);
      if (s[0] != 128 || s[1] != 2112) continue;
      for (const char* spec : {"64x32", "128x32", "64x64"}) {
        const plan::Candidate cand = plan::evaluate_config(r.problem, d, plan::parse_config_spec(spec).spec.config, false);
        ASSERT_TRUE(cand.feasible()) << spec << ": " << cand.reason;
        audit.check(cand.config);
      }
    }
  audit.summary("picks with C");
}

// Swap-AB with the transposed TMA-store epilogue (stmatrix .trans boxes): the planner's picks for
// mid-size batches in the layouts that take it, and forced variants (every box staged, slots of
// one box, ping-pong, a split): HGMMA, no local memory.
const int64_t kMidBatches[][3] = {{300, 14336, 4096}, {300, 4096, 14336}, {400, 8192, 8192}};

// Kernels that compute whole tiles (no k-split) issue their wgmma from descriptors in uniform
// registers: no R2UR between a WARPGROUP.ARRIVE and its DEPBAR (mainloop.cuh). Narrow tiles with
// two accumulator sets, with and without C, bf16 and fp32 out, K- and MN-major operands,
// ping-pong, clusters and swap-AB decode tiles.
// NOTES: most k-split kernels (stream_k: split-K, stream-K, k-split clusters) and two ping-pong
// 128x128 ones (smem_stores fp32 +C, swap-AB) still move descriptor words from ordinary registers;
// the audit prints every kernel's count ("R2UR in wgmma issue").
TEST(CubinAudit, WholeTileKernelsIssueWgmmaFromUniformRegisters) {
  const auto d = *plan::find_builtin_profile("h200");
  Audit audit;
  struct Case {
    int64_t m, n, k;
    const char* layout;
    DType out;
    bool with_c;
    const char* spec;
  };
  const Case cases[] = {
      {128, 2112, 7168, "nt", DType::fp32, true, "64x32"},   {128, 2112, 7168, "nt", DType::bf16, true, "64x32"},
      {128, 4096, 7168, "nt", DType::bf16, false, "64x64"},  {128, 7168, 2048, "nt", DType::bf16, true, "64x112"},
      {4096, 4096, 4096, "nt", DType::bf16, false, "128x256"}, {4096, 2112, 7168, "nt", DType::bf16, true, "128x176,pingpong"},
      {4096, 4096, 4096, "tn", DType::bf16, false, "128x192"}, {4096, 4096, 4096, "nt", DType::bf16, false, "128x128,cluster=2x1"},
      {1, 7168, 2048, "nt", DType::bf16, false, "128x16,swapab"}, {200, 8192, 8192, "nt", DType::fp32, true, "128x112,swapab"},
      {1, 7168, 2048, "nt", DType::bf16, false, "64x8,swapab"},   {8, 4096, 4096, "nt", DType::fp32, true, "128x8,swapab"},
  };
  int audited = 0;
  for (const Case& cs : cases) {
    plan::Problem p;
    p.m = cs.m;
    p.n = cs.n;
    p.k = cs.k;
    ASSERT_TRUE(plan::parse_layout(cs.layout, &p.a_major, &p.b_major));
    p.out = cs.out;
    p.accumulate = cs.with_c;
    const detail::Route r = route_problem(p);
    ASSERT_EQ(r.path, detail::Path::sm90) << r.reason;
    const plan::Candidate cand = plan::evaluate_config(r.problem, d, plan::parse_config_spec(cs.spec).spec.config, false);
    ASSERT_TRUE(cand.feasible()) << cs.spec << ": " << cand.reason;
    ASSERT_FALSE(cand.config.stream_k) << cs.spec;
    audit.check(cand.config);
    if (audit.issue_moves() < 0) continue;  // no cuobjdump (summary() fails where it is required)
    ++audited;
    EXPECT_EQ(audit.issue_moves(), 0) << cs.spec << " at " << cs.m << "x" << cs.n << "x" << cs.k
                                      << ": R2UR between a WARPGROUP.ARRIVE and its DEPBAR";
  }
  audit.summary("whole-tile kernels");
  if (have_cuobjdump()) EXPECT_EQ(audited, static_cast<int>(std::size(cases)));
}

TEST(CubinAudit, SwapAbTransposedStores) {
  const auto d = *plan::find_builtin_profile("h200");
  Audit audit;
  for (const char* layout : {"nt", "nn"})
    for (const int64_t(&s)[3] : kMidBatches) {
      const detail::Route r = route_of(s, layout);
      const plan::Selection sel = plan::select_config(r.problem, d);
      ASSERT_TRUE(sel.found);
      EXPECT_TRUE(sel.config.d_col_major && sel.config.epilogue == sm90::Epilogue::tma_store)
          << layout << " " << plan::describe(sel.config);
      audit.check(sel.config);
    }
  for (const char* spec : {"128x256,swapab,stage=64", "128x128,swapab,pingpong", "64x80,swapab"}) {
    plan::Problem p;
    p.m = 300;
    p.n = 2048;
    p.k = 512;
    plan::Candidate cand;
    ASSERT_NO_FATAL_FAILURE(forced_candidate(p, d, spec, &cand));
    ASSERT_EQ(cand.config.epilogue, sm90::Epilogue::tma_store) << spec;
    audit.check(cand.config);
  }
  audit.summary("swap-AB transposed stores");
}

// Swap-AB past decode with fp32 out or C: fp32 D stored column-major from the registers, C read in
// double-buffered chunks (epilogue_direct.cuh); bf16 D with bf16 C through the transposed staging
// boxes, C loaded into them by TMA, the last box partial (store_tile_staged's kTrans): HGMMA, no
// local memory.
TEST(CubinAudit, SwapAbMidSizeStores) {
  const auto d = *plan::find_builtin_profile("h200");
  Audit audit;
  // kMidBatches (128x160, 128x208) and batches whose picks take the other widths: 64x80, 128x112,
  // 128x144, 64x176, 128x176, 128x240 (bench/suites/midm.txt).
  const int64_t batches[][3] = {{300, 14336, 4096}, {300, 4096, 14336}, {400, 8192, 8192}, {160, 4096, 4096},
                                {200, 8192, 8192},  {400, 11008, 4096}, {333, 4096, 4096}, {333, 8192, 8192},
                                {900, 28672, 8192}};
  for (const int64_t(&s)[3] : batches)
    for (int variant = 0; variant < 3; ++variant) {
      plan::Problem p;
      p.m = s[0];
      p.n = s[1];
      p.k = s[2];
      p.out = variant == 1 ? DType::bf16 : DType::fp32;
      p.accumulate = variant >= 1;
      const detail::Route r = route_problem(p);
      ASSERT_EQ(r.path, detail::Path::sm90) << r.reason;
      const plan::Selection sel = plan::select_config(r.problem, d);
      ASSERT_TRUE(sel.found);
      const sm90::Epilogue want = variant == 1 ? sm90::Epilogue::tma_store : sm90::Epilogue::direct;
      EXPECT_TRUE(sel.config.d_col_major && sel.config.epilogue == want)
          << s[0] << "x" << s[1] << "x" << s[2] << " variant " << variant << ": " << plan::describe(sel.config);
      audit.check(sel.config);
    }
  audit.summary("swap-AB stores past decode");
}

// The helper kernels (the operand repacks) compile to sm_90a cubins without local memory.
TEST(CubinAudit, HelperKernels) {
  test::TempDir dir;
  test::TestRuntime rt(dir.path.string());
  std::vector<GeneratedSource> sources;
  for (int elem : {2, 4})
    for (bool transpose : {false, true}) sources.push_back(pack_source(elem, transpose));
  for (int elem : {2, 4}) sources.push_back(pack_source(elem, false, /*pinned=*/true));
  EXPECT_NE(sources.back().code.find("kPackPinnedThreads, 1"), std::string::npos);
  for (int elem : {2, 4}) sources.push_back(pack_source(elem, false, false, /*l2_hints=*/true));
  EXPECT_NE(sources.back().code.find(", true>(params)"), std::string::npos);
  EXPECT_NE(sources.back().kernel_name, pack_source(4, false).kernel_name);
  EXPECT_EQ(pack_source(2, true, false, true).kernel_name, pack_source(2, true).kernel_name);  // (no hinted transpose)
  EXPECT_EQ(pack_source(2, true, true).kernel_name, pack_source(2, true).kernel_name);  // (no pinned transpose)
  for (const GeneratedSource& g : sources) {
    SCOPED_TRACE(g.label);
    CubinInfo info;
    const Status st = rt->get_cubin(KernelSource{g.code, g.kernel_name, g.label}, &info);
    ASSERT_TRUE(st.ok()) << st.message;
    ASSERT_EQ(check_cubin_elf(*info.cubin, 90), "");
    if (have_cuobjdump()) {
      const std::filesystem::path file = dir.path / (g.kernel_name + ".cubin");
      std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(info.cubin->data()),
                                                  static_cast<std::streamsize>(info.cubin->size()));
      const std::string sass = run("cuobjdump -sass " + file.string() + " 2>&1");
      EXPECT_EQ(sass.find("LDL"), std::string::npos);
      EXPECT_EQ(sass.find("STL"), std::string::npos);
    }
    std::printf("  %-62s %.3f s\n", g.label.c_str(), info.compile_seconds);
  }
}

}  // namespace
}  // namespace tilegemm::jit
