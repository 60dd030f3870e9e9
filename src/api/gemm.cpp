// gemm(): validate -> check the device -> skip empty problems -> pick a kernel path -> launch.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "api/fallback_gemm.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm {
namespace {

// The kernels gemm() can run.
enum class Path {
  fallback,  // src/api/fallback_gemm.cu: SIMT, any shape/ld/offset/Major; always correct
  // sm90,   // the TMA + WGMMA kernels (src/kernels/sm90/), once they land
};

// NOTES: the seam where the fast path plugs in. The SM90 kernels can take a problem only when TMA
// can describe every operand: base pointers 16-byte aligned, ld·sizeof(dtype) a multiple of 16
// bytes (and < 2^40, which validate() already guarantees), K >= 1, and a configuration from the
// planner that fits. Everything else — odd leading dimensions, element offsets, K = 0 — stays on
// the fallback, which is why the fallback must handle every argument validate() accepts.
// Today there is no fast path, so every problem goes to the fallback.
Path select_path(const GemmArgs& args) {
  (void)args;
  return Path::fallback;
}

Status launch_error(const char* what, cudaError_t err) {
  return Status{ErrorCode::cuda_error, "launch",
                fmt::format("{} failed to launch: {} ({})", what, cudaGetErrorString(err),
                            cudaGetErrorName(err))};
}

}  // namespace

Status gemm(const GemmArgs& args) {
  if (Status s = validate(args); !s.ok()) return s;
  if (Status s = check_device(); !s.ok()) return s;

  // Empty problems. M = 0 or N = 0: D has no elements, nothing to do. K = 0: D = beta·C, or 0
  // without C (alpha times an empty sum); that is a pure epilogue, which the fallback does with
  // an empty k-loop, so it goes through select_path like any other problem.
  if (args.d.rows == 0 || args.d.cols == 0) return Status::success();

  switch (select_path(args)) {
    case Path::fallback:
      if (cudaError_t err = detail::launch_fallback_gemm(args); err != cudaSuccess)
        return launch_error("the fallback GEMM kernel", err);
      return Status::success();
  }
  return Status{ErrorCode::unsupported, "", "no kernel path for this problem"};  // unreachable
}

}  // namespace tilegemm
