// Source generation: one translation unit per kernel configuration, compiled by NVRTC against the
// embedded headers (jit/embedded_headers.hpp). The generated code only names the Config; all the
// kernel's code is in src/sm90/gemm/.
#pragma once

#include <string>

#include "sm90/gemm/config.hpp"

namespace tilegemm::jit {

struct GeneratedSource {
  std::string code;         // the translation unit
  std::string kernel_name;  // its extern "C" __global__ entry point
  std::string label;        // one line naming the configuration (logs, `tilegemm warmup`)
};

// The GEMM kernel of `c` (launch-only fields are normalised away first, sm90::kernel_code_config,
// so configs that differ only in how they are launched share one source and one cubin):
//   #include "sm90/gemm/kernel.cuh"
//   constexpr Config kConfig{.bm = 128, ...};
//   extern "C" __global__ void __launch_bounds__(threads, 1) tilegemm_gemm(const __grid_constant__ GemmParams p)
GeneratedSource gemm_kernel_source(const sm90::Config& c);


// The operand repack kernel (sm90/gemm/pack.cuh) for elements of `elem_bytes` (2 or 4), copying
// lines as they are (transpose = false) or into the other major (true). `pinned`: the line copy in
// blocks of sm90::kPackPinnedThreads (one per SM, launch_packs' pinned_ctas); not for transposes.
// `l2_hints`: the line copy with L2 eviction hints (pack.cuh, kL2Hints); not for transposes.
GeneratedSource pack_source(int elem_bytes, bool transpose, bool pinned = false, bool l2_hints = false);

// The C++ initializer of a Config with every field named: "tilegemm::sm90::Config{.bm = 128, ...}".
std::string config_initializer(const sm90::Config& c);

}  // namespace tilegemm::jit
