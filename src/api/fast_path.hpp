// Internal (not installed): the rule that sends a gemm() call to the SM90 fast path, and gemm() with
// the options a tool may set (the tile mapping, for `tilegemm bench --mapping`).
// Host only, no CUDA call: tests/cpu/api/test_fast_path_rule.cpp checks the rule without a GPU.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "kernels/sm90/gemm_launch.hpp"
#include "schedule/mapping.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm::detail {

// "" when the SM90 kernel (src/kernels/sm90/gemm_kernel.cuh) can take a validated, non-empty
// problem; otherwise the first rule it breaks, naming the argument and the value. The rule is what
// TMA can describe and what the kernel implements:
//   A, B bf16 K-major (NT); D bf16 row-major; no C, or beta = 0 (C is then never read);
//   K >= 1 (K = 0 is the fallback's pure epilogue); M, N, K <= INT32_MAX (int tile coordinates);
//   K a multiple of 8: the K tail is read past K up to the 16-B chunk (see below);
//   lda, ldb, ldd multiples of 8 elements (16-B TMA strides); a, b, d pointers 16-B aligned.
inline std::string sm90_ineligible_reason(const GemmArgs& args) {
  auto bad = [](const char* arg, const std::string& value, const char* rule) {
    return std::string(arg) + " = " + value + ": the SM90 path needs " + rule;
  };
  if (args.a.dtype != DType::bf16) return bad("a.dtype", to_string(args.a.dtype), "bf16");
  if (args.b.dtype != DType::bf16) return bad("b.dtype", to_string(args.b.dtype), "bf16");
  if (args.d.dtype != DType::bf16) return bad("d.dtype", to_string(args.d.dtype), "bf16");
  if (args.a.major != Major::k_major) return bad("a.major", to_string(args.a.major), "k_major");
  if (args.b.major != Major::k_major) return bad("b.major", to_string(args.b.major), "k_major");
  if (args.d.major != row_major) return bad("d.major", to_string(args.d.major), "row-major (k_major)");
  if (args.c != nullptr && args.beta != 0.0f) return bad("beta", std::to_string(args.beta), "no C or beta = 0");
  const int64_t m = args.d.rows, n = args.d.cols, k = args.a.cols;
  constexpr int64_t kIntMax = 2147483647;
  if (k < 1) return bad("K", std::to_string(k), "K >= 1");
  if (m < 1 || m > kIntMax) return bad("M", std::to_string(m), "1 <= M <= 2^31 - 1");
  if (n < 1 || n > kIntMax) return bad("N", std::to_string(n), "1 <= N <= 2^31 - 1");
  if (k > kIntMax) return bad("K", std::to_string(k), "K <= 2^31 - 1");
  // NOTES: on the H200 the TMA store clipped D at 16-B granularity (it wrote up to 7 columns past
  // N; the kernel now stores those with plain stores). Whether the load's zero fill is per element
  // or per 16-B chunk is not verified, so a K that ends inside a chunk (with lda > K the rest of
  // the chunk is the caller's padding, not zeros) stays on the fallback.
  if (k % 8 != 0) return bad("K", std::to_string(k), "K a multiple of 8 (16-B chunks along K)");
  if (args.a.ld % 8 != 0) return bad("a.ld", std::to_string(args.a.ld), "a multiple of 8 elements (16-B TMA stride)");
  if (args.b.ld % 8 != 0) return bad("b.ld", std::to_string(args.b.ld), "a multiple of 8 elements (16-B TMA stride)");
  if (args.d.ld % 8 != 0) return bad("d.ld", std::to_string(args.d.ld), "a multiple of 8 elements (16-B TMA stride)");
  auto misaligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 != 0; };
  if (misaligned(args.a.ptr)) return bad("a.ptr", "an address", "16-byte alignment");
  if (misaligned(args.b.ptr)) return bad("b.ptr", "an address", "16-byte alignment");
  if (misaligned(args.d.ptr)) return bad("d.ptr", "an address", "16-byte alignment");
  return {};
}

inline bool sm90_eligible(const GemmArgs& args) { return sm90_ineligible_reason(args).empty(); }

// Options of gemm() that the public API does not expose (tools and tests only).
struct GemmOptions {
  std::optional<sched::Mapping> mapping;  // tile order of the SM90 path (default: grouped-m:8)
  bool force_fallback = false;            // run the SIMT fallback even when the fast path could
  sm90::TileConfig sm90_config = sm90::TileConfig::automatic;  // tests: force one instantiation
  int sm90_splits = 0;  // split-K: 0 = the rule (sm90::choose_splits), n >= 1 = force n (tests, tools)
};

// gemm() = gemm_with_options(args, {}).
Status gemm_with_options(const GemmArgs& args, const GemmOptions& options);

}  // namespace tilegemm::detail
