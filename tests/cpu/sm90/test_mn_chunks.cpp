// The MN-major operand chunks of the production kernel (sm90/swizzle.hpp, mainloop.cuh), 64, 32 and
// 16 elements wide, checked end to end on the host: a model of what TMA writes (a box of W x 64
// from global memory into shared memory, zero past the matrix edge, swizzled with span 2W) and a
// model of what wgmma reads through a matrix descriptor (the canonical layouts of PTX ISA
// §9.7.15.5.1.2.1, as CUTLASS states them in cute/atom/mma_traits_sm90_gmma.hpp), both written here
// independently of the kernel's offset functions. Each k16 step's descriptor, as the kernel builds
// and steps it, must read exactly the global element the wgmma expects at every (mn, k), for
// every tile the kernel template accepts. The same models read the K-major 128B tiles and the
// 64-wide MN-major chunks, which have run on the GPU (docs/PERF.md), so a mistake in the models
// would show there too.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "sm90/gemm/config.hpp"
#include "sm90/swizzle.hpp"

namespace tilegemm::sm90 {
namespace {

// A global bf16 matrix as values: element (row, col) of a row-major [rows, cols] array is a
// distinct nonzero code, 0 past the edge (TMA's zero fill).
struct Global {
  int rows, cols;
  uint32_t at(int r, int c) const { return r < rows && c < cols ? uint32_t(r) * 4096u + uint32_t(c) + 1u : 0u; }
};

// Shared memory as one value per 2-B element (indexed by byte offset / 2); 0xFFFFFFFF = never written.
constexpr uint32_t kUnwritten = 0xFFFFFFFFu;
using Smem = std::vector<uint32_t>;

uint32_t swizzled(uint32_t addr, uint32_t span) {
  const uint32_t piece = (addr >> 4) & (span / 16u - 1u), line = (addr >> 7) & (span / 16u - 1u);
  return (addr & ~((span / 16u - 1u) << 4)) | ((piece ^ line) << 4);
}

// TMA's tiled load with a swizzle of `span` bytes (32, 64 or 128): the box's rows of `span` bytes
// one after another from `dst`, each 16-B piece of an address moved to piece XOR (the address's
// bits from 7 up, modulo span / 16) (CUDA C++ Programming Guide, the TMA swizzle modes), so the
// destination is aligned to the 8-row pattern. Box (inner = cols, outer = rows) at global (c0, r0).
void tma_load(Smem& smem, uint32_t dst, const Global& g, int c0, int r0, int box_cols, int box_rows, uint32_t span) {
  ASSERT_EQ(uint32_t(box_cols) * 2u, span) << "the box row is one swizzle span here";
  ASSERT_EQ(dst % (8u * span), 0u) << "pattern-aligned destination";
  for (int r = 0; r < box_rows; ++r)
    for (int c = 0; c < box_cols; ++c)
      smem.at(swizzled(dst + uint32_t(r) * span + uint32_t(c) * 2u, span) / 2u) = g.at(r0 + r, c0 + c);
}

struct Desc {
  uint32_t start, lbo, sbo, layout;
};
Desc decode(uint64_t d) {
  return Desc{uint32_t(d & 0x3FFF) << 4, uint32_t((d >> 16) & 0x3FFF) << 4, uint32_t((d >> 32) & 0x3FFF) << 4,
              uint32_t(d >> 62)};
}
uint32_t layout_span(uint32_t layout) { return layout == 1 ? 128u : layout == 2 ? 64u : layout == 3 ? 32u : 0u; }
// The element wgmma reads at (mn, k) (k < 16) of an MN-major operand through descriptor `d`:
// ((T, S/T, m), (8, k)) : ((1, T, LBO), (S, SBO)) in elements, T = 8 bf16 and S = span / 2: byte
// (mn mod S)·2 + (mn / S)·LBO + (k mod 8)·span + (k / 8)·SBO from the start, then swizzled.
uint32_t wgmma_read_mn(const Smem& smem, uint64_t d, int mn, int k) {
  const Desc x = decode(d);
  const uint32_t span = layout_span(x.layout);
  const uint32_t s = span / 2u;
  const uint32_t off = (uint32_t(mn) % s) * 2u + (uint32_t(mn) / s) * x.lbo + (uint32_t(k) % 8u) * span +
                       (uint32_t(k) / 8u) * x.sbo;
  return smem.at(swizzled(x.start + off, span) / 2u);
}
// K-major with the 128B swizzle: ((8, m), (T, 2)) : ((8T, SBO), (1, T)): row r at (r mod 8)·128 +
// (r / 8)·SBO, element k at 2k (k < 16 from the start), swizzled.
uint32_t wgmma_read_k(const Smem& smem, uint64_t d, int row, int k) {
  const Desc x = decode(d);
  const uint32_t off = (uint32_t(row) % 8u) * 128u + (uint32_t(row) / 8u) * x.sbo + uint32_t(k) * 2u;
  return smem.at(swizzled(x.start + off, 128u) / 2u);
}

// One MN-major operand tile of `rows` MN rows whose CTA loads `load_rows` of them per half (a
// multicasting pair: two halves), at global rows [row0, row0 + rows) of an MN extent `extent`, K
// from k0: loaded as the kernel loads it (load_operand), then read by every k16 step as the
// kernel reads it (operand_desc, kK16StepBytes), `read_rows` rows from `read_row0` (a consumer's 64
// A rows, or the whole B tile).
void check_mn_tile(int rows, int load_rows, int extent, int row0, int read_row0, int read_rows) {
  const int w = mn_chunk_elems(load_rows);
  ASSERT_NE(w, 0) << load_rows;
  const uint32_t span = 2u * uint32_t(w);
  const Global g{512, extent};  // [K, MN]: MN is the inner dimension
  const int k0 = 128;           // k-block 2
  const uint32_t base = 3u * 1024u;
  Smem smem(base / 2u + uint32_t(rows) * 64u + 64u, kUnwritten);
  for (int half = 0; half < rows / load_rows; ++half) {
    const uint32_t dst = base + uint32_t(half * load_rows) * 64u * 2u;
    for (int j = 0; j < load_rows / w; ++j)
      tma_load(smem, dst + uint32_t(j) * mn_chunk_bytes(w), g, row0 + half * load_rows + w * j, k0, w, 64, span);
  }
  const uint64_t d0 = make_mnmajor_desc(base + uint32_t(read_row0) * 64u * 2u, w);
  for (int step = 0; step < 4; ++step) {
    const uint64_t d = d0 + desc_encode(uint32_t(step) * mn_k16_step_bytes(w));
    for (int mn = 0; mn < read_rows; ++mn)
      for (int k = 0; k < 16; ++k)
        ASSERT_EQ(wgmma_read_mn(smem, d, mn, k), g.at(k0 + 16 * step + k, row0 + read_row0 + mn))
            << "W " << w << " rows " << rows << " load " << load_rows << " extent " << extent << " step " << step
            << " mn " << mn << " k " << k;
  }
}

TEST(MnChunks, WidestChunkDividingTheLoadedRows) {
  EXPECT_EQ(mn_chunk_elems(256), 64);
  EXPECT_EQ(mn_chunk_elems(192), 64);
  EXPECT_EQ(mn_chunk_elems(96), 32);
  EXPECT_EQ(mn_chunk_elems(32), 32);
  EXPECT_EQ(mn_chunk_elems(48), 16);
  EXPECT_EQ(mn_chunk_elems(16), 16);
  EXPECT_EQ(mn_chunk_elems(24), 0);
  EXPECT_EQ(mn_chunk_elems(8), 0);
}

TEST(MnChunks, DescriptorFieldsPerWidth) {
  for (int w : {16, 32, 64}) {
    const Desc x = decode(make_mnmajor_desc(0x4000, w));
    EXPECT_EQ(x.start, 0x4000u);
    EXPECT_EQ(x.lbo, uint32_t(w) * 128u) << "LBO: the next chunk of W MN elements";
    EXPECT_EQ(x.sbo, uint32_t(w) * 16u) << "SBO: the next 8 K rows of 2W bytes";
    EXPECT_EQ(layout_span(x.layout), uint32_t(w) * 2u) << "layout type: the swizzle of the chunk's rows";
    EXPECT_EQ(mn_k16_step_bytes(w), uint32_t(w) * 32u);
  }
  // The 64-wide chunk is the one the kernel used before narrower chunks existed.
  EXPECT_EQ(make_mnmajor_desc(0x4000, 64), make_smem_desc(0x4000, 8192, 1024, DescSwizzle::b128));
}

TEST(MnChunks, HostOffsetMatchesTheTmaModel) {
  for (int w : {16, 32, 64}) {
    const Global g{64, 4 * w};
    Smem smem(4u * mn_chunk_bytes(w) / 2u, kUnwritten);
    for (int j = 0; j < 4; ++j) tma_load(smem, uint32_t(j) * mn_chunk_bytes(w), g, w * j, 0, w, 64, 2u * uint32_t(w));
    for (int mn = 0; mn < 4 * w; ++mn)
      for (int k = 0; k < 64; ++k) ASSERT_EQ(smem.at(mnmajor_offset(mn, k, w) / 2u), g.at(k, mn)) << w << " " << mn << " " << k;
  }
}

// Every MN-major B tile width the template accepts, unshared and multicast, inside the matrix and
// cut by its edge (swap-AB over M = 8: a 16-wide tile of which 8 rows exist).
TEST(MnChunks, WgmmaReadsEveryBTileAsLoaded) {
  for (int bn = 16; bn <= 256; bn += 8) {
    for (bool pair : {false, true}) {
      Config c;
      c.bm = 128;
      c.bn = bn;
      c.b_major = Major::mn_major;
      c.epilogue = Epilogue::direct;
      c.cluster_m = pair ? 2 : 1;
      if (check_kernel_config(c) != ConfigRule::ok) {
        EXPECT_EQ(check_kernel_config(c), pair && (bn / 2) % 8 != 0 ? ConfigRule::multicast_rows : ConfigRule::operand_major)
            << bn;
        EXPECT_EQ(mn_chunk_elems(b_load_rows(c)), 0) << bn;
        continue;
      }
      ASSERT_EQ(b_mn_chunk(c), mn_chunk_elems(b_load_rows(c)));
      for (int extent : {bn, bn / 2 + 3, 8, 1000})
        check_mn_tile(bn, b_load_rows(c), extent, extent >= 1000 ? 320 : 0, 0, bn);
    }
  }
}

// MN-major A tiles: each consumer reads its 64 rows of the tile (64-wide chunks, or 32 for the
// half of a 64-row tile that a 1x2 pair multicasts).
TEST(MnChunks, WgmmaReadsEachConsumersARows) {
  for (int bm : {64, 128})
    for (bool pair : {false, true}) {
      Config c;
      c.bm = bm;
      c.bn = 128;
      c.a_major = Major::mn_major;
      c.epilogue = Epilogue::direct;
      c.cluster_n = pair ? 2 : 1;
      ASSERT_EQ(check_kernel_config(c), ConfigRule::ok) << bm << " " << pair;
      EXPECT_EQ(a_mn_chunk(c), bm == 64 && pair ? 32 : 64);
      for (int consumer = 0; consumer < bm / 64; ++consumer)
        for (int extent : {bm, 40, 4000}) check_mn_tile(bm, a_load_rows(c), extent, extent >= 4000 ? 1024 : 0, 64 * consumer, 64);
    }
}

// The K-major 128B tile through the same swizzle model and the K-major canonical layout, with the
// kernel's +32 B k16 steps: the anchor that the models agree with the layouts that run.
TEST(MnChunks, TheModelsReadTheKMajorTileToo) {
  const Global g{200, 512};  // [rows, K]: K inner
  Smem smem(128u * 64u + 1024u, kUnwritten);
  tma_load(smem, 0, g, 64, 72, 64, 128, 128);
  for (int row_block = 0; row_block < 2; ++row_block)
    for (int step = 0; step < 4; ++step) {
      const uint64_t d = make_kmajor_sw128_desc(uint32_t(row_block) * 8192u) + desc_encode(uint32_t(step) * 32u);
      for (int r = 0; r < 64; ++r)
        for (int k = 0; k < 16; ++k)
          ASSERT_EQ(wgmma_read_k(smem, d, r, k), g.at(72 + 64 * row_block + r, 64 + 16 * step + k)) << r << " " << k;
    }
}

// Narrow chunks are what narrow_mn_chunks() names; 64-wide ones and K-major operands are not.
TEST(MnChunks, NarrowChunksAreNamed) {
  Config c;
  c.bm = 64;
  c.bn = 16;
  c.d_col_major = true;
  c.epilogue = Epilogue::direct;
  EXPECT_FALSE(narrow_mn_chunks(c));
  c.b_major = Major::mn_major;
  EXPECT_TRUE(narrow_mn_chunks(c));
  c.bn = 64;
  EXPECT_FALSE(narrow_mn_chunks(c));
  c.a_major = Major::mn_major;
  c.cluster_n = 2;
  EXPECT_TRUE(narrow_mn_chunks(c));  // A's multicast half is 32 rows
}

}  // namespace
}  // namespace tilegemm::sm90
