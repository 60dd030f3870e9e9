"""tilegemm.distributed (tensor-parallel GEMM over a torch.distributed NCCL group) on the GPU(s).

  python tests/python/test_distributed_gpu.py [--world W] [--bench]

One process per GPU (torch.multiprocessing, a file:// rendezvous), W = every GPU by default; with
one GPU that is a world of one, which still runs the whole path (PyTorch's communicator handed
to the library, NCCL send/receive of nothing, the chunk schedule). Each rank checks:
  all_gather_matmul      the gathered x equals the full x bit for bit; out against the FP32
                         product x.float() @ w.float().T (calc_diff <= 1e-5, docs/TESTING.md)
  matmul_reduce_scatter  K split across ranks, fp32 partials and output: its rows of the FP32
                         product of the whole K (calc_diff <= 1e-6); bf16 partials: <= 1e-4;
                         the same bits when called twice
--bench adds, per op, the median time (CUDA events, slowest rank) of tilegemm overlapped, tilegemm
sequential, and torch.distributed's collective + torch.matmul (all_gather_into_tensor then
x @ w.T; x @ w.T then reduce_scatter_tensor) for LLM layer shapes.
Exit 0: passed; 1: a check failed; 77: skipped (no torch with CUDA or no NCCL backend).
"""
import argparse
import os
import statistics
import sys
import tempfile
import traceback

try:
    import torch
    import torch.distributed as dist
    import torch.multiprocessing as mp
except ImportError:
    torch = None


def calc_diff(x, y):
    x, y = x.double(), y.double()
    return float(1 - 2 * (x * y).sum() / (x * x + y * y).sum().clamp_min(1e-300))


def timed(fn, iters=10):
    """Median over iters of the slowest rank's time (ms) of fn() on the current stream."""
    times = []
    for i in range(iters + 2):
        dist.barrier()
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        t = torch.tensor([start.elapsed_time(stop)], device="cuda")
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        if i >= 2:
            times.append(float(t))
    return statistics.median(times)


def worker(rank, world, rendezvous, bench, failures):
    import tilegemm.distributed as tgd
    torch.cuda.set_device(rank)
    dev = torch.device("cuda", rank)
    dist.init_process_group("nccl", init_method=rendezvous, rank=rank, world_size=world, device_id=dev)
    dist.barrier()
    errors = []

    def check(name, ok, detail=""):
        print(f"rank {rank}: {'PASS' if ok else 'FAIL'} {name} {detail}", flush=True)
        if not ok:
            errors.append(name)

    try:
        for m, n, k in [(4096, 1024, 2048), (1001, 520, 264)]:
            g = torch.Generator(device=dev).manual_seed(1)
            x = torch.randn(m, k * world, generator=g, device=dev).to(torch.bfloat16)  # the same on every rank
            w = torch.randn(n, k, device=dev).to(torch.bfloat16)  # this rank's own
            b, e = tgd.chunk_rows(m, world, rank)
            xa = x[:, :k].contiguous()
            out, gathered = tgd.all_gather_matmul(xa[b:e], w, m=m)
            torch.cuda.synchronize()
            check(f"all_gather_matmul {m}x{n}x{k} gathered", torch.equal(gathered, xa))
            d = calc_diff(out.float(), xa.float() @ w.float().T)
            check(f"all_gather_matmul {m}x{n}x{k} out", d <= 1e-5, f"calc_diff {d:.2e}")
            wk = torch.randn(n, k * world, generator=g, device=dev).to(torch.bfloat16)  # the same on every rank
            xs, ws = x[:, rank * k:(rank + 1) * k], wk[:, rank * k:(rank + 1) * k]
            want = (x.float() @ wk.float().T)[b:e]
            y32 = tgd.matmul_reduce_scatter(xs, ws, out_dtype=torch.float32, partial_dtype=torch.float32)
            y32b = tgd.matmul_reduce_scatter(xs, ws, out_dtype=torch.float32, partial_dtype=torch.float32)
            y16 = tgd.matmul_reduce_scatter(xs, ws)
            torch.cuda.synchronize()
            d = calc_diff(y32, want)
            check(f"matmul_reduce_scatter {m}x{n}x{k} fp32", d <= 1e-6, f"calc_diff {d:.2e}")
            check(f"matmul_reduce_scatter {m}x{n}x{k} deterministic", torch.equal(y32, y32b))
            d = calc_diff(y16.float(), want)
            check(f"matmul_reduce_scatter {m}x{n}x{k} bf16 partials", d <= 1e-4, f"calc_diff {d:.2e}")
        if bench:
            for tokens, hidden, ffn in [(8192, 8192, 28672), (16384, 8192, 28672)]:
                # column-parallel FFN up-projection: N = ffn / world; row-parallel down: K = ffn / world
                n_col, k_row = ffn // world, ffn // world
                xs = torch.randn(tokens // world, hidden, device=dev).to(torch.bfloat16)
                w_up = torch.randn(n_col, hidden, device=dev).to(torch.bfloat16)
                gathered = torch.empty(tokens, hidden, device=dev, dtype=torch.bfloat16)
                out = torch.empty(tokens, n_col, device=dev, dtype=torch.bfloat16)
                t_ov = timed(lambda: tgd.all_gather_matmul(xs, w_up, gathered=gathered, out=out))
                t_seq = timed(lambda: tgd.all_gather_matmul(xs, w_up, gathered=gathered, out=out, overlap=False))
                t_torch = timed(lambda: (dist.all_gather_into_tensor(gathered, xs), gathered @ w_up.T))
                print(f"rank {rank}: BENCH ag {tokens}x{n_col}x{hidden} world {world}: tilegemm overlapped "
                      f"{t_ov:.3f} ms, sequential {t_seq:.3f} ms, torch all_gather + matmul {t_torch:.3f} ms",
                      flush=True)
                x_r = torch.randn(tokens, k_row, device=dev).to(torch.bfloat16)
                w_down = torch.randn(hidden, k_row, device=dev).to(torch.bfloat16)
                y = torch.empty(tokens // world, hidden, device=dev, dtype=torch.bfloat16)
                t_ov = timed(lambda: tgd.matmul_reduce_scatter(x_r, w_down, out=y))
                t_seq = timed(lambda: tgd.matmul_reduce_scatter(x_r, w_down, out=y, overlap=False))
                t_torch = timed(lambda: dist.reduce_scatter_tensor(y, x_r @ w_down.T))
                print(f"rank {rank}: BENCH rs {tokens}x{hidden}x{k_row} world {world}: tilegemm overlapped "
                      f"{t_ov:.3f} ms, sequential {t_seq:.3f} ms, torch matmul + reduce_scatter {t_torch:.3f} ms",
                      flush=True)
    except Exception:
        traceback.print_exc()
        errors.append("exception")
    failures[rank] = len(errors)
    dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--world", type=int, default=0)
    parser.add_argument("--bench", action="store_true")
    args = parser.parse_args()
    if torch is None or not torch.cuda.is_available() or not dist.is_nccl_available():
        print("skipped: needs torch with CUDA and the NCCL backend")
        return 77
    world = args.world or torch.cuda.device_count()
    with tempfile.TemporaryDirectory() as tmp:
        rendezvous = "file://" + os.path.join(tmp, "rendezvous")
        failures = mp.Manager().dict()
        mp.spawn(worker, args=(world, rendezvous, args.bench, failures), nprocs=world, join=True)
    bad = sum(failures.get(r, 1) for r in range(world))
    print(f"{'PASSED' if bad == 0 else 'FAILED'}: world {world}, {bad} failed checks")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
