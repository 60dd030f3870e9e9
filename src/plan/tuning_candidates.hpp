// What `tilegemm tune` measures for one problem, and how it sums up what it measured (host only).
#pragma once

#include <vector>

#include "plan/planner.hpp"

namespace tilegemm::plan {

// Two candidates of one plan (one problem) that run the same thing: the same kernel code
// (sm90::kernel_code_config) launched on the same grid with the same split count -- e.g. the
// persistent and the static launch of a tile whose units fit one wave.
bool same_launch(const Candidate& a, const Candidate& b);

// The configs to measure: plan.ranked in order, skipping any that is the same launch as one
// already taken, until `top` are taken (fewer when the plan has fewer). The model's pick
// (plan.chosen()) is always first, so it is measured even with top = 1.
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
