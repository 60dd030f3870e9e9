// gemm(): validate -> check the device -> skip empty problems -> pick a kernel path -> launch.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "api/fallback_gemm.hpp"
#include "api/fast_path.hpp"
#include "kernels/sm90/gemm_launch.hpp"
#include "schedule/tile_mapping.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm {
namespace {

// The kernels gemm() can run.
enum class Path {
  fallback,  // src/api/fallback_gemm.cu: SIMT, any shape/ld/offset/Major; always correct
  sm90,      // src/kernels/sm90/gemm_kernel.cuh: TMA + WGMMA, persistent, warp-specialised
};

// NOTES: the seam where the fast path plugs in. The SM90 kernel can take a problem only when TMA
// can describe every operand and the kernel implements the layout: the rule is
// detail::sm90_ineligible_reason (api/fast_path.hpp, CPU-tested): NT bf16 in, bf16 row-major D,
// no C or beta = 0, K >= 1, ld multiples of 8 elements, 16-B aligned pointers. Everything else —
// odd leading dimensions, element offsets, MN-major operands, fp32 output, C, K = 0 — stays on the
// fallback, which is why the fallback must handle every argument validate() accepts.
Path select_path(const GemmArgs& args) {
  return detail::sm90_eligible(args) ? Path::sm90 : Path::fallback;
}

Status launch_error(const char* what, cudaError_t err) {
  return Status{ErrorCode::cuda_error, "launch",
                fmt::format("{} failed to launch: {} ({})", what, cudaGetErrorString(err),
                            cudaGetErrorName(err))};
}

}  // namespace

namespace detail {

Status gemm_with_options(const GemmArgs& args, const GemmOptions& options) {
  if (Status s = validate(args); !s.ok()) return s;
  if (Status s = check_device(); !s.ok()) return s;

  // Empty problems. M = 0 or N = 0: D has no elements, nothing to do. K = 0: D = beta·C, or 0
  // without C (alpha times an empty sum); that is a pure epilogue, which the fallback does with
  // an empty k-loop, so it goes through select_path like any other problem.
  if (args.d.rows == 0 || args.d.cols == 0) return Status::success();

  const Path path = options.force_fallback ? Path::fallback : select_path(args);
  switch (path) {
    case Path::fallback:
      if (cudaError_t err = detail::launch_fallback_gemm(args); err != cudaSuccess)
        return launch_error("the fallback GEMM kernel", err);
      return Status::success();
    case Path::sm90: {
      sm90::GemmProblem p;
      p.a = args.a.ptr;
      p.b = args.b.ptr;
      p.d = const_cast<void*>(args.d.ptr);
      p.m = static_cast<int>(args.d.rows);  // <= INT32_MAX: part of the eligibility rule
      p.n = static_cast<int>(args.d.cols);
      p.k = static_cast<int>(args.a.cols);
      p.lda = args.a.ld;
      p.ldb = args.b.ld;
      p.ldd = args.d.ld;
      p.alpha = args.alpha;
      p.stream = args.stream;
      sm90::LaunchOptions o;
      if (options.mapping) o.mapping = *options.mapping;
      o.config = options.sm90_config;
      o.splits = options.sm90_splits;
      if (!sched::is_valid(o.mapping))
        return Status{ErrorCode::invalid_argument, "mapping",
                      "mapping: group, box_m and box_n must be >= 1 for the SM90 tile order"};
      const sm90::LaunchResult r = sm90::launch_gemm(p, o);
      if (r.ok()) return Status::success();
      if (r.error != cudaSuccess) return launch_error("the SM90 GEMM kernel", r.error);
      return Status{ErrorCode::cuda_error, "launch", "the SM90 GEMM kernel could not be set up: " + r.message};
    }
  }
  return Status{ErrorCode::unsupported, "", "no kernel path for this problem"};  // unreachable
}

}  // namespace detail

Status gemm(const GemmArgs& args) { return detail::gemm_with_options(args, {}); }

}  // namespace tilegemm
