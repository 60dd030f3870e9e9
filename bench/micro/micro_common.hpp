// What the micro-benchmarks in bench/micro share: a CUDA/driver error check that exits, and a bf16
// 2-D tensor map of 64-element boxes through the library's encoder (its rules checked first).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

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

}  // namespace tilegemm::micro
