// The PTX the SM90 kernels use: one wrapper per instruction, each with its purpose and the PTX ISA
// section it follows (ISA 9.0, the version CUDA 13.0 emits). Inline PTX here and nowhere else.
//
// NOTES: no <cuda/ptx>, no <cuda_bf16.h>, no std header. The production kernel is compiled at run
// time by NVRTC from the project's embedded headers alone, and `#include <cuda/ptx>` costs about
// 0.65 s of NVRTC front-end time per kernel (measured with NVRTC 13.0, -time), most of the
// 1-second compile budget. Every instruction below is one line of PTX, so the wrappers are short.
#pragma once

#include "core/int_types.hpp"

namespace tilegemm::sm90 {

// ---- addresses ---------------------------------------------------------------------------------
// 32-bit shared-window address of a shared-memory pointer (what descriptors and PTX operands take).
__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
// The same offset in the shared memory of cluster CTA `cta_rank`, as a shared::cluster address
// (PTX ISA: mapa).
__device__ __forceinline__ uint32_t cluster_map_smem(uint32_t local, uint32_t cta_rank) {
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(cta_rank));
  return remote;
}

// ---- mbarrier (PTX ISA §9.7.13.15) -------------------------------------------------------------
// Initialise with the number of arrivals that complete one phase (mbarrier.init).
__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(arrivals) : "memory");
}
// Make this thread's mbarrier.init visible to the async proxy and the cluster (§9.7.13.4).
__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
// arrive(1), release at CTA scope.
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" ::"r"(smem_u32(bar)) : "memory");
}
// arrive(1), relaxed: for releasing a stage whose reads have completed (nothing to order; see
// mbar_arrive_cluster). PTX ISA 8.6+.
__device__ __forceinline__ void mbar_arrive_relaxed(uint64_t* bar) {
  asm volatile("mbarrier.arrive.relaxed.cta.shared::cta.b64 _, [%0];" ::"r"(smem_u32(bar)) : "memory");
}
// expect_tx(bytes) then arrive(1): the phase completes when the arrivals and the bytes are in.
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)),
               "r"(bytes)
               : "memory");
}
// Block until the phase with parity `parity` has completed. A fresh barrier is in phase 0, so
// wait(1) returns at once and wait(0) blocks until the first phase completes (§9.7.13.15.16).
// kClusterAcquire: with acquire at cluster scope, so that what other CTAs of the cluster did before
// completing the phase (their st.async bytes) is visible to this thread (.acquire.cluster).
template <bool kClusterAcquire = false>
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  const uint32_t addr = smem_u32(bar);
  uint32_t done = 0;
  do {
    if constexpr (kClusterAcquire) {
      asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n"
                   "selp.u32 %0, 1, 0, p;\n}\n" : "=r"(done) : "r"(addr), "r"(parity) : "memory");
    } else {
      asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                   : "=r"(done) : "r"(addr), "r"(parity) : "memory");
    }
  } while (!done);
}
// arrive(1) on the barrier at the same offset in cluster CTA `cta_rank`, .relaxed at cluster scope
// (§9.7.13.15). NOTES: the .release.cluster form compiles to a MEMBAR.ALL.GPU before every
// arrive; used once per consumer warp per k-block to release a stage it cost the 2-CTA ladder
// kernels 45% (step 9: 554 -> 810 TFLOPS at 8192^3 on the H200, docs/LADDER.md). Releasing a stage
// orders nothing: wgmma.wait_group already returned, so no access to the stage is pending.
// CUTLASS, DeepGEMM and fast.cu use the same unfenced arrive.
__device__ __forceinline__ void mbar_arrive_cluster(uint64_t* bar, uint32_t cta_rank) {
  asm volatile("mbarrier.arrive.relaxed.cluster.shared::cluster.b64 _, [%0];" ::"r"(
                   cluster_map_smem(smem_u32(bar), cta_rank))
               : "memory");
}

// 16 B into the shared memory of cluster CTA `cta_rank` at the offset of `local` (this CTA's
// address of the same object), counted as 16 transaction bytes on that CTA's barrier at the offset
// of `bar` (PTX ISA: st.async, PTX 8.1, sm_90): a one-way store, no reply awaited.
__device__ __forceinline__ void st_async_v4(const void* local, uint64_t* bar, uint32_t cta_rank, float a, float b,
                                            float c, float d) {
  asm volatile(
      "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [%0], {%1, %2, %3, %4}, [%5];" ::"r"(
          cluster_map_smem(smem_u32(local), cta_rank)),
      "f"(a), "f"(b), "f"(c), "f"(d), "r"(cluster_map_smem(smem_u32(bar), cta_rank))
      : "memory");
}

// ---- proxy fences (PTX ISA §9.7.13.4) ----------------------------------------------------------
// Orders this thread's generic-proxy shared-memory writes (st.shared, stmatrix) before later
// async-proxy reads (wgmma operands, TMA store source).
__device__ __forceinline__ void fence_proxy_async_smem() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// ---- TMA (PTX ISA §9.7.9.25) -------------------------------------------------------------------
// 2-D tiled load of the box at (c0 = inner coordinate, c1 = outer) into dst; completes the box's
// bytes of transaction count on bar. Out-of-bounds elements are zero-filled (§9.7.9.25).
__device__ __forceinline__ void tma_load_2d(void* dst, const void* tmap, uint64_t* bar, int32_t c0, int32_t c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
          smem_u32(dst)),
      "l"(tmap), "r"(c0), "r"(c1), "r"(smem_u32(bar))
      : "memory");
}
// Same, multicast into every CTA of the cluster whose bit is set in cta_mask (same smem offset,
// complete_tx on the barrier at the same offset in each).
__device__ __forceinline__ void tma_load_2d_multicast(void* dst, const void* tmap, uint64_t* bar, int32_t c0,
                                                      int32_t c1, uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(smem_u32(dst)),
      "l"(tmap), "r"(c0), "r"(c1), "r"(smem_u32(bar)), "h"(cta_mask)
      : "memory");
}
// 2-D tiled store of the box at (c0, c1) from src (bulk-group completion). The store clips at the
// tensor's end only in whole 16-B chunks (measured on the H200; see the epilogue).
__device__ __forceinline__ void tma_store_2d(const void* tmap, const void* src, int32_t c0, int32_t c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(tmap),
               "r"(c0), "r"(c1), "r"(smem_u32(src))
               : "memory");
}
// Closes this thread's bulk stores so far into one group.
__device__ __forceinline__ void tma_store_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
// Wait until at most N committed store groups still read their shared-memory source.
template <int N>
__device__ __forceinline__ void tma_store_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
// Wait until at most N committed store groups are still pending (writes done).
template <int N>
__device__ __forceinline__ void tma_store_wait_all() {
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(N) : "memory");
}
// A hint to bring the L2 line holding `addr` into L2 (PTX ISA, prefetch): an ordinary memory
// instruction of the issuing thread (not the bulk-copy path, which the TMA loads share).
__device__ __forceinline__ void prefetch_l2_line(const void* addr) {
  asm volatile("prefetch.global.L2 [%0];" ::"l"(addr));
}
// Pull the 128-B tensor map into the descriptor cache (§9.7.9.15).
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
// Compiler-only fence on an accumulator register: keeps the compiler from moving its reads/writes
// across the asynchronous wgmma (docs/HOPPER.md §1, "compiler hazard").
__device__ __forceinline__ void fence_operand(float& r) { asm volatile("" : "+f"(r)::"memory"); }
template <int R>
__device__ __forceinline__ void fence_accumulators(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) fence_operand(d[i]);
}

#include "sm90/ptx_wgmma.inc"  // WgmmaSS<N>::mma<transA, transB>: m64nNk16 bf16 -> f32, A and B in smem

// d (+)= A·B for one 64 x N x 16 step. scale_d = 0 ignores the old d (first k-step of a tile).
// kTransA/kTransB = 0: K-major operands; 1: MN-major (§9.7.15.5.1.2, bf16 only).
template <int N, int kTransA = 0, int kTransB = 0>
__device__ __forceinline__ void wgmma_m64k16(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b, int scale_d) {
  WgmmaSS<N>::template mma<kTransA, kTransB>(d, uint32_t(desc_a), uint32_t(desc_a >> 32), uint32_t(desc_b),
                                             uint32_t(desc_b >> 32), scale_d);
}
// The same with each descriptor as its two 32-bit words (low: start address and leading offset;
// high: stride offset and swizzle): a kernel that steps descriptors adds to the low words only.
template <int N, int kTransA = 0, int kTransB = 0>
__device__ __forceinline__ void wgmma_m64k16_words(float (&d)[N / 2], uint32_t a_lo, uint32_t a_hi, uint32_t b_lo,
                                                   uint32_t b_hi, int scale_d) {
  WgmmaSS<N>::template mma<kTransA, kTransB>(d, a_lo, a_hi, b_lo, b_hi, scale_d);
}

// ---- stmatrix / ldmatrix (PTX ISA: stmatrix, ldmatrix) -------------------------------------------
// stmatrix: each lane l supplies the row address of row (l % 8) of 8x8 matrix (l / 8); r0..r3 hold
// this thread's two bf16 of matrices 0..3 (the mma fragment order). kTrans (the .trans qualifier):
// each 8x8 matrix is stored transposed, so lane 8i + r's address receives column r of matrix i
// (the fragment's column becomes a row).
template <bool kTrans = false>
__device__ __forceinline__ void stmatrix_x4(void* row_addr, uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3) {
  if constexpr (kTrans) {
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(smem_u32(row_addr)),
                 "r"(r0), "r"(r1), "r"(r2), "r"(r3)
                 : "memory");
  } else {
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(smem_u32(row_addr)),
                 "r"(r0), "r"(r1), "r"(r2), "r"(r3)
                 : "memory");
  }
}
// The inverse of stmatrix_x4<kTrans>: the same lane addresses give back the four 8x8 b16 matrices
// in the same fragment registers.
template <bool kTrans = false>
__device__ __forceinline__ void ldmatrix_x4(const void* row_addr, uint32_t& r0, uint32_t& r1, uint32_t& r2,
                                            uint32_t& r3) {
  if constexpr (kTrans) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                 : "r"(smem_u32(row_addr))
                 : "memory");
  } else {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                 : "r"(smem_u32(row_addr))
                 : "memory");
  }
}

// The two-matrix forms (an 8-column tail of the fragment: matrices 0 and 1 only): lanes 0..15
// give the row addresses, as in the x4 forms (PTX ISA: stmatrix, ldmatrix, ".x2").
template <bool kTrans = false>
__device__ __forceinline__ void stmatrix_x2(void* row_addr, uint32_t r0, uint32_t r1) {
  if constexpr (kTrans) {
    asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" ::"r"(smem_u32(row_addr)), "r"(r0),
                 "r"(r1)
                 : "memory");
  } else {
    asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};" ::"r"(smem_u32(row_addr)), "r"(r0), "r"(r1)
                 : "memory");
  }
}
template <bool kTrans = false>
__device__ __forceinline__ void ldmatrix_x2(const void* row_addr, uint32_t& r0, uint32_t& r1) {
  if constexpr (kTrans) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                 : "=r"(r0), "=r"(r1)
                 : "r"(smem_u32(row_addr))
                 : "memory");
  } else {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
                 : "=r"(r0), "=r"(r1)
                 : "r"(smem_u32(row_addr))
                 : "memory");
  }
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
  asm volatile("{\n.reg .pred p;\nelect.sync _|p, 0xffffffff;\nselp.u32 %0, 1, 0, p;\n}\n" : "=r"(pred));
  return pred != 0;
}
// Named barrier over `threads` threads (multiple of 32), id 1..15 (0 is __syncthreads) (bar.sync, PTX ISA §9.7.13.1).
__device__ __forceinline__ void named_barrier_sync(uint32_t id, uint32_t threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// ---- cp.async (PTX ISA §9.7.9.25.3: cp.async, cp.async.commit_group, cp.async.wait_group) ----
// 4 bytes global -> shared without a register: src 4-B aligned; only the first src_bytes (0, 2 or
// 4) are read, the rest of the 4 written as zeros (src_bytes 0 reads nothing: src need only be a
// valid address). The thread sees the bytes after a cp.async.wait_group that covers its group.
__device__ __forceinline__ void cp_async_4(uint32_t dst, const void* src, uint32_t src_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(dst), "l"(src), "r"(src_bytes) : "memory");
}
__device__ __forceinline__ void cp_async_4(uint32_t dst, const void* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
// Wait until at most N of this thread's committed groups are pending.
template <int N>
__device__ __forceinline__ void cp_async_wait_group() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

// ---- global memory between CTAs: the k-split fix-up (PTX ISA §8 memory consistency model,
// §9.7.9.8 ld, §9.7.9.10 st, §9.7.13.4 membar/fence, §9.7.13.5 atom) ----------------------------
// Orders this thread's earlier global writes before its later ones at GPU scope (and its later
// reads after what it has observed).
__device__ __forceinline__ void fence_acq_rel_gpu() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }
// A counter another CTA releases: load with acquire semantics at GPU scope.
__device__ __forceinline__ uint32_t load_acquire_gpu(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
// Atomic add at GPU scope, no value returned (red; release order comes from a fence before it).
__device__ __forceinline__ void red_add_relaxed_gpu(uint32_t* p, uint32_t v) {
  asm volatile("red.relaxed.gpu.global.add.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
// Suspend the thread for about `ns` nanoseconds (nanosleep, PTX ISA §9.7.19.4): a polite spin.
__device__ __forceinline__ void sleep_ns(uint32_t ns) { asm volatile("nanosleep.u32 %0;" ::"r"(ns)); }
__device__ __forceinline__ void store_relaxed_gpu(uint32_t* p, uint32_t v) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
// 16-B global store cached in L2 only (.cg), for data another CTA reads. dst 16-B aligned.
__device__ __forceinline__ void store_global_cg_f4(float* dst, float a, float b, float c, float d) {
  asm volatile("st.global.cg.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(dst), "f"(a), "f"(b), "f"(c), "f"(d) : "memory");
}

// ---- clusters (PTX ISA §9.7.13.3, §10) ---------------------------------------------------------
__device__ __forceinline__ uint32_t cluster_ctarank() {
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  return rank;
}
// Every thread of every CTA of the cluster arrives (release) and waits (acquire).
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// ---- programmatic dependent launch (PTX ISA, griddepcontrol; CUDA C++ Programming Guide,
// "Programmatic Dependent Launch") ----------------------------------------------------------------
// A kernel launched with the programmatic-stream-serialization attribute may start before the
// kernel before it in the stream has finished. griddep_wait blocks the thread until every such
// prerequisite grid has completed and its memory operations are visible; in a kernel launched
// without the attribute (or whose prerequisites are done) it returns at once. Every thread that
// touches global memory the previous kernel may write calls it first.
__device__ __forceinline__ void griddep_wait() { asm volatile("griddepcontrol.wait;" ::: "memory"); }
// This CTA no longer holds back the launch of a programmatic dependent (the next kernel in the
// stream, launched with the attribute): once every CTA has issued it or exited, the dependent's
// CTAs may be scheduled, and they wait in their own griddep_wait for this grid to complete.
__device__ __forceinline__ void griddep_launch_dependents() {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}

// ---- timers, SM id, trace stores (the traced kernel only, sm90/gemm/trace_lane.cuh) ------------
// %globaltimer: the global nanosecond timer, the same on every SM (PTX ISA,
// special registers: %globaltimer).
__device__ __forceinline__ uint64_t global_timer_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
// %clock64: this SM's cycle counter (PTX ISA, special registers).
__device__ __forceinline__ uint64_t sm_clock64() {
  uint64_t c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c));
  return c;
}
// %smid: the SM this thread runs on (PTX ISA, special registers).
__device__ __forceinline__ uint32_t sm_id() {
  uint32_t id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}
// 16-B global store with the streaming hint (.cs: evict first; PTX ISA, st and cache
// operators), so trace
// records do not push A and B out of L2. dst 16-B aligned.
__device__ __forceinline__ void store_global_streaming_16(void* dst, uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  asm volatile("st.global.cs.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(dst), "r"(a), "r"(b), "r"(c), "r"(d) : "memory");
}

// The same for 8 B. dst 8-B aligned.
__device__ __forceinline__ void store_global_streaming_8(void* dst, uint32_t a, uint32_t b) {
  asm volatile("st.global.cs.v2.u32 [%0], {%1, %2};" ::"l"(dst), "r"(a), "r"(b) : "memory");
}

// L2 eviction policies (PTX ISA, createpolicy): fraction 1.0, every access made with the policy
// gets the priority. For the .L2::cache_hint loads and stores below.
__device__ __forceinline__ uint64_t l2_policy_evict_first() {
  uint64_t p;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
  return p;
}
__device__ __forceinline__ uint64_t l2_policy_evict_last() {
  uint64_t p;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
  return p;
}
// 16-B read-only global load / global store with an L2 policy (PTX ISA, ld and st: .L2::cache_hint;
// sm_90 takes the priority only this way for 16-B accesses, the .L2::evict_* qualifiers need
// 32-B ones). Addresses 16-B aligned.
__device__ __forceinline__ uint4 load_global_nc_16_hint(const void* src, uint64_t policy) {
  uint4 v;
  asm volatile("ld.global.nc.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(src), "l"(policy));
  return v;
}
__device__ __forceinline__ void store_global_16_hint(void* dst, uint4 v, uint64_t policy) {
  asm volatile("st.global.L2::cache_hint.v4.u32 [%0], {%1, %2, %3, %4}, %5;" ::"l"(dst), "r"(v.x), "r"(v.y),
               "r"(v.z), "r"(v.w), "l"(policy)
               : "memory");
}

// ---- conversions (PTX ISA: cvt) --------------------------------------------------------------
// Two floats -> one register of two bf16, round to nearest even; lo is the first (lower) column.
// cvt.rn.bf16x2.f32 d, a, b puts a in the upper half and b in the lower.
__device__ __forceinline__ uint32_t pack_bf16x2(float lo, float hi) {
  uint32_t r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}
// One float -> bf16 bits, round to nearest even.
__device__ __forceinline__ uint16_t to_bf16_bits(float x) {
  uint16_t r;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(x));
  return r;
}

}  // namespace tilegemm::sm90
