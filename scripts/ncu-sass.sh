#!/usr/bin/env bash
# Where one gemm() kernel spends its instructions and stalls, SASS line by SASS line (Nsight
# Compute's source page). Runs on the GPU machine over a carried build folder (docs/DEVICE.md):
#   scripts/ncu-sass.sh BUILD SHAPE [bench options...]
# e.g. scripts/ncu-sass.sh build 4001x3999x256 --layout nt
# Profiles the third launch of the GEMM kernel (tilegemm_gemm; the first two are bench's check and
# warm-up), keeps the report and the per-instruction CSV in $OUT (or ./device-logs), and prints
# (scripts/ncu_sass_report.py) the kernel's stall samples by reason, its instructions and stall
# samples by opcode, and the 40 lines with the most stall samples and the 40 with the most warp
# instructions executed, each with its share of the kernel's total. (Counts under ncu: clocks
# locked, one launch replayed.)
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
python3 "$(dirname "$0")/ncu_sass_report.py" "$out/sass-$tag.csv"
