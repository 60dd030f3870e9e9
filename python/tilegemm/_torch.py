"""torch.ops.tilegemm.gemm / gemm_out: the library as PyTorch custom ops (torch.library).

  gemm(Tensor a, Tensor b, Tensor? c, float alpha, float beta, ScalarType? out_dtype) -> Tensor
  gemm_out(Tensor a, Tensor b, Tensor? c, float alpha, float beta, Tensor(a!) out) -> ()

Both compute D = alpha * a @ b.T + beta * c with a [M, K], b [N, K] (the C API's convention:
B is given as [N, K], like nn.Linear's weight), c and D [M, N]. gemm allocates D (row-major,
out_dtype: bf16 by default, or fp32); gemm_out writes into `out`. Inputs are used as they are,
with their strides (tilegemm/_layout.py says which strides work), on the current CUDA stream.

Each op has a fake (meta) implementation that checks shapes and dtypes and gives the output's
shape and dtype without running anything, so torch.compile traces through them without a graph
break, and the real implementation is one C call that allocates nothing of its own when the
kernel is already compiled (warm up before CUDA graph capture: the first call of a shape
compiles it).
"""
from __future__ import annotations

from typing import Optional

import torch

from . import capi as _lib
from ._layout import matrix_layout

_DTYPE_NAMES = {torch.bfloat16: "bf16", torch.float32: "fp32"}


def _check(a: torch.Tensor, b: torch.Tensor, c: Optional[torch.Tensor], out_dtype: torch.dtype,
           out_shape=None) -> None:
    """Shape and dtype rules that need no data: the same in the fake and the real implementation,
    so a traced program fails where an eager one would. The library checks the rest (strides,
    overlap, sizes) and raises with its own message."""
    for name, t in (("a", a), ("b", b)):
        if t.dim() != 2:
            raise ValueError(f"tilegemm.gemm: {name} must be 2-D, got shape {tuple(t.shape)}")
        if t.dtype != torch.bfloat16:
            raise ValueError(f"tilegemm.gemm: {name}.dtype = {t.dtype}: A and B must be torch.bfloat16")
    if a.shape[1] != b.shape[1]:
        raise ValueError(f"tilegemm.gemm: a is {tuple(a.shape)} and b is {tuple(b.shape)}: A [M, K] and "
                         f"B [N, K] must have the same K (b is [N, K]; for a @ w with w [K, N] use "
                         f"tilegemm.matmul)")
    if out_dtype not in _DTYPE_NAMES:
        raise ValueError(f"tilegemm.gemm: output dtype {out_dtype}: must be torch.bfloat16 or torch.float32")
    shape = (a.shape[0], b.shape[0])
    if out_shape is not None and tuple(out_shape) != shape:
        raise ValueError(f"tilegemm.gemm: out is {tuple(out_shape)} but a @ b.T is {shape}")
    if c is not None:
        if tuple(c.shape) != shape:
            raise ValueError(f"tilegemm.gemm: c is {tuple(c.shape)} but a @ b.T is {shape}")
        if c.dtype != out_dtype:
            raise ValueError(f"tilegemm.gemm: c.dtype = {c.dtype} but the output is {out_dtype}: C must have "
                             f"the output's dtype")
    for name, t in (("a", a), ("b", b), ("c", c)):
        if t is not None and t.device != a.device:
            raise ValueError(f"tilegemm.gemm: {name} is on {t.device} but a is on {a.device}")


_DTYPE_CODES = {torch.bfloat16: _lib.DTYPES["bf16"], torch.float32: _lib.DTYPES["fp32"]}
_MAJOR_CODES = {"k": _lib.MAJORS["k"], "mn": _lib.MAJORS["mn"]}


def _matrix(name: str, t: torch.Tensor):
    ld, major = matrix_layout(name, t.shape, t.stride())
    return _lib._Matrix(t.data_ptr() or None, t.shape[0], t.shape[1], ld, _DTYPE_CODES[t.dtype], _MAJOR_CODES[major])


def _launch(a, b, c, d, alpha: float, beta: float) -> None:
    if a.device.type != "cuda":
        raise ValueError(f"tilegemm.gemm: tensors must be on a CUDA device, a is on {a.device}")
    if d.device != a.device:
        raise ValueError(f"tilegemm.gemm: out is on {d.device} but a is on {a.device}")
    ma, mb, md = _matrix("a", a), _matrix("b", b), _matrix("out", d)
    mc = _lib.ctypes.byref(_matrix("c", c)) if c is not None else None
    # The library works on the CUDA runtime's current device and the stream it is given: PyTorch's
    # current stream on the tensors' device (made the current device only when it is not already).
    index = a.device.index if a.device.index is not None else torch.cuda.current_device()
    stream = torch.cuda.current_stream(index).cuda_stream
    if torch.cuda.current_device() == index:
        _lib.gemm_c(ma, mb, md, mc, alpha, beta, stream)
    else:
        with torch.cuda.device(index):
            _lib.gemm_c(ma, mb, md, mc, alpha, beta, stream)


def _gemm_impl(a, b, c, alpha, beta, out_dtype):
    dtype = out_dtype if out_dtype is not None else torch.bfloat16
    _check(a, b, c, dtype)
    d = torch.empty((a.shape[0], b.shape[0]), dtype=dtype, device=a.device)
    _launch(a, b, c, d, alpha, beta)
    return d


def _gemm_out_impl(a, b, c, alpha, beta, out):
    _check(a, b, c, out.dtype, out.shape)
    _launch(a, b, c, out, alpha, beta)


@torch.library.custom_op("tilegemm::gemm", mutates_args=())
def gemm_op(a: torch.Tensor, b: torch.Tensor, c: Optional[torch.Tensor], alpha: float, beta: float,
            out_dtype: Optional[torch.dtype]) -> torch.Tensor:
    return _gemm_impl(a, b, c, alpha, beta, out_dtype)


@gemm_op.register_fake
def _gemm_fake(a, b, c, alpha, beta, out_dtype):
    dtype = out_dtype if out_dtype is not None else torch.bfloat16
    _check(a, b, c, dtype)
    return a.new_empty((a.shape[0], b.shape[0]), dtype=dtype)


@torch.library.custom_op("tilegemm::gemm_out", mutates_args=("out",))
def gemm_out_op(a: torch.Tensor, b: torch.Tensor, c: Optional[torch.Tensor], alpha: float, beta: float,
                out: torch.Tensor) -> None:
    _gemm_out_impl(a, b, c, alpha, beta, out)


@gemm_out_op.register_fake
def _gemm_out_fake(a, b, c, alpha, beta, out):
    _check(a, b, c, out.dtype, out.shape)


def gemm(a: torch.Tensor, b: torch.Tensor, *, c: Optional[torch.Tensor] = None, alpha: float = 1.0,
         beta: float = 0.0, out: Optional[torch.Tensor] = None,
         out_dtype: Optional[torch.dtype] = None) -> torch.Tensor:
    """D = alpha * a @ b.T + beta * c.

    a: [M, K] bf16; b: [N, K] bf16 (an nn.Linear weight as it is: gemm(x, w) == x @ w.T);
    c: optional [M, N], the output's dtype, read only when beta != 0 (it may be `out` itself);
    out: optional [M, N] bf16/fp32 tensor to write (any layout the library reads: row- or
    column-major, with any leading dimension); out_dtype: the dtype of a new output
    (torch.bfloat16 by default, or torch.float32; must agree with out when both are given).
    Every input may be a transposed or sliced view: its strides are passed on, nothing is copied.
    Runs on the current CUDA stream. Errors: ValueError for shapes, dtypes and layouts, and
    tilegemm.TilegemmError (a ValueError for invalid arguments) with the library's message."""
    alpha, beta = float(alpha), float(beta)
    if out is not None and out_dtype is not None and out_dtype != out.dtype:
        raise ValueError(f"tilegemm.gemm: out_dtype = {out_dtype} but out.dtype = {out.dtype}")
    # NOTES: eager calls skip the custom-op dispatcher (tens of microseconds of Python per call)
    # and run the same implementation the op registers; under torch.compile (and any other
    # tracing) the ops are what gets recorded, so the fake implementations drive the trace.
    # Meta tensors and tensor subclasses (fake tensors) go through the ops too.
    direct = (a.device.type == "cuda" and not torch.compiler.is_compiling() and
              not any(isinstance(t, torch.Tensor) and type(t) is not torch.Tensor for t in (a, b, c, out)))
    if out is None:
        if direct:
            return _gemm_impl(a, b, c, alpha, beta, out_dtype)
        return torch.ops.tilegemm.gemm(a, b, c, alpha, beta, out_dtype)
    if direct:
        _gemm_out_impl(a, b, c, alpha, beta, out)
    else:
        torch.ops.tilegemm.gemm_out(a, b, c, alpha, beta, out)
    return out


def matmul(x: torch.Tensor, w: torch.Tensor, **kwargs) -> torch.Tensor:
    """x @ w with x [M, K] and w [K, N]: gemm(x, w.t(), **kwargs). w.t() is a view (no copy):
    a row-major w [K, N] becomes an MN-major B [N, K]."""
    return gemm(x, w.t(), **kwargs)
