"""tilegemm: BF16 GEMM for NVIDIA Hopper (sm_90a), from Python.

  tilegemm.gemm(a, b, *, c=None, alpha=1.0, beta=0.0, out=None, out_dtype=None)   # a @ b.T
  tilegemm.matmul(x, w)                                                            # x @ w
  torch.ops.tilegemm.gemm / torch.ops.tilegemm.gemm_out                            # for torch.compile
  tilegemm.capi                       the C API over ctypes (no torch needed): validate, gemm, ...

The library is libtilegemm.so from the CMake build (see tilegemm.capi for where it is looked
for; TILEGEMM_LIBRARY names it). It is loaded on first use, so `import tilegemm` works without it
(and without torch: then only tilegemm.capi is there).
"""
from __future__ import annotations

__version__ = "0.1.0"

from . import capi
from .capi import (CudaError, InvalidArgumentError, LibraryNotFoundError, Matrix, NoDeviceError, TilegemmError,
                   UnsupportedError)

try:
    import torch  # noqa: F401
except ImportError:  # the ctypes layer still works
    HAVE_TORCH = False

    def _needs_torch(*args, **kwargs):
        raise ImportError("tilegemm.gemm and tilegemm.matmul work on torch tensors: install PyTorch "
                          "(tilegemm.capi works without it)")

    gemm = matmul = _needs_torch
else:
    HAVE_TORCH = True
    from ._torch import gemm, matmul  # registers torch.ops.tilegemm.*

__all__ = ["gemm", "matmul", "capi", "Matrix", "TilegemmError", "InvalidArgumentError", "UnsupportedError",
           "NoDeviceError", "CudaError", "LibraryNotFoundError", "HAVE_TORCH", "__version__"]
