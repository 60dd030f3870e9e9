#include "jit/probe.hpp"

#include <string>

namespace tilegemm::jit {

KernelSource probe_source(int k_steps) {
  const std::string k = std::to_string(k_steps);
  KernelSource s;
  s.kernel_name = "tg_probe_k" + k;
  s.label = "probe k_steps=" + k;
  s.code = "#include \"jit/probe/probe_kernel.cuh\"\n"
           "extern \"C\" __global__ void __launch_bounds__(tilegemm::jit::probe::kThreads, 1)\n" +
           s.kernel_name + "(const __grid_constant__ tilegemm::jit::probe::ProbeParams p) {\n" +
           "  tilegemm::jit::probe::probe_body<" + k + ">(p);\n}\n";
  return s;
}

}  // namespace tilegemm::jit
