// One benchmark case, end to end: allocate, fill, poison, run once, check against the CPU
// reference, and only then time the candidate and cuBLASLt the same way in the same process.
// Generic over the candidate: `tilegemm bench` passes tilegemm::gemm, `tilegemm ladder` a ladder
// step.
//
// Correctness (docs/TESTING.md):
//   - inputs: A, B (and C) are N(0, 1) from the seeded generator (device_fill.hpp) — never zeros;
//   - D is poisoned (NaN) before each checked run (with C = D it is filled with C's values instead);
//     every element of D is scanned for NaN/Inf;
//   - values are compared with the CPU reference (cpu_gemm, FP32 accumulation) computed on the
//     host from the same seeds (normal_at / fill_normal_host_bf16, no copy back of A and B):
//     every row when M·N·K <= RunOptions::full_check_max_macs or M <= sample_rows, otherwise
//     `sample_rows` rows spread evenly over M, always including the first and the last (all N
//     columns of each, so every N tile and every M tile of size >= M/sample_rows is touched);
//   - a side whose check fails (or whose launch errs) is never timed: its Timing stays empty and
//     `verdict()` says FAILED with the calc_diff.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "bench/timer.hpp"
#include "core/layout_names.hpp"
#include "reference/reference.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm::ref {
class CublasLt;
}

namespace tilegemm::bench {

struct Case {
  int64_t m = 0, n = 0, k = 0;
  DType out = DType::bf16;                 // D's dtype (C has the same)
  Major a_major = Major::k_major;          // A [M, K]
  Major b_major = Major::k_major;          // B [N, K]
  Major d_major = row_major;               // D (and C) [M, N]
  bool with_c = false;                     // add beta·C (C random normal, D's layout)
  float alpha = 1.0f, beta = 1.0f;         // beta is used only with_c
  int64_t ld_pad = 0;                      // added to every leading dimension (odd strides)
  std::optional<DType> c_dtype;            // C's dtype; nullopt: D's (validate() decides what is allowed)
  bool in_place = false;                   // with_c: C is D (same ptr, ld, major, dtype); D holds C's
                                           // values before every checked run
  DType c_type() const { return in_place ? out : c_dtype.value_or(out); }
};

// "nt", "nn", "tn", "tt" (DeepGEMM's names: first letter A, second B; A "n" = K-major,
// B "t" = K-major) <-> majors.
using ::tilegemm::layout_name;  // core/layout_names.hpp
using ::tilegemm::parse_layout;
// "4096x4096x4096 nt bf16" (+ " D:col", " +C(alpha a, beta b)", " C=D", " C:fp32", " pad=N" when used).
std::string describe(const Case& c);

// Enqueues the candidate on args.stream and returns at once (no synchronization).
using Launcher = std::function<Status(const GemmArgs& args)>;
// Adapts a launch function that returns a CUDA error (e.g. a ladder step's launch).
Launcher launcher_from_cuda(std::function<cudaError_t(const GemmArgs& args)> launch, std::string name);

struct RunOptions {
  TimingOptions timing;
  uint64_t seed = 20261129;               // A, B, C streams derive from it
  bool with_cublas = true;                 // also check and time cuBLASLt
  bool measure = true;                     // false: check only, time nothing
  int sample_rows = 128;                   // rows checked when the full check is too costly
  double full_check_max_macs = 2147483648.0;  // M·N·K up to which every row is checked (2^31)
  ref::CublasLt* cublas = nullptr;         // baseline handle to reuse; null: one per call
  cudaStream_t stream = nullptr;
};

struct SideResult {
  bool ran = false;          // the correctness run was launched and finished
  Status status;             // first error (launch, CUDA, check setup); ok otherwise
  ref::CheckResult check;    // meaningful when ran
  bool timed = false;        // only ever true when check.passed
  Timing timing;
  double tflops = 0, gbps = 0;  // from timing.median_us

  bool passed() const { return status.ok() && ran && check.passed; }
  // "ok", "FAILED (calc_diff 3.1e-02 > 1e-05, 12 mismatches, 0 non-finite)", "ERROR: <message>"
  std::string verdict() const;
};

struct CaseResult {
  Case problem;
  Status setup;                 // allocation / fill / reference failure (then nothing ran)
  int64_t checked_rows = 0;     // rows of D compared with the reference
  bool sampled = false;         // checked_rows < M
  SideResult candidate, cublas;
  double ratio = 0;             // cuBLAS time / candidate time (speed ratio; > 1 = faster than cuBLAS);
                                // 0 when either side was not timed
  bool passed() const { return setup.ok() && candidate.passed(); }
};

// The rows the check compares: all of [0, m) when m <= count, else `count` rows evenly spread,
// first and last included, ascending and distinct.
std::vector<int64_t> sample_rows(int64_t m, int count);

// Bytes a GEMM must move at least: A and B read once, D written once, C read once when used.
double min_bytes(const Case& c);

CaseResult run_case(const Case& c, const Launcher& candidate, const RunOptions& options);

// The same case for several candidates (tilegemm tune): the operands, inputs and reference made once,
// then each candidate in turn checked and, only if it passed, timed, exactly as run_case does for one
// (options.with_cublas is not read). `done(i, result)` after each. *out gets one SideResult per
// candidate; *checked_rows the rows compared. A setup failure (allocation, fill) is returned and
// nothing runs.
Status run_candidates(const Case& c, const std::vector<Launcher>& candidates, const RunOptions& options,
                      const std::function<void(size_t, const SideResult&)>& done, std::vector<SideResult>* out,
                      int64_t* checked_rows = nullptr);

}  // namespace tilegemm::bench
