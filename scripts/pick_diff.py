#!/usr/bin/env python3
"""Which planner picks change between two builds (CPU only: `tilegemm explain --json`).

For a change to the planner or the time model: runs `explain M N K --json` with each binary over
the repository's suites (bench/suites/*.txt) and an off-suite grid of LLM layer shapes (batch rows M
from 1 to 8192 against common (N, K) layer widths), and prints every shape whose chosen
configuration differs, with both predicted times, then the count per set. Extra arguments after
`--` go to explain (e.g. `-- --beta 1` or `-- --out fp32 --layout nn`). Usage:

  scripts/pick_diff.py OLD_TILEGEMM NEW_TILEGEMM [--no-grid] [--bench-args] [-- EXPLAIN_OPTIONS...]

The picks that change are the shapes to measure on the GPU before the change is called faster:
with --bench-args the script prints only `--shape MxNxK ...` for them (nothing when none
changed), for `tilegemm bench $(scripts/pick_diff.py OLD NEW --bench-args) --no-tuning` with each
binary on the GPU.
"""
import argparse
import itertools
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
# (N, K) widths of common open models' linear layers (Llama 2/3, Mistral, Qwen, DeepSeek V3, ...).
GRID_NK = [(4096, 4096), (14336, 4096), (4096, 14336), (6144, 4096), (28672, 8192), (8192, 28672),
           (8192, 8192), (11008, 4096), (4096, 11008), (2112, 7168), (7168, 2048), (3072, 3072),
           (9216, 3072), (12288, 4096), (5120, 5120), (13824, 5120), (5120, 13824), (1536, 8960),
           (8960, 1536)]
GRID_M = [1, 4, 8, 16, 24, 32, 48, 64, 72, 96, 128, 160, 192, 200, 256, 300, 384, 512, 768, 1024,
          2048, 4096, 8192]


def suite_shapes():
    for path in sorted((ROOT / "bench" / "suites").glob("*.txt")):
        for line in path.read_text().splitlines():
            fields = line.split("#")[0].split()
            if len(fields) >= 3:
                yield path.stem, tuple(int(x) for x in fields[:3])


def pick(tilegemm, shape, extra):
    out = subprocess.run([tilegemm, "explain", *map(str, shape), "--json", "--top", "1", "--rejected", "0", *extra],
                         check=True, capture_output=True, text=True).stdout
    doc = json.loads(out)
    chosen = doc.get("model_choice") or (doc["top"][0] if doc.get("top") else None)
    if chosen is None:
        return doc.get("path", "?"), None
    return chosen["label"], chosen["time"]["predicted_us"]


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--no-grid", action="store_true", help="the suites only")
    ap.add_argument("--bench-args", action="store_true", help="print only --shape MxNxK for the changed picks")
    a = ap.parse_args(argv)
    sets = list(suite_shapes())
    if not a.no_grid:
        sets += [("grid", (m, n, k)) for m, (n, k) in itertools.product(GRID_M, GRID_NK)]
    counts = {}
    shapes = []
    for name, shape in sets:
        before, after = pick(a.old, shape, extra), pick(a.new, shape, extra)
        changed, total = counts.get(name, (0, 0))
        if before[0] != after[0]:
            changed += 1
            if "x".join(map(str, shape)) not in shapes:
                shapes.append("x".join(map(str, shape)))
            fmt = lambda p: f"{p[0]} ({p[1]:.1f} us)" if p[1] is not None else p[0]
            if not a.bench_args:
                print(f"{name:8} {'x'.join(map(str, shape)):16} {fmt(before)} -> {fmt(after)}")
        counts[name] = (changed, total + 1)
    if a.bench_args:
        print(" ".join(f"--shape {s}" for s in shapes))
        return
    for name, (changed, total) in counts.items():
        print(f"{name}: {changed} of {total} picks changed")


if __name__ == "__main__":
    main()
