// TMA tensor maps on the host: the arguments of cuTensorMapEncodeTiled as plain values (so a CPU
// test can check them), the rules of cuda.h checked before the driver sees them, and the encode
// call itself, reached through cudaGetDriverEntryPointByVersion (libcuda is never linked: a binary
// that links it does not start on a machine without a driver).
// Facts and sources: docs/HOPPER.md §7 (cuTensorMapEncodeTiled rules), §12 pitfall 9.
//
// Errors are values: "" means fine, anything else names the argument, its value and the rule,
// e.g. "globalStrides[0] = 200 bytes: must be a multiple of 16 (leading dimension 100 bf16)".
#pragma once

#include <cstdint>
#include <string>

#include <cuda.h>  // CUtensorMap and the enum types only; no driver function is called directly

namespace tilegemm::sm90 {

// Everything cuTensorMapEncodeTiled takes besides the output map. Dimension 0 is the contiguous
// one; coordinates and boxes are given innermost first.
struct TensorMapArgs {
  CUtensorMapDataType dtype = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  uint32_t rank = 2;
  const void* global_address = nullptr;
  uint64_t global_dim[5] = {1, 1, 1, 1, 1};      // elements per dimension
  uint64_t global_strides[4] = {0, 0, 0, 0};     // bytes, for dimensions 1 .. rank-1
  uint32_t box_dim[5] = {1, 1, 1, 1, 1};         // elements per dimension of one copy
  uint32_t element_strides[5] = {1, 1, 1, 1, 1};
  CUtensorMapInterleave interleave = CU_TENSOR_MAP_INTERLEAVE_NONE;
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
  // L2 fill granularity; DeepGEMM uses 256B for its operands (docs/HOPPER.md §7).
  CUtensorMapL2promotion l2_promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  // NONE: out-of-bounds elements load as zero, so a ragged K edge adds nothing.
  CUtensorMapFloatOOBfill oob_fill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
};

// A row-major 2-D matrix: `rows` rows of `cols` contiguous elements, row r starting `ld` elements
// after row r-1. The ladder's operands are A [M, K] and B [N, K] (cols = K, K-major) and the
// output D [M, N] (cols = N).
struct Matrix2d {
  const void* base = nullptr;
  uint64_t rows = 0, cols = 0, ld = 0;  // ld in elements
  CUtensorMapDataType dtype = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
};

// The box one TMA instruction moves: `cols` contiguous elements (dimension 0) x `rows` rows.
struct Box2d {
  uint32_t cols = 0, rows = 0;
};

// Bytes per element of a tensor-map data type (0 for the packed sub-byte types, which we never use).
uint32_t tensor_map_element_bytes(CUtensorMapDataType dtype);
// Span in bytes of a swizzle mode (32, 64, 128), 0 for SWIZZLE_NONE.
uint32_t tensor_map_swizzle_span(CUtensorMapSwizzle swizzle);

// The L2 promotion of a map of `m`: 256 B where its rows start on 128-B (L2 line) boundaries, 128 B
// where they do not. NOTES: measured on the H200 (docs/PERF.md, twenty-third session): 3000^3,
// whose rows of 6000 B start inside sectors, ran 126.1 us with 256-B promotion and 108.0 with
// 128 B, 64 B or none (89.1 against 96.1 with B repacked); the sectored 4096^3 179.9 with 256 B,
// 180.9 / 181.4 / 181.1 with 128 B / 64 B / none. Measured on the H100 (thirty-third session):
// rows on sectors but between lines gain too, with narrow tiles: 4096x4096x2000 128x128 ping-pong
// 138.5 -> 126.5 us with 128 B, 2048x2048x16016 317.4 -> 273.7, 3000x5000x1040 with 128x240 56.8
// -> 54.1 (64 B and none within 1 % of 128 B); K = 2048 unchanged (97.1 / 97.0).
CUtensorMapL2promotion l2_promotion_for(const Matrix2d& m);

// Pure: fills `out` with the encode arguments for tiles of `box` out of matrix `m` (L2 promotion:
// l2_promotion_for), then checks them (check_tensor_map_args). Returns "" or the first broken rule.
std::string make_2d_tile_args(const Matrix2d& m, Box2d box, CUtensorMapSwizzle swizzle,
                              TensorMapArgs* out);

// Pure: the cuda.h rules for cuTensorMapEncodeTiled that apply to non-interleaved maps (rank,
// address alignment, dimension and stride ranges, box limits, inner box vs swizzle span, element
// strides). Returns "" or the first broken rule.
std::string check_tensor_map_args(const TensorMapArgs& args);

// Encodes through the driver. Returns "" or a message naming the failure (no driver, driver
// rejected the arguments with its CUresult).
std::string encode_tensor_map(const TensorMapArgs& args, CUtensorMap* out);

// make_2d_tile_args + encode_tensor_map.
std::string make_2d_tile_map(const Matrix2d& m, Box2d box, CUtensorMapSwizzle swizzle, CUtensorMap* out);

// The swizzle of the TMA boxes that write an MN-major chunk `chunk_elems` bf16 wide (64, 32, 16:
// a row of 128, 64 or 32 B; sm90/swizzle.hpp, mn_chunk_elems).
CUtensorMapSwizzle mn_chunk_tensor_swizzle(int chunk_elems);

}  // namespace tilegemm::sm90
