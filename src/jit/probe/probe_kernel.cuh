// Probe kernel for the JIT runtime: a tiny device body that needs sm_90a (wgmma), reads its
// cluster rank, takes its parameters as one __grid_constant__ struct and uses dynamic shared
// memory, so a launch checks every part of compile -> load -> launch. Self-contained: NVRTC gets
// no include path, only the embedded headers. The generated source defines the entry point:
//   extern "C" __global__ void __launch_bounds__(128, 1) name(const __grid_constant__ ProbeParams p)
//   { tilegemm::jit::probe::probe_body<K_STEPS>(p); }
//
// NOTES: this comment holds the embed delimiter )tg_embed" on purpose, so that
// src/jit/embed_headers.cmake stores this file as a byte array and the test of embedded texts
// covers that path as well as the raw-string one.
#pragma once

#include "jit/probe/probe_params.h"

namespace tilegemm::jit::probe {

// wgmma matrix descriptor without swizzle (PTX ISA 9.7.15.5.1, "Matrix Descriptor Format"):
// bits 0-13 start address >> 4, 16-29 leading byte offset >> 4, 32-45 stride byte offset >> 4.
// The operands are all ones, so any layout the offsets describe reads the same values.
__device__ __forceinline__ unsigned long long probe_descriptor(unsigned smem_addr) {
  return static_cast<unsigned long long>((smem_addr & 0x3FFFF) >> 4) |
         (static_cast<unsigned long long>(128 >> 4) << 16) |
         (static_cast<unsigned long long>(256 >> 4) << 32);
}

// D[64x8] (+)= A[64x16] * B[8x16]^T, bf16 in, f32 out, A and B in shared memory (PTX ISA 9.7.15.5.2).
__device__ __forceinline__ void probe_wgmma(float (&d)[4], unsigned long long desc_a,
                                            unsigned long long desc_b, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "l"(desc_a), "l"(desc_b), "r"(accumulate));
}

__device__ __forceinline__ unsigned probe_special(int which) {
  unsigned v = 0;
  if (which == 0) asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(v));
  if (which == 1) asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(v));
  if (which == 2) asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(v));
  return v;
}

template <int kKSteps>
__device__ void probe_body(const ProbeParams& p) {
  extern __shared__ __align__(1024) unsigned short probe_smem[];  // bf16 bits
  for (unsigned i = threadIdx.x; i < kMinDynamicSmem / 2; i += blockDim.x) probe_smem[i] = 0x3F80;  // 1.0
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // generic writes -> wgmma reads
  __syncthreads();

  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(probe_smem));
  const unsigned long long desc_a = probe_descriptor(base);
  const unsigned long long desc_b = probe_descriptor(base + kMinDynamicSmem / 2);
  float d[4] = {0.f, 0.f, 0.f, 0.f};
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
  for (int k = 0; k < kKSteps; ++k) probe_wgmma(d, desc_a, desc_b, k);
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");

  const float expected = 16.0f * kKSteps;
  const bool mine = d[0] == expected && d[1] == expected && d[2] == expected && d[3] == expected;
  const int all = __syncthreads_and(mine ? 1 : 0);
  if (threadIdx.x == 0) {
    float* out = p.out + blockIdx.x * kOutPerBlock;
    out[kSlotProduct] = p.scale * d[0];
    out[kSlotAllAgree] = all ? 1.0f : 0.0f;
    out[kSlotClusterRank] = static_cast<float>(probe_special(0));
    out[kSlotClusterSize] = static_cast<float>(probe_special(1));
    out[kSlotTag] = static_cast<float>(p.tag);
    out[kSlotDynamicSmem] = static_cast<float>(probe_special(2));
  }
}

}  // namespace tilegemm::jit::probe
