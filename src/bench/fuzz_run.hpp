// One fuzz problem on the GPU (`tilegemm fuzz`): guarded allocations, seeded inputs, D poisoned,
// the GPU reference, the candidate run twice, and every property checked:
//   1. the call returns ok and no CUDA error follows it;
//   2. D matches the FP32 reference (ref::check: no NaN/Inf, calc_diff and element-wise limits of
//      D's dtype, docs/TESTING.md) -- every element of D, no sampling;
//   3. nothing outside D's elements changed: the guard bands before and after D, the gaps between
//      its lines, and every element of the A, B and C allocations (guards included);
//   4. the second run gives D bit for bit equal to the first (D re-poisoned, C re-filled for C = D).
// The reference is ref::gpu_gemm (independent of the library's kernels, bit-identical to cpu_gemm).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "bench/fuzz_problem.hpp"
#include "reference/reference.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm::bench {

struct FuzzHooks {
  // The candidate: enqueues the GEMM on args.stream (`tilegemm fuzz` passes tilegemm's gemm path).
  std::function<Status(const GemmArgs& args)> launch;
  // Called after the first run: what ran ("sm90 <config>", "fallback"); may be empty.
  std::function<std::string()> what_ran;
  // How the call is routed (the fallback's reason, or the sm90 path's steps), for reports; may be empty.
  std::function<std::string(const GemmArgs& args)> route_reason;
};

struct FuzzCheck {
  FuzzProblem problem;
  bool passed = false;
  bool fatal = false;          // a CUDA error that leaves the context unusable: stop fuzzing
  std::string ran;             // hooks.what_ran() after the first run
  std::string route_reason;    // hooks.route_reason(args)
  std::vector<std::string> errors;  // one sentence per failed property
  ref::CheckResult check;      // D (first run) against the reference
  uint64_t outside_d_writes = 0;    // elements of D's allocation outside D that changed (both runs)
  uint64_t input_writes = 0;        // elements of the A, B, C allocations that changed
  uint64_t run_differences = 0;     // elements of D that differ bitwise between the two runs
};

// Owns the device buffers (grown as problems need, reused) and a stream. Not thread-safe.
class FuzzRunner {
 public:
  FuzzRunner();
  ~FuzzRunner();
  FuzzRunner(const FuzzRunner&) = delete;
  FuzzRunner& operator=(const FuzzRunner&) = delete;

  // Creates the stream; call once before run(). Returns its CUDA error.
  cudaError_t init();
  FuzzCheck run(const FuzzProblem& p, const FuzzHooks& hooks);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace tilegemm::bench
