// The explorer's query-parameter reader: every refusal names the parameter, the value and the rule;
// what is accepted is exactly the documented grammar (no '+', spaces, hex or exponents in integers).
#include <gtest/gtest.h>

#include <string>

#include "explorer/params.hpp"

namespace tilegemm::explorer {
namespace {

QueryParams one(const std::string& name, const std::string& value) { return {{name, value}}; }

TEST(ExplorerParams, IntegersAcceptOnlyPlainDecimalInRange) {
  for (const char* good : {"1", "2147483647", "0042"}) {
    ParamReader r(one("m", good), {"m"});
    EXPECT_EQ(r.integer("m", -5, 1, 2147483647), std::stoll(good)) << good;
    EXPECT_FALSE(r.error()) << good;
  }
  for (const char* bad : {"", "abc", "+1", " 1", "1 ", "0x10", "1e3", "1.0", "2147483648", "0", "-1",
                          "99999999999999999999999"}) {
    ParamReader r(one("m", bad), {"m"});
    EXPECT_EQ(r.integer("m", 7, 1, 2147483647), 7) << bad;
    ASSERT_TRUE(r.error()) << bad;
    EXPECT_EQ(r.error()->parameter, "m");
    EXPECT_NE(r.error()->message.find("parameter m"), std::string::npos) << r.error()->message;
    EXPECT_NE(r.error()->message.find("from 1 to 2147483647"), std::string::npos) << r.error()->message;
  }
  ParamReader neg(one("rejected", "-1"), {"rejected"});
  EXPECT_EQ(neg.integer("rejected", 3, -1, 1000), -1);
  EXPECT_FALSE(neg.error());
}

TEST(ExplorerParams, NumbersFlagsAndChoices) {
  {
    ParamReader r({{"l2", "50.5"}, {"p", "true"}, {"q", "0"}, {"c", "seed"}}, {"l2", "p", "q", "c"});
    EXPECT_DOUBLE_EQ(r.number("l2", 0, 0, 1e6), 50.5);
    EXPECT_TRUE(r.flag("p", false));
    EXPECT_FALSE(r.flag("q", true));
    EXPECT_EQ(r.choice("c", "time", {"time", "seed"}), "seed");
    EXPECT_EQ(r.choice("absent", "time", {"time", "seed"}), "time");
    EXPECT_FALSE(r.error());
  }
  for (const char* bad : {"nan", "inf", "-1", "1e400", "1e3", "", "60MiB"}) {
    ParamReader r(one("l2_mib", bad), {"l2_mib"});
    r.number("l2_mib", 60, 0, 1e6);
    ASSERT_TRUE(r.error()) << bad;
    EXPECT_EQ(r.error()->parameter, "l2_mib");
  }
  ParamReader f(one("persistent", "yes"), {"persistent"});
  f.flag("persistent", false);
  ASSERT_TRUE(f.error());
  EXPECT_NE(f.error()->message.find("must be 1, 0, true or false"), std::string::npos);
  ParamReader c(one("rank", "fast"), {"rank"});
  c.choice("rank", "time", {"time", "seed"});
  ASSERT_TRUE(c.error());
  EXPECT_NE(c.error()->message.find("must be one of time, seed"), std::string::npos);
}

TEST(ExplorerParams, RefusesUnknownDuplicateLongAndTooMany) {
  {
    ParamReader r({{"m", "1"}, {"zz", "1"}}, {"m", "n"});
    ASSERT_TRUE(r.error());
    EXPECT_EQ(r.error()->parameter, "zz");
    EXPECT_NE(r.error()->message.find("takes m, n"), std::string::npos) << r.error()->message;
  }
  {
    ParamReader r({{"m", "1"}, {"m", "2"}}, {"m"});
    ASSERT_TRUE(r.error());
    EXPECT_EQ(r.error()->parameter, "m");
    EXPECT_NE(r.error()->message.find("twice"), std::string::npos);
  }
  {
    ParamReader r(one("config", std::string(kMaxValueLength + 1, 'x')), {"config"});
    ASSERT_TRUE(r.error());
    EXPECT_NE(r.error()->message.find("at most 128"), std::string::npos) << r.error()->message;
  }
  {
    QueryParams many;
    for (size_t i = 0; i <= kMaxParams; ++i) many.push_back({"m", "1"});
    ParamReader r(many, {"m"});
    ASSERT_TRUE(r.error());
    EXPECT_EQ(r.error()->parameter, "");
  }
}

TEST(ExplorerParams, FirstErrorWinsAndValuesAreSanitisedInMessages) {
  ParamReader r({{"m", "x\"<y"}, {"n", "bad"}}, {"m", "n"});
  r.integer("m", 1, 1, 10);
  r.integer("n", 1, 1, 10);
  r.fail("k", "later");
  ASSERT_TRUE(r.error());
  EXPECT_EQ(r.error()->parameter, "m");
  EXPECT_EQ(r.error()->message.find('"' + std::string("<")), std::string::npos);  // the quote is replaced
  EXPECT_NE(r.error()->message.find("x?<y"), std::string::npos) << r.error()->message;
}

}  // namespace
}  // namespace tilegemm::explorer
