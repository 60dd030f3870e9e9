// The synthetic trace (synthetic_trace.hpp) decoded, for the tests that start from a decoded trace
// (summary, clock alignment, Chrome JSON): a decode failure is a test failure.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "synthetic_trace.hpp"
#include "trace/decode.hpp"

namespace tilegemm::trace::test {

inline DecodedTrace decoded_synthetic(const SyntheticSpec& s) {
  const std::vector<uint8_t> buf = make_synthetic_trace(s);
  DecodedTrace t;
  std::string error;
  EXPECT_TRUE(decode_trace(buf.data(), buf.size(), &t, &error)) << error;
  return t;
}

}  // namespace tilegemm::trace::test
