// What the micro-benchmarks in bench/micro share: a CUDA/driver error check that exits, a bf16 2-D
// tensor map of 64-element boxes through the library's encoder (its rules checked first), and the
// median of timed launches.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "sm90/tensor_map.hpp"

#define MICRO_CHECK(x)                                                               \
  do {                                                                               \
    const auto e_ = (x);                                                             \
    if (e_) {                                                                        \
      std::fprintf(stderr, "%s failed (%d) at line %d\n", #x, int(e_), __LINE__);  \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

namespace tilegemm::micro {

// Boxes of 64 columns x box_rows rows, 128-B swizzle, of a bf16 matrix [rows, cols] with ld
// elements between rows; L2 promotion the library's (l2_promotion_for) unless `no_promotion`.
inline void encode_bf16_map(CUtensorMap* map, const void* base, uint64_t cols, uint64_t rows, uint64_t ld,
                            uint32_t box_rows, bool no_promotion = false) {
  using namespace tilegemm::sm90;
  TensorMapArgs args;
  std::string err = make_2d_tile_args(Matrix2d{base, rows, cols, ld, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16},
                                      Box2d{64, box_rows}, CU_TENSOR_MAP_SWIZZLE_128B, &args);
  if (no_promotion) args.l2_promotion = CU_TENSOR_MAP_L2_PROMOTION_NONE;
  if (err.empty()) err = encode_tensor_map(args, map);
  if (!err.empty()) {
    std::fprintf(stderr, "tensor map: %s\n", err.c_str());
    std::exit(1);
  }
}

// The median, in microseconds, of `iters` launches timed by CUDA events around launch(), each after
// flush() (which empties L2 its way).
template <class Flush, class Launch>
double median_launch_us(int iters, Flush&& flush, Launch&& launch) {
  cudaEvent_t e0, e1;
  MICRO_CHECK(cudaEventCreate(&e0));
  MICRO_CHECK(cudaEventCreate(&e1));
  std::vector<float> ms;
  for (int it = 0; it < iters; ++it) {
    flush(it);
    MICRO_CHECK(cudaEventRecord(e0));
    launch();
    MICRO_CHECK(cudaEventRecord(e1));
    MICRO_CHECK(cudaEventSynchronize(e1));
    float t = 0;
    MICRO_CHECK(cudaEventElapsedTime(&t, e0, e1));
    ms.push_back(t);
  }
  MICRO_CHECK(cudaGetLastError());
  MICRO_CHECK(cudaEventDestroy(e0));
  MICRO_CHECK(cudaEventDestroy(e1));
  std::sort(ms.begin(), ms.end());
  return double(ms[ms.size() / 2]) * 1e3;
}

}  // namespace tilegemm::micro
