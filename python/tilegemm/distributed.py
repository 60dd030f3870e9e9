"""Tensor-parallel GEMM over a torch.distributed NCCL process group (docs/TENSOR_PARALLEL.md).

  out, gathered = tilegemm.distributed.all_gather_matmul(x_shard, w, group)   # column-parallel
  y = tilegemm.distributed.matmul_reduce_scatter(x, w, group)                 # row-parallel

w is [N, K] like an nn.Linear weight (the library's convention: D = A @ B.T). all_gather_matmul
gathers the rows of x from every rank (rank r holds rows [r*M//W, (r+1)*M//W)) while multiplying
the rows that have arrived, and returns D = all_gather(x) @ w.T [M, N] and the gathered x.
matmul_reduce_scatter computes this rank's partial x @ w.T (x and w hold this rank's slice of K)
and returns its rows [r*M//W, (r+1)*M//W) of the sum over ranks, summed in rank order (the same
bits every run). Both run on the current CUDA stream with the group's own NCCL communicator (the
library's NCCL is the libnccl.so.2 PyTorch loaded), and return once the work is enqueued.
"""
from __future__ import annotations

import ctypes
from typing import Optional, Tuple

import torch
import torch.distributed as dist

from . import capi as _capi
from ._torch import _DTYPE_CODES, _matrix


class _Overlap(ctypes.Structure):
    """tg_tp_overlap (include/tilegemm/tp.h)."""
    _fields_ = [("enabled", ctypes.c_int32), ("reserved_sms", ctypes.c_int32)]


def _library() -> ctypes.CDLL:
    lib = _capi.library()
    if not getattr(lib, "_tilegemm_tp_bound", False):
        m = ctypes.POINTER(_capi._Matrix)
        msg = [ctypes.c_char_p, ctypes.c_size_t]
        lib.tg_tp_all_gather_gemm.argtypes = [ctypes.c_void_p, ctypes.c_int64, m, m, m, m, m, ctypes.c_float,
                                              ctypes.c_float, ctypes.c_void_p, _Overlap] + msg
        lib.tg_tp_all_gather_gemm.restype = ctypes.c_int
        lib.tg_tp_gemm_reduce_scatter.argtypes = [ctypes.c_void_p, m, m, m, m, ctypes.c_int32, ctypes.c_float,
                                                  ctypes.c_float, ctypes.c_void_p, _Overlap] + msg
        lib.tg_tp_gemm_reduce_scatter.restype = ctypes.c_int
        lib._tilegemm_tp_bound = True
    return lib


def chunk_rows(rows: int, world: int, chunk: int) -> Tuple[int, int]:
    """Rows [begin, end) of chunk `chunk` when `rows` rows are cut among `world` ranks."""
    return chunk * rows // world, (chunk + 1) * rows // world


def _comm(group: Optional[dist.ProcessGroup], device: torch.device) -> Tuple[int, int, int]:
    """(ncclComm_t as an int, rank, world size) of the group's NCCL backend on `device`."""
    group = group if group is not None else dist.group.WORLD
    if group is None:
        raise RuntimeError("tilegemm.distributed: torch.distributed is not initialized "
                           "(call dist.init_process_group('nccl', ...) first)")
    try:
        backend = group._get_backend(device)
        ptr = int(backend._comm_ptr())
    except (AttributeError, RuntimeError) as e:
        raise RuntimeError(f"tilegemm.distributed: cannot read the NCCL communicator of this process group "
                           f"({e}); it must be an NCCL group of PyTorch >= 2.3") from e
    if ptr == 0:
        raise RuntimeError("tilegemm.distributed: the group's NCCL communicator does not exist yet: PyTorch "
                           "creates it on the first collective; run one (e.g. dist.barrier()) or pass "
                           "device_id= to init_process_group")
    return ptr, dist.get_rank(group), dist.get_world_size(group)


def _check_tensors(named) -> None:
    """Every tensor on the first one's device, and bf16 or fp32 (the library checks the rest)."""
    first_name, first = named[0]
    for name, t in named:
        if t.device != first.device:
            raise ValueError(f"tilegemm.distributed: {name} is on {t.device} but {first_name} is on {first.device}")
        if t.dtype not in _DTYPE_CODES:
            raise ValueError(f"tilegemm.distributed: {name}.dtype = {t.dtype}: bf16 or fp32 tensors only")


def _call(fn, *args) -> None:
    buf = ctypes.create_string_buffer(1024)
    _capi._raise_for(fn(*args, buf, len(buf)), buf)


def all_gather_matmul(x_shard: torch.Tensor, w: torch.Tensor, group: Optional[dist.ProcessGroup] = None, *,
                      m: Optional[int] = None, gathered: Optional[torch.Tensor] = None,
                      out: Optional[torch.Tensor] = None, overlap: bool = True,
                      reserved_sms: int = 0) -> Tuple[torch.Tensor, torch.Tensor]:
    """D = all_gather(x) @ w.T, overlapped chunk by chunk. x_shard: this rank's rows of x [M, K]
    (bf16, rows contiguous); m: all rows (default: x_shard rows * world size, equal shards);
    w: [N, K] bf16; gathered / out: optional [M, K] bf16 / [M, N] bf16 or fp32 outputs.
    Returns (out, gathered)."""
    device = x_shard.device
    comm, rank, world = _comm(group, device)
    m = x_shard.shape[0] * world if m is None else int(m)
    if gathered is None:
        gathered = torch.empty((m, x_shard.shape[1]), dtype=x_shard.dtype, device=device)
    if out is None:
        out = torch.empty((m, w.shape[0]), dtype=torch.bfloat16, device=device)
    _check_tensors((("x_shard", x_shard), ("w", w), ("gathered", gathered), ("out", out)))
    stream = torch.cuda.current_stream(device).cuda_stream
    with torch.cuda.device(device):
        _call(_library().tg_tp_all_gather_gemm, comm, m, ctypes.byref(_matrix("x_shard", x_shard)),
              ctypes.byref(_matrix("gathered", gathered)), ctypes.byref(_matrix("w", w)), None,
              ctypes.byref(_matrix("out", out)), 1.0, 0.0, stream, _Overlap(int(overlap), int(reserved_sms)))
    return out, gathered


def matmul_reduce_scatter(x: torch.Tensor, w: torch.Tensor, group: Optional[dist.ProcessGroup] = None, *,
                          out: Optional[torch.Tensor] = None, out_dtype: torch.dtype = torch.bfloat16,
                          partial_dtype: torch.dtype = torch.bfloat16, overlap: bool = True,
                          reserved_sms: int = 0) -> torch.Tensor:
    """This rank's rows of Σ_ranks x_r @ w_r.T. x: [M, K_r] and w: [N, K_r] (bf16), this rank's
    slice of K; out: optional [rows of this rank, N] (bf16 or fp32); partial_dtype: the partials on
    the wire (torch.bfloat16 or torch.float32)."""
    device = x.device
    comm, rank, world = _comm(group, device)
    begin, end = chunk_rows(x.shape[0], world, rank)
    if out is None:
        out = torch.empty((end - begin, w.shape[0]), dtype=out_dtype, device=device)
    if partial_dtype not in _DTYPE_CODES:
        raise ValueError(f"tilegemm.distributed: partial_dtype = {partial_dtype}: torch.bfloat16 or torch.float32")
    _check_tensors((("x", x), ("w", w), ("out", out)))
    stream = torch.cuda.current_stream(device).cuda_stream
    with torch.cuda.device(device):
        _call(_library().tg_tp_gemm_reduce_scatter, comm, ctypes.byref(_matrix("x", x)),
              ctypes.byref(_matrix("w", w)), None, ctypes.byref(_matrix("out", out)),
              _DTYPE_CODES[partial_dtype], 1.0, 0.0, stream, _Overlap(int(overlap), int(reserved_sms)))
    return out
