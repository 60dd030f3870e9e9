// The planner against what the H200 (and, for odd and small-K shapes, the H100) measured: the
// `tilegemm tune --json` records kept in bench/measurements/ (each problem with the 6-12
// configurations the tuner timed, checked first; docs/PERF.md names the builds). For every record
// the problem is routed as explain routes it (route(), the builtin profile of the GPU in the
// record's file), each measured configuration is scored as `explain --config` scores it
// (evaluate_config), and the one the planner's ranking puts first (ranks_before) is compared with
// the fastest measured. A change to the time model or the ranking that makes the picks worse on
// these measurements fails here; one that makes them better moves the bounds down with it
// (docs/PLANNER.md §4.3, §11). No GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/explain_call.hpp"
#include "api/route.hpp"
#include "plan/config_spec.hpp"
#include "plan/device_profile.hpp"
#include "plan/planner.hpp"

namespace tilegemm {
namespace {

namespace fs = std::filesystem;

struct Measured {
  plan::Candidate candidate;
  double measured_us = 0;
};

struct Record {
  std::string name;  // file: MxNxK out [+C]
  std::string device;  // the builtin profile of the GPU that measured it: h200 or h100
  std::vector<Measured> configs;
  double copies_us = 0;  // route's operand copies, in every measured time (0 without)
};

void layout_majors(const std::string& layout, plan::Problem* p) {
  // DeepGEMM letters, A then B: n = K-major A / MN-major B, t = MN-major A / K-major B.
  p->a_major = layout[0] == 'n' ? Major::k_major : Major::mn_major;
  p->b_major = layout[1] == 't' ? Major::k_major : Major::mn_major;
}

// Every record of bench/measurements/, each scored with the builtin profile of the GPU in its
// file (the H100 records: odd and small-K shapes, thirty-fourth session).
std::vector<Record> load_records() {
  std::vector<Record> records;
  const fs::path dir = fs::path(TILEGEMM_SOURCE_DIR) / "bench" / "measurements";
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    const nlohmann::json doc = nlohmann::json::parse(std::ifstream(entry.path()));
    if (doc.value("schema", "") != "tilegemm.tune/1") continue;
    const std::string gpu = doc.at("device").value("name", "");
    const std::string device = gpu.find("H100") != std::string::npos ? "h100" : "h200";
    const plan::DeviceProfile d = *plan::find_builtin_profile(device);
    for (const auto& r : doc.at("results")) {
      plan::Problem p;
      p.m = r.at("m").get<int64_t>();
      p.n = r.at("n").get<int64_t>();
      p.k = r.at("k").get<int64_t>();
      layout_majors(r.at("layout").get<std::string>(), &p);
      p.out = r.at("out").get<std::string>() == "fp32" ? DType::fp32 : DType::bf16;
      const bool with_c = r.contains("beta") && r.at("beta").is_number() && r.at("beta").get<double>() != 0.0;
      p.accumulate = with_c;  // explain_args: a separate C in D's dtype, beta 1
      MatrixRef c_storage;
      const detail::Route route = detail::route(detail::explain_args(p, detail::CallStorage{}, &c_storage), &d);
      EXPECT_EQ(route.path, detail::Path::sm90) << entry.path().filename() << " " << p.m << "x" << p.n << "x" << p.k;
      Record rec;
      rec.device = device;
      rec.name = entry.path().filename().string() + ": " + std::to_string(p.m) + "x" + std::to_string(p.n) + "x" +
                 std::to_string(p.k) + " " + r.at("out").get<std::string>() + (with_c ? " +C" : "");
      for (const auto& c : r.at("candidates")) {
        if (!c.contains("measured_us") || !c.at("measured_us").is_number()) continue;
        const plan::ParsedConfigSpec spec = plan::parse_config_spec(c.at("config").get<std::string>());
        EXPECT_TRUE(spec.ok()) << rec.name << " " << c.at("config") << ": " << spec.error;
        if (!spec.ok()) continue;
        Measured m;
        m.candidate = plan::evaluate_config(route.problem, d, spec.spec.config, spec.spec.stages_given);
        m.measured_us = c.at("measured_us").get<double>();
        rec.copies_us = c.value("copies_us", 0.0);  // the same for every config of the problem
        // A configuration the planner's rules now reject is not one it could pick: left out; so is
        // an unswapped whole tile grouped along the other axis than the planner groups it
        // (groups_along_n: the time model prices grouped_m and grouped_n alike, the planner
        // decides by rule which one it offers).
        const plan::Config& k = m.candidate.config;
        const bool grouped = k.mapping.kind == sched::MappingKind::grouped_m ||
                             k.mapping.kind == sched::MappingKind::grouped_n;
        const bool other_axis = grouped && !k.d_col_major && !k.stream_k &&
                                (k.mapping.kind == sched::MappingKind::grouped_n) !=
                                    plan::groups_along_n(route.problem, k);
        if (m.candidate.feasible() && !other_axis) rec.configs.push_back(std::move(m));
      }
      if (rec.configs.size() >= 2) records.push_back(std::move(rec));
    }
  }
  return records;
}

std::vector<Record> records_of(const std::string& device) {
  std::vector<Record> all = load_records(), out;
  for (Record& r : all)
    if (r.device == device) out.push_back(std::move(r));
  return out;
}

// The ranking's pick against the fastest measured, over a set of records: the regret's geomean
// and worst, and the model's median error (the predicted time plus the route's copies, which
// every measured time includes, against the measured).
struct Score {
  size_t problems = 0;
  double geomean = 0, worst = 0, median_error = 0;
  std::string worst_name;
};

Score score(const std::vector<Record>& records) {
  Score s;
  s.problems = records.size();
  double log_sum = 0;
  std::vector<double> errors;
  for (const Record& rec : records) {
    const Measured* pick = &rec.configs.front();
    const Measured* fastest = &rec.configs.front();
    for (const Measured& m : rec.configs) {
      if (plan::ranks_before(m.candidate, pick->candidate, plan::Ranking::time)) pick = &m;
      if (m.measured_us < fastest->measured_us) fastest = &m;
      errors.push_back(std::abs(m.candidate.time.predicted_us + rec.copies_us - m.measured_us) / m.measured_us);
    }
    const double regret = pick->measured_us / fastest->measured_us - 1.0;
    log_sum += std::log1p(regret);
    if (regret > s.worst) {
      s.worst = regret;
      s.worst_name = rec.name;
    }
  }
  if (records.empty()) return s;
  s.geomean = std::expm1(log_sum / static_cast<double>(records.size()));
  std::nth_element(errors.begin(), errors.begin() + errors.size() / 2, errors.end());
  s.median_error = errors[errors.size() / 2];
  std::printf("%zu measured problems: regret geomean %.2f %%, worst %.1f %% (%s); median model error %.1f %%\n",
              s.problems, 100 * s.geomean, 100 * s.worst, s.worst_name.c_str(), 100 * s.median_error);
  return s;
}

// The records of one GPU scored against bounds: at least `problems` of them, the regret's
// geomean, the median error and the worst regret at most the others.
void expect_score_within(const std::string& device, size_t problems, double geomean, double median_error,
                         double worst) {
  const Score s = score(records_of(device));
  ASSERT_GE(s.problems, problems);
  EXPECT_LE(s.geomean, geomean);
  EXPECT_LE(s.median_error, median_error);
  EXPECT_LE(s.worst, worst) << s.worst_name;
}

// Bounds a little above what the model of this commit scores (regret geomean 0.95 %, median error
// 3.5 %; the worst, 31 %, is a record from before its kernel was changed: docs/PERF.md,
// twenty-fourth session): issue 10 asks regret <= 3 % and median error <= 15 %. (Six files, 192
// problems when this test was written.)
TEST(MeasuredPicks, TheRankingPicksNearTheFastestMeasured) { expect_score_within("h200", 150, 0.0125, 0.05, 0.35); }

// The H100 records (thirty-third to thirty-fifth sessions; kernels of d646559 and, since tiles past
// M or N start their boxes higher, 625b92c): the odd suite (operands copied, D written by the
// threads), 46 shapes at K = 64-300 (aligned, and odd beside them), and M or N just off multiples
// of 128. Off the llm suite, where the model is weakest: the bounds hold it to what it scored when
// they were set (regret geomean 1.7 %; worst 18.9 % at 6001x2049x64, whose 64x192 ping-pong pick
// ran behind the cooperative 64x192, docs/PERF.md; median error 14.5 %, mostly fixed_us's 5 us
// against kernels of 5-30 us), so that a change to the model cannot make these picks worse
// unnoticed. (Five files, 71 problems when these bounds were set; seven and 86 with the
// forty-second session's mid-M stream-K-over-runs records, regret geomean 1.6 %, median error 10.9 %;
// nine and 108 with the forty-third session's M = 1 ... 16 k-split records, 1.65 % and 10.3 %; 1.33 %
// and 10.0 % once a one-consumer cooperative tile's copy-out overlaps the next tile's loads, forty-fourth
// session. Eleven files and 129 problems with the forty-seventh session's mid shapes off the suites:
// 1.31 % and 9.8 % once a 2-CTA cluster's multicast operand is charged half its off-sector issue
// cost; 1.98 % and worst 25.7 % without, which fails these bounds: on rows off 32-B sectors (K = 296,
// 776, 1000, 3000) the 256-row tiles alone ran 1-20 % behind the same tiles in clusters. Fourteen
// files and 146 problems with the forty-eighth session's large shapes and narrow tiles: 1.38 %, worst
// 15.7 % (6144^3 with C, the model's 256x112 under grouped_m 16 % behind 128x176 ping-pong),
// median error 8.6 %; sixteen and 158 with its mapping records, 1.19 %, worst 13.8 %, median 7.5 %,
// once 256-row tiles under 128 columns are grouped along N over more than four A bands
// (groups_along_n; docs/PERF.md).)
TEST(MeasuredPicks, TheH100RecordsOfOddAndSmallKShapes) { expect_score_within("h100", 65, 0.015, 0.155, 0.20); }

// Where the best k-split and the best unsplit tile of one problem were predicted within the margin
// of each other (either way round) and both measured, the ranking's first of the two must be the
// one that measured faster. In the records that was the unsplit tile every time (15 problems with
// the twenty-fifth session's model; the split measured relatively slower than predicted, docs/PERF.md
// twenty-fourth session): ranked so first through kKSplitMargin, now mostly through the time model
// itself (the partial-grid clock term prices the unsplit single waves lower). Fails with neither.
TEST(MeasuredPicks, NearTiesOfASplitAndAnUnsplitTileGoToTheMeasuredFaster) {
  int cases = 0;
  for (const Record& rec : load_records()) {
    const Measured* best_split = nullptr;
    const Measured* best_unsplit = nullptr;
    for (const Measured& m : rec.configs) {
      const Measured*& slot = m.candidate.config.stream_k ? best_split : best_unsplit;
      if (slot == nullptr || m.candidate.time.predicted_us < slot->candidate.time.predicted_us) slot = &m;
    }
    if (best_split == nullptr || best_unsplit == nullptr) continue;
    const double ps = best_split->candidate.time.predicted_us, pu = best_unsplit->candidate.time.predicted_us;
    if (std::max(ps, pu) > std::min(ps, pu) * (1 + plan::kKSplitMargin)) continue;  // not a near tie
    ++cases;
    const bool split_first = plan::ranks_before(best_split->candidate, best_unsplit->candidate, plan::Ranking::time);
    const bool split_faster = best_split->measured_us < best_unsplit->measured_us;
    EXPECT_EQ(split_first, split_faster) << rec.name << ": split predicted " << ps << " us, measured "
                                         << best_split->measured_us << "; unsplit " << pu << " / "
                                         << best_unsplit->measured_us;
  }
  EXPECT_GE(cases, 10);
}

// Stream-K over runs against the unsplit tiles, where a record measured both (the H100's mid-M
// records, forty-second session, and the lows beside them): the ranking puts its first run ahead of
// its first unsplit tile exactly where the run measured faster than every unsplit tile measured
// (whether the ranking picks the right unsplit tile is the regret's question, above: at 6144^3 with
// C, forty-seventh session, its 256x112 ran 660.2 us, the run 644.9, 128x176 ping-pong 599.9). The
// model's runs were 2-19 % more optimistic than its unsplit tiles there (kRunsMargin,
// planner.hpp): with 3 % + 5 % 300x11008x14336's runs (predicted 140.4 us against 128x104's
// 152.2, measured 159.5 against 146.0) would go first and fail here; with 3 % + 7.5 %
// 300x28672x8192's (203.9 against 223.9, measured 215.4 against 225.4) would not.
TEST(MeasuredPicks, StreamKOverRunsGoesFirstOnlyWhereItMeasuredFaster) {
  int cases = 0, runs_first = 0;
  for (const Record& rec : load_records()) {
    const Measured* best_runs = nullptr;
    const Measured* best_unsplit = nullptr;
    for (const Measured& m : rec.configs) {
      const plan::Config& c = m.candidate.config;
      if (c.stream_k && !c.sk_runs) continue;
      const Measured*& slot = c.sk_runs ? best_runs : best_unsplit;
      if (slot == nullptr || plan::ranks_before(m.candidate, slot->candidate, plan::Ranking::time)) slot = &m;
    }
    if (best_runs == nullptr || best_unsplit == nullptr) continue;
    ++cases;
    const bool first = plan::ranks_before(best_runs->candidate, best_unsplit->candidate, plan::Ranking::time);
    runs_first += first;
    double fastest_unsplit = best_unsplit->measured_us;
    for (const Measured& m : rec.configs)
      if (!m.candidate.config.stream_k) fastest_unsplit = std::min(fastest_unsplit, m.measured_us);
    EXPECT_EQ(first, best_runs->measured_us < fastest_unsplit)
        << rec.name << ": runs predicted " << best_runs->candidate.time.predicted_us << " us, measured "
        << best_runs->measured_us << "; unsplit " << best_unsplit->candidate.time.predicted_us << " / "
        << best_unsplit->measured_us;
  }
  EXPECT_GE(cases, 12);
  EXPECT_GE(runs_first, 1);  // 300x28672x14336: runs 368.7 us against 382.2
}

}  // namespace
}  // namespace tilegemm
