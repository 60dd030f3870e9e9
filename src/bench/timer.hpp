// Device timing used by `tilegemm bench`, `tilegemm ladder` and the mapping comparison.
// Each timed call is preceded by an L2 flush (a memset of >= 2x the L2 size) outside the timed
// region; times come from CUDA events around the one launch.
#pragma once

#include <cstddef>
#include <functional>

#include <cuda_runtime_api.h>

namespace tilegemm::bench {

struct TimingOptions {
  int warmup = 5;      // untimed calls first (module load, clocks up)
  int iters = 30;      // timed calls; median and min reported
  bool flush_l2 = true;
};

struct Timing {
  double median_us = 0, min_us = 0, max_us = 0;
  double mean_us = 0;  // what profiler-based numbers (the anchors) report
  int iters = 0;
};

// Bytes the L2 flush memsets on the current device: max(2 x L2 size, 512 MiB) (the anchors flushed
// 512 MB). 0 if the device cannot be queried.
size_t l2_flush_bytes();

// Runs launch(stream) warmup + iters times and returns the event times. Returns a CUDA error
// (and leaves `out` untouched) if any launch or event call fails.
cudaError_t time_on_device(const std::function<cudaError_t(cudaStream_t)>& launch,
                           const TimingOptions& options, cudaStream_t stream, Timing* out);

inline double tflops(double m, double n, double k, double us) { return 2.0 * m * n * k / (us * 1e6); }
// bytes: A + B read once, D written once (C read once if used): the minimum traffic.
inline double gbps(double bytes, double us) { return bytes / (us * 1e3); }

}  // namespace tilegemm::bench
