// The cache key of a kernel: SHA-256 over everything that decides the cubin (or whether it may be
// reused). Two kernels share a key only when all of these are equal.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "jit/sha256.hpp"

namespace tilegemm::jit {

struct KeyInputs {
  std::string_view source;          // the generated kernel source
  std::string_view kernel_name;     // the extern "C" entry point
  std::span<const std::string> options;  // NVRTC options, in order
  std::string_view header_digest;   // HeaderSet::digest of the embedded headers
  std::string_view nvrtc_version;   // nvrtc_version()
  int driver_version = 0;           // cudaDriverGetVersion; 0 without a driver
  std::string_view library_version; // tilegemm's PROJECT_VERSION
};

// SHA-256 of a length-prefixed record of the inputs ("<field>=<byte count>:<bytes>\n"), so no two
// different inputs serialise to the same bytes.
Digest cache_key(const KeyInputs& in);

// The process's constant inputs: NVRTC version, driver version and library version, read once.
struct KeyEnvironment {
  std::string nvrtc_version;
  int driver_version = 0;
  std::string library_version;
};
const KeyEnvironment& key_environment();

}  // namespace tilegemm::jit
