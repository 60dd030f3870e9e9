// One 64 x BN x 64 block product on the GPU through the production kernel's own pieces, one at a
// time: the producer's loads (load_operand: one TMA box per MN-major chunk, the map's swizzle by
// chunk width), the consumer's descriptors (operand_desc, kK16StepBytes) and its four wgmma
// (wgmma_block_k64), then the accumulator fragment written out. Small integers in, so the product
// is exact and compared element by element. Every MN-major chunk width (64, 32, 16) for B and for A,
// tiles inside the matrix and cut by its edge, K-major controls beside them: a failure names the
// one operand layout whose TMA writes or wgmma reads disagree (tests/cpu/sm90/test_mn_chunks.cpp
// checks the same on the host against models of both).
// (A .cu file: it defines its own kernel.)
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "sm90/gemm/mainloop.cuh"
#include "sm90/tensor_map.hpp"

namespace tilegemm {
namespace {

using sm90::TmaDescriptor;

struct Maps {
  TmaDescriptor a, b;
};

constexpr int kTileBytesA = 64 * 64 * 2;

template <int BN, int kAChunk, int kBChunk>
__global__ void __launch_bounds__(128) block_product(const __grid_constant__ Maps maps, float* d) {
  extern __shared__ uint8_t raw[];
  uint8_t* smem = sm90::align_smem_1024(raw);
  uint8_t* a_tile = smem;                                                    // 64 rows x 64 K
  uint8_t* b_tile = smem + kTileBytesA;                                      // BN rows x 64 K (1024-aligned)
  uint64_t* bar = reinterpret_cast<uint64_t*>(smem + kTileBytesA + BN * 128);
  if (threadIdx.x == 0) {
    sm90::mbar_init(bar, 1);
    sm90::fence_barrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    sm90::mbar_arrive_expect_tx(bar, (64 + BN) * 128);
    sm90::load_operand<kAChunk, false, 64>(a_tile, &maps.a, bar, /*k0=*/0, /*row0=*/0);
    sm90::load_operand<kBChunk, false, BN>(b_tile, &maps.b, bar, 0, 0);
  }
  sm90::mbar_wait(bar, 0);
  float acc[BN / 2], acc2[BN / 2];
  sm90::fence_accumulators(acc);
  const uint64_t da = sm90::operand_desc<kAChunk>(sm90::smem_u32(a_tile));
  const uint64_t db = sm90::operand_desc<kBChunk>(sm90::smem_u32(b_tile));
  sm90::wgmma_fence();
  sm90::wgmma_block_k64<BN, kAChunk, kBChunk, 1>(acc, acc2, uint32_t(da), uint32_t(da >> 32), uint32_t(db),
                                                  uint32_t(db >> 32), /*accumulate=*/0);
  sm90::wgmma_commit();
  sm90::wgmma_wait<0>();
  sm90::fence_accumulators(acc);
#pragma unroll
  for (int r = 0; r < BN / 2; ++r) {
    const sm90::FragCoord f = sm90::acc_fragment_coord(threadIdx.x, uint32_t(r));
    d[f.row * BN + f.col] = acc[r];
  }
}

struct DeviceMem {
  void* p = nullptr;
  explicit DeviceMem(size_t bytes) { EXPECT_EQ(cudaMalloc(&p, bytes), cudaSuccess); }
  ~DeviceMem() { cudaFree(p); }
};

// Element (row, k) of operand X (A: row < 64; B: row < BN) as a small integer, 0 past `extent` rows.
float value(char x, int row, int k, int extent) {
  if (row >= extent) return 0.0f;
  return float(((row * 7 + k * 3 + (x == 'A' ? 1 : 5)) % 5) - 2);
}

// Operand X of `extent` rows (of its tile's `tile_rows`) x 64 K, stored K-major ([row][k], ld 64) or
// MN-major ([k][row], ld = rows rounded up to 8), and its tensor map as the launch encodes it.
std::string upload(char x, int tile_rows, int extent, int chunk, DeviceMem& mem, TmaDescriptor* map) {
  const bool mn = chunk != 0;
  const int ld = mn ? (extent + 7) / 8 * 8 : 64;
  const int lines = mn ? 64 : extent;
  std::vector<__nv_bfloat16> h(size_t(lines) * ld, __float2bfloat16(0.0f));
  for (int row = 0; row < extent; ++row)
    for (int k = 0; k < 64; ++k)
      h[mn ? size_t(k) * ld + row : size_t(row) * ld + k] = __float2bfloat16(value(x, row, k, extent));
  if (cudaMemcpy(mem.p, h.data(), h.size() * 2, cudaMemcpyHostToDevice) != cudaSuccess) return "cudaMemcpy";
  const auto bf16 = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  CUtensorMap m;
  std::string e;
  if (!mn) {
    e = sm90::make_2d_tile_map(sm90::Matrix2d{mem.p, uint64_t(extent), 64, uint64_t(ld), bf16},
                               sm90::Box2d{64, uint32_t(tile_rows)}, CU_TENSOR_MAP_SWIZZLE_128B, &m);
  } else {
    e = sm90::make_2d_tile_map(sm90::Matrix2d{mem.p, 64, uint64_t(extent), uint64_t(ld), bf16},
                               sm90::Box2d{uint32_t(chunk), 64}, sm90::mn_chunk_tensor_swizzle(chunk), &m);
  }
  std::memcpy(map, &m, sizeof m);
  return e;
}

template <int BN, int kAChunk, int kBChunk>
void check(int a_extent, int b_extent) {
  SCOPED_TRACE(testing::Message() << "BN " << BN << ", A chunk " << kAChunk << " (0: K-major), B chunk " << kBChunk
                                  << ", A rows " << a_extent << ", B rows " << b_extent);
  DeviceMem a(64 * 64 * 2 + 256), b(size_t(BN + 8) * 64 * 2 + 256), d(size_t(64) * BN * 4);
  Maps maps;
  ASSERT_EQ(upload('A', 64, a_extent, kAChunk, a, &maps.a), "");
  ASSERT_EQ(upload('B', BN, b_extent, kBChunk, b, &maps.b), "");
  ASSERT_EQ(cudaMemset(d.p, 0xFF, size_t(64) * BN * 4), cudaSuccess);  // NaN
  const int smem = 1024 + kTileBytesA + BN * 128 + 64;
  block_product<BN, kAChunk, kBChunk><<<1, 128, smem>>>(maps, static_cast<float*>(d.p));
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<float> got(size_t(64) * BN);
  ASSERT_EQ(cudaMemcpy(got.data(), d.p, got.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  int wrong = 0;
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < BN; ++n) {
      float want = 0;
      for (int k = 0; k < 64; ++k) want += value('A', m, k, a_extent) * value('B', n, k, b_extent);
      if (got[size_t(m) * BN + n] != want && wrong++ < 5)
        ADD_FAILURE() << "D[" << m << "][" << n << "] = " << got[size_t(m) * BN + n] << ", want " << want;
    }
  EXPECT_EQ(wrong, 0);
}

class MnChunksGpu : public testing::Test {
 protected:
  void SetUp() override {
    int major = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0) != cudaSuccess || major != 9)
      GTEST_SKIP() << "needs an SM90 GPU";
  }
};

TEST_F(MnChunksGpu, KMajorAndWideChunksAsControls) {
  check<64, 0, 0>(64, 64);    // both K-major: the NT kernel's layout
  check<64, 0, 64>(64, 64);   // B in 64-wide chunks (has run in the production kernel)
  check<128, 0, 64>(64, 128);
  check<64, 64, 0>(64, 64);   // A in a 64-wide chunk
}

TEST_F(MnChunksGpu, BInChunksOf32And16) {
  check<32, 0, 32>(64, 32);
  check<96, 0, 32>(64, 96);
  check<16, 0, 16>(64, 16);
  check<48, 0, 16>(64, 48);
  check<176, 0, 16>(64, 176);
  check<16, 0, 16>(64, 8);    // swap-AB over M = 8: half of the chunk past the edge
  check<32, 0, 32>(64, 24);
  check<48, 0, 16>(64, 40);
  check<32, 64, 32>(64, 32);  // both MN-major (TN swapped)
}

TEST_F(MnChunksGpu, AInChunksOf32) {
  check<64, 32, 0>(64, 64);   // the 32-row multicast half of a 64-row MN-major A, as one CTA reads both halves
  check<64, 32, 32>(40, 64);
}

}  // namespace
}  // namespace tilegemm
