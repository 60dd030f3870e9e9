"""torch.ops.tilegemm.* without a GPU (ctest python_torch, label cpu; exit 77 = skipped when torch
is not installed, as on CI): the ops are registered with the schema the docs give, their fake
implementations propagate shapes and dtypes (meta tensors, FakeTensorMode with CUDA fake tensors),
torch.compile(fullgraph=True) traces a module through them without a graph break, and bad
arguments raise ValueError with a message naming them. The GPU half is test_torch_gpu.py."""
import sys
import unittest

try:
    import torch
except ImportError:
    torch = None

if torch is not None:
    import tilegemm
    from tilegemm import _torch as tg_torch

BF16 = "bfloat16"


def meta(*shape, dtype=None):
    return torch.empty(*shape, device="meta", dtype=dtype or torch.bfloat16)


class Registration(unittest.TestCase):
    def test_schemas(self):
        self.assertEqual(str(torch.ops.tilegemm.gemm.default._schema),
                         "tilegemm::gemm(Tensor a, Tensor b, Tensor? c, float alpha, float beta, "
                         "ScalarType? out_dtype) -> Tensor")
        self.assertEqual(str(torch.ops.tilegemm.gemm_out.default._schema),
                         "tilegemm::gemm_out(Tensor a, Tensor b, Tensor? c, float alpha, float beta, "
                         "Tensor(a5!) out) -> ()")


class FakeShapes(unittest.TestCase):
    def test_meta_tensors(self):
        a, b = meta(64, 32), meta(48, 32)
        d = tilegemm.gemm(a, b)
        self.assertEqual((tuple(d.shape), d.dtype), ((64, 48), torch.bfloat16))
        d = tilegemm.gemm(a, b, out_dtype=torch.float32)
        self.assertEqual(d.dtype, torch.float32)
        d = tilegemm.gemm(a, b, c=meta(64, 48, dtype=torch.float32), beta=1.0, out_dtype=torch.float32)
        self.assertEqual((tuple(d.shape), d.dtype), ((64, 48), torch.float32))
        w = meta(32, 48)  # [K, N]
        self.assertEqual(tuple(tilegemm.matmul(a, w).shape), (64, 48))
        out = meta(64, 48)
        self.assertIs(tilegemm.gemm(a, b, out=out), out)

    def test_fake_cuda_tensors(self):
        from torch._subclasses.fake_tensor import FakeTensorMode
        with FakeTensorMode():
            a = torch.empty(4096, 7168, device="cuda", dtype=torch.bfloat16)
            b = torch.empty(7168, 2112, device="cuda", dtype=torch.bfloat16).t()  # an MN-major B view
            d = torch.ops.tilegemm.gemm(a, b, None, 1.0, 0.0, torch.float32)
            self.assertEqual((tuple(d.shape), d.dtype, d.device.type), ((4096, 2112), torch.float32, "cuda"))

    def test_torch_compile_fullgraph(self):
        class Block(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = torch.nn.Parameter(meta(48, 32), requires_grad=False)  # [N, K]

            def forward(self, x):
                y = tilegemm.gemm(x, self.w, out_dtype=torch.float32)
                z = torch.empty_like(y)
                tilegemm.gemm(x, self.w, c=y, beta=0.5, out=z)  # the mutating op, functionalized
                return torch.relu(z) + 1

        torch._dynamo.reset()
        compiled = torch.compile(Block(), fullgraph=True, backend="aot_eager")  # fullgraph: a break is an error
        r = compiled(meta(64, 32))
        self.assertEqual((tuple(r.shape), r.dtype), ((64, 48), torch.float32))


class Errors(unittest.TestCase):
    def check(self, text, fn):
        with self.assertRaises(ValueError) as cm:
            fn()
        self.assertIn(text, str(cm.exception))

    def test_shape_and_dtype_errors_at_trace_time(self):
        a, b = meta(64, 32), meta(48, 32)
        self.check("same K", lambda: tilegemm.gemm(a, meta(48, 31)))
        self.check("a.dtype = torch.float16", lambda: tilegemm.gemm(meta(64, 32, dtype=torch.float16), b))
        self.check("must be 2-D", lambda: tilegemm.gemm(meta(2, 64, 32), b))
        self.check("torch.bfloat16 or torch.float32", lambda: tilegemm.gemm(a, b, out_dtype=torch.float16))
        self.check("c is (64, 47)", lambda: tilegemm.gemm(a, b, c=meta(64, 47), beta=1.0))
        self.check("C must have the output's dtype",
                   lambda: tilegemm.gemm(a, b, c=meta(64, 48, dtype=torch.float32), beta=1.0))
        self.check("out is (64, 49)", lambda: tilegemm.gemm(a, b, out=meta(64, 49)))
        self.check("out_dtype", lambda: tilegemm.gemm(a, b, out=meta(64, 48), out_dtype=torch.float32))

    def test_cpu_tensors_are_refused_by_name(self):
        a = torch.zeros(64, 32, dtype=torch.bfloat16)
        b = torch.zeros(48, 32, dtype=torch.bfloat16)
        self.check("must be on a CUDA device", lambda: tilegemm.gemm(a, b))

    def test_strides_of_real_views(self):
        # What gemm passes for PyTorch's own views (checked here on CPU tensors: no launch).
        x = torch.zeros(128, 80, dtype=torch.bfloat16)
        cases = {"contiguous": (x, (80, "k")), "transposed": (x.t(), (80, "mn")),
                 "column slice": (x[:, :64], (80, "k")), "transposed slice": (x[:64].t(), (80, "mn"))}
        for name, (t, (ld, major)) in cases.items():
            with self.subTest(name):
                m = tg_torch._matrix("a", t)  # the C struct (tg_matrix) the call passes
                self.assertEqual((m.ld, m.major, m.rows, m.cols),
                                 (ld, tilegemm.capi.MAJORS[major], t.shape[0], t.shape[1]))
                self.assertEqual(m.ptr, t.data_ptr())
        with self.assertRaises(ValueError) as cm:
            tg_torch._matrix("b", x[:, ::2])
        self.assertIn("strides (80, 2)", str(cm.exception))


if __name__ == "__main__":
    if torch is None:
        print("skipped: torch is not installed (the torch-free layer is tested by test_package_cpu.py)")
        sys.exit(77)
    unittest.main()
