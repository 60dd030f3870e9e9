// The planner's two models of one candidate (host only):
//   SeedTerms: seed 1's heuristic, term for term, exactly as the seed states it.
//   TimeTerms: tilegemm's predicted time, built on the seed's cycles plus an HBM term, a
//              tensor-core term and fixed costs, so swap-AB / split-K candidates and memory-bound
//              vs compute-bound shapes can be compared. docs/PLANNER.md states both models.
#pragma once

#include <cstdint>
#include <string>

#include "plan/config.hpp"
#include "plan/device_profile.hpp"

namespace tilegemm::plan {

// The user's GEMM: D[M, N] = alpha * A[M, K] · B[N, K]ᵀ + beta * C.
struct Problem {
  int64_t m = 0, n = 0, k = 0;
  Major a_major = Major::k_major;  // "nt" = both K-major (DeepGEMM naming, tilegemm.hpp)
  Major b_major = Major::k_major;
  DType out = DType::bf16;
  bool accumulate = false;  // beta != 0
  // Leading dimensions in elements; 0 = packed (A: K or M, B: K or N, D: N).
  int64_t lda = 0, ldb = 0, ldd = 0;
};

// The GEMM the kernel sees for a config: swapped when swap_ab, K per split-K slice.
struct KernelShape {
  int64_t m = 0, n = 0;  // kernel M, N (user N, M when swap_ab)
  int64_t k = 0;         // user K
  int64_t k_split = 0;   // K of one slice: ceil(K / split_k)
  int64_t m_blocks = 0, n_blocks = 0;
  int64_t tiles = 0;     // m_blocks * n_blocks
  int64_t blocks = 0;    // tiles * split_k: the seed's num_blocks
};
KernelShape kernel_shape(const Problem& p, const Config& c);

// Seed 1 ("Kernel Configuration Heuristic"), with K = the slice's K and sizeof(C) = the epilogue
// element (FP32 for split-K partials):
//   bytes_L2_AB    = K * (BM / cluster_N + BN / cluster_M) * 2
//   bytes_local_AB = K * (BM + BN) * 2
//   bytes_TC       = K * (max(64, BM) + BN) * 2 + BM * BN * sizeof(C)
//   bytes_CD       = BM * BN * sizeof(C) * (accumulate ? 2 : 1)
//   cycles_L2      = (bytes_L2_AB + bytes_CD) * blocks / BW_L2
//   cycles_local   = (bytes_local_AB + bytes_TC + bytes_CD) * blocks / BW_local
//   wave_eff       = blocks / (waves * SMs),  waves = ceil(blocks / SMs)
//   score          = max(cycles_local, cycles_L2) / wave_eff          (lowest wins)
struct SeedTerms {
  int64_t num_blocks = 0;
  int64_t num_waves = 0;
  double wave_eff = 0;
  int sizeof_c = 0;
  int64_t bytes_L2_AB = 0;
  int64_t bytes_local_AB = 0;
  int64_t bytes_TC = 0;
  int64_t bytes_CD = 0;
  double cycles_L2 = 0;
  double cycles_local = 0;
  double score = 0;
};
SeedTerms seed_terms(const Problem& p, const Config& c, const DeviceProfile& d);

// Predicted time (microseconds):
//   predicted = max(l2, local, hbm, tc) + epilogue + fixed + splitk_fixup
// l2, local: the seed's cycles / wave_eff at the profile clock, with the L2 side corrected for
//   two blind spots (multicast only where the peer tile exists; rows past the matrix edge are
//   zero-filled by TMA, not read).
// hbm:  HBM bytes / achievable HBM bandwidth; A and B with a strip re-read model of the grouped
//   mapping, D written once, C read once when accumulating, split-K partials written and read.
// tc:   waves * (2 * max(64, BM) * BN * K_slice_padded) / (tensor FLOP per cycle per SM).
// epilogue: the tile epilogue that cannot overlap a next mainloop (1 per CTA when persistent,
//   1 per wave when static).
struct TimeTerms {
  double l2_us = 0, local_us = 0, hbm_us = 0, tc_us = 0;
  double epilogue_us = 0, fixed_us = 0, splitk_us = 0;
  double predicted_us = 0;
  double tflops = 0;            // 2 * M * N * K / predicted
  int64_t hbm_bytes = 0;
  int64_t bytes_L2_AB_eff = 0;  // per block, after the two corrections
  double b_reread = 1;          // times the streamed operand is read from HBM (1 = once)
  std::string bound;            // "l2", "local", "hbm" or "tensor": the largest of the four
};
TimeTerms time_terms(const Problem& p, const Config& c, const DeviceProfile& d, const SeedTerms& s);

}  // namespace tilegemm::plan
