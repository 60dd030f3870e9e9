// The cache key changes when any input that decides the cubin changes, and only then.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "jit/cache_key.hpp"

namespace tilegemm::jit {
namespace {

struct Inputs {
  std::string source = "extern \"C\" __global__ void k() {}";
  std::string name = "k";
  std::vector<std::string> options = {"-arch=sm_90a", "-std=c++17"};
  std::string digest = "d1";
  std::string nvrtc = "13.0";
  int driver = 13000;
  std::string library = "0.1.0";

  Digest key() const {
    return cache_key(KeyInputs{source, name, options, digest, nvrtc, driver, library});
  }
};

TEST(CacheKey, SameInputsSameKey) { EXPECT_EQ(Inputs{}.key(), Inputs{}.key()); }

TEST(CacheKey, EveryInputChangesTheKey) {
  std::vector<Inputs> variants(10);
  variants[1].source += " ";
  variants[2].name = "k2";
  variants[3].options[0] = "-arch=sm_90";
  variants[4].options.push_back("-lineinfo");
  variants[5].options = {"-std=c++17", "-arch=sm_90a"};  // order is part of the key
  variants[6].digest = "d2";
  variants[7].nvrtc = "13.1";
  variants[8].driver = 0;
  variants[9].library = "0.1.1";
  std::set<Digest> keys;
  for (const Inputs& v : variants) keys.insert(v.key());
  EXPECT_EQ(keys.size(), variants.size());
}

// Length prefixes: moving bytes between neighbouring fields gives another key.
TEST(CacheKey, FieldBoundariesMatter) {
  Inputs a, b;
  a.source = "ab";
  a.name = "c";
  b.source = "a";
  b.name = "bc";
  EXPECT_NE(a.key(), b.key());
  Inputs c, d;
  c.options = {"-a", "-b"};
  d.options = {"-a -b"};
  EXPECT_NE(c.key(), d.key());
}

TEST(CacheKey, EnvironmentIsFilled) {
  const KeyEnvironment& env = key_environment();
  EXPECT_FALSE(env.nvrtc_version.empty());
  EXPECT_NE(env.nvrtc_version, "unknown");
  EXPECT_FALSE(env.library_version.empty());
  EXPECT_GE(env.driver_version, 0);
  EXPECT_EQ(&env, &key_environment());  // computed once
}

}  // namespace
}  // namespace tilegemm::jit
