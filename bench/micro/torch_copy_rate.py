#!/usr/bin/env python3
# The copy rate a plain PyTorch copy reaches on this GPU, by size, beside which `tilegemm copy-rate`
# (gemm()'s operand copies) can be read (docs/PERF.md, thirty-sixth session). Needs torch with CUDA.
#   contiguous: b.copy_(a) of N bytes of bf16, L2 flushed by a 512-MiB write before each, CUDA
#               events, median of 15; TB/s counts bytes read and written. Does a copy that fits in
#               L2 finish faster per byte (its writes left dirty in L2)?
#   2-D:        rows of K elements at leading dimension K from an odd element offset (bases and
#               rows off 16 B, as gemm() copies an odd-K operand) into rows padded to a multiple of 8.
# Usage: python3 bench/micro/torch_copy_rate.py
import torch
def rate(nbytes, iters=15):
    a = torch.empty(nbytes // 2, dtype=torch.bfloat16, device='cuda').normal_()
    b = torch.empty_like(a)
    flush = torch.empty(512 * 1024 * 1024, dtype=torch.uint8, device='cuda')
    ts = []
    for i in range(iters + 3):
        flush.zero_()
        s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
        s.record(); b.copy_(a); e.record(); torch.cuda.synchronize()
        ts.append(s.elapsed_time(e) * 1e3)
    ts = sorted(ts[3:]); t = ts[len(ts) // 2]
    return t, 2 * nbytes / t / 1e6
print(torch.cuda.get_device_name())
for mb in [4, 8, 16, 24, 32, 48, 75, 132]:
    nb = mb * 1000 * 1000 // 16 * 16
    t, r = rate(nb)
    print(f"{mb} MB: torch copy_ {t:.1f} us, {r:.2f} TB/s (read+write)")

def rate2d(R, K, iters=15):
    src = torch.empty(R * (K + 1), dtype=torch.bfloat16, device='cuda').normal_()[1:1 + R * K].view(R, K)
    ldo = (K + 7) // 8 * 8
    dst = torch.empty(R, ldo, dtype=torch.bfloat16, device='cuda')
    flush = torch.empty(512 * 1024 * 1024, dtype=torch.uint8, device='cuda')
    ts = []
    for i in range(iters + 3):
        flush.zero_()
        s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
        s.record(); dst[:, :K].copy_(src); e.record(); torch.cuda.synchronize()
        ts.append(s.elapsed_time(e) * 1e3)
    ts = sorted(ts[3:]); t = ts[len(ts) // 2]
    return t, (R * K + R * ldo) * 2 / t / 1e6
for R, K in [(1023, 2047), (8191, 2047), (6007, 513), (1501, 513), (4095, 4095), (6001, 4097)]:
    t, r = rate2d(R, K)
    print(f"2d {R}x{K} (odd base): torch {t:.1f} us, {r:.2f} TB/s")
