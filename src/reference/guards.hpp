// Guarded allocations: every element of an allocation holds a known value (the seeded normal
// stream, or the NaN poison), the matrix's own elements are poisoned where a kernel must write
// them, and afterwards a kernel counts the elements that changed where nothing may write: the
// guard bands before and after the matrix, the gaps between its lines (ld > line length), and
// whole input allocations. Device-side, so a check never copies an allocation back.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "tilegemm/tilegemm.hpp"

namespace tilegemm::ref {

// The elements of a strided matrix inside an allocation, in the allocation's element indices:
// line j (a row when row-/K-major, a column otherwise) is [first + j·ld, first + j·ld + inner).
struct Region {
  int64_t first = 0, ld = 0, inner = 0, outer = 0;
};
// `m`'s elements when element (0, 0) is at index `first` of its allocation.
Region region_of(const MatrixRef& m, int64_t first);

// What an allocation of `elements` values of `dtype` (bf16 or fp32) is expected to hold.
struct Expected {
  bool poison = false;  // all-ones bytes (NaN) everywhere; else element i = normal(seed, i) in dtype
  uint64_t seed = 0;
};

// base[i] = the expected value of every element i (fill_normal_* or poison).
cudaError_t fill_expected(void* base, size_t elements, DType dtype, const Expected& e, cudaStream_t s);
// The NaN poison over the region's elements only.
cudaError_t poison_region(void* base, DType dtype, const Region& r, cudaStream_t s);
// Counts elements i in [0, elements), outside `skip` when given, whose bits differ from the
// expected value; synchronizes the stream and writes the count to *changed.
cudaError_t count_changed(const void* base, size_t elements, DType dtype, const Expected& e, const Region* skip,
                          cudaStream_t s, uint64_t* changed);

}  // namespace tilegemm::ref
