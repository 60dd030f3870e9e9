// The random problems of `tilegemm fuzz`: a deterministic generator (problem i of seed S depends
// on S and i alone) and how each problem's matrices sit in guarded device allocations. Host only;
// the device side is fuzz_run.hpp.
//
// A problem draws, independently:
//   M, N, K in [1, max_dim], half of the draws from the edges (1, 2, 3, 7, 8, 9, ..., 63, 64, 65,
//     ..., 4095, 4096, 4097, max_dim: a power of two and its neighbours), the rest uniform or
//     log-uniform; M·N·K is capped at max_macs by redrawing the largest dimension below the cap;
//   a layout (NT, NN, TN, TT: A and B each K-major or MN-major), D row- or column-major, bf16 or
//     fp32 output;
//   a C mode: none; separate (C has D's dtype, its own major and ld); in_place (C is D: same ptr,
//     ld, major, dtype); unread (a NaN-filled C with beta = 0, which must not be read);
//   alpha and beta (multiples of 1/64 in [-2, 2], never 0 for alpha; beta = 0 without a read C);
//   per matrix a leading dimension = its line length + a pad (0, a multiple of 8, or 1..40) and an
//     element offset of the pointer (0; 1..15 elements, which breaks 16-byte alignment unless it is
//     a multiple of 16 bytes; or a multiple of 16 bytes). Offsets are in elements, so every pointer
//     keeps its element's alignment (validate() rule 11).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tilegemm/tilegemm.hpp"

namespace tilegemm::bench {

enum class CMode { none, separate, in_place, unread };
const char* c_mode_name(CMode mode);  // "none", "separate", "in_place", "unread"

struct FuzzOptions {
  int64_t max_dim = 5000;                     // M, N, K in [1, max_dim]
  int64_t max_macs = int64_t{1} << 27;        // M·N·K at most this (bounds each problem's work)
  std::vector<std::pair<Major, Major>> layouts;  // (A, B) majors to draw from; empty = all four
};

// Bounds of FuzzOptions the command accepts (fuzz_run and the CLI check them).
inline constexpr int64_t kFuzzMaxDim = 1 << 20;
inline constexpr int64_t kFuzzMaxMacs = int64_t{1} << 40;

struct FuzzProblem {
  int64_t index = 0;       // position in the seed's sequence
  uint64_t data_seed = 0;  // the seeded-normal streams of A, B, C and D's guards derive from it
  int64_t m = 0, n = 0, k = 0;
  Major a_major = Major::k_major, b_major = Major::k_major, d_major = row_major;
  DType out = DType::bf16;  // D's dtype, and C's
  CMode c_mode = CMode::none;
  Major c_major = row_major;  // separate C; in_place: D's
  float alpha = 1.0f, beta = 0.0f;
  int64_t lda = 0, ldb = 0, ldc = 0, ldd = 0;          // ldc: 0 without a C of its own
  int64_t off_a = 0, off_b = 0, off_c = 0, off_d = 0;  // pointer offsets in elements
};

// Edge values for one dimension: 1, 2, 3 and 2^j - 1, 2^j, 2^j + 1 up to max_dim, and max_dim.
std::vector<int64_t> edge_dims(int64_t max_dim);

// Problem `index` of `seed` (any index >= 0): the same (seed, index, options) always give the
// same problem, whatever else is drawn.
FuzzProblem draw_problem(uint64_t seed, int64_t index, const FuzzOptions& options);

// Guard elements before and after each matrix in its allocation: 256 B for bf16, 512 B for fp32,
// so a pointer at element offset `off` is aligned exactly as `off` elements past a 256-B boundary
// (cudaMalloc's alignment).
inline constexpr int64_t kGuardElements = 128;

// Where one matrix sits in its allocation: [guard | offset | span | guard], in elements.
struct Placement {
  int64_t first = 0;     // element index of the matrix's element (0, 0)
  int64_t elements = 0;  // elements of the whole allocation
};
Placement placement(const MatrixRef& m, int64_t offset);

// The problem's GemmArgs with A, B, C, D at the given allocation bases (pointers = base + first
// elements). C (separate: *c_storage at c_base; in_place: D itself; unread: at c_base with beta 0)
// is written into *c_storage and args.c points to it. Bases may be fake addresses (no CUDA call).
GemmArgs fuzz_args(const FuzzProblem& p, void* a_base, void* b_base, void* c_base, void* d_base,
                   MatrixRef* c_storage);
// The placements of A, B, C (separate or unread; elements 0 otherwise) and D for `p`.
struct FuzzPlacements {
  Placement a, b, c, d;
};
FuzzPlacements fuzz_placements(const FuzzProblem& p);

// "1 129x257x65 nn fp32 D:col lda 72 ldb 257 ldd 130 | C separate row ldc 263 | alpha 0.5 beta -1 |
//  offsets a 1 b 0 c 3 d 5" (elements) -- everything that defines the problem but the data seed.
std::string describe(const FuzzProblem& p);
// `tilegemm explain ...` with every option that describes this call (route and reason).
std::string explain_command(const FuzzProblem& p);

}  // namespace tilegemm::bench
