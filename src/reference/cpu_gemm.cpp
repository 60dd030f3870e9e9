// CPU reference GEMM: D[M,N] (row-major FP32, ld = N) = alpha·A·Bᵀ + beta·C over bf16 A, B.
//
// Each output element is the plain FP32 sum over k = 0, 1, ..., K-1 of a(m,k)·b(n,k), in that order
// (products of two bf16 values are exact in FP32), then d = alpha·sum (+ beta·c). The blocking below
// only changes *when* each element's running sum is advanced, never its order, so the result is
// bit-identical to the naive triple loop in float — which makes it easy to test.
//
// Blocking: the output is cut into kTileM x kTileN work items handed to all host threads. An item
// walks K in kChunkK slices; per slice it packs its A rows into kMr-row panels ([k][kMr]) and its B
// rows into kNr-column panels ([k][kNr]), then a kMr x kNr register micro-tile runs over the slice
// (the compiler vectorizes its kNr-wide inner loop without reordering any sum).
#include <algorithm>
#include <vector>

#include "reference/parallel.hpp"
#include "reference/reference.hpp"

namespace tilegemm::ref {
namespace {

constexpr int64_t kMr = 4, kNr = 8;              // micro-tile
constexpr int64_t kTileM = 64, kTileN = 256;     // work item (multiples of kMr, kNr)
constexpr int64_t kChunkK = 256;                 // K slice packed at a time

// acc[kMr][ld_acc] += A panel [kc][kMr] · B panel [kc][kNr]ᵀ, each sum advanced in k order.
void micro_tile(const float* ap, const float* bp, int64_t kc, float* acc, int64_t ld_acc) {
  float t[kMr][kNr];
  for (int64_t i = 0; i < kMr; ++i)
    for (int64_t j = 0; j < kNr; ++j) t[i][j] = acc[i * ld_acc + j];
  for (int64_t k = 0; k < kc; ++k) {
    const float* a = ap + k * kMr;
    const float* b = bp + k * kNr;
    for (int64_t i = 0; i < kMr; ++i)
      for (int64_t j = 0; j < kNr; ++j) t[i][j] += a[i] * b[j];
  }
  for (int64_t i = 0; i < kMr; ++i)
    for (int64_t j = 0; j < kNr; ++j) acc[i * ld_acc + j] = t[i][j];
}

// Packs rows [row0, row0 + rows) x k [k0, k0 + kc) of a [rows, K] operand into panels of `width`
// rows, laid out [panel][k][width]; rows past the end are zero.
void pack_panels(const HostView<__nv_bfloat16>& v, int64_t row0, int64_t rows, int64_t k0, int64_t kc,
                 int64_t width, float* out) {
  const int64_t panels = (rows + width - 1) / width;
  for (int64_t p = 0; p < panels; ++p) {
    float* panel = out + p * kc * width;
    for (int64_t k = 0; k < kc; ++k)
      for (int64_t i = 0; i < width; ++i) {
        const int64_t r = p * width + i;
        panel[k * width + i] = r < rows ? __bfloat162float(v.at(row0 + r, k0 + k)) : 0.0f;
      }
  }
}

}  // namespace

void cpu_gemm(const HostView<__nv_bfloat16>& a, const HostView<__nv_bfloat16>& b, const HostView<float>* c,
              float alpha, float beta, float* d_row_major) {
  const int64_t m = a.rows, n = b.rows, k = a.cols;  // A [M, K], B [N, K], D [M, N]
  if (m <= 0 || n <= 0) return;
  const bool read_c = c != nullptr && beta != 0.0f;  // C is read only when beta != 0 (API rule)
  const int64_t tiles_m = (m + kTileM - 1) / kTileM, tiles_n = (n + kTileN - 1) / kTileN;

  parallel_for_items(tiles_m * tiles_n, [&](int64_t item) {
    const int64_t m0 = (item / tiles_n) * kTileM, n0 = (item % tiles_n) * kTileN;
    const int64_t rows = std::min(kTileM, m - m0), cols = std::min(kTileN, n - n0);
    std::vector<float> acc(kTileM * kTileN, 0.0f);  // [kTileM][kTileN], panel-padded
    std::vector<float> ap(kTileM * kChunkK), bp(kTileN * kChunkK);
    for (int64_t k0 = 0; k0 < k; k0 += kChunkK) {
      const int64_t kc = std::min(kChunkK, k - k0);
      pack_panels(a, m0, rows, k0, kc, kMr, ap.data());
      pack_panels(b, n0, cols, k0, kc, kNr, bp.data());
      for (int64_t i = 0; i < rows; i += kMr)
        for (int64_t j = 0; j < cols; j += kNr)
          micro_tile(ap.data() + (i / kMr) * kc * kMr, bp.data() + (j / kNr) * kc * kNr, kc,
                     acc.data() + i * kTileN + j, kTileN);
    }
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        float v = alpha * acc[i * kTileN + j];
        if (read_c) v = v + beta * c->at(m0 + i, n0 + j);
        d_row_major[(m0 + i) * n + n0 + j] = v;
      }
  });
}

}  // namespace tilegemm::ref
