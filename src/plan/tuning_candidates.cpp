// tuning_candidates.hpp.
#include "plan/tuning_candidates.hpp"

#include <algorithm>
#include <cmath>

#include "plan/config_spec.hpp"

namespace tilegemm::plan {

bool same_launch(const Candidate& a, const Candidate& b) {
  // Within one plan every derived field (epilogue, staging, registers, operands) follows from the
  // spec's fields, so the spec text of the code-relevant config names the kernel.
  return a.grid == b.grid && a.config.split_k == b.config.split_k &&
         config_spec_text(sm90::kernel_code_config(a.config)) == config_spec_text(sm90::kernel_code_config(b.config));
}

TuningFamily tuning_family(const Config& c) {
  return TuningFamily{c.consumers(), !c.stream_k ? 0 : c.split_k > 1 ? 1 : 2, c.d_col_major, c.pingpong};
}

std::vector<Candidate> tuning_candidates(const Plan& plan, int top) {
  const size_t want = static_cast<size_t>(std::max(1, top));
  std::vector<size_t> taken;  // indices into plan.ranked
  auto repeats = [&](size_t i) {
    return std::any_of(taken.begin(), taken.end(),
                       [&](size_t t) { return same_launch(plan.ranked[t], plan.ranked[i]); });
  };
  if (plan.ranked.empty()) return {};
  taken.push_back(0);  // the model's pick
  // Other families near the pick: their best-ranked candidate, in at most top / 2 places.
  const double window = plan.ranked[0].time.predicted_us * kTuningFamilyWindow;
  std::vector<TuningFamily> seen{tuning_family(plan.ranked[0].config)};
  const size_t family_places = 1 + want / 2;
  for (size_t i = 1; i < plan.ranked.size() && taken.size() < std::min(want, family_places); ++i) {
    const Candidate& c = plan.ranked[i];
    if (c.time.predicted_us > window) continue;
    const TuningFamily f = tuning_family(c.config);
    if (std::find(seen.begin(), seen.end(), f) != seen.end() || repeats(i)) continue;
    seen.push_back(f);
    taken.push_back(i);
  }
  for (size_t i = 1; i < plan.ranked.size() && taken.size() < want; ++i)
    if (!repeats(i)) taken.push_back(i);  // (a taken one repeats itself: same_launch is reflexive)
  std::sort(taken.begin(), taken.end());
  std::vector<Candidate> picked;
  for (size_t i : taken) picked.push_back(plan.ranked[i]);
  return picked;
}

double regret(double model_us, double best_us) { return best_us > 0 ? model_us / best_us - 1.0 : 0.0; }

double model_error(double predicted_us, double measured_us) {
  return measured_us > 0 ? std::abs(predicted_us - measured_us) / measured_us : 0.0;
}

double geomean_regret(const std::vector<double>& regrets) {
  if (regrets.empty()) return 0.0;
  double sum = 0;
  for (double r : regrets) sum += std::log1p(r);
  return std::expm1(sum / static_cast<double>(regrets.size()));
}

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace tilegemm::plan
