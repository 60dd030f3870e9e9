// Where element (row, col) of a MatrixRef lives and how many bytes a stored matrix covers.
// One fact, one place: validate(), the fallback kernel and the tests all use these.
#pragma once

#include <cstdint>

#include "core/host_device.hpp"
#include "tilegemm/tilegemm.hpp"

namespace tilegemm::layout {

// Offset in elements of logical element (row, col).
//   k_major / row_major:  row * ld + col   (a row is contiguous)
//   mn_major / col_major: col * ld + row   (a column is contiguous)
TG_HD inline int64_t element_offset(int64_t row, int64_t col, int64_t ld, bool mn_major) {
  return mn_major ? col * ld + row : row * ld + col;
}

// Number of ld-strided lines (rows for k_major, columns for mn_major).
inline int64_t outer_extent(const MatrixRef& m) {
  return m.major == Major::mn_major ? m.cols : m.rows;
}
// Contiguous elements in one line: the smallest legal ld.
inline int64_t inner_extent(const MatrixRef& m) {
  return m.major == Major::mn_major ? m.rows : m.cols;
}

// Elements from ptr to one past the last element, (outer - 1) * ld + inner; 0 for an empty matrix.
// Meaningful only for a matrix that passed validate() (which rules out overflow here).
inline int64_t span_elements(const MatrixRef& m) {
  if (m.rows == 0 || m.cols == 0) return 0;
  return (outer_extent(m) - 1) * m.ld + inner_extent(m);
}
inline int64_t span_bytes(const MatrixRef& m) { return span_elements(m) * ::tilegemm::dtype_bytes(m.dtype); }

}  // namespace tilegemm::layout
