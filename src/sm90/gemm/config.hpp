// Config: THE configuration type of tilegemm. One value is at once
//   - a candidate the planner enumerates, filters and scores (src/plan/),
//   - the template argument of the production kernel (gemm_kernel<Config{...}>, kernel.cuh), written
//     into the kernel's source by the JIT (src/jit/codegen.cpp),
//   - what `tilegemm explain` prints and what gemm() launches.
// Plain data, constexpr, no std: compiled by g++, nvcc and NVRTC, and usable as a C++20 class-type
// template parameter. `is_kernel_config` states which values the kernel template accepts; the
// planner enumerates exactly those (tests/cpu/plan checks that every candidate passes it and the
// JIT compiles a sample of them).
//
// Problem orientation: the kernel computes D[M, N] = alpha · A[M, K] · B[N, K]ᵀ with BLOCK_M tiling
// M and BLOCK_N tiling N; A [M, K] and B [N, K] each K-major or MN-major (a_major, b_major: "NT" is
// both K-major), D [M, N] row-major bf16 or fp32, optionally + beta·C (C [M, N] row-major, D's
// dtype). Column-major D is the transposed problem (Dᵀ = B·Aᵀ); the host swaps the operands.
#pragma once

#include "core/host_device.hpp"
#include "schedule/mapping.hpp"
#include "schedule/stream_k.hpp"
#include "schedule/tile_mapping.hpp"
#include "sm90/smem_layout.hpp"
#include "sm90/swizzle.hpp"
#include "tilegemm/types.hpp"

namespace tilegemm::sm90 {

// How a tile's accumulators leave the CTA.
enum class Epilogue : int {
  // alpha·acc (+ beta·C, C TMA-loaded into the same boxes) -> bf16 or fp32 -> 128B-swizzled boxes
  // of 64 rows x 128 B in smem (stmatrix for bf16) -> TMA store; the store drains while the next
  // tile's mainloop runs. Needs BLOCK_N of at least one box (64 bf16 / 32 fp32 columns).
  tma_store = 0,
  // alpha·acc (+ beta·C) -> bf16 or fp32 -> bounds-checked stores straight from the registers (no
  // staging smem, so more stages fit). Any BLOCK_N; the choice for tiles narrower than one box,
  // and, with C in place (C is D), for widths that are not whole boxes (store_boxes).
  direct = 1,
  // Staged like tma_store, for a D (or C) that TMA cannot describe (odd leading dimension,
  // unaligned base): the consumer's threads write each staged box to D row by row, coalesced, and
  // load C's boxes into the slots by cp.async, the first ones during the tile's mainloop (k-split
  // kernels: read row by row as they store).
  smem_stores = 3,
};

TG_HD constexpr int out_elem_bytes(DType out) { return out == DType::fp32 ? 4 : 2; }  // D and C: bf16 or fp32
// Columns of one 128-B (swizzle-span) store box of the staged epilogue: 64 bf16 or 32 fp32.
TG_HD constexpr int store_box_cols(DType out) { return 128 / out_elem_bytes(out); }
// The staged boxes of one consumer's 64 x bn tile: whole boxes from column 0; when the box does
// not divide bn, the last one is moved left to end at bn, so it overlaps its neighbour and both
// write the same values to the same columns (bn 144: boxes at columns 0, 64 and 80). With C, each
// box reads C's columns first, so C must not be D: the overlapping box would read columns its
// neighbour already stored. The kernel cannot tell; the planner offers it only for a C that is not
// D (plan/planner.cpp, complete_config) and the launch refuses it in place (api/sm90_launch.cpp).
TG_HD constexpr int store_boxes(int bn, DType out) { return (bn + store_box_cols(out) - 1) / store_box_cols(out); }
TG_HD constexpr int store_box_col0(int box, int bn, int box_cols) {
  return (box + 1) * box_cols <= bn ? box * box_cols : bn - box_cols;
}

// The epilogues that stage boxes of the tile in shared memory (stage_cols of them at a time).
TG_HD constexpr bool staged_epilogue(Epilogue e) { return e == Epilogue::tma_store || e == Epilogue::smem_stores; }

// Swap-AB's transposed staging with C (tma_store, a column-major D for the kernel, bf16, with C):
// box b holds the kernel's columns [64b, min(64b + 64, bn)) (D's rows) transposed, the last box
// only partly (no overlap: C may be D), and TMA moves it in sub-boxes of trans_sub_box_cols(bn)
// kernel columns (8, 16, 32 or 64: the largest that divides bn), C's loads and D's stores alike.
TG_HD constexpr int trans_sub_box_cols(int bn) {
  return bn % 64 == 0 ? 64 : bn % 32 == 0 ? 32 : bn % 16 == 0 ? 16 : 8;
}
TG_HD constexpr int trans_box_width(int box, int bn) { return bn - 64 * box < 64 ? bn - 64 * box : 64; }

// The one name table of Epilogue (explain's JSON and the generated source use it).
TG_HD constexpr const char* epilogue_id(Epilogue e) {
  switch (e) {
    case Epilogue::tma_store: return "tma_store";
    case Epilogue::direct: return "direct";
    case Epilogue::smem_stores: return "smem_stores";
  }
  return "unknown";
}

inline constexpr int kBlockK = 64;        // one 128-B swizzled line of bf16 per operand row
inline constexpr int kMaxSplitK = 32;     // split-K slices a config may ask for
inline constexpr int kStreamKMinKBlocks = 4;  // a stream-K range keeps the pipeline busy this long
inline constexpr int kKSplitCounters = 4096;  // fix-up counters of one launch: (shared tile, consumer) pairs
inline constexpr int kMaxClusterK = 8;        // the portable thread-block cluster size (CUDA guide, clusters)

struct Config {
  // ---- CTA tile (the code) ---------------------------------------------------------------------
  int bm = 128;          // output rows per CTA: 64 (one consumer warpgroup), 128 (two), or 256 (two
                         // consumers of 128 rows each: wide_m below)
  int bn = 128;          // output columns per CTA: a multiple of 8 in [8, 256] (wgmma N)
  int bk = kBlockK;      // K per pipeline stage: 64 bf16 = one 128-B swizzle line
  int stages = 4;        // smem ring depth, >= 3; as many as fit (sm90/smem_layout.hpp)
  // ---- cluster: 1x1, 2x1 (cluster_m = 2: M-neighbours share B, multicast) or 1x2 (A) ---------
  int cluster_m = 1;
  int cluster_n = 1;
  // ---- warp roles: 1 producer warpgroup (one elected thread issues TMA) + bm/64 consumers ----
  int producer_regs = 0;  // setmaxnreg.dec of the producer; 0 = no register rebalancing
  int consumer_regs = 0;  // setmaxnreg.inc of each consumer
  // Ping-pong consumers: two consumer warpgroups, each computing whole BM x BN tiles on its own
  // (the CTA's tiles alternate between them), so that one's epilogue runs while the other's
  // mainloop keeps the tensor cores busy. false: cooperative, the bm/64 consumers split every tile
  // by rows. (Data-parallel tiles only: no k-splitting.)
  bool pingpong = false;
  // Accumulator sets per 64-row block: 1, or 2 (the k16 steps of every k-block alternate between
  // two sets, summed once the unit's k-blocks are done), so that a narrow tile's wgmmas form two
  // independent accumulator chains instead of one (mainloop.cuh). 0: the planner's choice
  // (plan/planner.cpp); a kernel built from 0 has one set.
  int acc_sets = 0;
  // ---- tile order (baked in: one mapping per kernel) ------------------------------------------
  sched::Mapping mapping{};
  // ---- epilogue --------------------------------------------------------------------------------
  Epilogue epilogue = Epilogue::tma_store;
  int stage_cols = 0;    // staged epilogues: columns staged at once, a whole number of boxes (store_boxes)
  // ---- operands and output ---------------------------------------------------------------------
  Major a_major = Major::k_major;
  Major b_major = Major::k_major;
  DType out_dtype = DType::bf16;  // D (and C): bf16, or fp32
  bool with_c = false;            // D = alpha·acc + beta·C: C [M, N] row-major, D's dtype, read in the epilogue
                                  // (tma_store: TMA-loaded into the staging boxes; direct: plain loads)
  // The direct epilogue's accesses: true when every (col, col + 1) pair of D (and C) is one aligned
  // 4-B (bf16) or 8-B (fp32) access (pointers aligned to two elements, even leading dimensions);
  // false: element by element (any pointer aligned to its element, any leading dimension).
  bool cd_pairs = true;
  // Swap-AB: the kernel's D (and C) are column-major, element (row, col) at d[col·ldd + row]. The
  // host computes Dᵀ = B·Aᵀ with it (A and B trade places), so that a small M becomes the narrow
  // wgmma N and the weights fill BM (the direct epilogue, or tma_store for bf16: transposed boxes).
  bool d_col_major = false;
  // ---- problem sizes baked into the code (0 = read from the launch parameters) ----------------
  int fixed_n = 0;
  int fixed_k = 0;
  // ---- the traced variant: per-warp-role events into GemmParams::trace (docs/TRACE.md) ---------
  bool trace = false;
  // ---- k-splitting: work units are (tile, k-blocks) pieces, a tile shared by several units is
  // summed in the kernel in piece order (sm90/gemm/fixup.cuh, schedule/stream_k.hpp) ----------
  bool stream_k = false;
  // ---- the k-split cluster: with split-K (split_k = cluster_k slices), the slices of a tile run as
  // one thread-block cluster of cluster_k CTAs (slice = cluster rank), and the slices other than 0
  // send their partial tiles straight into slice 0's shared memory (st.async, fixup.cuh) instead of
  // through the workspace in global memory. 1 = off; 2..8 (the portable cluster size). ----------
  int cluster_k = 1;
  // ---- launch only: these do not change the code (the JIT zeroes them, jit/codegen.cpp) -------
  bool persistent = true;  // grid = resident CTAs walking the tiles; false: one CTA per tile
  // With stream_k: 1 = stream-K (the last waves' k-blocks shared evenly by the persistent CTAs),
  // S >= 2 = split-K (every tile cut into S slices). Without stream_k: 1.
  int split_k = 1;
  // Stream-K over runs (split_k 1): the shared tiles' k-blocks cut by runs of the tiles that read
  // the same operand rows (sched::stream_k_run), each range walked by a run's members side by side
  // (schedule/stream_k.hpp). false: every worker a range of its own.
  bool sk_runs = false;

  TG_HD constexpr int consumers() const { return pingpong || bm > 128 ? 2 : bm / 64; }
  // 64-row blocks of the tile one consumer computes: cooperative 1 (2 with BM = 256), ping-pong
  // bm / 64.
  TG_HD constexpr int row_blocks() const { return pingpong ? bm / 64 : bm / (64 * consumers()); }
  TG_HD constexpr int threads() const { return 128 * (1 + consumers()); }
  TG_HD constexpr int cluster_size() const { return cluster_m * cluster_n; }  // the multicast pair
  // CTAs per cluster of the launch: a multicast pair or a k-split cluster (never both: cluster_k).
  TG_HD constexpr int launch_cluster_size() const { return cluster_m * cluster_n * cluster_k; }
  TG_HD constexpr int accumulators() const { return row_blocks() * bn / 2; }  // fp32 registers per consumer thread
};

// Whether a staged config's boxes are swap-AB's transposed ones with C: the last box partial, not
// overlapping its neighbour, and TMA moving them in sub-boxes (trans_sub_box_cols).
TG_HD constexpr bool staged_trans_c(const Config& c) {
  return staged_epilogue(c.epilogue) && c.d_col_major && c.with_c;
}

// Whether a staged config's last box overlaps its neighbour while reading C (store_boxes): correct
// only for a C that is not D.
TG_HD constexpr bool staged_overlapping_c(const Config& c) {
  return staged_epilogue(c.epilogue) && c.with_c && !c.d_col_major && c.bn % store_box_cols(c.out_dtype) != 0;
}

// The columns a staged epilogue holds when it stages every box of a bn-wide tile at once.
TG_HD constexpr int whole_stage_cols(int bn, DType out) { return store_boxes(bn, out) * store_box_cols(out); }

// A staged epilogue that holds fewer boxes than the tile has, reusing its slots box by box (the
// "stageN" of a kernel's label).
TG_HD constexpr bool partly_staged(const Config& c) {
  return staged_epilogue(c.epilogue) && c.stage_cols < whole_stage_cols(c.bn, c.out_dtype);
}

// The rule the kernel template enforces (kernel.cuh static_asserts it): 0 when `c` can be
// instantiated, otherwise a code naming the first broken rule (config_rule_text gives the words).
enum class ConfigRule : int {
  ok = 0,
  tile_m,           // bm is 64, 128 or 256
  tile_n,           // bn is a multiple of 8 in [8, 256]
  tile_k,           // bk is 64
  stages,           // 3 <= stages <= 16
  cluster,          // cluster is 1x1, 2x1 or 1x2
  cluster_split,    // split-K / stream-K run without clusters, persistent
  multicast_rows,   // a multicast half of a tile is a whole number of 8-row swizzle atoms
  registers,        // setmaxnreg counts: both 0, or multiples of 8 in [24, 256] within the SM's file
  epilogue_boxes,   // staged: bn >= one 128-B box (64 bf16 / 32 fp32 columns); stage_cols whole
                    // boxes, their count dividing the tile's (store_boxes)
  epilogue_split,   // split_k > 1 only with stream_k, at most kMaxSplitK
  operand_major,    // an MN-major operand's tile (and its multicast half) is whole 16-element chunks
  output_dtype,     // bf16 or fp32 output
  mapping,          // a valid mapping (group, box >= 1); clusters pair tiles, so any order works
  fixed_sizes,      // fixed_n, fixed_k >= 0
  col_major_d,      // a column-major D (swap-AB): the direct epilogue, or tma_store for bf16
  pingpong,         // ping-pong consumers: no k-splitting, at most kMaxPingpongAccumulators per thread
  acc_sets,         // 0, 1 or 2 accumulator sets, 2 only for at most kMaxSplitAccumulators per thread
  cluster_k,        // cluster_k in [1, kMaxClusterK]; above 1 only for split-K with split_k = cluster_k
  wide_m,           // BM = 256: cooperative, no k-splitting, at most wide_m_max_accumulators per thread
};

// Two accumulator sets double a consumer thread's accumulator registers: only for narrow tiles.
// Measured on the H200 (docs/PERF.md): 2-6 % off the memory-bound decode and M = 128 shapes with
// 16- to 64-column tiles, 8-10 % slower on compute-bound ones with one consumer; 64x128
// (64 accumulators) split 2 was 19 % slower.
inline constexpr int kMaxSplitAccumulators = 32;
// Whether the template allows two sets for `c` (2) or not (1); the planner takes 2 only for
// problems that stream their operands (plan/planner.cpp, complete_config).
TG_HD constexpr int auto_acc_sets(const Config& c) { return c.accumulators() <= kMaxSplitAccumulators ? 2 : 1; }

// The most fp32 accumulators a ping-pong consumer thread holds (bm x bn / 128): with the
// epilogue's registers they must stay within the consumers' setmaxnreg count without spilling.
// Checked with ptxas -v and the SASS (no LDL/STL; 224 registers per consumer thread): the TMA-store
// epilogue is clean at 176 (192 spills 12 B); the threads' copy-out (smem_stores) uses local
// memory from 160 with the whole tile staged, so it keeps 144; the direct epilogue reading C
// spills from 144 (fp32) / 160 (bf16) and keeps the cooperative kernel's 128.
inline constexpr int kMaxPingpongAccumulators = 176;
TG_HD constexpr int pingpong_max_accumulators(const Config& c) {
  if (c.epilogue == Epilogue::direct && c.with_c) return 128;
  if (c.epilogue == Epilogue::smem_stores) return 144;
  return kMaxPingpongAccumulators;
}

// The most accumulators a BM = 256 consumer thread holds (two 64-row blocks of bn / 2): what a
// ping-pong consumer may with the TMA store; 128 with the threads' copy-out and with the direct
// epilogue, which spill above it here (ptxas: the copy-out with C at 256x144, 112 B of stack; the
// direct fp32 store of swap-AB's 256x152, 64 B; 256x128 clean; tests/cpu/jit/test_cubin_audit.cpp).
TG_HD constexpr int wide_m_max_accumulators(const Config& c) {
  return c.epilogue == Epilogue::tma_store ? pingpong_max_accumulators(c) : 128;
}

// The tile's extents the template takes (ConfigRule::tile_m, tile_n; the spec parser's rules too).
TG_HD constexpr bool tile_m_ok(int bm) { return bm == 64 || bm == 128 || bm == 256; }
TG_HD constexpr bool tile_n_ok(int bn) { return bn >= 8 && bn <= 256 && bn % 8 == 0; }

TG_HD constexpr ConfigRule check_kernel_config(const Config& c) {
  if (!tile_m_ok(c.bm)) return ConfigRule::tile_m;
  if (!tile_n_ok(c.bn)) return ConfigRule::tile_n;
  if (c.bk != kBlockK) return ConfigRule::tile_k;
  if (c.stages < 3 || c.stages > kMaxStages) return ConfigRule::stages;
  const bool c11 = c.cluster_m == 1 && c.cluster_n == 1;
  const bool c21 = c.cluster_m == 2 && c.cluster_n == 1;
  const bool c12 = c.cluster_m == 1 && c.cluster_n == 2;
  if (!c11 && !c21 && !c12) return ConfigRule::cluster;
  if (c.stream_k && (!c11 || !c.persistent)) return ConfigRule::cluster_split;
  if ((c21 && (c.bn / 2) % 8 != 0) || (c12 && (c.bm / 2) % 8 != 0)) return ConfigRule::multicast_rows;
  if (c.producer_regs != 0 || c.consumer_regs != 0) {
    const bool in_range = c.producer_regs >= 24 && c.producer_regs <= 256 && c.consumer_regs >= 24 &&
                          c.consumer_regs <= 256 && c.producer_regs % 8 == 0 && c.consumer_regs % 8 == 0;
    if (!in_range || 128 * (c.producer_regs + c.consumers() * c.consumer_regs) > 65536) return ConfigRule::registers;
  }
  if (staged_epilogue(c.epilogue)) {
    const int box_cols = store_box_cols(c.out_dtype), boxes = store_boxes(c.bn, c.out_dtype);
    // (The last box overlaps its neighbour where box_cols does not divide bn (store_boxes), except
    // in swap-AB's transposed boxes with C, where it is partial (trans_box_width).)
    if (c.bn < box_cols || c.stage_cols < box_cols || c.stage_cols % box_cols != 0 ||
        c.stage_cols > boxes * box_cols || boxes % (c.stage_cols / box_cols) != 0)
      return ConfigRule::epilogue_boxes;
  }
  if ((c.split_k > 1 && !c.stream_k) || c.split_k < 1 || c.split_k > kMaxSplitK ||
      (c.sk_runs && (!c.stream_k || c.split_k != 1)))
    return ConfigRule::epilogue_split;
  // MN-major operands load in chunks of W MN elements x 64 K (one swizzled row of 2W bytes each,
  // W = 64, 32 or 16: sm90/swizzle.hpp, mn_chunk_elems): the rows a CTA loads (the half of the tile
  // in a multicasting pair) must be a whole number of 16-element chunks.
  if ((c.a_major == Major::mn_major && mn_chunk_elems(c12 ? c.bm / 2 : c.bm) == 0) ||
      (c.b_major == Major::mn_major && mn_chunk_elems(c21 ? c.bn / 2 : c.bn) == 0))
    return ConfigRule::operand_major;
  if (c.out_dtype != DType::bf16 && c.out_dtype != DType::fp32) return ConfigRule::output_dtype;
  const bool mapping_ok = c.mapping.kind == sched::MappingKind::grouped_m || c.mapping.kind == sched::MappingKind::grouped_n
                              ? c.mapping.group >= 1
                              : c.mapping.kind != sched::MappingKind::box || (c.mapping.box_m >= 1 && c.mapping.box_n >= 1);
  if (!mapping_ok) return ConfigRule::mapping;
  if (c.fixed_n < 0 || c.fixed_k < 0) return ConfigRule::fixed_sizes;
  if (c.d_col_major && c.epilogue != Epilogue::direct && !(c.epilogue == Epilogue::tma_store && c.out_dtype == DType::bf16))
    return ConfigRule::col_major_d;
  if (c.pingpong && (c.stream_k || c.accumulators() > pingpong_max_accumulators(c))) return ConfigRule::pingpong;
  if (c.acc_sets < 0 || c.acc_sets > 2 || (c.acc_sets == 2 && c.accumulators() > kMaxSplitAccumulators))
    return ConfigRule::acc_sets;
  if (c.cluster_k < 1 || c.cluster_k > kMaxClusterK || (c.cluster_k > 1 && (!c.stream_k || c.split_k != c.cluster_k)))
    return ConfigRule::cluster_k;
  // BM = 256: each of the two consumers computes two 64-row blocks (as a ping-pong consumer does a
  // 128-row tile), so it holds what a ping-pong consumer holds; the k-split fix-up sums one block
  // per consumer, so no k-splitting.
  if (c.bm == 256 && (c.pingpong || c.stream_k || c.accumulators() > wide_m_max_accumulators(c)))
    return ConfigRule::wide_m;
  return ConfigRule::ok;
}

TG_HD constexpr const char* config_rule_text(ConfigRule r) {
  switch (r) {
    case ConfigRule::ok: return "ok";
    case ConfigRule::tile_m: return "bm must be 64, 128 or 256 (one consumer warpgroup per 64 rows, or two of 128)";
    case ConfigRule::tile_n: return "bn must be a multiple of 8 in [8, 256] (wgmma N)";
    case ConfigRule::tile_k: return "bk must be 64 (one 128-B swizzle line of bf16)";
    case ConfigRule::stages: return "stages must be in [3, 16]";
    case ConfigRule::cluster: return "cluster must be 1x1, 2x1 or 1x2";
    case ConfigRule::cluster_split: return "split-K and stream-K run without clusters, on a persistent grid";
    case ConfigRule::multicast_rows: return "a multicast half tile must be a multiple of 8 rows (swizzle atom)";
    case ConfigRule::registers:
      return "setmaxnreg counts must both be 0 or multiples of 8 in [24, 256] that fit 64K registers";
    case ConfigRule::epilogue_boxes:
      return "the staged epilogues need bn of at least one 128-B store box (64 bf16 or 32 fp32 columns), and "
             "stage_cols a whole number of boxes dividing the tile's boxes";
    case ConfigRule::epilogue_split:
      return "split_k > 1 (at most 32) only with stream_k (the in-kernel fix-up), and sk_runs only with stream-K "
             "(stream_k, split_k 1)";
    case ConfigRule::operand_major:
      return "an MN-major operand's tile (and a multicast half of it) must be a multiple of 16 elements along MN "
             "(its smem chunks are 64, 32 or 16 elements wide, 128-B, 64-B or 32-B swizzled)";
    case ConfigRule::output_dtype: return "the output must be bf16 or fp32";
    case ConfigRule::mapping: return "the mapping needs group >= 1 (grouped) or box sides >= 1 (box)";
    case ConfigRule::fixed_sizes: return "fixed_n and fixed_k must be >= 0";
    case ConfigRule::col_major_d:
      return "a column-major D (swap-AB) is stored by the direct epilogue, or by TMA from transposed staging "
             "boxes for bf16 output (C, bf16 like D, TMA-loaded into the same boxes)";
    case ConfigRule::pingpong:
      return "ping-pong consumers take whole tiles (no split-K or stream-K) of at most 176 accumulators per "
             "thread (bm x bn / 128), 144 with the threads' copy-out (smem_stores), 128 with the direct epilogue "
             "reading C";
    case ConfigRule::cluster_k:
      return "cluster_k must be in [1, 8], and above 1 only for split-K with split_k = cluster_k (the slices of "
             "a tile are one cluster)";
    case ConfigRule::acc_sets:
      return "acc_sets must be 0 (the planner's choice), 1 or 2, and 2 only for tiles of at most 32 "
             "accumulators per thread (bm x bn / 128 <= 32)";
    case ConfigRule::wide_m:
      return "bm = 256 (two consumers of 128 rows) takes whole tiles with cooperative consumers (no ping-pong, "
             "split-K or stream-K) of at most 176 accumulators per thread (bn <= 176) with the TMA store, 128 "
             "(bn <= 128) with the threads' copy-out (smem_stores) or the direct epilogue";
  }
  return "unknown rule";
}

// Rows of each operand one CTA loads per stage: with multicast each CTA of the pair loads half of
// the shared tile and sends it to both (the TMA boxes the host encodes have these heights).
TG_HD constexpr int a_load_rows(const Config& c) { return c.cluster_n == 2 ? c.bm / 2 : c.bm; }
TG_HD constexpr int b_load_rows(const Config& c) { return c.cluster_m == 2 ? c.bn / 2 : c.bn; }
// The chunk width (elements along MN) of an MN-major operand's smem tile: the widest of 64, 32, 16
// that divides the rows the CTA loads (sm90/swizzle.hpp); 0 for a K-major operand.
TG_HD constexpr int a_mn_chunk(const Config& c) { return c.a_major == Major::mn_major ? mn_chunk_elems(a_load_rows(c)) : 0; }
TG_HD constexpr int b_mn_chunk(const Config& c) { return c.b_major == Major::mn_major ? mn_chunk_elems(b_load_rows(c)) : 0; }
// Whether an MN-major operand of `c` is stored in chunks narrower than 64 (32-B or 64-B swizzled):
// the planner offers these only with PlanOptions::narrow_mn_chunks.
TG_HD constexpr bool narrow_mn_chunks(const Config& c) {
  return (a_mn_chunk(c) != 0 && a_mn_chunk(c) < 64) || (b_mn_chunk(c) != 0 && b_mn_chunk(c) < 64);
}

// The tile-pairing axis of a config's cluster (schedule/tile_mapping.hpp): 2x1 pairs M-neighbours
// (B multicast), 1x2 N-neighbours (A multicast).
TG_HD constexpr sched::ClusterAxis cluster_axis(const Config& c) {
  return c.cluster_m == 2 ? sched::ClusterAxis::along_m
         : c.cluster_n == 2 ? sched::ClusterAxis::along_n
                            : sched::ClusterAxis::none;
}

// The k-split a config runs with for an M x N x K problem on a persistent grid of `ctas` CTAs
// (schedule/stream_k.hpp): none (every tile whole) without stream_k; split-K with split_k > 1;
// stream-K otherwise. The host passes dp_tiles and workers to the kernel (GemmParams).
TG_HD constexpr sched::KSplit config_k_split(const Config& c, int64_t m, int64_t n, int64_t k, int ctas) {
  const sched::TileGrid grid = sched::make_tile_grid(int(m), int(n), c.bm, c.bn);
  const int k_blocks = int((k + c.bk - 1) / c.bk);
  if (!c.stream_k) {
    const int slots = sched::num_slots(sched::Schedule{grid, c.mapping, cluster_axis(c)});
    return sched::KSplit{slots, k_blocks, slots, 0};
  }
  if (c.split_k > 1) return sched::split_k_decomposition(grid.num_tiles(), k_blocks, c.split_k);
  const int run = c.sk_runs ? sched::stream_k_run(sched::Schedule{grid, c.mapping, cluster_axis(c)}) : 1;
  return sched::stream_k_decomposition(grid.num_tiles(), k_blocks, ctas, kStreamKMinKBlocks, run);
}

// Fix-up counters a k-split of `c` uses: one per shared tile and consumer (at most kKSplitCounters);
// none for a k-split cluster, whose slices meet in shared memory.
TG_HD constexpr int64_t ksplit_counters(const sched::KSplit& s, const Config& c) {
  return c.cluster_k > 1 ? 0 : int64_t(s.shared_tiles()) * c.consumers();
}

// The code-relevant part of a Config: launch-only fields reset, so that two configs that differ
// only in how they are launched share one compiled kernel.
TG_HD constexpr Config kernel_code_config(Config c) {
  c.persistent = true;
  // Only the direct epilogue steps through D element pairs; split-K and stream-K are the same code.
  if (c.epilogue != Epilogue::direct || c.d_col_major) c.cd_pairs = true;
  c.split_k = c.cluster_k;  // 1, or the k-split cluster's slices (the same number: check_kernel_config)
  c.sk_runs = false;        // the runs are the launch's (GemmParams::sk_group)
  if (c.mapping.kind != sched::MappingKind::grouped_m && c.mapping.kind != sched::MappingKind::grouped_n)
    c.mapping.group = 8;
  if (c.mapping.kind != sched::MappingKind::box) c.mapping.box_m = c.mapping.box_n = 2;
  return c;
}

}  // namespace tilegemm::sm90
