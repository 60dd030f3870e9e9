// What `tilegemm tune` measures for one problem, and how it sums up what it measured (host only).
#pragma once

#include <vector>

#include "plan/planner.hpp"

namespace tilegemm::plan {

// Two candidates of one plan (one problem) that run the same thing: the same kernel code
// (sm90::kernel_code_config) launched on the same grid with the same split count -- e.g. the
// persistent and the static launch of a tile whose units fit one wave.
bool same_launch(const Candidate& a, const Candidate& b);

// A candidate's family for the tuner: its consumer warpgroups, how K is split (0 none, 1 split-K,
// 2 stream-K), swap-AB and ping-pong. The time model errs alike within a family and differently between
// families (docs/PERF.md: the one-consumer factor was off by 40% for every BM = 64 tile at once),
// so a list of the top K by the model alone can hold one family only and miss a faster one.
struct TuningFamily {
  int consumers = 0;
  int ksplit = 0;
  bool swap_ab = false;
  bool pingpong = false;
  bool operator==(const TuningFamily&) const = default;
};
TuningFamily tuning_family(const Config& c);

// A family's best-ranked candidate is measured when the model predicts it within this factor of
// its pick's time.
inline constexpr double kTuningFamilyWindow = 1.3;

// The configs to measure, `top` of them at most (fewer when the plan has fewer), in rank order, no
// two the same launch: the model's pick (plan.chosen(): measured even with top = 1); then the
// best-ranked candidate of each other family the model puts within kTuningFamilyWindow of the
// pick, best first, in at most top / 2 places; then the rest of plan.ranked in order.
std::vector<Candidate> tuning_candidates(const Plan& plan, int top);

// Regret of the model's pick: t(model) / t(best) - 1 (0 when the model picked the fastest).
double regret(double model_us, double best_us);
// The time model's relative error for one measurement: |predicted - measured| / measured.
double model_error(double predicted_us, double measured_us);
// Geometric mean of (1 + regret) minus 1, over the problems (0 for none).
double geomean_regret(const std::vector<double>& regrets);
// The median (the mean of the two middle values for an even count; 0 for none).
double median(std::vector<double> values);

}  // namespace tilegemm::plan
