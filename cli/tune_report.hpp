// `tilegemm tune` (cmd_tune.cpp): what it measured per problem, the summary, the cache entry it
// stores, and the text and JSON it prints (tune_report.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/route.hpp"
#include "bench/runner.hpp"
#include "plan/planner.hpp"
#include "plan/tuning_cache.hpp"

namespace tilegemm::cli {

struct TuneArgs {
  std::string suite;                // file or builtin name; default "llm" when no --shape
  std::vector<std::string> shapes;  // MxNxK
  int top = 6;
  std::string layout = "nt";        // or "all"
  std::string out = "bf16";
  std::optional<float> beta;        // a C (D's layout and dtype) with this beta
  int64_t ld_pad = 0;               // --ld-pad: added to every leading dimension (bench::Case::ld_pad)
  int iters = 20, warmup = 3;
  uint64_t seed = 20261129;
  std::string cache;                // empty: the file gemm() reads
  int jobs = 0;
  bool json = false;
  std::string flush = "write";      // --flush: how L2 is emptied before each timed run (bench/timer.hpp)
  std::vector<std::string> configs; // --config: also measured on every problem they fit (explain's grammar)
  // --narrow-mn-chunks: routed and planned with GemmOptions::narrow_mn_chunks (the candidates may
  // keep an MN-major operand in 16- or 32-wide smem chunks), and measured with it.
  bool narrow_mn_chunks = false;
};

struct TuneProblem {
  bench::Case c;
  std::string layout;
  detail::Route route;                      // as gemm() routes the runner's call
  plan::Plan plan;                          // of route.problem on the live profile
  double copies_us = 0;                     // route's copies before the kernel (detail::packs_us), in every
                                            // candidate's measured time and so in its predicted one
  std::vector<plan::Candidate> candidates;  // measured, the model's pick first
  Status setup;                             // allocation / fill (then nothing ran)
  std::vector<bench::SideResult> sides;     // one per candidate
  std::vector<std::string> errors;          // per candidate: its spec or what ran was not the candidate
  std::vector<std::string> unfit;           // --config specs this problem cannot run, each with the reason
  int64_t checked_rows = 0;
  // summarize():
  int best = -1;            // the fastest candidate that passed (index), -1 when none did
  bool model_timed = false;
  double regret = 0;        // t(model) / t(best) - 1, when model_timed
  double model_error = 0;   // |predicted - measured| / measured of the model's pick, when model_timed
  int failed = 0;           // candidates that failed their check, erred, or ran another config
  bool stored = false;
  std::string store_error;

  bool passed(size_t i) const { return sides[i].passed() && sides[i].timed && errors[i].empty(); }
};

struct TuneHeader {
  std::string gpu;
  int sm_count = 0;
  std::string suite;
  TuneArgs args;
  std::string file;
  plan::TuningDevice key;
  std::string timer;
};

struct TuneSummary {
  int problems = 0, tuned = 0, failed = 0, store_failures = 0, model_beaten = 0;
  std::vector<double> regrets, errors_model, errors_all;  // per problem; per problem; per measured config
  double regret_geomean = 0, regret_max = 0, median_error_model = 0, median_error_all = 0;
};

std::string shape_text(const bench::Case& c);  // "4096x4096x4096"
void summarize(TuneProblem& t);
plan::TuningEntry cache_entry(const TuneProblem& t, const plan::TuningDevice& key);
TuneSummary summary_of(const std::vector<TuneProblem>& problems);

void print_header(const TuneHeader& h, size_t problems);
void print_problem(const TuneProblem& t);
void print_summary(const TuneHeader& h, const TuneSummary& s);
void print_json(const TuneHeader& h, const std::vector<TuneProblem>& problems, const TuneSummary& s);

}  // namespace tilegemm::cli
