// explain tells the truth: for 576 calls (layout x output dtype x D's major x C mode x packed or odd
// leading dimensions x aligned or odd pointer offsets x three shapes), the path and the reason that
// explain_call reports -- and `tilegemm explain --json` with the same options -- are exactly what
// route(), the function gemm() uses, decides for GemmArgs built here by hand, the way a caller builds
// them. On the sm90 path explain's chosen configuration is select_config's for route's problem (what
// gemm() runs), and on that path its steps (transposed, repacked, plain stores) are route()'s. With a
// tuning cache holding an entry for each call's routed problem, explain's chosen configuration is
// model_or_tuned()'s -- the function gemm() calls -- and that is the cached one. The expectations
// come from route() itself, so the test keeps holding as route() changes; it checks that routes with
// and without steps both occur, so it cannot pass vacuously.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/explain_call.hpp"
#include "api/route.hpp"
#include "api/tuning.hpp"
#include "core/layout_names.hpp"
#include "plan/config_spec.hpp"
#include "plan/device_profile.hpp"
#include "plan/planner.hpp"
#include "plan/tuning_cache.hpp"

namespace tilegemm {
namespace {

enum class CMode { none, separate, in_place };

struct Combo {
  int64_t m, n, k;
  Major a_major, b_major, d_major;
  DType out;
  CMode c;
  bool odd_ld;      // every leading dimension = line + 3 (never a multiple of 8 here)
  bool odd_offset;  // A and D moved one element off 16-B alignment (C too when separate)

  int64_t pad() const { return odd_ld ? 3 : 0; }
  int64_t lda() const { return (a_major == Major::k_major ? k : m) + pad(); }
  int64_t ldb() const { return (b_major == Major::k_major ? k : n) + pad(); }
  int64_t ldd() const { return (d_major == row_major ? n : m) + pad(); }
  Major c_major() const { return c == CMode::in_place ? d_major : d_major == row_major ? col_major : row_major; }
  int64_t ldc() const { return (c_major() == row_major ? n : m) + pad() + 5; }
  int64_t off() const { return odd_offset ? 1 : 0; }
  float beta() const { return c == CMode::none ? 0.0f : c == CMode::in_place ? 0.5f : -1.0f; }

  std::string name() const {
    static const char* kC[] = {"no C", "C separate", "C in place"};
    return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " " + layout_name(a_major, b_major) +
           " " + to_string(out) + " D " + (d_major == row_major ? "row" : "col") + " " + kC[static_cast<int>(c)] +
           (odd_ld ? " odd ld" : "") + (odd_offset ? " odd offset" : "");
  }
};

// The caller's GemmArgs: its own (fake) allocations, 256-B aligned, plus the element offsets.
GemmArgs caller_args(const Combo& x, MatrixRef* c_storage) {
  const auto at = [](uintptr_t i, int64_t off, DType t) {
    return reinterpret_cast<void*>((i << 42) + 0x1000 + static_cast<uintptr_t>(off * dtype_bytes(t)));
  };
  GemmArgs g;
  g.a = MatrixRef{at(1, x.off(), DType::bf16), x.m, x.k, x.lda(), DType::bf16, x.a_major};
  g.b = MatrixRef{at(2, 0, DType::bf16), x.n, x.k, x.ldb(), DType::bf16, x.b_major};
  g.d = MutMatrixRef{at(3, x.off(), x.out), x.m, x.n, x.ldd(), x.out, x.d_major};
  g.alpha = 1.5f;
  g.beta = x.beta();
  if (x.c == CMode::in_place) {
    *c_storage = g.d;
    g.c = c_storage;
  } else if (x.c == CMode::separate) {
    *c_storage = MatrixRef{at(4, x.off(), x.out), x.m, x.n, x.ldc(), x.out, x.c_major()};
    g.c = c_storage;
  }
  return g;
}

detail::ExplainRequest request_of(const Combo& x, bool json) {
  detail::ExplainRequest rq;
  rq.problem.m = x.m;
  rq.problem.n = x.n;
  rq.problem.k = x.k;
  rq.problem.a_major = x.a_major;
  rq.problem.b_major = x.b_major;
  rq.problem.out = x.out;
  rq.problem.lda = x.lda();
  rq.problem.ldb = x.ldb();
  rq.problem.ldd = x.ldd();
  rq.call.d_major = x.d_major;
  rq.call.alpha = 1.5f;
  rq.call.beta = x.beta();
  rq.call.c = x.c == CMode::none ? detail::CallStorage::C::none
              : x.c == CMode::separate ? detail::CallStorage::C::separate
                                       : detail::CallStorage::C::in_place;
  if (x.c == CMode::separate) {
    rq.call.c_major = x.c_major();
    rq.call.ldc = x.ldc();
    rq.call.offset_c = x.off();
  }
  rq.call.offset_a = x.off();
  rq.call.offset_d = x.off();
  rq.problem.accumulate = x.c != CMode::none;
  rq.device = *plan::find_builtin_profile("h200");
  rq.json = json;
  return rq;
}

// `tilegemm explain` options describing the same call.
std::string cli_options(const Combo& x) {
  std::string s = std::to_string(x.m) + " " + std::to_string(x.n) + " " + std::to_string(x.k) + " --layout " +
                  layout_name(x.a_major, x.b_major) + " --out " + to_string(x.out) + " --d-major " +
                  (x.d_major == row_major ? "row" : "col") + " --lda " + std::to_string(x.lda()) + " --ldb " +
                  std::to_string(x.ldb()) + " --ldd " + std::to_string(x.ldd()) + " --alpha 1.5 --offset-a " +
                  std::to_string(x.off()) + " --offset-d " + std::to_string(x.off());
  if (x.c == CMode::in_place) s += " --beta 0.5 --in-place";
  if (x.c == CMode::separate)
    s += std::string(" --beta -1 --c-major ") + (x.c_major() == row_major ? "row" : "col") + " --ldc " +
         std::to_string(x.ldc()) + " --offset-c " + std::to_string(x.off());
  return s + " --device h200 --json";
}

std::vector<Combo> combos() {
  std::vector<Combo> v;
  // 512x4096x5000: rows 10000 B apart, not on 32-B sectors; the model repacks the small A for that
  // (2000x2000x5000 it reads in place in a 2-CTA cluster, which halves one operand's off-sector cost).
  for (const auto& [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{128, 256, 64}, {129, 200, 72}, {512, 4096, 5000}})
    for (Major am : {Major::k_major, Major::mn_major})
      for (Major bm : {Major::k_major, Major::mn_major})
        for (DType out : {DType::bf16, DType::fp32})
          for (Major dm : {row_major, col_major})
            for (CMode c : {CMode::none, CMode::separate, CMode::in_place})
              for (bool odd_ld : {false, true})
                for (bool odd_offset : {false, true}) v.push_back({m, n, k, am, bm, dm, out, c, odd_ld, odd_offset});
  return v;
}

TEST(ExplainRoute, ExplainReportsExactlyRoutesPathAndReason) {
  const std::vector<Combo> all = combos();
  ASSERT_GE(all.size(), 50u);
  const plan::DeviceProfile h200 = *plan::find_builtin_profile("h200");
  int sm90_as_given = 0, sm90_with_steps = 0, fallback = 0, row_repacks = 0;
  for (const Combo& x : all) {
    SCOPED_TRACE(x.name());
    MatrixRef c;
    const GemmArgs g = caller_args(x, &c);
    ASSERT_TRUE(validate(g).ok()) << validate(g).message;
    const detail::Route r = detail::route(g, &h200);  // explain's device
    if (r.path == detail::Path::fallback) ++fallback;
    else (r.notes.empty() ? sm90_as_given : sm90_with_steps)++;
    for (const std::string& step : r.notes) row_repacks += step.find("32-B sector boundaries") != std::string::npos;

    std::string json_text, text;
    ASSERT_TRUE(detail::explain_call(request_of(x, true), &json_text).ok());
    ASSERT_TRUE(detail::explain_call(request_of(x, false), &text).ok());
    const nlohmann::json j = nlohmann::json::parse(json_text);
    EXPECT_EQ(j["path"], detail::path_name(r.path));
    EXPECT_EQ(j["route_reason"], r.reason);
    EXPECT_EQ(j["call"]["d_major"], x.d_major == row_major ? "row" : "col");
    EXPECT_EQ(j["call"]["offsets"]["a"], x.off());
    if (r.path == detail::Path::sm90) {
      EXPECT_NE(text.find("path: sm90 kernel"), std::string::npos) << text;
      EXPECT_EQ(j["route_steps"], r.notes);  // transposed, repacked, plain stores: route()'s own words
      for (const std::string& step : r.notes) EXPECT_NE(text.find("  " + step + "\n"), std::string::npos) << step;
      const plan::Selection sel = plan::select_config(r.problem, h200);
      ASSERT_TRUE(sel.found);
      EXPECT_EQ(j["chosen"]["label"], plan::describe(sel.config));
    } else {
      EXPECT_NE(text.find("path: fallback (the SIMT kernel, src/api/fallback_gemm.cu): " + r.reason), std::string::npos)
          << text;
      EXPECT_TRUE(j["chosen"].is_null());
    }
  }
  // Both kinds of sm90 route occur (the operands as given, and transposed / repacked / plain
  // stores), so the comparison is not one-sided; route() now leaves the fallback only K = 0 and
  // extents past INT32_MAX, which explain cannot plan, so no combination here need reach it.
  EXPECT_GT(sm90_as_given, 0);
  EXPECT_GT(sm90_with_steps, 0);
  EXPECT_GT(row_repacks, 0);  // the model's repack of an operand off sectors, in explain's words too
  EXPECT_EQ(sm90_as_given + sm90_with_steps + fallback, static_cast<int>(all.size()));
}

// A tuning cache with an entry for every sm90 call's routed problem (the plan's second-ranked
// config as the measured best): explain presents the config gemm()'s choice function gives, and it
// is the cached one, not the model's pick.
TEST(ExplainRoute, WithATuningCacheExplainShowsWhatGemmRuns) {
  const plan::DeviceProfile h200 = *plan::find_builtin_profile("h200");
  const plan::TuningDevice device{"NVIDIA H200", 132, 13000, detail::tuning_library_version()};
  plan::TuningCache cache;
  for (const Combo& x : combos()) {
    MatrixRef c;
    const detail::Route r = detail::route(caller_args(x, &c), &h200);  // explain's device
    if (r.path != detail::Path::sm90) continue;
    const plan::Plan pl = plan::make_plan(r.problem, h200);
    ASSERT_GE(pl.ranked.size(), 2u);
    plan::TuningEntry e;
    e.device = device;
    e.problem = r.problem;
    e.best = {plan::config_spec_text(pl.ranked[1].config), 10.0, pl.ranked[1].time.predicted_us};
    e.model = {plan::config_spec_text(pl.chosen().config), 11.0, pl.chosen().time.predicted_us};
    cache.put(e);
  }
  const std::string file =
      (std::filesystem::temp_directory_path() / ("tilegemm-explain-route-" + std::to_string(::getpid()) + ".json"))
          .string();
  ASSERT_TRUE(cache.save(file).ok());
  const auto state = std::make_shared<const detail::TuningState>(
      file, "", [](const std::string& w) { ADD_FAILURE() << "unexpected warning: " << w; });
  std::filesystem::remove(file);
  int tuned = 0;
  for (const Combo& x : combos()) {
    SCOPED_TRACE(x.name());
    MatrixRef c;
    const detail::Route r = detail::route(caller_args(x, &c), &h200);  // explain's device
    if (r.path != detail::Path::sm90) continue;
    detail::ExplainRequest rq = request_of(x, true);
    rq.tuning = state;
    rq.tuning_device = device;
    std::string json_text;
    ASSERT_TRUE(detail::explain_call(rq, &json_text).ok());
    const nlohmann::json j = nlohmann::json::parse(json_text);
    const detail::ConfigChoice gemm_runs =
        detail::model_or_tuned(r.problem, h200, state->lookup(device, r.problem, h200));
    ASSERT_TRUE(gemm_runs.tuned);
    EXPECT_EQ(j["chosen"]["label"], plan::describe(gemm_runs.config));
    EXPECT_EQ(j["chosen_by"], "tuning_cache");
    EXPECT_NE(j["chosen"]["label"], plan::describe(plan::select_config(r.problem, h200).config));
    ++tuned;
  }
  EXPECT_GT(tuned, 300);
}

// Runs `command` (a tilegemm explain ... --json), which must exit 0, and parses what it printed.
::testing::AssertionResult run_json_command(const std::string& command, nlohmann::json* out) {
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return ::testing::AssertionFailure() << "popen failed: " << command;
  std::string text;
  char buf[4096];
  for (size_t got; (got = std::fread(buf, 1, sizeof buf, pipe)) > 0;) text.append(buf, got);
  if (const int rc = pclose(pipe); rc != 0)
    return ::testing::AssertionFailure() << command << " exited " << rc << "\n" << text;
  *out = nlohmann::json::parse(text);
  return ::testing::AssertionSuccess();
}

TEST(ExplainRoute, TheCliReportsExactlyRoutesPathAndReason) {
  const std::string cli = std::string(TILEGEMM_BINARY_DIR) + "/cli/tilegemm";
  if (!std::filesystem::exists(cli)) GTEST_SKIP() << cli << " is not built (target tilegemm_cli)";
  const std::vector<Combo> all = combos();
  const plan::DeviceProfile h200 = *plan::find_builtin_profile("h200");
  int checked = 0;
  for (size_t i = 0; i < all.size(); i += 5) {  // 116 of the 576 (a stride of 5 varies every loop), one process each
    const Combo& x = all[i];
    SCOPED_TRACE(x.name());
    MatrixRef c;
    const detail::Route r = detail::route(caller_args(x, &c), &h200);  // explain's device
    const std::string command = cli + " explain " + cli_options(x) + " --top 1 --rejected 0 2>&1";
    nlohmann::json j;
    ASSERT_TRUE(run_json_command(command, &j));
    EXPECT_EQ(j["path"], detail::path_name(r.path)) << command;
    EXPECT_EQ(j["route_reason"], r.reason) << command;
    if (r.path == detail::Path::sm90) EXPECT_EQ(j["route_steps"], r.notes) << command;
    ++checked;
  }
  EXPECT_GE(checked, 50);
}

// With narrow MN chunks allowed (GemmOptions::narrow_mn_chunks, explain --narrow-mn-chunks), explain
// routes and plans as gemm() does with the option: route_steps = route() with model_copies(options),
// chosen = select_config with plan_options(options); in process and through the CLI, on calls whose
// MN-major operand is narrow (where the option decides between a copy and narrow tiles in place).
TEST(ExplainRoute, NarrowMnChunksExplainRoutesAndPlansAsGemm) {
  const std::string cli = std::string(TILEGEMM_BINARY_DIR) + "/cli/tilegemm";
  const bool have_cli = std::filesystem::exists(cli);
  const plan::DeviceProfile h200 = *plan::find_builtin_profile("h200");
  detail::GemmOptions options;
  options.narrow_mn_chunks = true;
  int checked = 0, in_place = 0;
  for (const auto& [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{8, 6144, 4096}, {24, 5120, 5120}, {4096, 48, 2048}})
    for (Major am : {Major::k_major, Major::mn_major})
      for (Major bm : {Major::k_major, Major::mn_major})
        for (bool odd_ld : {false, true}) {
          const Combo x{m, n, k, am, bm, row_major, DType::bf16, CMode::none, odd_ld, false};
          SCOPED_TRACE(x.name());
          MatrixRef c;
          const detail::Route r = detail::route(caller_args(x, &c), &h200, detail::model_copies(options));
          ASSERT_EQ(r.path, detail::Path::sm90) << r.reason;
          const plan::Selection sel = plan::select_config(r.problem, h200, detail::plan_options(options));
          ASSERT_TRUE(sel.found);
          in_place += sm90::narrow_mn_chunks(sel.config);
          detail::ExplainRequest rq = request_of(x, true);
          rq.options.narrow_mn_chunks = true;
          rq.copies.plan.narrow_mn_chunks = true;  // (as the CLI sets both)
          std::string json_text;
          ASSERT_TRUE(detail::explain_call(rq, &json_text).ok());
          const nlohmann::json j = nlohmann::json::parse(json_text);
          EXPECT_EQ(j["route_steps"], r.notes);
          EXPECT_EQ(j["chosen"]["label"], plan::describe(sel.config));
          if (have_cli) {
            const std::string command = cli + " explain " + cli_options(x) + " --narrow-mn-chunks --top 1 --rejected 0 2>&1";
            nlohmann::json cj;
            ASSERT_TRUE(run_json_command(command, &cj));
            EXPECT_EQ(cj["route_steps"], r.notes) << command;
            EXPECT_EQ(cj["chosen"]["label"], plan::describe(sel.config)) << command;
          }
          ++checked;
        }
  EXPECT_EQ(checked, 24);
  EXPECT_GT(in_place, 0);  // some of them take narrow chunks (the comparison is not one-sided)
}

// The problem-only request (the explorer's, and explain without storage options) still means a
// row-major D and, with accumulate, a separate C with beta = 1.
TEST(ExplainRoute, MaxCtasPlansForTheSmsLeft) {
  // explain with max_ctas plans as gemm() does (resolve_config): on plan::with_sm_limit, persistent
  // launches only, k-split clusters whose CTAs all fit. Decode shapes whose uncapped pick is a
  // k-split cluster of 72 CTAs (1x576x7168), an M = 128 split, a square.
  for (const auto& [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{1, 576, 7168}, {128, 576, 7168}, {4096, 4096, 4096}})
    for (int cap : {8, 33, 100, 132, 500}) {
      detail::ExplainRequest rq = request_of({m, n, k, Major::k_major, Major::k_major, row_major, DType::bf16,
                                              CMode::none, false, false},
                                             true);
      rq.max_ctas = cap;
      std::string text;
      ASSERT_TRUE(detail::explain_call(rq, &text).ok());
      const nlohmann::json j = nlohmann::json::parse(text);
      const int sms = std::min(cap, 132);
      EXPECT_EQ(j["device"]["sm_count"], sms) << cap;
      const plan::Problem p = [&] {
        plan::Problem q = rq.problem;
        q.lda = q.ldb = q.ldd = 0;
        return q;
      }();
      const plan::Plan expect = plan::make_plan(p, plan::with_sm_limit(*plan::find_builtin_profile("h200"), cap), [&] {
        plan::PlanOptions o;
        o.allow_static = cap >= 132;
        return o;
      }());
      EXPECT_EQ(j["chosen"]["label"], plan::describe(expect.chosen().config)) << m << "x" << n << "x" << k << " cap " << cap;
      const plan::Config& c = expect.chosen().config;
      if (cap < 132) {
        EXPECT_TRUE(c.persistent);
        if (c.cluster_k > 1) EXPECT_LE(plan::kernel_shape(plan::kernel_problem(p, c), c).tiles * c.cluster_k, cap);
      }
    }
}

TEST(ExplainRoute, MaxCtasRefusesTheForcedConfigsGemmRefuses) {
  // explain --max-ctas N --config C gives gemm()'s answer for C: a static launch, or a k-split
  // cluster with more CTAs than the cap, is an error naming config (check_within_ctas); a cluster
  // that fits, and the same configs uncapped, are explained.
  const struct {
    const char* spec;
    int cap;
    bool ok;
  } cases[] = {{"64x16,swapab,splitk=8,dsm", 32, false},  // 9 tiles x 8 slices = 72 CTAs
               {"64x16,swapab,static", 32, false},
               {"64x16,swapab,splitk=2,dsm", 32, true},  // 18 CTAs
               {"64x16,swapab,splitk=8,dsm", 132, true},
               {"64x16,swapab,static", 0, true},
               {"64x16,swapab,splitk=8", 32, true}};  // through the workspace, persistent
  for (const auto& c : cases)
    for (bool json : {false, true}) {
      detail::ExplainRequest rq = request_of({1, 576, 7168, Major::k_major, Major::k_major, row_major, DType::bf16,
                                              CMode::none, false, false},
                                             json);
      rq.max_ctas = c.cap;
      const plan::ParsedConfigSpec parsed = plan::parse_config_spec(c.spec);
      ASSERT_TRUE(parsed.ok()) << parsed.error;
      rq.user = parsed.spec;
      rq.user_spec = c.spec;
      std::string text;
      const Status s = detail::explain_call(rq, &text);
      EXPECT_EQ(s.ok(), c.ok) << c.spec << " cap " << c.cap << ": " << s.message;
      if (!c.ok) {
        EXPECT_EQ(s.code, ErrorCode::invalid_argument) << c.spec;
        EXPECT_EQ(s.argument, "config") << c.spec;
        EXPECT_NE(s.message.find("max_ctas = 32"), std::string::npos) << s.message;
      }
    }
}

TEST(ExplainRoute, ProblemOnlyRequestsKeepTheirMeaning) {
  plan::Problem p;
  p.m = 256;
  p.n = 256;
  p.k = 128;
  p.accumulate = true;
  MatrixRef c;
  const GemmArgs g = detail::explain_args(p, {}, &c);
  ASSERT_NE(g.c, nullptr);
  EXPECT_EQ(g.beta, 1.0f);
  EXPECT_NE(g.c->ptr, g.d.ptr);
  EXPECT_EQ(g.d.major, row_major);
  EXPECT_EQ(g.d.ld, 256);
  EXPECT_TRUE(validate(g).ok());
  detail::CallStorage call;
  call.d_major = col_major;
  call.offset_d = 3;
  p.accumulate = false;
  p.m = 128;
  const GemmArgs h = detail::explain_args(p, call, &c);
  EXPECT_EQ(h.c, nullptr);
  EXPECT_EQ(h.d.ld, 128);  // packed for a column-major [128, 256] D: M
  EXPECT_EQ(reinterpret_cast<uintptr_t>(h.d.ptr) % 256, 6u);  // 3 bf16 elements
}

// Extents near 2^31: those validate() takes but the kernel's int32 tile arithmetic does not (above
// plan::kMaxKernelExtent = 2^31 - 1024) go to the fallback, and explain says so; those just under
// it are planned. Each of the first kind once crashed explain (and gemm()'s planning) with SIGFPE:
// ceil_div(N, BN) wrapped negative in int, and a k-split's grid came out 0.
TEST(ExplainRoute, ExtentsNearTwoToThe31) {
  const int64_t top = (int64_t{1} << 31) - 1, edge = plan::kMaxKernelExtent;
  struct Case {
    int64_t m, n, k;
    const char* fallback_argument;  // nullptr: planned on the sm90 kernel
  };
  const Case cases[] = {{1, top, 8, "N"},        {top, 255, 128, "M"},   {128, top, 255, "N"},
                        {top, 8, 8, "M"},        {8, 8, top, "K"},       {1, top, 64, "N"},
                        {1, edge, 8, nullptr},   {edge, 255, 128, nullptr}, {128, edge, 255, nullptr},
                        {edge, 8, 8, nullptr},   {8, 8, edge, nullptr},  {1, edge - 63, 8, nullptr}};
  for (const Case& x : cases) {
    const std::string name = std::to_string(x.m) + "x" + std::to_string(x.n) + "x" + std::to_string(x.k);
    detail::ExplainRequest rq;
    rq.problem.m = x.m;
    rq.problem.n = x.n;
    rq.problem.k = x.k;
    rq.device = *plan::find_builtin_profile("h200");
    rq.json = true;
    std::string out;
    const Status s = detail::explain_call(rq, &out);
    ASSERT_TRUE(s.ok()) << name << ": " << s.message;
    const nlohmann::json j = nlohmann::json::parse(out);
    if (x.fallback_argument) {
      EXPECT_EQ(j["path"], "fallback") << name;
      const std::string reason = j["route_reason"];
      EXPECT_EQ(reason.rfind(x.fallback_argument, 0), 0u) << name << ": " << reason;
      EXPECT_NE(reason.find("2^31 - 1024"), std::string::npos) << name << ": " << reason;
    } else {
      ASSERT_EQ(j["path"], "sm90") << name << ": " << j["route_reason"];
      EXPECT_GT(j["chosen"]["grid"].get<int64_t>(), 0) << name;
      const double t = j["chosen"]["time"]["predicted_us"];
      EXPECT_TRUE(std::isfinite(t) && t > 0) << name;
    }
  }
  // The planner's own rule (explorer, bench) names the bound.
  plan::Problem p;
  p.m = edge + 1;
  p.n = p.k = 8;
  const Status s = plan::validate_problem(p);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.argument, "M");
  EXPECT_NE(s.message.find(std::to_string(edge)), std::string::npos) << s.message;
  p.m = edge;
  EXPECT_TRUE(plan::validate_problem(p).ok());
}

// The copies gemm() makes before the kernel are priced in explain's notes (their bytes at the
// profile's copy rate plus a launch each: the line copies of one element size are one launch, a
// transposed C another), added to the kernel's predicted time, only when route() makes copies, and
// the same in the text and the JSON.
TEST(ExplainRoute, CopiesBeforeTheKernelArePriced) {
  const Combo odd_k{2049, 6001, 4097, Major::k_major, Major::k_major, row_major, DType::bf16, CMode::none, false, false};
  Combo aligned = odd_k;
  aligned.k = 4096;
  Combo odd_k_c = odd_k;  // + a C in the other major: transposed by a second launch
  odd_k_c.c = CMode::separate;
  Combo odd_k_c32 = odd_k_c;  // the same with fp32 out and C
  odd_k_c32.out = DType::fp32;
  const struct {
    Combo x;
    size_t packs;
    int launches;
  } cases[] = {{odd_k, 2, 1}, {aligned, 0, 0}, {odd_k_c, 3, 2}, {odd_k_c32, 3, 2}};
  for (const auto& cs : cases) {
    const Combo& x = cs.x;
    SCOPED_TRACE(x.name());
    MatrixRef c_storage;
    const detail::Route r = detail::route(caller_args(x, &c_storage));
    ASSERT_EQ(r.path, detail::Path::sm90);
    ASSERT_EQ(r.packs.size(), cs.packs);  // A and B: K = 4097 is not a multiple of 8 elements; C transposed
    EXPECT_EQ(detail::pack_launches(r.packs), cs.launches);
    // The groups launch_packs launches: each pack in exactly one; line copies of one element size
    // together, before any transposing copy, which goes alone.
    size_t grouped = 0;
    bool transposing_seen = false;
    for (const detail::PackLaunch& g : detail::pack_launch_groups(r.packs)) {
      ASSERT_FALSE(g.packs.empty());
      if (g.transposes) {
        EXPECT_EQ(g.packs.size(), 1u);
        transposing_seen = true;
      } else {
        EXPECT_FALSE(transposing_seen);
      }
      for (const detail::Pack* pk : g.packs) {
        EXPECT_EQ(pk->transposes(), g.transposes);
        EXPECT_EQ(pk->elem_bytes, g.elem_bytes);
      }
      grouped += g.packs.size();
    }
    EXPECT_EQ(grouped, r.packs.size());
    std::string json_text;
    ASSERT_TRUE(detail::explain_call(request_of(x, true), &json_text).ok());
    const nlohmann::json j = nlohmann::json::parse(json_text);
    std::vector<std::string> copy_notes;
    for (const auto& note : j.at("notes"))
      if (note.get<std::string>().find("copies before the kernel") != std::string::npos) copy_notes.push_back(note);
    if (r.packs.empty()) {
      EXPECT_TRUE(copy_notes.empty());
      continue;
    }
    ASSERT_EQ(copy_notes.size(), 1u);
    double bytes = 0;
    for (const auto& pk : r.packs) bytes += 2.0 * static_cast<double>(pk.bytes());
    const plan::DeviceProfile d = *plan::find_builtin_profile("h200");
    const double copy_us = cs.launches * d.repack_launch_us + bytes / d.repack_bytes_per_s * 1e6;
    EXPECT_GT(copy_us, 10.0);
    char expect[96];
    std::snprintf(expect, sizeof expect, "in %d launch%s", cs.launches, cs.launches == 1 ? "" : "es");
    EXPECT_NE(copy_notes[0].find(expect), std::string::npos) << copy_notes[0];
    std::snprintf(expect, sizeof expect, "add about %.1f us", copy_us);
    EXPECT_NE(copy_notes[0].find(expect), std::string::npos) << copy_notes[0];
    std::string text;
    ASSERT_TRUE(detail::explain_call(request_of(x, false), &text).ok());
    EXPECT_NE(text.find(copy_notes[0]), std::string::npos);
  }
}

}  // namespace
}  // namespace tilegemm
