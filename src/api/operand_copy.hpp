// Host side of the operand copies a GEMM kernel makes itself (Config::copy_operands,
// sm90/gemm/operand_copy.cuh): which of route()'s copies it can make, the order it makes them in,
// and whether the time model puts them inside the kernel or in a launch before it.
#pragma once

#include <cstdint>
#include <string>

#include "api/route.hpp"
#include "plan/device_profile.hpp"
#include "plan/planner.hpp"
#include "sm90/gemm/params.hpp"

namespace tilegemm::detail {

// route()'s copies of the kernel's A and B that a copy_operands kernel of `c` can make: line copies
// of a K-major operand (its rows, one per M or N index), not with swap-AB. nullptr: none.
struct KernelCopies {
  const Pack* a = nullptr;
  const Pack* b = nullptr;
  bool any() const { return a != nullptr || b != nullptr; }
};
KernelCopies kernel_copies(const Route& r, const plan::Config& c);

// The plan of those copies for an M x N x K kernel of `c` launched on `ctas` CTAs (the wave size):
// row blocks ordered by the wave of tiles that first reads them (sched::slot_work in slot order);
// those of the first wave (and below them) are left to a copy before the kernel (a_ready, b_ready),
// the others grouped by wave, each group copied slab by slab; chunk flags in `sync` (kCopySyncWords
// + flags words, zero), the copies at `pack_workspace` + each Pack's offset. False, saying why,
// when the first wave reads every row or the copies do not fit the plan's limits (kCopyMaxEntries
// row blocks, `sync_words` words of flags).
bool make_copy_plan(const KernelCopies& copies, const plan::Config& c, int64_t m, int64_t n, int64_t k, int ctas,
                    void* pack_workspace, uint32_t* sync, int64_t sync_words, sm90::CopyPlan* out, std::string* why);

// Bytes (read + written) of the copies made before the kernel (the first wave's rows: a_ready and
// b_ready row blocks of a plan) and of those it makes itself.
struct CopyBytes {
  double before = 0, inside = 0;
};
CopyBytes copy_bytes(const KernelCopies& copies, const sm90::CopyPlan& plan, const plan::Config& c);

// Whether gemm() makes the copies inside the kernel of the planned config `c` (the time model's
// place_copies, with the plan's first slab), and the prediction either way. No copies, a config the
// kernel cannot copy with (clusters, k-splits, swap-AB) or a plan that does not fit: before.
struct CopyDecision {
  bool possible = false;  // the kernel of `c` could make some of the copies
  plan::CopyPlacement placement;
  CopyBytes bytes;        // of the kernel's copies: the first wave's rows, and the rest
};
CopyDecision decide_copies(const Route& r, const plan::DeviceProfile& d, const plan::Config& c);

// `c` making the copies itself: copy_operands set and the config completed again (its register
// split, plan::kCopyProducerRegs; as many stages as fit beside the copy buffers).
plan::Config with_copies(const Route& r, const plan::DeviceProfile& d, plan::Config c);

}  // namespace tilegemm::detail
