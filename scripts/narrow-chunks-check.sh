#!/usr/bin/env bash
# The GPU run that decides PlanOptions::narrow_mn_chunks (MN-major tiles in 32- or 16-element smem
# chunks, docs/PLANNER.md), in one command on a one-GPU device machine over a build folder carried
# from the dev box:
#   scripts/narrow-chunks-check.sh [build-dir]
# Leaves in $OUT (or ./narrow-logs): summary.txt; the GPU tests of the narrow chunks and their
# neighbours; `tilegemm fuzz --narrow-mn-chunks` (JSON) and a racecheck subset; bench JSON of TT,
# TN (M = 8..56) and NN (small N) shapes with and without --narrow-mn-chunks (the default: a narrow
# MN-major operand copied into K-major lines or read in 64-wide chunks, as the model decides), and
# a table of the two (narrow-table.txt). Each step has its own time limit; a failed step is
# reported and the next one runs.
set -uo pipefail
build=${1:-build}
out=${OUT:-./narrow-logs}
mkdir -p "$out"
cli="$build/cli/tilegemm"; [ -x "$cli" ] || cli="$build/tilegemm"
tests="$build/tests/test_gpu"; [ -x "$tests" ] || tests="$build/test_gpu"
export TILEGEMM_CACHE_DIR=${TILEGEMM_CACHE_DIR:-/tmp/tgcache}
status=0
log() { echo "== $*" | tee -a "$out/summary.txt"; }
step() {  # step NAME SECONDS CMD...: runs CMD with a limit, stdout+stderr to $out/NAME.txt
  local name=$1 limit=$2; shift 2
  timeout "$limit" "$@" > "$out/$name.txt" 2>&1
  local rc=$?
  [ "$rc" = 0 ] || status=1
  log "$name rc=$rc: $(tail -n 1 "$out/$name.txt" | cut -c1-300)"
}

log "$(date -u +%FT%TZ) build of commit $(cat "$build/COMMIT" 2>/dev/null || echo unknown): $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
step gpu-tests 420 "$tests" --gtest_filter='Sm90PathGpu.NarrowMn*:Sm90PathGpu.SwapAbForcedEveryLayout:CoverageGpu.TilesEightColumns*'
grep -E '^\[  (FAILED|PASSED) ' "$out/gpu-tests.txt" | tee -a "$out/summary.txt"
step fuzz 480 "$cli" fuzz --count 1500 --seed 2801 --narrow-mn-chunks --layouts tt,tn,nn
step racecheck 300 compute-sanitizer --tool racecheck "$cli" fuzz --count 12 --seed 2802 \
  --max-dim 500 --narrow-mn-chunks --layouts tt,tn,nn

# TT and TN (A MN-major) at small M; NN (B MN-major) at small N.
small_m=()
for m in 8 16 24 32 40 48 56; do
  for nk in 6144x4096 5120x5120 2048x8192 8192x8192 4096x14336; do small_m+=(--shape "${m}x${nk}"); done
done
small_m+=(--shape 8x8192x28672 --shape 24x8192x28672 --shape 16x3072x3072 --shape 40x11008x4096)
small_n=()
for n in 16 32 48 96 160; do small_n+=(--shape "4096x${n}x4096" --shape "8192x${n}x8192"); done
bench() {  # bench LAYOUT NAME [flags] -- shapes
  local layout=$1 name=$2; shift 2
  timeout 600 "$cli" bench --layout "$layout" --timer events --iters 30 --json-out "$out/bench-$name.json" "$@" \
    > "$out/bench-$name.txt" 2>&1
  local rc=$?
  [ "$rc" = 0 ] || status=1
  log "bench $name rc=$rc"
}
for layout in tt tn; do
  bench "$layout" "$layout-narrow" --narrow-mn-chunks "${small_m[@]}"
  bench "$layout" "$layout-default" "${small_m[@]}"
done
bench nn nn-narrow --narrow-mn-chunks "${small_n[@]}"
bench nn nn-default "${small_n[@]}"

python3 - "$out" > "$out/narrow-table.txt" 2>&1 <<'EOF'
import json, math, os, sys
out = sys.argv[1]
def load(name):
    try:
        with open(os.path.join(out, f"bench-{name}.json")) as f:
            return {(r["m"], r["n"], r["k"]): r for r in json.load(f)["results"]}
    except (OSError, KeyError, ValueError) as e:
        print(f"{name}: {e}")
        return {}
for layout in ("tt", "tn", "nn"):
    narrow, default = load(f"{layout}-narrow"), load(f"{layout}-default")
    logs = []
    print(f"{layout}: shape, narrow us [kernel], default us [kernel], narrow/default, cuBLASLt us")
    for key in sorted(narrow):
        if key not in default:
            continue
        a, b = narrow[key], default[key]
        ta, tb = a["tilegemm"]["median_us"], b["tilegemm"]["median_us"]
        logs.append(math.log(ta / tb))
        cub = a.get("cublaslt", {}) or {}
        print(f"  {key[0]}x{key[1]}x{key[2]}  {ta:8.1f} [{a.get('kernel')}]  {tb:8.1f} [{b.get('kernel')}]  "
              f"{ta / tb:5.3f}  {cub.get('median_us', float('nan')):8.1f}")
    if logs:
        print(f"  geomean narrow/default {math.exp(sum(logs) / len(logs)):.3f} over {len(logs)} shapes")
EOF
log "table: $(tail -n 1 "$out/narrow-table.txt")"
exit $status
