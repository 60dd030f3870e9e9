#!/usr/bin/env bash
# Where one gemm() kernel spends its instructions and stalls, SASS line by SASS line (Nsight
# Compute's source page). Runs on the GPU machine over a carried build folder (docs/DEVICE.md):
#   scripts/ncu-sass.sh BUILD SHAPE [bench options...]
# e.g. scripts/ncu-sass.sh build 4001x3999x256 --layout nt
# Profiles the third launch of the GEMM kernel (tilegemm_gemm; the first two are bench's check and
# warm-up), keeps the report and the per-instruction CSV in $OUT (or ./device-logs), and prints the
# 40 lines with the most stall samples and the 40 with the most warp instructions executed, each
# with its share of the kernel's total. (Counts under ncu: clocks locked, one launch replayed.)
set -uo pipefail
build=${1:?usage: ncu-sass.sh BUILD SHAPE [bench options]}
shape=${2:?usage: ncu-sass.sh BUILD SHAPE [bench options]}
shift 2
out=${OUT:-./device-logs}
mkdir -p "$out"
tag=$(echo "$shape" | tr -c 'A-Za-z0-9_\n' '_')
rep="$out/ncu-$tag"
ncu -k regex:tilegemm_gemm --launch-skip 2 --launch-count 1 \
    --section SourceCounters --section WarpStateStats --section InstructionStats \
    -f -o "$rep" "$build/cli/tilegemm" bench --shape "$shape" --no-cublas --no-tuning --iters 3 --warmup 1 "$@" \
    > "$out/ncu-$tag.log" 2>&1 || { echo "ncu failed: $out/ncu-$tag.log"; tail -5 "$out/ncu-$tag.log"; exit 1; }
ncu --import "$rep.ncu-rep" --page source --csv --print-source sass > "$out/sass-$tag.csv" 2> "$out/sass-$tag.err" ||
  { echo "source page export failed: $out/sass-$tag.err"; exit 1; }
python3 - "$out/sass-$tag.csv" <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
head = next((i for i, r in enumerate(rows) if any("Source" == c.strip() for c in r)), None)
if head is None:
    sys.exit("no 'Source' column in " + sys.argv[1])
cols = [c.strip() for c in rows[head]]
def col(*keys):
    for i, c in enumerate(cols):
        if all(k in c for k in keys):
            return i
    return None
src, addr = col("Source"), col("Address")
stall = col("Warp Stall Sampling (All")
inst = col("Instructions Executed")
if stall is None and inst is None:
    sys.exit("neither stall samples nor instructions executed among: " + ", ".join(cols))
def num(r, i):
    try:
        return float(r[i].replace(",", "")) if i is not None and i < len(r) else 0.0
    except ValueError:
        return 0.0
body = [r for r in rows[head + 1:] if len(r) > (src or 0)]
for name, i in (("stall samples", stall), ("warp instructions executed", inst)):
    if i is None:
        continue
    total = sum(num(r, i) for r in body) or 1.0
    print(f"== top 40 SASS lines by {name} (total {total:,.0f})")
    for r in sorted(body, key=lambda r: -num(r, i))[:40]:
        where = r[addr].strip() if addr is not None else ""
        print(f"{num(r, i):12,.0f} {100 * num(r, i) / total:5.1f} %  {where:>8}  {r[src].strip()}")
EOF
