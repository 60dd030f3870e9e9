// Shared-memory layout math for SM90 wgmma operands: the 128B swizzle and the matrix descriptor.
// Pure integer functions (TG_HD) so the host tests check exactly what the kernels compute.
// Facts: docs/HOPPER.md §2 (descriptor, PTX ISA §9.7.15.5.1.2.2) and §3 (swizzle, PTX ISA §5.5.7).
#pragma once

#include "core/int_types.hpp"

#include "core/host_device.hpp"

namespace tilegemm::sm90 {

inline constexpr uint32_t kSwizzleBytes = 128;    // one swizzled line = 64 bf16 along K
inline constexpr uint32_t kSwizzleAtomBytes = 1024;  // 8 lines of 128 B: the pattern repeats here
inline constexpr uint32_t kBf16PerLine = 64;

// 128B swizzle on a byte offset inside a 1024-B-aligned region: the 16-B chunk index (bits 6:4)
// is XORed with the line-within-atom index (bits 9:7). CuTe calls this Swizzle<3,4,3>.
TG_HD constexpr uint32_t swizzle_128b(uint32_t byte_offset) {
  return byte_offset ^ (((byte_offset >> 7) & 7u) << 4);
}

// Byte offset of bf16 element (row, k) of a K-major tile stored as 128-B lines (k < 64), with the
// 128B swizzle: the layout TMA SWIZZLE_128B writes and wgmma reads with layout type 1, SBO 1024.
TG_HD constexpr uint32_t kmajor_sw128_offset(uint32_t row, uint32_t k) {
  return swizzle_128b(row * kSwizzleBytes + k * 2u);
}

// wgmma shared-memory descriptor fields (PTX ISA §9.7.15.5.1.2.2).
enum class DescSwizzle : uint32_t { none = 0, b128 = 1, b64 = 2, b32 = 3 };

// encode(x) = (x & 0x3FFFF) >> 4: addresses and byte offsets are stored in 16-B units.
TG_HD constexpr uint64_t desc_encode(uint32_t bytes) { return (bytes & 0x3FFFFu) >> 4; }

// start: shared-window address of the first element (16-B aligned; 1024-B aligned atom for
// base_offset 0). lbo/sbo in bytes. For K-major 128B-swizzled bf16 tiles: lbo ignored (we pass 16),
// sbo = 1024 (distance between 8-row groups).
TG_HD constexpr uint64_t make_smem_desc(uint32_t start, uint32_t lbo, uint32_t sbo,
                                        DescSwizzle swizzle) {
  return desc_encode(start) | (desc_encode(lbo) << 16) | (desc_encode(sbo) << 32) |
         (uint64_t(static_cast<uint32_t>(swizzle)) << 62);
}

TG_HD constexpr uint64_t make_kmajor_sw128_desc(uint32_t start) {
  return make_smem_desc(start, 16, kSwizzleAtomBytes, DescSwizzle::b128);
}

// MN-major bf16 operand with the 128B swizzle, as the kernels store it: chunks of 64 MN elements
// (one 128-B row) x 64 K rows, chunk j at j * chunk_bytes (PTX ISA §9.7.15.5.1.2.1, the MN-major
// canonical layout): LBO = the chunk stride (next 64 MN elements), SBO = 1024 (next 8 K rows).
// A k16 step moves 16 K rows: +2048 B (kMnMajorK16StepBytes).
inline constexpr uint32_t kMnChunkElems = 64;
inline constexpr uint32_t kMnMajorK16StepBytes = 16 * kSwizzleBytes;
TG_HD constexpr uint64_t make_mnmajor_sw128_desc(uint32_t start, uint32_t chunk_bytes) {
  return make_smem_desc(start, chunk_bytes, kSwizzleAtomBytes, DescSwizzle::b128);
}
// Byte offset of bf16 element (mn, k) of such a tile (k < 64 per stage): the host twin.
TG_HD constexpr uint32_t mnmajor_sw128_offset(uint32_t mn, uint32_t k, uint32_t chunk_bytes) {
  return (mn / kMnChunkElems) * chunk_bytes + swizzle_128b(k * kSwizzleBytes + (mn % kMnChunkElems) * 2u);
}

// Moving the descriptor k16 steps along K inside a 128-B swizzled line: +32 B per step on the start
// address field, i.e. +2 in encoded units (docs/HOPPER.md §2; used by DeepGEMM and others; the
// swizzle is applied by the hardware to absolute address bits, so base_offset stays 0).
TG_HD constexpr uint64_t desc_advance_bytes(uint64_t desc, uint32_t bytes) {
  return desc + desc_encode(bytes);
}

// Accumulator fragment of wgmma m64nNk16 with f32 accumulators (docs/HOPPER.md §4): thread t of the
// warpgroup holds d[4*j + 2*i + c] = D[row, col] with
//   row = 16*(t/32) + (t%32)/4 + 8*i,   col = 8*j + 2*(t%4) + c,   i, c in {0,1}, j in [0, N/8).
struct FragCoord {
  uint32_t row, col;
};
TG_HD constexpr FragCoord acc_fragment_coord(uint32_t thread_in_wg, uint32_t reg) {
  const uint32_t j = reg / 4, i = (reg / 2) % 2, c = reg % 2;
  return {16u * (thread_in_wg / 32u) + (thread_in_wg % 32u) / 4u + 8u * i,
          8u * j + 2u * (thread_in_wg % 4u) + c};
}

}  // namespace tilegemm::sm90
