// The 128B swizzle the ladder's smem tiles use (TMA SWIZZLE_128B writes it, wgmma reads it, and
// step 9's stmatrix epilogue writes D through it), checked against docs/HOPPER.md §3's formula and
// against the properties that make it worth having.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>

#include "sm90/swizzle.hpp"

namespace tilegemm::sm90 {
namespace {

// docs/HOPPER.md §3, written independently of sm90/swizzle.hpp: element (r, k) of a bf16 K-major
// tile with 128-B rows on a 1024-aligned base sits at r*128 + (((2k)>>4) ^ (r&7))*16 + (2k & 15).
uint32_t notes_offset(uint32_t r, uint32_t k) { return r * 128 + ((((2 * k) >> 4) ^ (r & 7)) * 16) + ((2 * k) & 15); }

TEST(Swizzle128B, MatchesTheFormulaInHopperNotes) {
  for (uint32_t r = 0; r < 256; ++r)
    for (uint32_t k = 0; k < 64; ++k) ASSERT_EQ(kmajor_sw128_offset(r, k), notes_offset(r, k)) << r << "," << k;
}

TEST(Swizzle128B, IsABijectionOnEach1024ByteAtom) {
  // 8 rows x 64 bf16 fill one 1024-B atom exactly once, and every element stays in its own row's
  // 128-B line (the swizzle only permutes 16-B chunks inside a line).
  for (uint32_t atom = 0; atom < 4; ++atom) {
    std::set<uint32_t> seen;
    for (uint32_t r = 8 * atom; r < 8 * atom + 8; ++r)
      for (uint32_t k = 0; k < 64; ++k) {
        const uint32_t off = kmajor_sw128_offset(r, k);
        EXPECT_EQ(off / 128, r);
        EXPECT_EQ(off % 2, 0u);
        seen.insert(off);
      }
    EXPECT_EQ(seen.size(), 8u * 64u);
    EXPECT_EQ(*seen.begin(), atom * 1024);
    EXPECT_EQ(*seen.rbegin(), atom * 1024 + 1022);
  }
}

TEST(Swizzle128B, EightRowsOfOneChunkHitEightBankGroups) {
  // Why it is bank-conflict-free: the 8 row addresses of one stmatrix 8x8 matrix (8 rows, the same
  // 16-B column chunk) land in 8 different 16-B bank groups (banks 4c..4c+3 of the 32).
  for (uint32_t row0 = 0; row0 < 64; row0 += 8)
    for (uint32_t chunk = 0; chunk < 8; ++chunk) {
      std::set<uint32_t> groups;
      for (uint32_t r = row0; r < row0 + 8; ++r) groups.insert((kmajor_sw128_offset(r, chunk * 8) % 128) / 16);
      EXPECT_EQ(groups.size(), 8u) << "rows " << row0 << ", chunk " << chunk;
    }
}

TEST(SmemDescriptor, KMajorSw128Fields) {
  const uint64_t desc = make_kmajor_sw128_desc(0x1400);  // a 1024-aligned smem address
  EXPECT_EQ(desc & 0x3FFF, 0x1400u >> 4);             // start address, 16-B units
  EXPECT_EQ((desc >> 16) & 0x3FFF, 1u);               // LBO (ignored for swizzled K-major)
  EXPECT_EQ((desc >> 32) & 0x3FFF, 1024u >> 4);       // SBO: 8-row groups are 1024 B apart
  EXPECT_EQ((desc >> 49) & 0x7, 0u);                  // base offset 0: atoms on 1024-B boundaries
  EXPECT_EQ(desc >> 62, 1u);                          // layout type 1 = 128B swizzle (SM90 encoding)
  EXPECT_EQ(desc_advance_bytes(desc, 96) - desc, 6u); // +96 B = third k16 step
}

}  // namespace
}  // namespace tilegemm::sm90
