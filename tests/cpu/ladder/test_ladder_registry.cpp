// The ladder registry and the shape rules each step states (no GPU needed).
#include <gtest/gtest.h>

#include "ladder/ladder.hpp"

namespace tilegemm::ladder {
namespace {

TEST(LadderRegistry, StepsAreNumberedInOrderAndDescribed) {
  int expected = 1;
  for (const Step& s : steps()) {
    EXPECT_EQ(s.number, expected++);
    EXPECT_NE(std::string(s.name), "");
    EXPECT_NE(std::string(s.adds), "");
    EXPECT_EQ(find_step(s.number), &s);
  }
  EXPECT_GE(expected, 4) << "steps 1-3 must exist";
  EXPECT_EQ(find_step(0), nullptr);
  EXPECT_EQ(find_step(expected), nullptr);
}

TEST(LadderRegistry, ShapeRulesRejectWhatTheKernelsCannotDo) {
  for (const Step& s : steps()) {
    EXPECT_NE(s.check_shape(100, 128, 64), "") << s.number;  // M not a tile multiple
    EXPECT_NE(s.check_shape(128, 100, 64), "") << s.number;  // N not a tile multiple
    EXPECT_NE(s.check_shape(128, 128, 65), "") << s.number;  // K not a k-block multiple
    EXPECT_NE(s.check_shape(0, 128, 64), "") << s.number;    // empty
  }
}

TEST(LadderRegistry, EarlyStepsStateTheirLimits) {
  EXPECT_EQ(find_step(1)->check_shape(128, 128, 64), "");
  EXPECT_NE(find_step(1)->check_shape(128, 128, 128), "");  // step 1 has no K-loop
  EXPECT_EQ(find_step(2)->check_shape(128, 128, 8192), "");
  EXPECT_NE(find_step(2)->check_shape(256, 128, 64), "");  // step 2 is one CTA
  EXPECT_EQ(find_step(3)->check_shape(4096, 8192, 64), "");
  const std::string msg = find_step(3)->check_shape(100, 128, 64);
  EXPECT_NE(msg.find("M"), std::string::npos);
  EXPECT_NE(msg.find("100"), std::string::npos);
  EXPECT_NE(msg.find("128"), std::string::npos);
}

}  // namespace
}  // namespace tilegemm::ladder
