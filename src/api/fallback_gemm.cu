// The fallback GEMM kernel: shared-memory tiled SIMT, correct for every argument validate() accepts.
//
//   D[M, N] = alpha * A[M, K] · B[N, K]ᵀ + beta * C[M, N]     (FP32 accumulation)
//
// Each CTA of 256 threads computes 64×64 output tiles (looping over tiles when there are more
// than the grid holds). Per K step of 32, the CTA copies a 64×32 slice of A and of B from global
// memory into shared memory as FP32, [k][m] and [k][n]; each thread then accumulates a 4×4 set of
// outputs. Global reads are element-wise through the strides with bounds checks, so any ld, any
// element offset and either Major works — this is what lets the library take the leading dimensions
// TMA refuses (strides that are not a multiple of 16 bytes, misaligned base pointers).
#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "api/fallback_gemm.hpp"
#include "api/matrix_layout.hpp"

namespace tilegemm::detail {
namespace {

constexpr int BLOCK_M = 64;
constexpr int BLOCK_N = 64;
constexpr int BLOCK_K = 32;
constexpr int kThreads = 256;
constexpr int kThreadGrid = 16;                     // threads form a 16×16 grid over the tile
constexpr int kPerThread = BLOCK_M / kThreadGrid;   // 4 rows × 4 columns of outputs per thread
constexpr int kLoadsPerThread = BLOCK_M * BLOCK_K / kThreads;  // 8 operand elements per K step
static_assert(BLOCK_M == BLOCK_N, "one operand-loading routine serves A and B");
static_assert(kThreadGrid * kThreadGrid == kThreads && BLOCK_M * BLOCK_K % kThreads == 0);

struct Operand {
  const __nv_bfloat16* ptr;  // element (0, 0)
  int64_t ld;
  int64_t rows;              // M for A, N for B
  bool mn_major;
};

struct Params {
  Operand a;                 // A: [M, K]
  Operand b;                 // B: [N, K]
  const void* c;             // C: [M, N], D's dtype; null when there is no C or beta == 0
  int64_t ldc;
  bool c_mn_major;
  void* d;                   // D: [M, N]; its Major is the kernel's template parameter
  int64_t ldd;
  int64_t m, n, k;
  float alpha, beta;
};

// Which (row, k) of the 64×32 operand slice load number `i` of thread `tid` takes. Consecutive
// threads walk the operand's contiguous dimension, so a warp reads one 64-byte run.
__device__ inline void slice_coords(int tid, int i, bool mn_major, int& row, int& k) {
  const int idx = tid + i * kThreads;
  if (mn_major) {  // rows contiguous: ptr[k * ld + row]
    row = idx % BLOCK_M;
    k = idx / BLOCK_M;
  } else {         // k contiguous: ptr[row * ld + k]
    k = idx % BLOCK_K;
    row = idx / BLOCK_K;
  }
}

// Global -> registers: this thread's 8 elements of the slice at (row0, k0), 0 outside the matrix.
__device__ inline void load_slice(float (&regs)[kLoadsPerThread], const Operand& op, int64_t row0,
                                  int64_t k0, int64_t k_total, int tid) {
#pragma unroll
  for (int i = 0; i < kLoadsPerThread; ++i) {
    int row, k;
    slice_coords(tid, i, op.mn_major, row, k);
    const int64_t r = row0 + row, kk = k0 + k;
    regs[i] = (r < op.rows && kk < k_total)
                  ? __bfloat162float(op.ptr[layout::element_offset(r, kk, op.ld, op.mn_major)])
                  : 0.0f;
  }
}

// Registers -> shared memory slice [k][row]. The +1 padding keeps the k-contiguous case (a warp
// writing 32 different k of one row) free of bank conflicts.
__device__ inline void store_slice(float (*slice)[BLOCK_M + 1], const float (&regs)[kLoadsPerThread],
                                   bool mn_major, int tid) {
#pragma unroll
  for (int i = 0; i < kLoadsPerThread; ++i) {
    int row, k;
    slice_coords(tid, i, mn_major, row, k);
    slice[k][row] = regs[i];
  }
}

__device__ inline float load_out(const float* p, int64_t i) { return p[i]; }
__device__ inline float load_out(const __nv_bfloat16* p, int64_t i) { return __bfloat162float(p[i]); }
__device__ inline void store_out(float* p, int64_t i, float v) { p[i] = v; }
__device__ inline void store_out(__nv_bfloat16* p, int64_t i, float v) { p[i] = __float2bfloat16_rn(v); }

// OutT: D's (and C's) element type. kDColMajor: D's Major; the thread index that varies fastest
// within a warp walks D's contiguous dimension so the stores coalesce.
template <typename OutT, bool kDColMajor>
__global__ void __launch_bounds__(kThreads) fallback_gemm_kernel(const Params p) {
  __shared__ float a_slice[BLOCK_K][BLOCK_M + 1];  // A tile as [k][m]
  __shared__ float b_slice[BLOCK_K][BLOCK_N + 1];  // B tile as [k][n]

  const int tid = static_cast<int>(threadIdx.x);
  const int fast = tid % kThreadGrid, slow = tid / kThreadGrid;
  const int m_lane = kDColMajor ? fast : slow;  // this thread's outputs: rows m_lane + 16·i,
  const int n_lane = kDColMajor ? slow : fast;  //                        cols n_lane + 16·j

  const int64_t tiles_n = (p.n + BLOCK_N - 1) / BLOCK_N;
  const int64_t num_tiles = (p.m + BLOCK_M - 1) / BLOCK_M * tiles_n;
  for (int64_t tile = blockIdx.x; tile < num_tiles; tile += gridDim.x) {  // CTA-uniform loop
    const int64_t m0 = tile / tiles_n * BLOCK_M;
    const int64_t n0 = tile % tiles_n * BLOCK_N;

    float acc[kPerThread][kPerThread] = {};
    float a_regs[kLoadsPerThread], b_regs[kLoadsPerThread];
    if (p.k > 0) {
      load_slice(a_regs, p.a, m0, 0, p.k, tid);
      load_slice(b_regs, p.b, n0, 0, p.k, tid);
    }
    for (int64_t k0 = 0; k0 < p.k; k0 += BLOCK_K) {
      store_slice(a_slice, a_regs, p.a.mn_major, tid);
      store_slice(b_slice, b_regs, p.b.mn_major, tid);
      __syncthreads();                               // slice visible to every thread
      if (k0 + BLOCK_K < p.k) {                      // next slice's loads fly during the FMAs
        load_slice(a_regs, p.a, m0, k0 + BLOCK_K, p.k, tid);
        load_slice(b_regs, p.b, n0, k0 + BLOCK_K, p.k, tid);
      }
#pragma unroll 8
      for (int kk = 0; kk < BLOCK_K; ++kk) {
        float a_frag[kPerThread], b_frag[kPerThread];
#pragma unroll
        for (int i = 0; i < kPerThread; ++i) a_frag[i] = a_slice[kk][m_lane + kThreadGrid * i];
#pragma unroll
        for (int j = 0; j < kPerThread; ++j) b_frag[j] = b_slice[kk][n_lane + kThreadGrid * j];
#pragma unroll
        for (int i = 0; i < kPerThread; ++i)
#pragma unroll
          for (int j = 0; j < kPerThread; ++j) acc[i][j] = fmaf(a_frag[i], b_frag[j], acc[i][j]);
      }
      __syncthreads();                               // everyone done reading before the overwrite
    }

    // Epilogue: D = alpha·acc + beta·C. C may be D itself (validate() allows only the identical
    // matrix), which is safe: each element is read and then written by this one thread.
    const auto* c = static_cast<const OutT*>(p.c);
    auto* d = static_cast<OutT*>(p.d);
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) {
#pragma unroll
      for (int j = 0; j < kPerThread; ++j) {
        const int64_t m = m0 + m_lane + kThreadGrid * i;
        const int64_t n = n0 + n_lane + kThreadGrid * j;
        if (m >= p.m || n >= p.n) continue;
        float v = p.alpha * acc[i][j];
        if (c != nullptr) v = fmaf(p.beta, load_out(c, layout::element_offset(m, n, p.ldc, p.c_mn_major)), v);
        store_out(d, layout::element_offset(m, n, p.ldd, kDColMajor), v);
      }
    }
  }
}

template <typename OutT, bool kDColMajor>
cudaError_t launch(const Params& p, unsigned grid, cudaStream_t stream) {
  fallback_gemm_kernel<OutT, kDColMajor><<<grid, kThreads, 0, stream>>>(p);
  return cudaGetLastError();
}

Operand operand(const MatrixRef& m) {
  return {static_cast<const __nv_bfloat16*>(m.ptr), m.ld, m.rows, m.major == Major::mn_major};
}

}  // namespace

cudaError_t launch_fallback_gemm(const GemmArgs& args) {
  const int64_t m = args.d.rows, n = args.d.cols, k = args.a.cols;
  if (m == 0 || n == 0) return cudaSuccess;  // an empty grid is not a launch

  const bool read_c = args.c != nullptr && args.beta != 0.0f;
  const Params p{operand(args.a), operand(args.b),
                 read_c ? args.c->ptr : nullptr, read_c ? args.c->ld : 0,
                 read_c && args.c->major == Major::mn_major,
                 args.d.ptr, args.d.ld,
                 m, n, k, args.alpha, args.beta};

  // validate() bounds M·N·sizeof(D) below 2^40, so the tile count fits a 1-D grid (≤ 2^31 - 1);
  // the cap is only a guard, the kernel loops over any tiles beyond the grid.
  const int64_t tiles = (m + BLOCK_M - 1) / BLOCK_M * ((n + BLOCK_N - 1) / BLOCK_N);
  const auto grid = static_cast<unsigned>(tiles < INT32_MAX ? tiles : INT32_MAX);
  const bool col = args.d.major == Major::mn_major;
  if (args.d.dtype == DType::fp32)
    return col ? launch<float, true>(p, grid, args.stream) : launch<float, false>(p, grid, args.stream);
  return col ? launch<__nv_bfloat16, true>(p, grid, args.stream)
             : launch<__nv_bfloat16, false>(p, grid, args.stream);
}

}  // namespace tilegemm::detail
