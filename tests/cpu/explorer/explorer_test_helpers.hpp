// What the explorer's endpoint tests share: a context without a GPU, one with a fake live H100, and
// the check of an error reply (status, JSON body, the parameter named in it).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "explorer/api.hpp"
#include "plan/device_profile.hpp"

namespace tilegemm::explorer {

inline ApiContext no_gpu() {
  ApiContext ctx;
  ctx.live.reason = "no CUDA device (test)";
  return ctx;
}

// A live "H100" as query_live_profile would describe it, without a GPU.
inline ApiContext fake_gpu() {
  ApiContext ctx;
  ctx.live.present = true;
  ctx.live.name = "NVIDIA H100 80GB HBM3 (fake)";
  ctx.live.cc_major = 9;
  ctx.live.sm_count = 132;
  ctx.live.limits = cc90_sm_limits();
  ctx.live.limits.source = "fake";
  plan::DeviceProfile p = *plan::find_builtin_profile("h100");
  p.name = "live";
  p.source = "live device NVIDIA H100 80GB HBM3 (fake)";
  ctx.live.profile = p;
  return ctx;
}

// Status, and for errors the parameter named and a message that mentions it.
inline void expect_error(const Reply& r, int status, const std::string& parameter) {
  EXPECT_EQ(r.status, status) << r.body;
  EXPECT_EQ(r.content_type, "application/json");
  const nlohmann::json j = nlohmann::json::parse(r.body);
  EXPECT_EQ(j.at("status"), status);
  ASSERT_TRUE(j.at("error").is_string());
  if (parameter.empty()) {
    EXPECT_TRUE(j.at("parameter").is_null()) << r.body;
  } else {
    EXPECT_EQ(j.at("parameter"), parameter) << r.body;
    EXPECT_NE(j.at("error").get<std::string>().find(parameter), std::string::npos) << r.body;
  }
}

}  // namespace tilegemm::explorer
