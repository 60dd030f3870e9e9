"""Finding and loading libtilegemm.so, and the C API (include/tilegemm/tilegemm.h) over ctypes.

No torch here: this layer takes plain integers (device addresses, shapes, leading dimensions), so
its argument handling is tested without a GPU and without torch (tests/python/test_package_cpu.py).

Where the library is looked for, first hit wins:
  1. $TILEGEMM_LIBRARY: a path to libtilegemm.so (the only place looked at when it is set);
  2. tilegemm/lib/libtilegemm.so inside this package (a wheel that carries the library);
  3. the dynamic loader's own search for "libtilegemm.so" (LD_LIBRARY_PATH, the ld.so cache: a
     `cmake --install` into /usr/local, say, followed by ldconfig).
"""
from __future__ import annotations

import ctypes
import os
import threading
from pathlib import Path
from typing import NamedTuple, Optional

ENV_LIBRARY = "TILEGEMM_LIBRARY"

# tg_dtype and tg_major (tilegemm.h). K-major == row-major, MN-major == column-major.
DTYPES = {"bf16": 0, "fp32": 1, "fp8_e4m3": 2}
MAJORS = {"k": 0, "mn": 1}

# tg_status (tilegemm.h) -> name; tg_status_name() says the same, this is for the exception classes.
STATUS_NAMES = {0: "ok", 1: "invalid_argument", 2: "unsupported", 3: "no_device", 4: "cuda_error",
                5: "internal_error"}


class TilegemmError(RuntimeError):
    """A tilegemm call failed. `status` is the library's status name, `message` its sentence
    (which names the argument, its value and the rule)."""

    def __init__(self, status: str, message: str):
        super().__init__(f"tilegemm: {status}: {message}")
        self.status = status
        self.message = message


class InvalidArgumentError(TilegemmError, ValueError):
    """TG_STATUS_INVALID_ARGUMENT: a rule about the arguments is broken."""


class UnsupportedError(TilegemmError, NotImplementedError):
    """TG_STATUS_UNSUPPORTED: a valid request this build cannot do (fp8 today)."""


class NoDeviceError(TilegemmError):
    """TG_STATUS_NO_DEVICE: no driver, no GPU, or not compute capability 9.0."""


class CudaError(TilegemmError):
    """TG_STATUS_CUDA_ERROR or TG_STATUS_INTERNAL_ERROR."""


_ERRORS = {"invalid_argument": InvalidArgumentError, "unsupported": UnsupportedError,
           "no_device": NoDeviceError, "cuda_error": CudaError, "internal_error": CudaError}


class LibraryNotFoundError(ImportError):
    """libtilegemm.so could not be loaded; the message lists where it was looked for."""


class _Matrix(ctypes.Structure):
    """tg_matrix and tg_mut_matrix: one layout (tests/cpu/api/test_c_api.cpp asserts it)."""
    _fields_ = [("ptr", ctypes.c_void_p), ("rows", ctypes.c_int64), ("cols", ctypes.c_int64),
                ("ld", ctypes.c_int64), ("dtype", ctypes.c_int32), ("major", ctypes.c_int32)]


assert ctypes.sizeof(_Matrix) == 40, "tg_matrix is 40 bytes on every 64-bit target"


class Matrix(NamedTuple):
    """One operand as the C API sees it. ptr: device address (int, 0 for none); rows, cols: the
    logical shape (A [M, K], B [N, K], C and D [M, N]); ld: leading dimension in elements;
    dtype: "bf16" | "fp32" | "fp8_e4m3"; major: "k" (row-major: element (r, c) at r*ld + c) or
    "mn" (column-major: at c*ld + r)."""
    ptr: int
    rows: int
    cols: int
    ld: int
    dtype: str = "bf16"
    major: str = "k"

    def to_c(self, name: str) -> _Matrix:
        if self.dtype not in DTYPES:
            raise InvalidArgumentError("invalid_argument",
                                       f"{name}.dtype = {self.dtype!r}: must be one of {', '.join(DTYPES)}")
        if self.major not in MAJORS:
            raise InvalidArgumentError("invalid_argument",
                                       f"{name}.major = {self.major!r}: must be 'k' (row-major) or 'mn' (column-major)")
        fields = {"ptr": self.ptr, "rows": self.rows, "cols": self.cols, "ld": self.ld}
        for field, value in fields.items():
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidArgumentError("invalid_argument",
                                           f"{name}.{field} = {value!r}: must be an int")
        if not 0 <= self.ptr < 2**64:
            raise InvalidArgumentError("invalid_argument", f"{name}.ptr = {self.ptr}: not an address")
        for field in ("rows", "cols", "ld"):
            if not -2**63 <= fields[field] < 2**63:
                raise InvalidArgumentError("invalid_argument",
                                           f"{name}.{field} = {fields[field]}: does not fit int64")
        return _Matrix(self.ptr or None, self.rows, self.cols, self.ld, DTYPES[self.dtype], MAJORS[self.major])


_lock = threading.Lock()
_lib: Optional[ctypes.CDLL] = None
_lib_path: Optional[str] = None


def _candidates() -> list:
    env = os.environ.get(ENV_LIBRARY)
    if env:
        return [env]
    return [str(Path(__file__).resolve().parent / "lib" / "libtilegemm.so"), "libtilegemm.so"]


def _bind(lib: ctypes.CDLL) -> None:
    m = ctypes.POINTER(_Matrix)
    msg = [ctypes.c_char_p, ctypes.c_size_t]
    lib.tg_gemm.argtypes = [m, m, m, m, ctypes.c_float, ctypes.c_float, ctypes.c_void_p] + msg
    lib.tg_gemm.restype = ctypes.c_int
    lib.tg_validate.argtypes = [m, m, m, m, ctypes.c_float, ctypes.c_float] + msg
    lib.tg_validate.restype = ctypes.c_int
    lib.tg_check_device.argtypes = msg
    lib.tg_check_device.restype = ctypes.c_int
    lib.tg_version.argtypes = []
    lib.tg_version.restype = ctypes.c_char_p


def library() -> ctypes.CDLL:
    """The loaded library (loaded on first use). Raises LibraryNotFoundError naming every place
    tried, or when the library's version is not this package's major.minor."""
    global _lib, _lib_path
    with _lock:
        if _lib is not None:
            return _lib
        from . import __version__
        tried = []
        for candidate in _candidates():
            try:
                lib = ctypes.CDLL(candidate)
            except OSError as e:
                tried.append(f"{candidate}: {e}")
                continue
            try:
                _bind(lib)
            except AttributeError as e:
                tried.append(f"{candidate}: not a tilegemm library of this version ({e})")
                continue
            version = lib.tg_version().decode()
            if version.split(".")[:2] != __version__.split(".")[:2]:
                raise LibraryNotFoundError(
                    f"{candidate} is libtilegemm {version} but this Python package is {__version__}: "
                    f"the major.minor must match (the C structs it mirrors may differ); rebuild or point "
                    f"{ENV_LIBRARY} at the matching library")
            _lib, _lib_path = lib, candidate
            return lib
        raise LibraryNotFoundError(
            "libtilegemm.so not found; set " + ENV_LIBRARY + "=/path/to/libtilegemm.so (a CMake build "
            "has it in build/lib/). Tried:\n  " + "\n  ".join(tried))


def library_path() -> str:
    """Where the loaded library came from (loads it if needed)."""
    library()
    return _lib_path


def version() -> str:
    """The library's version (tg_version)."""
    return library().tg_version().decode()


def _raise_for(status: int, buffer) -> None:
    if status == 0:
        return
    name = STATUS_NAMES.get(status, f"status {status}")
    message = buffer.value.decode(errors="replace") or name
    raise _ERRORS.get(name, TilegemmError)(name, message)


def _c_args(a: Matrix, b: Matrix, c: Optional[Matrix], d: Matrix):
    ca, cb, cd = a.to_c("a"), b.to_c("b"), d.to_c("d")
    cc = c.to_c("c") if c is not None else None
    return ca, cb, cc, cd


def _scalars(alpha, beta):
    for name, value in (("alpha", alpha), ("beta", beta)):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InvalidArgumentError("invalid_argument", f"{name} = {value!r}: must be a real number")
    return float(alpha), float(beta)


def validate(a: Matrix, b: Matrix, d: Matrix, c: Optional[Matrix] = None, alpha: float = 1.0,
             beta: float = 0.0) -> None:
    """tg_validate: every argument rule, no CUDA call. Raises the matching TilegemmError."""
    alpha, beta = _scalars(alpha, beta)
    ca, cb, cc, cd = _c_args(a, b, c, d)
    lib = library()
    buf = ctypes.create_string_buffer(1024)
    _raise_for(lib.tg_validate(ca, cb, ctypes.byref(cc) if cc is not None else None, cd, alpha, beta,
                               buf, len(buf)), buf)


def gemm(a: Matrix, b: Matrix, d: Matrix, c: Optional[Matrix] = None, alpha: float = 1.0,
         beta: float = 0.0, stream: int = 0) -> None:
    """tg_gemm: D = alpha * A @ B^T + beta * C enqueued on `stream` (a cudaStream_t as an int;
    0 = the legacy default stream) of the current device. Raises the matching TilegemmError."""
    alpha, beta = _scalars(alpha, beta)
    ca, cb, cc, cd = _c_args(a, b, c, d)
    lib = library()
    buf = ctypes.create_string_buffer(1024)
    _raise_for(lib.tg_gemm(ca, cb, ctypes.byref(cc) if cc is not None else None, cd, alpha, beta,
                           stream or None, buf, len(buf)), buf)


_buffers = threading.local()


def gemm_c(a: _Matrix, b: _Matrix, d: _Matrix, c: Optional[_Matrix], alpha: float, beta: float,
           stream: int) -> None:
    """tg_gemm with operands already in C form (the torch layer's hot path: its tensors give ints
    of the right types, so Matrix.to_c's checks are skipped). Raises the matching TilegemmError."""
    lib = _lib if _lib is not None else library()
    buf = getattr(_buffers, "buf", None)
    if buf is None:
        buf = _buffers.buf = ctypes.create_string_buffer(1024)
    status = lib.tg_gemm(a, b, c, d, alpha, beta, stream or None, buf, 1024)
    if status:
        _raise_for(status, buf)


def check_device() -> None:
    """tg_check_device: raises NoDeviceError (with the reason) unless the current device is
    compute capability 9.0."""
    lib = library()
    buf = ctypes.create_string_buffer(1024)
    _raise_for(lib.tg_check_device(buf, len(buf)), buf)
