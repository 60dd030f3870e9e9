// main() of test_jit (it replaces gtest_main's, which the linker then leaves out). It runs the tests,
// or, when TILEGEMM_JIT_TEST_WORKER is set, acts as one of the worker processes that
// test_cache_concurrency.cpp starts from this same executable.
#include <gtest/gtest.h>

#include <cstdlib>

namespace tilegemm::jit::test {
int run_cache_worker(const char* cache_root);  // test_cache_concurrency.cpp
}

int main(int argc, char** argv) {
  if (const char* root = std::getenv("TILEGEMM_JIT_TEST_WORKER")) return tilegemm::jit::test::run_cache_worker(root);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
