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

std::vector<Candidate> tuning_candidates(const Plan& plan, int top) {
  std::vector<Candidate> picked;
  for (const Candidate& c : plan.ranked) {
    if (static_cast<int>(picked.size()) >= std::max(1, top)) break;
    const bool repeat =
        std::any_of(picked.begin(), picked.end(), [&](const Candidate& p) { return same_launch(p, c); });
    if (!repeat) picked.push_back(c);
  }
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
