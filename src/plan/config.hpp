// Config: everything one GEMM kernel instance needs to be generated and launched (host side).
// The planner fills it (planner.hpp), the JIT turns it into template constants, the explain/JSON
// output prints it (docs/PLANNER.md has the field list and the JSON schema).
//
// Coordinates. All tile fields are in KERNEL coordinates. Without swap_ab the kernel computes
//   D[M, N] = A[M, K] · B[N, K]ᵀ            with BM tiling M and BN tiling N.
// With swap_ab it computes the transpose
//   Dᵀ[N, M] = B[N, K] · A[M, K]ᵀ            kernel A = user B, kernel B = user A,
// so BM tiles the user's N, BN tiles the user's M, a_major/b_major describe the kernel's operands,
// and the epilogue stores each tile transposed (D stays row-major [M, N] in memory).
#pragma once

#include <cstdint>

#include "schedule/mapping.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm::plan {

// Which operand a 2-CTA cluster shares through TMA multicast (seed: cluster_N = 2 halves A's
// upstream reads, cluster_M = 2 halves B's).
enum class Multicast : int {
  none = 0,  // cluster 1x1
  a = 1,     // cluster (m=1, n=2): the two CTAs are N-neighbours with the same A row band
  b = 2,     // cluster (m=2, n=1): the two CTAs are M-neighbours with the same B column band
};

// Registers per thread for each warpgroup role (setmaxnreg, HOPPER_NOTES §8).
struct RegisterBudget {
  int entry = 168;         // cap at kernel entry from __launch_bounds__(threads, 1)
  int producer = 40;       // setmaxnreg.dec of the TMA warpgroup
  int consumer = 232;      // setmaxnreg.inc of each math warpgroup
  int accumulators = 128;  // fp32 accumulator registers each consumer thread holds
};

struct Config {
  // --- CTA tile (kernel coordinates) ---
  int bm = 128;     // output rows per CTA: 16, 32 (small M), 64, 128, 256
  int bn = 128;     // output columns per CTA: multiple of 16, <= 256 (wgmma N)
  int bk = 64;      // K per pipeline stage: 64 BF16 = one 128-B swizzle row
  int stages = 4;   // smem pipeline depth, 3..16

  // --- Cluster: 1x1, 2x1 (cluster_m = 2) or 1x2 (cluster_n = 2) ---
  int cluster_m = 1;
  int cluster_n = 1;
  Multicast multicast = Multicast::none;

  // --- Warp roles ---
  int consumer_wgs = 2;  // math warpgroups: 1 when max(64, bm) == 64, else 2
  int threads = 384;     // 128 * (1 producer warpgroup + consumer_wgs)
  RegisterBudget regs;

  // --- Scheduling ---
  sched::Mapping mapping;  // CTA <-> tile order; grouped_m / grouped_n with group G in {8, 16}
  bool persistent = true;  // true: grid <= SMs, tile = blockIdx.x + iter * gridDim.x; false: one CTA per tile
  int grid = 0;            // CTAs launched (a multiple of the cluster size)

  // --- Problem transforms (small M) ---
  bool swap_ab = false;  // compute Dᵀ = B·Aᵀ (see the header comment)
  int split_k = 1;       // K split into split_k slices; FP32 partials, fixed-order in-kernel fix-up

  // --- Operands and output (kernel operands: swapped when swap_ab) ---
  Major a_major = Major::k_major;
  Major b_major = Major::k_major;
  int swizzle_a = 128;  // TMA/WGMMA swizzle span in bytes of each operand tile (128, 64; 32 rejected)
  int swizzle_b = 128;
  int swizzle_d = 128;  // epilogue staging tile swizzle (0 = none)
  DType out_dtype = DType::bf16;
  bool accumulate = false;  // beta != 0: C is read in the epilogue

  // --- Resources ---
  int smem_bytes = 0;  // dynamic smem to request = compute_smem_layout(...).total_bytes

  int cluster_size() const { return cluster_m * cluster_n; }
  // Bytes per element of the smem D staging tile: split-K partials are FP32 whatever the output.
  int epilogue_elem_bytes() const { return split_k > 1 || out_dtype == DType::fp32 ? 4 : 2; }
};

inline int dtype_bytes(DType d) { return d == DType::fp32 ? 4 : d == DType::bf16 ? 2 : 1; }

}  // namespace tilegemm::plan
