// GPU tests: gemm() options that run a --config spec instead of the planner's choice (empty spec:
// the planner's), with planner preferences waived (e.g. split-K slices of < 4 k-blocks) so a test
// can force what the planner would not pick; the kernel's own rules still apply.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "api/route.hpp"
#include "plan/config_spec.hpp"

namespace tilegemm::test {

inline ::testing::AssertionResult forced_config(const std::string& spec_text, detail::GemmOptions* options) {
  if (spec_text.empty()) return ::testing::AssertionSuccess();
  const plan::ParsedConfigSpec spec = plan::parse_config_spec(spec_text);
  if (!spec.ok()) return ::testing::AssertionFailure() << "config '" << spec_text << "': " << spec.error;
  options->config = spec.spec.config;
  options->config_stages_given = spec.spec.stages_given;
  options->config_ignore_preferences = true;
  return ::testing::AssertionSuccess();
}

}  // namespace tilegemm::test
