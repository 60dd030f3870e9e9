"""A 2-D strided view -> the C API's (ld, major), with no copy and no torch.

tilegemm reads a matrix [rows, cols] stored one of two ways (include/tilegemm/tilegemm.h):
  "k"  (K-major, row-major):     element (r, c) at ptr[r * ld + c]   -> strides (ld, 1)
  "mn" (MN-major, column-major): element (r, c) at ptr[c * ld + r]   -> strides (1, ld)
so a tensor is usable as it is when one dimension has stride 1 and the other a stride >= the
first dimension's extent. A dimension of size 1 is never stepped over, so its stride does not
matter (PyTorch reports arbitrary strides there). An empty matrix addresses nothing: any ld >= 0.
"""
from __future__ import annotations

from typing import Sequence, Tuple


def matrix_layout(name: str, shape: Sequence[int], strides: Sequence[int]) -> Tuple[int, str]:
    """(ld, major) for a [rows, cols] view with these element strides, or ValueError naming the
    operand, its shape and strides, and the rule."""
    if len(shape) != 2 or len(strides) != 2:
        raise ValueError(f"{name}: a 2-D matrix is needed, got shape {tuple(shape)}")
    rows, cols = int(shape[0]), int(shape[1])
    s_row, s_col = int(strides[0]), int(strides[1])
    if rows == 0 or cols == 0:
        return (cols, "k")  # nothing is addressed; ld = cols (0 for [M, 0]) is always valid
    # Row-major (K-major for A and B): columns adjacent, rows ld apart.
    row_major_ok = (cols == 1 or s_col == 1) and (rows == 1 or s_row >= cols)
    # Column-major (MN-major): rows adjacent, columns ld apart.
    col_major_ok = (rows == 1 or s_row == 1) and (cols == 1 or s_col >= rows)
    # Prefer the layout the strides name: (x, 1) row-major, (1, x) column-major.
    if row_major_ok and (s_col == 1 or not col_major_ok):
        return (s_row if rows > 1 else cols, "k")
    if col_major_ok:
        return (s_col if cols > 1 else rows, "mn")
    raise ValueError(
        f"{name}: shape {tuple(shape)} with strides {tuple(strides)} is not a layout tilegemm reads: one "
        f"dimension must have stride 1 and the other a stride >= the first one's size (row-major: strides "
        f"(ld, 1) with ld >= {cols}; column-major: strides (1, ld) with ld >= {rows}); "
        f".contiguous() gives a row-major copy")
