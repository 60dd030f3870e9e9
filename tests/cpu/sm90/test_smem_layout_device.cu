// Proof that smem_layout.hpp compiles as nvcc device code (sm_90a): a kernel that places its
// stages with compute_smem_layout. It is compiled into test_plan and never launched.
#include "sm90/smem_layout.hpp"

namespace tilegemm::sm90 {
namespace {

constexpr int kBm = 128, kBn = 256, kBk = 64;
constexpr int kStages = max_stages_that_fit(kBm, kBn, kBk, 2);
constexpr SmemLayout kLayout = compute_smem_layout(kBm, kBn, kBk, kStages, 2);
static_assert(kStages == 3 && kLayout.fits(), "the layout is a compile-time constant in device code");

__global__ void smem_layout_device_probe(int* out, int stage) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  // Round the dynamic base up to 1024 B, as kernels do (the layout budgets the slack).
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(smem_raw));
  const unsigned aligned = (base + kSmemAlign - 1) & ~unsigned(kSmemAlign - 1);
  // The pattern for kernels: a constexpr layout local to the kernel (a namespace-scope constexpr
  // object is host memory; device code may read its scalar members but not call its methods).
  constexpr SmemLayout L = compute_smem_layout(kBm, kBn, kBk, kStages, 2);
  static_assert(L.total_bytes == kLayout.total_bytes);
  // Run-time use too: a layout computed from a kernel argument.
  const SmemLayout R = compute_smem_layout(kBm, kBn, kBk, stage + 1, 4);
  out[0] = static_cast<int>(aligned) + L.a_offset(stage) + L.b_offset(stage) + L.full_barrier(stage) +
           R.total_bytes;
}

}  // namespace

// Referenced from the host test so the kernel is not discarded.
void* smem_layout_device_probe_address() { return reinterpret_cast<void*>(&smem_layout_device_probe); }

}  // namespace tilegemm::sm90
