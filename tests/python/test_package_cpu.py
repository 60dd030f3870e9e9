"""python/tilegemm without torch and without a GPU (ctest python_package, label cpu): the package
imports, finds the library, agrees with the CMake project on its version, and the ctypes layer
passes arguments to the C API and turns its statuses into exceptions with the library's message.

Environment (tests/python/tests.cmake sets it): TILEGEMM_LIBRARY = the built libtilegemm.so,
PYTHONPATH = python/, TILEGEMM_PROJECT_VERSION = project(VERSION) of CMakeLists.txt."""
import ctypes
import os
import subprocess
import sys
import unittest

import tilegemm
from tilegemm import capi
from tilegemm._layout import matrix_layout

GiB = 1 << 30


def nt(m=128, n=256, k=64, d_dtype="bf16"):
    """A valid NT problem at placeholder addresses (tg_validate reads no memory)."""
    a = capi.Matrix(1 * GiB, m, k, k)
    b = capi.Matrix(2 * GiB, n, k, k)
    d = capi.Matrix(3 * GiB, m, n, n, d_dtype)
    return a, b, d


def driver_installed():
    try:
        ctypes.CDLL("libcuda.so.1")  # only whether it loads
        return True
    except OSError:
        return False


class Package(unittest.TestCase):
    def test_versions_agree(self):
        project = os.environ.get("TILEGEMM_PROJECT_VERSION")
        if project is None:
            self.skipTest("TILEGEMM_PROJECT_VERSION not set (run through ctest)")
        self.assertEqual(tilegemm.__version__, project)  # python/tilegemm/__init__.py
        self.assertEqual(capi.version(), project)        # tg_version() of the built library
        with open(os.path.join(os.path.dirname(__file__), "..", "..", "python", "pyproject.toml")) as f:
            self.assertIn(f'\nversion = "{project}"\n', f.read())  # the package's metadata

    def test_library_comes_from_the_environment(self):
        self.assertEqual(os.path.realpath(capi.library_path()), os.path.realpath(os.environ["TILEGEMM_LIBRARY"]))

    def test_missing_library_is_a_clear_import_error(self):
        # A fresh interpreter: the library is loaded once per process.
        code = ("import tilegemm\n"
                "from tilegemm import capi\n"
                "try:\n    capi.version()\nexcept capi.LibraryNotFoundError as e:\n    print('LNF', e)\n")
        env = dict(os.environ, TILEGEMM_LIBRARY="/nonexistent/libtilegemm.so")
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
        self.assertIn("LNF", out)
        self.assertIn("TILEGEMM_LIBRARY", out)
        self.assertIn("/nonexistent/libtilegemm.so", out)

    def test_import_without_torch_keeps_the_ctypes_layer(self):
        if tilegemm.HAVE_TORCH:
            self.skipTest("torch is installed here")
        with self.assertRaises(ImportError) as cm:
            tilegemm.gemm(None, None)
        self.assertIn("PyTorch", str(cm.exception))

    def test_python_m_tilegemm(self):
        r = subprocess.run([sys.executable, "-m", "tilegemm"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("tilegemm.gemm(x, w)", r.stdout)
        self.assertIn("library: ", r.stdout)


class CApi(unittest.TestCase):
    def test_good_arguments_validate(self):
        a, b, d = nt()
        capi.validate(a, b, d)  # no exception
        capi.validate(a, b, d._replace(dtype="fp32"))

    def test_invalid_argument_carries_the_librarys_message(self):
        a, b, d = nt()
        with self.assertRaises(capi.InvalidArgumentError) as cm:
            capi.validate(a._replace(ld=31), b, d)
        e = cm.exception
        self.assertEqual(e.status, "invalid_argument")
        self.assertIn("a.ld = 31", e.message)
        self.assertIsInstance(e, ValueError)  # what a Python caller catches for bad arguments

    def test_unsupported_and_beta_rules(self):
        a, b, d = nt()
        with self.assertRaises(capi.UnsupportedError) as cm:
            capi.validate(a, b._replace(dtype="fp8_e4m3"), d)
        self.assertIn("fp8", cm.exception.message)
        with self.assertRaises(capi.InvalidArgumentError) as cm:
            capi.validate(a, b, d, beta=1.0)  # beta != 0 without C
        self.assertIn("beta", cm.exception.message)
        c = capi.Matrix(4 * GiB, 128, 256, 256)
        capi.validate(a, b, d, c=c, beta=1.0)
        capi.validate(a, b, d, c=d, beta=0.5)  # C may be D itself

    def test_python_side_argument_errors_name_the_field(self):
        a, b, d = nt()
        for bad, text in ((a._replace(dtype="half"), "a.dtype = 'half'"), (a._replace(major="row"), "a.major"),
                          (a._replace(ld=64.0), "a.ld = 64.0"), (a._replace(rows=2**70), "a.rows"),
                          (a._replace(ptr=-1), "a.ptr = -1")):
            with self.subTest(text=text):
                with self.assertRaises(capi.InvalidArgumentError) as cm:
                    capi.validate(bad, b, d)
                self.assertIn(text, str(cm.exception))
        with self.assertRaises(capi.InvalidArgumentError):
            capi.validate(a, b, d, alpha="1")

    def test_empty_problem_with_zero_ld_is_valid(self):
        # N = 0 with d.ld = 0 (what a [M, 0] tensor's stride gives): docs/API.md says empty is fine.
        a = capi.Matrix(1 * GiB, 128, 64, 64)
        b = capi.Matrix(0, 0, 64, 64)
        d = capi.Matrix(0, 128, 0, 0)
        capi.validate(a, b, d)

    def test_no_gpu_is_no_device_never_a_crash(self):
        a, b, d = nt()
        if driver_installed():
            self.skipTest("a driver is installed: the no-GPU answers are for machines without one")
        with self.assertRaises(capi.NoDeviceError) as cm:
            capi.check_device()
        self.assertTrue(cm.exception.message.startswith("no NVIDIA driver / no GPU found"), cm.exception.message)
        with self.assertRaises(capi.NoDeviceError):
            capi.gemm(a, b, d)  # valid arguments: the device check answers
        with self.assertRaises(capi.InvalidArgumentError):
            capi.gemm(a._replace(ld=1), b, d)  # invalid arguments come first, on any machine


class Layout(unittest.TestCase):
    """Strides -> (ld, major), as tilegemm.gemm derives them from a tensor (no torch needed)."""

    def test_row_and_column_major(self):
        self.assertEqual(matrix_layout("a", (128, 64), (64, 1)), (64, "k"))       # contiguous [M, K]
        self.assertEqual(matrix_layout("a", (128, 64), (1, 128)), (128, "mn"))    # [K, M] contiguous, .t()
        self.assertEqual(matrix_layout("a", (128, 64), (80, 1)), (80, "k"))       # a column slice of [M, 80]
        self.assertEqual(matrix_layout("a", (128, 64), (1, 200)), (200, "mn"))    # a row slice, transposed

    def test_size_one_dimensions_ignore_their_stride(self):
        self.assertEqual(matrix_layout("a", (1, 64), (7, 1)), (64, "k"))
        self.assertEqual(matrix_layout("a", (1, 64), (64, 1)), (64, "k"))
        self.assertEqual(matrix_layout("a", (128, 1), (1, 1)), (1, "k"))
        self.assertEqual(matrix_layout("a", (128, 1), (1, 5)), (128, "mn"))

    def test_empty(self):
        self.assertEqual(matrix_layout("d", (128, 0), (0, 1)), (0, "k"))
        self.assertEqual(matrix_layout("d", (0, 64), (64, 1)), (64, "k"))

    def test_unreadable_strides_are_named(self):
        for shape, strides in (((128, 64), (0, 1)),      # expanded rows (stride 0)
                               ((128, 64), (128, 2)),    # every other column
                               ((128, 64), (32, 1)),     # rows overlap (ld < K)
                               ((128, 64), (1, 100))):   # columns overlap (ld < M)
            with self.subTest(strides=strides):
                with self.assertRaises(ValueError) as cm:
                    matrix_layout("b", shape, strides)
                self.assertIn("b: shape (128, 64) with strides", str(cm.exception))
        with self.assertRaises(ValueError):
            matrix_layout("a", (2, 3, 4), (12, 4, 1))


if __name__ == "__main__":
    unittest.main()
