// The production SM90 BF16 GEMM kernel: D = alpha · A·Bᵀ (+ beta · C), A [M, K] and B [N, K] each
// K-major or MN-major, D (and C) [M, N] row-major bf16 or fp32, for any M, N, K >= 1. One template, gemm_kernel_body<Config>: the JIT
// (src/jit/codegen.cpp) writes a translation unit per Config that wraps it in an extern "C"
// __global__ function, and NVRTC compiles exactly that configuration. Device code only; it depends
// on nothing host-side.
//
// Roles (ladder step 9, src/ladder/step09_two_consumers.cu, generalised by the Config):
//   warpgroup 0          producer: one elected thread issues the TMA loads (mainloop.cuh)
//   warpgroups 1..bm/64  consumers: wgmma into 64 x BN fp32 accumulators each, then the epilogue
//                        (epilogue.cuh); setmaxnreg moves registers from the producer to them.
//                        Ping-pong (Config::pingpong): two consumers, each computing whole BM x BN
//                        tiles, alternating, so one's epilogue overlaps the other's mainloop.
// Work: persistent CTAs walk work units in the Config's tile order (scheduler.cuh); a static launch
// gives each CTA one unit. Edges: a TMA load box that reaches past M, N or K is zero-filled (a
// ragged K tail adds 0) and still completes its full bytes on the barrier; stores are clipped.
// Tracing (Config::trace, docs/TRACE.md): each role appends its steps to its lane of p.trace
// (trace_lane.cuh); with trace off the hooks are empty and the kernel compiles as before.
// Clusters (2x1: B multicast, 1x2: A multicast): the planner uses them only when the tile grid is
// even along the cluster axis, so every pair is complete, every CTA multicasts at every step and
// the two rings stay in lock-step (an incomplete pair would leave a peer's empty barrier short of
// arrivals).
#pragma once

#include "sm90/gemm/epilogue.cuh"
#include "sm90/gemm/fixup.cuh"
#include "sm90/gemm/mainloop.cuh"
#include "sm90/gemm/params.hpp"
#include "sm90/gemm/scheduler.cuh"
#include "sm90/gemm/trace_lane.cuh"
#include "sm90/gemm/traits.cuh"
#include "sm90/pipeline.cuh"

namespace tilegemm::sm90 {

// Grid: P CTAs (a multiple of the cluster size), block GemmTraits<C>::kThreads, cluster
// (launch_cluster_size, 1, 1), dynamic smem GemmTraits<C>::kLayout.total_bytes. A k-split cluster
// (Config::cluster_k = S) runs one unit per CTA: P = tiles x S, CTA p slice p % S of tile p / S.
template <Config C>
__device__ __forceinline__ void gemm_kernel_body(const GemmParams& p) {
  using T = GemmTraits<C>;
  constexpr SmemLayout L = T::kLayout;
  // A traced kernel stamps its first instruction (trace_entry writes it after the prologue), so that
  // the prologue and the launch show against the roles' begin. Untraced: nothing read.
  uint64_t entry_ns = 0;
  if constexpr (C.trace) {
    if (threadIdx.x == 0) entry_ns = global_timer_ns();
  }
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = align_smem_1024(smem_raw);
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + L.full_barrier(0));
  uint64_t* empty = reinterpret_cast<uint64_t*>(smem + L.empty_barrier(0));
  // (The warpgroup through a shuffle from lane 0: the compiler then knows it is warp-uniform and
  // keeps what derives from it, such as the wgmma descriptors, in uniform registers.)
  const int warpgroup = __shfl_sync(0xffffffffu, int(threadIdx.x / 128), 0), thread_in_wg = threadIdx.x % 128;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int m_total = p.m;
  const int n_total = C.fixed_n > 0 ? C.fixed_n : p.n;  // baked-in sizes are compile-time constants
  const int k_total = C.fixed_k > 0 ? C.fixed_k : p.k;
  const uint32_t rank = T::kClusterSize == 2 ? cluster_ctarank() : 0u;
  UnitScheduler<C.stream_k> scheduler;
  // The mapping member by member: each is a constant expression (copying C.mapping whole would read
  // the template parameter object from global memory).
  constexpr sched::Mapping kMapping{C.mapping.kind, C.mapping.group, C.mapping.box_m, C.mapping.box_n};
  scheduler.schedule = sched::Schedule{sched::make_tile_grid(m_total, n_total, C.bm, C.bn), kMapping, T::kClusterAxis};
  scheduler.num_kb = sched::ceil_div(k_total, C.bk);  // the last k-block may be ragged (zero-filled)
  if constexpr (C.stream_k) {
    scheduler.split = sched::KSplit{sched::num_slots(scheduler.schedule), scheduler.num_kb, p.dp_tiles, p.workers,
                                    p.sk_group};
    scheduler.slice_major = T::kClusterK == 1;  // a k-split cluster's slices are its consecutive CTAs
  }

  if (threadIdx.x == 0) {
    prefetch_tensor_map(&p.tmap_a);
    prefetch_tensor_map(&p.tmap_b);
    if constexpr (C.epilogue == Epilogue::tma_store) prefetch_tensor_map(&p.tmap_d);
    if constexpr (T::kStagedC) prefetch_tensor_map(&p.tmap_c);
    for (int s = 0; s < C.stages; ++s) {
      mbar_init(&full[s], 1);                                       // the producer's arrive.expect_tx
      // every warp of the stage's consumers in the cluster (ping-pong: of the one consumer whose tile it is)
      mbar_init(&empty[s], T::kClusterSize * 4 * (C.pingpong ? 1 : T::kConsumers));
    }
    for (int i = 0; i < epilogue_barriers(C); ++i)
      mbar_init(reinterpret_cast<uint64_t*>(smem + L.extra_barrier(i)), 1);  // a slot's C load
    for (int i = 0; i < turn_barriers(C); ++i)
      mbar_init(reinterpret_cast<uint64_t*>(smem + L.extra_barrier(epilogue_barriers(C) + i)), 4);  // one per warp
    for (int i = 0; i < recv_barriers(C); ++i)  // slice 0's arrive.expect_tx (fixup.cuh)
      mbar_init(reinterpret_cast<uint64_t*>(smem + L.extra_barrier(epilogue_barriers(C) + turn_barriers(C) + i)), 1);
    fence_barrier_init();
  }
  if constexpr (T::kLaunchCluster > 1) {
    cluster_sync();  // peers' barriers exist before anyone multicasts, arrives or sends remotely
  } else {
    __syncthreads();
  }
  // Programmatic dependent launch (ptx.cuh): everything above touches only shared memory and the
  // launch parameters, so it may overlap the previous kernel in the stream (an operand copy, or the
  // caller's kernel that wrote A, B or C) when gemm() launched this one with the attribute; every
  // global access below (operands, C, D, the k-split workspace, the trace) waits for it. Without
  // the attribute it returns at once. (The next kernel is let in by the producer once it has
  // issued its last load, below.)
  griddep_wait();
  if (threadIdx.x == 0) trace_entry<C.trace>(p, 1 + T::kConsumers, entry_ns);

  if (warpgroup == 0) {
    // ---- producer ----
    if constexpr (T::kRebalance) setmaxnreg_dec<C.producer_regs>();  // consumers get the registers
    if (warp == 0 && elect_one_sync()) {
      TraceLane<C.trace> rec(p, /*lane=*/0, 1 + T::kConsumers, /*writer=*/true);
      RingState<C.stages> ring;
      scheduler.begin(blockIdx.x);
      for (UnitWork unit; scheduler.next(unit, gridDim.x);) {
        if (!unit.work.has_tile) continue;
        const TraceMark t = rec.unit_begin(unit);
        producer_load_unit<C>(smem, full, empty, ring, p, unit, tile_edge_shifts<C>(unit, m_total, n_total), rank,
                              rec);
        rec.unit_end(t, unit);
      }
      // The next kernel in the stream may be scheduled from here on (its griddep_wait still holds
      // it until this grid is done). NOTES: measured on the H100 (docs/PERF.md, twenty-ninth
      // session), the trigger right after the prologue made back-to-back calls slower (4096^3:
      // 209.9 us per call against 200.8 without PDL) and a copy followed by the GEMM 17-33 us
      // slower: a dependent launched that early competes with the running grid.
      griddep_launch_dependents();
      rec.finish();
    }
  } else {
    // ---- consumers: cooperative, consumer c computes tile rows [64c, 64c + 64) x all BN columns of
    // every tile (BM = 256: rows [128c, 128c + 128), two 64-row blocks); ping-pong, consumer c
    // computes the whole of every other tile (the CTA's tiles 0, 2, 4, ... go to consumer 0),
    // passing over the other's k-blocks in the ring ----
    if constexpr (T::kRebalance) setmaxnreg_inc<C.consumer_regs>();
    const int consumer = warpgroup - 1;
    const uint32_t smem_base = smem_u32(smem);
    uint8_t* slots = smem + L.d_offset + consumer * T::kSlotsPerConsumer * kStoreBoxBytes;
    float acc[T::kRowBlocks][T::kAcc];
    TraceLane<C.trace> rec(p, /*lane=*/1 + consumer, 1 + T::kConsumers, /*writer=*/thread_in_wg == 0);
    RingState<C.stages> ring;
    StagedC staged_c{&p.tmap_c, reinterpret_cast<uint64_t*>(smem + L.extra_barrier(consumer * T::kSlotsPerConsumer)),
                     0u};
    constexpr bool kAsyncC = async_thread_c(C);
    uint32_t* c_side = reinterpret_cast<uint32_t*>(smem + L.recv_offset + recv_area_bytes(C)) +
                       consumer * T::kSlotsPerConsumer * kStoreBoxRows;
    // The first 64-row block this consumer computes (cooperative: its kRowBlocks blocks, one or,
    // with BM = 256, two), and where tile rows start for block 0.
    const int row_block0 = C.pingpong ? 0 : consumer * T::kRowBlocks;
    // Ping-pong: the CTA's units with a tile so far (their parity picks the consumer), and the
    // turn barriers. NOTES: a consumer passing over the other's k-blocks must not wait on its own
    // first stage before the other has waited on all of them: a stage's full barrier would then be
    // two or more phases short of the one awaited, and a parity wait cannot tell them apart (it
    // would return on an old phase and read the other's k-block). So unit u (its consumer's turn
    // after (u + 1) / 2 units of the other) waits until the other consumer's warps have passed
    // their last full-barrier wait of the unit before (turn[consumer]), as CUTLASS's ping-pong
    // kernel orders its math warpgroups.
    int units_seen = 0;
    uint64_t* turn = reinterpret_cast<uint64_t*>(smem + L.extra_barrier(epilogue_barriers(C)));
    scheduler.begin(blockIdx.x);
    for (UnitWork unit; scheduler.next(unit, gridDim.x);) {
      if (!unit.work.has_tile) continue;
      const int n0 = unit.work.tile.n_block * C.bn;
      auto tile_out = [&](int r) {
        return TileOut{m_total, n_total, unit.work.tile.m_block * C.bm + (row_block0 + r) * 64, n0, p.d, p.ldd, p.c, p.ldc};
      };
      // C's first boxes land in the staging slots while the tile is computed, for the unit that
      // stores it: a whole tile, or a shared tile's piece 0 (the one that sums the pieces, fixup.cuh).
      // NOTES: measured on the H200 (docs/PERF.md, seventeenth session): loaded only after the
      // fix-up, a split tile's C cost its latency on top (333x4096x4096 128x176 swap-AB split 2 with C
      // 27.8 us, loaded at the start 26.2-26.7; 128x576x7168 64x64 split 7 10.5 -> 10.0).
      auto load_first_c_boxes = [&] {
        if constexpr (T::kStagedC)
          if (unit.piece == 0)
            prefetch_c_boxes<C.bn, T::kSlotsPerConsumer, C.out_dtype, C.d_col_major>(staged_c, slots, consumer,
                                                                                     thread_in_wg, tile_out(0));
        if constexpr (kAsyncC)
          issue_c_boxes_ahead<C.bn, T::kSlotsPerConsumer, C.out_dtype>(slots, c_side, thread_in_wg, tile_out(0));
      };
      if constexpr (C.pingpong) {
        const int u = units_seen++;
        if ((u & 1) != consumer) {  // the other consumer's tile: its k-blocks pass by
          ring.advance_by(unit.kb1 - unit.kb0);
          continue;
        }
        // Ping-pong: the slots are this consumer's own, free once its last tile's stores read them,
        // so C's loads are issued before the turn wait. NOTES: measured on the H200 (docs/PERF.md,
        // eighteenth session), this moves nothing (128x32768x512 with C, 64x64 ping-pong: 28.3 us
        // loaded after the turn wait, 28.1 before; 14.9 without C): the consumer's own epilogue,
        // not the turn, is what a short-K tile waits on.
        load_first_c_boxes();
        const int other_before = (u + 1) / 2;  // the other consumer's units before this one
        if (other_before > 0) mbar_wait(&turn[consumer], uint32_t(other_before - 1) & 1u);
      } else {
        load_first_c_boxes();
      }
      const TraceMark t = rec.unit_begin(unit);
      // C's lines this consumer will read, into L2 once its first k-block is issued (mainloop.cuh,
      // prefetch_c_share).
      const bool prefetch_c = kPrefetchesC<C> && (unit.pieces == 1 || unit.piece == 0);
      auto at_kblock = [&](int kb) {
        if constexpr (kPrefetchesC<C>)
          if (prefetch_c && kb == unit.kb0) {
            const TileOut first = tile_out(0);  // the consumer's rows start at its first 64-row block
            prefetch_c_share<C>(p, m_total, n_total, first.row0, 64 * T::kRowBlocks, first.n0, thread_in_wg);
          }
      };
      consumer_mma_unit<C>(acc, smem_base, full, empty, ring, unit, row_block0, lane, rec,
                           tile_edge_shifts<C>(unit, m_total, n_total),
                           C.pingpong ? &turn[1 - consumer] : nullptr, at_kblock);
      const TraceMark te = rec.now();  // the epilogue (container): the fix-up, then the store
      TraceMark ts = te;               // the store's own step
      if constexpr (C.stream_k) {
        if (unit.pieces > 1) {  // a tile shared between units: its piece 0 sums the pieces and stores it
          bool store = false;
          if constexpr (T::kClusterK > 1) {
            uint64_t* recv_bar = reinterpret_cast<uint64_t*>(
                smem + L.extra_barrier(epilogue_barriers(C) + turn_barriers(C) + consumer));
            store = cluster_fixup_piece<C.bn>(acc[0], smem + L.recv_offset, recv_bar, unit, T::kConsumers, consumer,
                                              thread_in_wg);
          } else {
            store = fixup_piece<C.bn, T::kThreads>(acc[0], p.workspace, p.counters, scheduler.split, unit,
                                                   T::kConsumers, consumer, thread_in_wg);
          }
          rec.record(te, store ? trace::EventKind::splitk_fixup : trace::EventKind::splitk_partial, 0, unit.kb0);
          if (!store) {
            rec.record(te, trace::EventKind::epilogue, 0, -1);
            rec.unit_end(t, unit);
            continue;
          }
          ts = rec.now();
        }
      }
#pragma unroll
      for (int r = 0; r < T::kRowBlocks; ++r) {
        const TileOut out = tile_out(r);
        // (With C, the next 64-row block's first boxes come into the slots as the block before
        // stores its last ones: store_tile_staged's c_rows_follow.)
        if constexpr (C.epilogue == Epilogue::direct) {
          store_tile_direct<C.bn, C.out_dtype, C.with_c, C.cd_pairs, C.d_col_major>(acc[r], p.alpha, p.beta,
                                                                                     thread_in_wg, out);
          rec.record(ts, trace::EventKind::direct_store, 0, -1);
        } else if constexpr (C.epilogue == Epilogue::smem_stores) {
          // (C by cp.async, its first boxes issued with the unit's start: load_first_c_boxes.)
          store_tile_staged<C.bn, T::kSlotsPerConsumer, C.out_dtype, C.with_c, true, false, kAsyncC>(
              acc[r], p.alpha, p.beta, &p.tmap_d, staged_c, slots, consumer, thread_in_wg, out, c_side,
              r + 1 < T::kRowBlocks);
        } else if constexpr (C.out_dtype == DType::bf16 && !C.with_c) {
          store_tile<C.bn, T::kSlotsPerConsumer, C.d_col_major>(acc[r], p.alpha, &p.tmap_d, slots, consumer, thread_in_wg,
                                                                out, rec);
        } else {
          store_tile_staged<C.bn, T::kSlotsPerConsumer, C.out_dtype, C.with_c, false, C.d_col_major>(
              acc[r], p.alpha, p.beta, &p.tmap_d, staged_c, slots, consumer, thread_in_wg, out, nullptr,
              r + 1 < T::kRowBlocks);
        }
      }
      rec.record(te, trace::EventKind::epilogue, 0, -1);
      rec.unit_end(t, unit);
      (void)ts;
    }
    if constexpr (C.epilogue == Epilogue::tma_store) {
      const TraceMark t = rec.now();
      if (thread_in_wg == 0) tma_store_wait_all<0>();  // the staging smem must outlive the last store
      rec.record(t, trace::EventKind::tma_store_wait, 0, -1, trace::kFlagDrain);
    }
    rec.finish();
  }
  // NOTES: no CTA of a pair may exit while its peer can still multicast into it or arrive on its
  // empty barriers; no slice of a k-split cluster while its st.async stores are in flight or slice
  // 0 still sums (slice 0 gets here after its sum).
  if constexpr (T::kLaunchCluster > 1) cluster_sync();
}

}  // namespace tilegemm::sm90
