// Host side of TMA: see tensor_map.hpp. The rules checked here are cuda.h's doc comment for
// cuTensorMapEncodeTiled (CUDA 13.0), restricted to what non-interleaved maps use.
#include "sm90/tensor_map.hpp"

#include <cuda_runtime_api.h>

#include <string>

#include "core/math.hpp"

namespace tilegemm::sm90 {
namespace {

std::string str(uint64_t v) { return std::to_string(v); }

// "name[i]" (built by appending: GCC 12 warns falsely on `"[" + str(i) + "]"` chains, -Wrestrict).
std::string indexed(const char* name, uint32_t i) {
  std::string s(name);
  s += '[';
  s += str(i);
  s += ']';
  return s;
}

// The driver function, resolved once. decltype only names the prototype from cuda.h; nothing
// links against libcuda.
using EncodeTiledFn = decltype(&cuTensorMapEncodeTiled);

struct DriverEntry {
  EncodeTiledFn fn = nullptr;
  std::string error;
};

DriverEntry resolve_encode_tiled() {
  DriverEntry entry;
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
  // 12000: the ABI version of cuTensorMapEncodeTiled (introduced in CUDA 12.0).
  const cudaError_t err =
      cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &status);
  if (err != cudaSuccess) {
    entry.error = std::string("cuTensorMapEncodeTiled: cudaGetDriverEntryPointByVersion failed: ") +
                  cudaGetErrorString(err);
  } else if (status != cudaDriverEntryPointSuccess || fn == nullptr) {
    entry.error = "cuTensorMapEncodeTiled: not found in the driver (query result " +
                  str(static_cast<uint64_t>(status)) + "; needs a CUDA 12.0+ driver)";
  } else {
    entry.fn = reinterpret_cast<EncodeTiledFn>(fn);
  }
  return entry;
}

}  // namespace

uint32_t tensor_map_element_bytes(CUtensorMapDataType dtype) {
  switch (dtype) {
    case CU_TENSOR_MAP_DATA_TYPE_UINT8: return 1;
    case CU_TENSOR_MAP_DATA_TYPE_UINT16:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT16:
    case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16: return 2;
    case CU_TENSOR_MAP_DATA_TYPE_UINT32:
    case CU_TENSOR_MAP_DATA_TYPE_INT32:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT32:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ:
    case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32:
    case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ: return 4;
    case CU_TENSOR_MAP_DATA_TYPE_UINT64:
    case CU_TENSOR_MAP_DATA_TYPE_INT64:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT64: return 8;
    default: return 0;
  }
}

uint32_t tensor_map_swizzle_span(CUtensorMapSwizzle swizzle) {
  switch (swizzle) {
    case CU_TENSOR_MAP_SWIZZLE_NONE: return 0;
    case CU_TENSOR_MAP_SWIZZLE_32B: return 32;
    case CU_TENSOR_MAP_SWIZZLE_64B: return 64;
    default: return 128;  // SWIZZLE_128B and its _ATOM_ variants
  }
}

std::string check_tensor_map_args(const TensorMapArgs& a) {
  const uint32_t elem = tensor_map_element_bytes(a.dtype);
  if (elem == 0) return "tensorDataType = " + str(a.dtype) + ": only whole-byte element types are supported here";
  if (a.interleave != CU_TENSOR_MAP_INTERLEAVE_NONE)
    return "interleave = " + str(a.interleave) + ": only CU_TENSOR_MAP_INTERLEAVE_NONE is supported here";
  if (a.rank < 1 || a.rank > 5) return "tensorRank = " + str(a.rank) + ": must be in [1, 5]";
  const auto addr = reinterpret_cast<uintptr_t>(a.global_address);
  if (a.global_address == nullptr) return "globalAddress = null: must point at the tensor";
  if (addr % 16 != 0) return "globalAddress = " + str(addr) + ": must be 16-byte aligned";
  for (uint32_t i = 0; i < a.rank; ++i) {
    if (a.global_dim[i] < 1 || a.global_dim[i] > (uint64_t(1) << 32))
      return indexed("globalDim", i) + " = " + str(a.global_dim[i]) + ": must be in [1, 2^32]";
    if (a.box_dim[i] < 1 || a.box_dim[i] > 256)
      return indexed("boxDim", i) + " = " + str(a.box_dim[i]) + ": must be in [1, 256]";
    if (a.element_strides[i] < 1 || a.element_strides[i] > 8)
      return indexed("elementStrides", i) + " = " + str(a.element_strides[i]) + ": must be in [1, 8]";
  }
  for (uint32_t i = 0; i + 1 < a.rank; ++i) {
    const uint64_t s = a.global_strides[i];
    if (s % 16 != 0)
      return indexed("globalStrides", i) + " = " + str(s) + " bytes: must be a multiple of 16 (a row of " +
             str(s / elem) + (s % elem ? "+" : "") + " elements of " + str(elem) + " bytes)";
    if (s >= (uint64_t(1) << 40)) return indexed("globalStrides", i) + " = " + str(s) + " bytes: must be < 2^40";
    // Each stride must at least cover the dimensions inside it (rows may not overlap).
    const uint64_t inner = i == 0 ? a.global_dim[0] * elem : a.global_strides[i - 1] * a.global_dim[i];
    if (s < inner)
      return indexed("globalStrides", i) + " = " + str(s) + " bytes: must be >= " + str(inner) +
             " (the extent of the dimensions inside it)";
  }
  const uint64_t inner_box_bytes = uint64_t(a.box_dim[0]) * elem;
  if (inner_box_bytes % 16 != 0)
    return "boxDim[0] = " + str(a.box_dim[0]) + " (" + str(inner_box_bytes) +
           " bytes): the inner box must be a multiple of 16 bytes";
  const uint32_t span = tensor_map_swizzle_span(a.swizzle);
  if (span != 0 && inner_box_bytes > span)
    return "boxDim[0] = " + str(a.box_dim[0]) + " (" + str(inner_box_bytes) + " bytes): with swizzle " +
           str(span) + "B the inner box must be <= " + str(span) + " bytes";
  return {};
}

CUtensorMapL2promotion l2_promotion_for(const Matrix2d& m) {
  const bool lined = lines_on_l2_lines(reinterpret_cast<uintptr_t>(m.base), m.ld * tensor_map_element_bytes(m.dtype),
                                       static_cast<long long>(m.rows));
  return lined ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B : CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
}

std::string make_2d_tile_args(const Matrix2d& m, Box2d box, CUtensorMapSwizzle swizzle, TensorMapArgs* out) {
  const uint32_t elem = tensor_map_element_bytes(m.dtype);
  if (m.ld < m.cols)
    return "ld = " + str(m.ld) + ": must be >= cols = " + str(m.cols) + " (rows may not overlap)";
  TensorMapArgs a;
  a.dtype = m.dtype;
  a.rank = 2;
  a.global_address = m.base;
  a.global_dim[0] = m.cols;  // contiguous dimension first
  a.global_dim[1] = m.rows;
  a.global_strides[0] = m.ld * elem;  // bytes from one row to the next
  a.box_dim[0] = box.cols;
  a.box_dim[1] = box.rows;
  a.element_strides[0] = a.element_strides[1] = 1;
  a.interleave = CU_TENSOR_MAP_INTERLEAVE_NONE;
  a.swizzle = swizzle;
  a.l2_promotion = l2_promotion_for(m);
  a.oob_fill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
  *out = a;
  return check_tensor_map_args(a);
}

std::string encode_tensor_map(const TensorMapArgs& a, CUtensorMap* out) {
  if (std::string e = check_tensor_map_args(a); !e.empty()) return e;
  static const DriverEntry entry = resolve_encode_tiled();  // thread-safe, once per process
  if (entry.fn == nullptr) return entry.error;
  cuuint64_t dims[5], strides[4];
  cuuint32_t box[5], estrides[5];
  for (int i = 0; i < 5; ++i) {
    dims[i] = a.global_dim[i];
    box[i] = a.box_dim[i];
    estrides[i] = a.element_strides[i];
  }
  for (int i = 0; i < 4; ++i) strides[i] = a.global_strides[i];
  const CUresult r = entry.fn(out, a.dtype, a.rank, const_cast<void*>(a.global_address), dims, strides, box,
                              estrides, a.interleave, a.swizzle, a.l2_promotion, a.oob_fill);
  if (r != CUDA_SUCCESS)
    return "cuTensorMapEncodeTiled returned CUresult " + str(static_cast<uint64_t>(r)) +
           " for arguments that passed the cuda.h checks (rank " + str(a.rank) + ", dims " + str(a.global_dim[0]) +
           " x " + str(a.global_dim[1]) + ", box " + str(a.box_dim[0]) + " x " + str(a.box_dim[1]) + ")";
  return {};
}

CUtensorMapSwizzle mn_chunk_tensor_swizzle(int chunk_elems) {
  return chunk_elems == 64 ? CU_TENSOR_MAP_SWIZZLE_128B
         : chunk_elems == 32 ? CU_TENSOR_MAP_SWIZZLE_64B
                             : CU_TENSOR_MAP_SWIZZLE_32B;
}

std::string make_2d_tile_map(const Matrix2d& m, Box2d box, CUtensorMapSwizzle swizzle, CUtensorMap* out) {
  TensorMapArgs args;
  if (std::string e = make_2d_tile_args(m, box, swizzle, &args); !e.empty()) return e;
  return encode_tensor_map(args, out);
}

}  // namespace tilegemm::sm90
