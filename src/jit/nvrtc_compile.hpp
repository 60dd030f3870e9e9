// NVRTC: one generated source + the embedded headers -> an sm_90a cubin. No GPU is needed.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "jit/embedded_headers.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm::jit {

// The NVRTC options every production kernel is compiled with: the one place they are written
// (they are part of the cache key). No --use_fast_math: it implies ftz, approximate division and
// square root. No include path: the kernel headers are embedded and need none.
std::vector<std::string> compile_options();

// NVRTC's version as "major.minor" (nvrtcVersion), e.g. "13.0".
std::string nvrtc_version();

struct CompileOutput {
  std::vector<uint8_t> cubin;
  std::string log;       // NVRTC's program log (warnings, ptxas info, -time=- tables); may be empty
  double seconds = 0.0;  // wall time of nvrtcCreateProgram .. nvrtcGetCUBIN
};

// Compiles `source` (a program named `program_name` in NVRTC's messages) with exactly `options` and
// the headers of `headers` under their include names. A failure comes back as ErrorCode::cuda_error
// with argument "kernel_source" and a message holding `label` and the NVRTC log; `out->log` has the
// log as well.
Status compile_to_cubin(std::string_view source, std::string_view program_name, std::string_view label,
                        const HeaderSet& headers, std::span<const std::string> options, CompileOutput* out);

}  // namespace tilegemm::jit
