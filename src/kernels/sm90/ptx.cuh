// The PTX the SM90 kernels use, one wrapper per instruction, each with its purpose and the PTX ISA
// section it follows (facts and sources: HOPPER_NOTES.md). mbarrier, TMA and fences go through
// CCCL's cuda::ptx; wgmma, stmatrix, setmaxnreg and elect.sync, which cuda::ptx 13.0 lacks, are
// inline PTX here and nowhere else.
#pragma once

#include <cstdint>

#include <cuda/ptx>
#include <cuda_bf16.h>

namespace tilegemm::sm90 {

namespace ptx = cuda::ptx;

// ---- addresses ---------------------------------------------------------------------------------
// 32-bit shared-window address of a shared-memory pointer (what descriptors and PTX operands take).
__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// ---- mbarrier (PTX ISA §9.7.13.15) -------------------------------------------------------------
// Initialise with the number of arrivals that complete one phase.
__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t arrivals) {
  ptx::mbarrier_init(bar, arrivals);
}
// Make this thread's mbarrier.init visible to the async proxy / the cluster (§9.7.13.4).
__device__ __forceinline__ void fence_barrier_init() {
  ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
}
// arrive(1) with release at CTA scope.
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  (void)ptx::mbarrier_arrive(bar);
}
// expect_tx(bytes) then arrive(1): the phase completes when the arrivals and the bytes are in.
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  (void)ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, bar,
                                       bytes);
}
// Block until the phase with parity `parity` has completed. A fresh barrier is in phase 0, so
// wait(1) returns at once and wait(0) blocks until the first phase completes (§9.7.13.15.16).
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  while (!ptx::mbarrier_try_wait_parity(bar, parity)) {
  }
}
// arrive(1) on the barrier at the same offset in cluster CTA `cta_rank` (mapa + remote arrive,
// §9.7.9.23, §9.7.13.15.8), with .relaxed semantics. NOTES: the .release.cluster form compiles to a
// MEMBAR.ALL.GPU before every arrive; used once per consumer warp per k-block to release a stage
// it cost the 2-CTA ladder kernels 45% (step 9: 554 -> 810 TFLOPS at 8192^3 on the H200,
// docs/LADDER.md). Releasing a stage orders nothing: wgmma.wait_group already returned, so no
// access to the stage is pending. CUTLASS, DeepGEMM and fast.cu use the same unfenced arrive.
__device__ __forceinline__ void mbar_arrive_cluster(uint64_t* bar, uint32_t cta_rank) {
  auto* remote = static_cast<uint64_t*>(__cluster_map_shared_rank(bar, cta_rank));
  ptx::mbarrier_arrive(ptx::sem_relaxed, ptx::scope_cluster, ptx::space_cluster, remote);
}

// ---- proxy fences (PTX ISA §9.7.13.4) ----------------------------------------------------------
// Orders this thread's generic-proxy shared-memory writes (st.shared, stmatrix) before later
// async-proxy reads (wgmma operands, TMA store source).
__device__ __forceinline__ void fence_proxy_async_smem() { ptx::fence_proxy_async(ptx::space_shared); }

// ---- TMA (PTX ISA §9.7.9.25) -------------------------------------------------------------------
// 2-D tiled load of the box at (c0 = inner coordinate, c1 = outer) into dst; completes `bytes` of
// transaction count on bar. Out-of-bounds elements are zero-filled.
__device__ __forceinline__ void tma_load_2d(void* dst, const void* tmap, uint64_t* bar, int32_t c0,
                                            int32_t c1) {
  const int32_t coords[2] = {c0, c1};
  ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, dst, tmap, coords, bar);
}
// Same, multicast into every CTA of the cluster whose bit is set in cta_mask (same smem offset,
// complete_tx on the barrier at the same offset in each).
__device__ __forceinline__ void tma_load_2d_multicast(void* dst, const void* tmap, uint64_t* bar,
                                                      int32_t c0, int32_t c1, uint16_t cta_mask) {
  const int32_t coords[2] = {c0, c1};
  ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, dst, tmap, coords, bar, cta_mask);
}
// 2-D tiled store of the box at (c0, c1) from src (bulk-group completion).
__device__ __forceinline__ void tma_store_2d(const void* tmap, const void* src, int32_t c0, int32_t c1) {
  const int32_t coords[2] = {c0, c1};
  ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, tmap, coords, src);
}
__device__ __forceinline__ void tma_store_commit() { ptx::cp_async_bulk_commit_group(); }
// Wait until at most N committed store groups still read their shared-memory source.
template <int N>
__device__ __forceinline__ void tma_store_wait_read() {
  ptx::cp_async_bulk_wait_group_read(ptx::n32_t<N>{});
}
template <int N>
__device__ __forceinline__ void tma_store_wait_all() {
  ptx::cp_async_bulk_wait_group(ptx::n32_t<N>{});
}
// Pull the 128-B tensor map into the descriptor cache (PTX ISA §9.7.9.15).
__device__ __forceinline__ void prefetch_tensor_map(const void* tmap) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(tmap) : "memory");
}

// ---- wgmma (PTX ISA §9.7.15) -------------------------------------------------------------------
// Orders earlier register/smem accesses before the next wgmma.mma_async (§9.7.15.7.1).
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
// Closes the wgmma.mma_async issued so far into one group (§9.7.15.7.2).
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
// Waits until at most N groups are pending (§9.7.15.7.3).
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
// Compiler-only fence on an accumulator register: keeps nvcc from moving its reads/writes across
// the asynchronous wgmma (HOPPER_NOTES §1, "compiler hazard").
__device__ __forceinline__ void fence_operand(float& r) { asm volatile("" : "+f"(r)::"memory"); }
template <int R>
__device__ __forceinline__ void fence_accumulators(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) fence_operand(d[i]);
}

#include "ptx_wgmma.inc"  // WgmmaSS<N>::mma<transA, transB>: m64nNk16 bf16 -> f32, A and B in smem

// d (+)= A·B for one 64 x N x 16 step. scale_d = 0 ignores the old d (first k-step of a tile).
// kTransA/kTransB = 0: K-major operands (the NT layout).
template <int N, int kTransA = 0, int kTransB = 0>
__device__ __forceinline__ void wgmma_m64k16(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b,
                                             int scale_d) {
  WgmmaSS<N>::template mma<kTransA, kTransB>(d, desc_a, desc_b, scale_d);
}

// ---- stmatrix (PTX ISA §9.7.9.21) --------------------------------------------------------------
// Each lane l supplies the row address of row (l % 8) of 8x8 matrix (l / 8); r0..r3 hold this
// thread's two bf16 of matrices 0..3 (the mma fragment order).
__device__ __forceinline__ void stmatrix_x4(void* row_addr, uint32_t r0, uint32_t r1, uint32_t r2,
                                            uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(smem_u32(row_addr)),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

// ---- registers and warps -----------------------------------------------------------------------
// Move registers between warpgroups (PTX ISA §9.7.19.5): needs a fixed count at entry
// (__launch_bounds__(threads, 1)); every warp of the warpgroup must execute it.
template <int kRegs>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kRegs));
}
template <int kRegs>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kRegs));
}
// True in exactly one lane of the (fully active) warp (PTX ISA §9.7.13.14).
__device__ __forceinline__ bool elect_one_sync() {
  uint32_t pred = 0;
  asm volatile(
      "{\n.reg .pred p;\nelect.sync _|p, 0xffffffff;\nselp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(pred));
  return pred != 0;
}
// Named barrier over `threads` threads (multiple of 32), id 1..15 (0 is __syncthreads).
__device__ __forceinline__ void named_barrier_sync(uint32_t id, uint32_t threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// ---- clusters (PTX ISA §9.7.13.3, §10) ---------------------------------------------------------
__device__ __forceinline__ uint32_t cluster_ctarank() { return ptx::get_sreg_cluster_ctarank(); }
__device__ __forceinline__ void cluster_sync() {
  ptx::barrier_cluster_arrive();
  ptx::barrier_cluster_wait();
}

// Pack two floats into one register of two bf16 (lo = first column).
__device__ __forceinline__ uint32_t pack_bf16x2(float lo, float hi) {
  __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&v);
}

}  // namespace tilegemm::sm90
