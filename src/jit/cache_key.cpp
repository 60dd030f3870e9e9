#include "jit/cache_key.hpp"

#include <cuda_runtime_api.h>

#include "jit/nvrtc_compile.hpp"

#ifndef TILEGEMM_VERSION
#error "TILEGEMM_VERSION must be defined (src/jit/CMakeLists.txt passes PROJECT_VERSION)"
#endif

namespace tilegemm::jit {
namespace {

void field(Sha256& h, std::string_view name, std::string_view value) {
  h.update(name);
  h.update("=");
  h.update(std::to_string(value.size()));
  h.update(":");
  h.update(value);
  h.update("\n");
}

}  // namespace

Digest cache_key(const KeyInputs& in) {
  Sha256 h;
  field(h, "tilegemm-jit-key", "1");  // bump when the record's layout changes
  field(h, "source", in.source);
  field(h, "kernel_name", in.kernel_name);
  field(h, "options", std::to_string(in.options.size()));
  for (const std::string& o : in.options) field(h, "option", o);
  field(h, "header_digest", in.header_digest);
  field(h, "nvrtc_version", in.nvrtc_version);
  field(h, "driver_version", std::to_string(in.driver_version));
  field(h, "library_version", in.library_version);
  return h.finish();
}

const KeyEnvironment& key_environment() {
  static const KeyEnvironment env = [] {
    KeyEnvironment e;
    e.nvrtc_version = nvrtc_version();
    // Without a driver the static runtime reports an error or 0; both mean "no driver" here.
    if (cudaDriverGetVersion(&e.driver_version) != cudaSuccess) e.driver_version = 0;
    e.library_version = TILEGEMM_VERSION;
    return e;
  }();
  return env;
}

}  // namespace tilegemm::jit
