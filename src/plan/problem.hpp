// The GEMM the planner plans for: shape, operand storage and output, as the API's arguments
// describe it (problem_of in src/api/route.hpp builds it from GemmArgs). Host only.
#pragma once

#include <cstdint>

#include "plan/config.hpp"
#include "tilegemm/types.hpp"

namespace tilegemm::plan {

// The largest M, N and K the sm90 kernel takes (and so the planner plans): 2^31 - 1024. Its tile
// coordinates are int32, and so are the sums that run one tile past the matrix edge (the tile
// count's ceil_div(M, BM) in sched::make_tile_grid, a tile's first column + BN): with M = 2^31 - 1
// they wrapped negative, and the planner divided by a zero grid (SIGFPE in `tilegemm explain 1
// 2147483647 8`). Keeping 1024 below 2^31 covers a tile (BM, BN <= 256) and a cluster's peer.
// validate() takes extents up to 2^31 - 1; route() sends the ones above this to the fallback.
inline constexpr int64_t kMaxKernelExtent = (int64_t{1} << 31) - 1024;

// D[M, N] = alpha * A[M, K] · B[N, K]ᵀ + beta * C.
struct Problem {
  int64_t m = 0, n = 0, k = 0;
  Major a_major = Major::k_major;  // "nt" = both K-major (DeepGEMM naming, tilegemm.hpp)
  Major b_major = Major::k_major;
  DType out = DType::bf16;
  bool accumulate = false;  // beta != 0
  // Leading dimensions in elements; 0 = packed (A: K or M, B: K or N, D: N).
  int64_t lda = 0, ldb = 0, ldd = 0;
  // D as stored: a TMA store can write it (ldd a multiple of 16 B, base 16-B aligned), and its
  // (and C's) element pairs (col, col + 1) are single aligned accesses (bases aligned to two
  // elements, even leading dimensions). Both hold for tensors from an allocator.
  bool d_tma = true;
  bool cd_pairs = true;
  bool c_tma = true;  // with accumulate: C can be read by TMA (ldc a multiple of 16 B, base 16-B aligned)
  // With accumulate: C is D (the same pointer; validate() allows no other overlap of the two). A
  // staged epilogue's overlapping last box (config.hpp, store_boxes) reads C's columns that its
  // neighbour box has already stored into D, so it is offered only when C is not D.
  bool c_in_place = false;
  // A's and B's rows (the lines TMA reads: K-major rows, MN-major columns) start on 32-B (L2
  // sector) boundaries: base and leading dimension multiples of 32 B. Otherwise (an odd multiple
  // of 16 B: K = 5000, 10000-B rows) every 128-B TMA box row starts inside a sector and the TMA
  // feed runs about half as fast (the time model charges it, DeviceProfile::unsectored_row_factor;
  // route() repacks the operand when that pays).
  bool a_rows_sectored = true;
  bool b_rows_sectored = true;
  // The same rows on 128-B (L2 line) boundaries: base and leading dimension multiples of 128 B
  // (K a multiple of 64 for a dense bf16 K-major operand). Otherwise each 128-B TMA box row spans
  // two L2 lines, and L2 serves the operand's lines at about half the rate of whole ones: a limit
  // for the whole GPU, not one SM (DeviceProfile::l2_line_touch_bytes_per_s; route() repacks the
  // operand when that pays). Rows off sectors are off lines too: a_lined() / b_lined() read both.
  bool a_rows_lined = true;
  bool b_rows_lined = true;
  bool a_lined() const { return a_rows_lined && a_rows_sectored; }
  bool b_lined() const { return b_rows_lined && b_rows_sectored; }
};

// The problem the kernel of `c` computes: `p` itself, or with swap-AB (c.d_col_major) the
// transposed one, Dᵀ[N, M] = B·Aᵀ (M and N, the operands' majors and leading dimensions trade
// places; D is the same storage, column-major for the kernel).
Problem kernel_problem(const Problem& p, const Config& c);

// The GEMM the kernel sees for a config: its tile grid and work units.
struct KernelShape {
  int64_t m = 0, n = 0, k = 0;
  int64_t k_split = 0;   // K of one slice: ceil(K / split_k)
  int64_t m_blocks = 0, n_blocks = 0;
  int64_t tiles = 0;     // m_blocks * n_blocks
  int64_t blocks = 0;    // tiles * split_k: work units (the seed's num_blocks)
};
KernelShape kernel_shape(const Problem& p, const Config& c);

}  // namespace tilegemm::plan
