// The probe kernel's one parameter, passed by value as a __grid_constant__ struct. Plain C++ with
// builtin types only: the host (g++) and NVRTC (no include path) both compile this file.
#pragma once

namespace tilegemm::jit::probe {

// Floats each block writes, at out[blockIdx.x * kOutPerBlock + slot].
constexpr int kOutPerBlock = 6;
enum ProbeSlot : int {
  kSlotProduct = 0,    // scale * (thread 0's first accumulator): scale * 16 * k_steps
  kSlotAllAgree = 1,   // 1 when all 4 accumulators of all 128 threads equal 16 * k_steps, else 0
  kSlotClusterRank = 2,   // %cluster_ctarank
  kSlotClusterSize = 3,   // %cluster_nctarank
  kSlotTag = 4,           // ProbeParams::tag, to show the struct arrived whole
  kSlotDynamicSmem = 5,   // %dynamic_smem_size in bytes
};

constexpr int kThreads = 128;              // one warpgroup: wgmma is issued by 4 warps together
constexpr unsigned kMinDynamicSmem = 8192;  // the A and B operand regions the probe fills

struct ProbeParams {
  float* out;         // [gridDim.x][kOutPerBlock], device memory
  float scale;        // multiplies the product written to kSlotProduct
  unsigned int tag;   // copied to kSlotTag
};

}  // namespace tilegemm::jit::probe
