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

// The swizzles TMA writes and wgmma reads, on a byte offset inside a region aligned to the pattern
// (8 lines of `span_bytes`): the 16-B chunk index, bits [4, 4 + log2(span/16)), XORed with the
// line-within-pattern index, bits [7, ...). span 128: chunk bits 6:4 with bits 9:7 (CuTe's
// Swizzle<3,4,3>); 64: bits 5:4 with 8:7 (Swizzle<2,4,3>); 32: bit 4 with bit 7 (Swizzle<1,4,3>).
TG_HD constexpr uint32_t swizzle_span(uint32_t byte_offset, uint32_t span_bytes) {
  return byte_offset ^ (((byte_offset >> 7) & (span_bytes / 16u - 1u)) << 4);
}
TG_HD constexpr uint32_t swizzle_128b(uint32_t byte_offset) { return swizzle_span(byte_offset, kSwizzleBytes); }

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

// MN-major bf16 operands, as the kernels store them: chunks of W MN elements (one swizzled row of
// 2W bytes) x 64 K rows (one k-block), chunk j at j * chunk_bytes = j * 128W, each chunk written by
// one TMA box of W x 64 with the swizzle of span 2W (SWIZZLE_128B / 64B / 32B for W = 64 / 32 /
// 16). wgmma reads it as the MN-major canonical layout of PTX ISA §9.7.15.5.1.2.1 for layout type
// 1 / 2 / 3 (CUTLASS states the same forms in cute/atom/mma_traits_sm90_gmma.hpp, make_gmma_desc
// <Major::MN>), in elements with T = 8 bf16 (16 B): ((T, W/T, m), (8, k)) : ((1, T, LBO), (W, SBO)):
// W contiguous MN elements, the next W at LBO (the chunk stride), K rows 2W bytes apart inside an
// 8-row group, 8-row groups SBO = 16W bytes apart; the swizzle of span 2W XORs the 16-B chunk
// index, address bits [4, 4 + log2(2W/16)), with bits [7, ...) (the row within the pattern).
// W is the widest of 64, 32, 16 that divides the rows one CTA loads (mn_chunk_elems): a narrow
// tile (swap-AB's BN = 16..48 over a small M, a small N) needs no zero-filled 64-element rows.
// A k16 step moves 16 K rows: +32W bytes (mn_k16_step_bytes).
TG_HD constexpr int mn_chunk_elems(int rows) {
  return rows % 64 == 0 ? 64 : rows % 32 == 0 ? 32 : rows % 16 == 0 ? 16 : 0;
}
TG_HD constexpr DescSwizzle mn_chunk_swizzle(int chunk_elems) {
  return chunk_elems == 64 ? DescSwizzle::b128 : chunk_elems == 32 ? DescSwizzle::b64 : DescSwizzle::b32;
}
TG_HD constexpr uint32_t mn_chunk_bytes(int chunk_elems) { return uint32_t(chunk_elems) * 2u * 64u; }
TG_HD constexpr uint32_t mn_k16_step_bytes(int chunk_elems) { return 16u * 2u * uint32_t(chunk_elems); }
TG_HD constexpr uint64_t make_mnmajor_desc(uint32_t start, int chunk_elems) {
  return make_smem_desc(start, mn_chunk_bytes(chunk_elems), 16u * uint32_t(chunk_elems), mn_chunk_swizzle(chunk_elems));
}
// Byte offset of bf16 element (mn, k) of such a tile (k < 64 per stage): the host twin.
TG_HD constexpr uint32_t mnmajor_offset(uint32_t mn, uint32_t k, int chunk_elems) {
  const uint32_t w = uint32_t(chunk_elems);
  return (mn / w) * mn_chunk_bytes(chunk_elems) + swizzle_span(k * 2u * w + (mn % w) * 2u, 2u * w);
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
