"""tilegemm from PyTorch on an H200 (scripts/device-python.sh runs it; plain script, no pytest).

  python tests/python/test_torch_gpu.py [--out DIR] [--quick]

Checks, each against torch.matmul on the same bf16 inputs computed in fp32 (the metric and limits
of docs/TESTING.md: calc_diff = 1 - 2*sum(x*y)/sum(x*x + y*y) <= 1e-5 for bf16 out, 1e-6 for fp32):
  suite      the 24 shapes of bench/suites/llm.txt, NT, bf16 out
  random     seeded random shapes, A/B K- or MN-major with padded leading dimensions (views of larger
             tensors, no copies), bf16/fp32 out, new or out= (row- or column-major, padded), C with beta
  stream     on a side stream, ordered after work queued there (the current stream is used)
  compile    a torch.compile(fullgraph=True) module calling tilegemm.gemm twice (no graph break)
  graph      CUDA graph capture of tilegemm.gemm, replayed on new inputs
  errors     library and layout errors raise with the library's message
Then a speed table over the suite vs torch.matmul (CUDA events, warm-up, median of runs; eager calls
and CUDA-graph replays), printed and written to DIR/python_speed.md and DIR/python_speed.json.
Exit 0: all passed; 1: a check failed; 77: skipped (no torch with CUDA, or no compute capability 9.0 GPU).
"""
import argparse
import json
import math
import os
import random
import statistics
import sys
import time
import traceback

try:
    import torch
except ImportError:
    torch = None

HERE = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.join(HERE, "..", "..", "bench", "suites", "llm.txt")
LIMIT = {"bf16": 1e-5, "fp32": 1e-6}

results = []  # (name, passed, detail)


def record(name, passed, detail=""):
    results.append((name, passed, detail))
    print(f"{'PASS' if passed else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)


def calc_diff(x, y):
    x, y = x.double(), y.double()
    denom = (x * x + y * y).sum()
    return 0.0 if denom == 0 else float(1 - 2 * (x * y).sum() / denom)


def reference(a, b, c=None, alpha=1.0, beta=0.0):
    """torch.matmul of the same inputs in fp32: what D should be before rounding."""
    r = alpha * torch.matmul(a.float(), b.float().t())
    if c is not None and beta != 0:
        r = r + beta * c.float()
    return r


def check(name, got, want, out_dtype, limit=None):
    limit = limit or LIMIT["fp32" if out_dtype == torch.float32 else "bf16"]
    finite = bool(torch.isfinite(got).all())
    diff = calc_diff(got.float(), want)
    ok = finite and diff <= limit and tuple(got.shape) == tuple(want.shape) and got.dtype == out_dtype
    record(name, ok, f"calc_diff {diff:.2e} (limit {limit:.0e}){'' if finite else ', NON-FINITE values'}")
    return ok


def suite_shapes():
    shapes = []
    with open(SUITE) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if line:
                shapes.append(tuple(int(v) for v in line))
    return shapes


def randn(*shape):
    return torch.randn(*shape, device="cuda", dtype=torch.bfloat16)


def operand(rows, cols, major, pad, dtype=torch.bfloat16):
    """A [rows, cols] view: major "k" = rows of length cols (row-major), "mn" = columns contiguous,
    each with `pad` extra elements per line (a slice of a larger tensor: no copy)."""
    if major == "k":
        base = torch.randn(rows, cols + pad, device="cuda", dtype=torch.float32).to(dtype)
        return base[:, :cols]
    base = torch.randn(cols, rows + pad, device="cuda", dtype=torch.float32).to(dtype)
    return base[:, :rows].t()


def test_suite(tilegemm, shapes):
    torch.manual_seed(1)
    for m, n, k in shapes:
        a, b = randn(m, k), randn(n, k)
        check(f"suite {m}x{n}x{k}", tilegemm.gemm(a, b), reference(a, b), torch.bfloat16)


def test_random(tilegemm, count):
    rng = random.Random(20261201)
    torch.manual_seed(2)
    for i in range(count):
        m, n, k = rng.randint(1, 3000), rng.randint(1, 3000), rng.choice([rng.randint(1, 3000), 64 * rng.randint(1, 60)])
        a_major, b_major, d_major = (rng.choice(["k", "mn"]) for _ in range(3))
        a = operand(m, k, a_major, rng.choice([0, 0, 8, 3]))
        b = operand(n, k, b_major, rng.choice([0, 0, 8, 5]))
        out_dtype = rng.choice([torch.bfloat16, torch.float32])
        use_out = rng.random() < 0.5
        use_c = rng.random() < 0.4
        alpha, beta = rng.choice([1.0, 0.5, -2.0]), (rng.choice([1.0, 0.25]) if use_c else 0.0)
        c = operand(m, n, rng.choice(["k", "mn"]), rng.choice([0, 4]), out_dtype) if use_c else None
        label = (f"random {m}x{n}x{k} A {a_major} ld {max(a.stride())} B {b_major} ld {max(b.stride())} "
                 f"{'out ' + d_major if use_out else 'new'} {str(out_dtype)[6:]}{' C' if use_c else ''} alpha {alpha}")
        try:
            want = reference(a, b, c, alpha, beta)
            if use_out:
                d = operand(m, n, d_major, rng.choice([0, 8]), out_dtype)
                d.fill_(float("nan"))
                r = tilegemm.gemm(a, b, c=c, alpha=alpha, beta=beta, out=d)
                ok_same = r is d
                check(label, d, want, out_dtype)
                if not ok_same:
                    record(label + " returns out", False)
            else:
                check(label, tilegemm.gemm(a, b, c=c, alpha=alpha, beta=beta, out_dtype=out_dtype), want, out_dtype)
        except Exception as e:  # a refusal is a failure here: every case is valid
            record(label, False, f"{type(e).__name__}: {e}")
    # x @ w with w [K, N]: matmul passes w.t() (MN-major B), no copy.
    x, w = randn(300, 512), randn(512, 200)
    check("matmul x @ w (w [K, N])", tilegemm.matmul(x, w), torch.matmul(x.float(), w.float()), torch.bfloat16)
    # C = D in place: D = A B^T + 0.5 D.
    a, b = randn(256, 128), randn(192, 128)
    d = randn(256, 192).float()
    want = reference(a, b) + 0.5 * d
    tilegemm.gemm(a, b, c=d, beta=0.5, out=d)
    check("in place c = out, beta 0.5", d, want, torch.float32)
    # Empty problems: N = 0 gives a [M, 0] tensor (ld 0); K = 0 gives beta*C or zeros.
    e = tilegemm.gemm(randn(16, 32), randn(0, 32))
    record("empty N = 0", tuple(e.shape) == (16, 0))
    z = tilegemm.gemm(randn(16, 0), randn(8, 0))
    record("K = 0 writes zeros", bool((z == 0).all()) and tuple(z.shape) == (16, 8))


def test_stream(tilegemm):
    side = torch.cuda.Stream()
    a, b = randn(4096, 4096), randn(4096, 4096)
    src = randn(4096, 4096)
    torch.cuda.synchronize()
    with torch.cuda.stream(side):
        torch.cuda._sleep(50_000_000)  # ~tens of ms of GPU time queued first on the side stream
        a.copy_(src)                   # the gemm must see this, so it must run on `side`
        d = tilegemm.gemm(a, b)
    side.synchronize()
    check("current stream: ordered after a copy on a side stream", d, reference(src, b), torch.bfloat16)


def test_compile(tilegemm):
    class MLP(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.up = torch.nn.Parameter(randn(1024, 512) * 0.05, requires_grad=False)    # [N, K]
            self.down = torch.nn.Parameter(randn(512, 1024) * 0.05, requires_grad=False)  # [N, K]

        def forward(self, x):
            h = torch.nn.functional.silu(tilegemm.gemm(x, self.up))
            return tilegemm.gemm(h, self.down, out_dtype=torch.float32)

    class Ref(torch.nn.Module):
        def __init__(self, mlp):
            super().__init__()
            self.mlp = mlp

        def forward(self, x):
            h = torch.nn.functional.silu(torch.matmul(x.float(), self.mlp.up.float().t()).to(torch.bfloat16))
            return torch.matmul(h.float(), self.mlp.down.float().t())

    mlp = MLP().cuda()
    x = randn(333, 512)
    torch._dynamo.reset()
    from torch._dynamo.utils import counters
    counters.clear()
    compiled = torch.compile(mlp, fullgraph=True)  # a graph break would raise
    got = compiled(x)
    breaks = sum(counters["graph_break"].values())
    record("torch.compile(fullgraph=True): no graph break", breaks == 0, f"{breaks} graph breaks")
    # The hidden layer is rounded to bf16 (where inductor and eager may differ by an ulp): bf16's limit.
    check("torch.compile module vs matmul", got, Ref(mlp)(x), torch.float32, limit=LIMIT["bf16"])
    check("torch.compile module vs eager", got, mlp(x).float(), torch.float32, limit=LIMIT["bf16"])


def test_graph(tilegemm):
    a, b = randn(4096, 7168), randn(2112, 7168)
    out = torch.empty(4096, 2112, device="cuda", dtype=torch.bfloat16)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up (compiles the kernel) off the capture, as PyTorch advises
        for _ in range(2):
            tilegemm.gemm(a, b, out=out)
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        tilegemm.gemm(a, b, out=out)
        fresh = tilegemm.gemm(a, b)  # the allocating op too (graph-private memory)
    a.copy_(randn(4096, 7168))
    b.copy_(randn(2112, 7168))
    g.replay()
    torch.cuda.synchronize()
    check("CUDA graph replay, out=", out, reference(a, b), torch.bfloat16)
    check("CUDA graph replay, new output", fresh, reference(a, b), torch.bfloat16)


def test_errors(tilegemm):
    def raises(label, exc, text, fn):
        try:
            fn()
        except exc as e:
            record(f"error: {label}", text in str(e), str(e)[:200])
            return
        except Exception as e:
            record(f"error: {label}", False, f"raised {type(e).__name__}: {e}")
            return
        record(f"error: {label}", False, "no exception")

    a, b = randn(64, 32), randn(48, 32)
    raises("strides the library cannot read", ValueError, "strides", lambda: tilegemm.gemm(a[:, ::2], b[:, ::2]))
    raises("fp16 input", ValueError, "torch.bfloat16", lambda: tilegemm.gemm(a.half(), b))
    buf = randn(64 * 48)
    a_in_buf, d_in_buf = buf[:64 * 32].view(64, 32), buf.view(64, 48)  # D's bytes cover A's
    raises("out overlapping a (the library's rule and message)", tilegemm.InvalidArgumentError, "d overlaps a",
           lambda: tilegemm.gemm(a_in_buf, b, out=d_in_buf))


def time_ms(fn, warmup, iters):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(iters):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    return statistics.median(times)


def graph_ms(fn, warmup, iters):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    return time_ms(g.replay, warmup, iters)


def speed_table(tilegemm, shapes, out_dir, iters):
    rows = []
    print("\nspeed vs torch.matmul (bf16 out, NT; median of CUDA-event timings; L2 not flushed)")
    header = "| M | N | K | tilegemm us | torch.matmul us | speed | tilegemm graph us | torch graph us | graph speed | tilegemm TFLOPS (graph) |"
    lines = [header, "|" + "---|" * 10]
    print(header)
    for m, n, k in shapes:
        a, b = randn(m, k), randn(n, k)
        out_t = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        out_r = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        ours = lambda: tilegemm.gemm(a, b, out=out_t)  # noqa: E731
        theirs = lambda: torch.matmul(a, b.t(), out=out_r)  # noqa: E731
        t_e, r_e = time_ms(ours, 10, iters) * 1e3, time_ms(theirs, 10, iters) * 1e3
        t_g, r_g = graph_ms(ours, 10, iters) * 1e3, graph_ms(theirs, 10, iters) * 1e3
        tflops = 2.0 * m * n * k / (t_g * 1e-6) / 1e12
        row = {"m": m, "n": n, "k": k, "tilegemm_us": t_e, "torch_us": r_e, "speed": r_e / t_e,
               "tilegemm_graph_us": t_g, "torch_graph_us": r_g, "graph_speed": r_g / t_g, "tilegemm_tflops": tflops}
        rows.append(row)
        line = (f"| {m} | {n} | {k} | {t_e:.1f} | {r_e:.1f} | {r_e / t_e:.3f} | {t_g:.1f} | {r_g:.1f} | "
                f"{r_g / t_g:.3f} | {tflops:.0f} |")
        lines.append(line)
        print(line, flush=True)
    geo = math.exp(sum(math.log(r["graph_speed"]) for r in rows) / len(rows))
    geo_e = math.exp(sum(math.log(r["speed"]) for r in rows) / len(rows))
    summary = f"geomean speed vs torch.matmul over {len(rows)} shapes: eager {geo_e:.3f}x, graph replay {geo:.3f}x (>1: tilegemm faster)"
    print(summary)
    lines.append("")
    lines.append(summary)
    if out_dir:
        with open(os.path.join(out_dir, "python_speed.md"), "w") as f:
            f.write("\n".join(lines) + "\n")
        with open(os.path.join(out_dir, "python_speed.json"), "w") as f:
            json.dump({"torch": torch.__version__, "device": torch.cuda.get_device_name(), "iters": iters,
                       "rows": rows, "geomean_graph_speed": geo, "geomean_eager_speed": geo_e}, f, indent=2)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=os.environ.get("OUT", ""))
    p.add_argument("--quick", action="store_true", help="fewer random cases and timing runs")
    args = p.parse_args()
    if torch is None or not torch.cuda.is_available():
        print("skipped: needs torch with CUDA and a GPU")
        return 77
    major, minor = torch.cuda.get_device_capability()
    if (major, minor) != (9, 0):
        print(f"skipped: {torch.cuda.get_device_name()} is compute capability {major}.{minor}; tilegemm needs 9.0")
        return 77
    import tilegemm
    from tilegemm import capi
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}, tilegemm {tilegemm.__version__}, "
          f"library {capi.library_path()}", flush=True)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
    shapes = suite_shapes()
    assert len(shapes) == 24, f"{SUITE}: expected the 24 suite shapes, found {len(shapes)}"
    start = time.time()
    for name, fn in (("suite", lambda: test_suite(tilegemm, shapes)),
                     ("random", lambda: test_random(tilegemm, 12 if args.quick else 40)),
                     ("stream", lambda: test_stream(tilegemm)), ("compile", lambda: test_compile(tilegemm)),
                     ("graph", lambda: test_graph(tilegemm)), ("errors", lambda: test_errors(tilegemm)),
                     ("speed", lambda: speed_table(tilegemm, shapes, args.out, 10 if args.quick else 50))):
        try:
            fn()
        except Exception:
            record(f"{name} (raised)", False, traceback.format_exc().strip().splitlines()[-1])
            traceback.print_exc()
    passed = sum(1 for r in results if r[1])
    failed = len(results) - passed
    print(f"\n{time.time() - start:.0f} s")
    for name, ok, detail in results:
        if not ok:
            print(f"FAILED: {name}: {detail}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
