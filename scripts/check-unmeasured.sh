#!/usr/bin/env bash
# The GPU run that weighs two launch/planning features against the defaults (first run in the
# twenty-ninth session, docs/PERF.md), in one command on a one-GPU device machine over a build folder
# carried from the dev box:
#   scripts/check-unmeasured.sh [build-dir] [part...]      parts: tests fuzz narrow pdl suite copies
#                                                          (default: all; one 10-minute device call holds about two)
#  - PlanOptions::narrow_mn_chunks (MN-major tiles in 32- or 16-element smem chunks, docs/PLANNER.md):
#    its GPU tests and neighbours, `tilegemm fuzz --narrow-mn-chunks` and a racecheck subset, bench of
#    TT, TN (M = 8..56), NN (small N) shapes and the llm suite in NN and TN with and without it (the
#    default: a narrow MN-major operand copied into K-major lines or read in 64-wide chunks, as the
#    model decides; B MN-major tiles in steps of 64), and a table of the two (narrow-table.txt);
#  - GemmOptions::pdl (programmatic dependent launch, docs/HOPPER.md section 10; on by default since
#    the twenty-ninth session's measurements): its GPU test, fuzz without it (the other fuzz runs
#    use it), bench (events) of shapes whose calls copy an operand first, with and without it
#    (pdl-table.txt), and `tilegemm overhead` (back-to-back calls) with and without it.
# Leaves everything in $OUT/unmeasured-logs (or ./unmeasured-logs), summary.txt first. Each step has its own time
# limit; a failed step is reported and the next one runs.
set -uo pipefail
build=${1:-build}; shift || true
parts=" ${*:-tests fuzz narrow pdl suite copies} "
want() { [[ "$parts" == *" $1 "* ]]; }
out="${OUT:-.}/unmeasured-logs"
mkdir -p "$out"
# (The device tool returns few files: with $OUT set, everything is also packed into one archive
# after each part, $OUT/unmeasured.tgz.)
pack() { if [ -n "${OUT:-}" ]; then tar czf "$OUT/unmeasured.tgz" -C "$OUT" unmeasured-logs; fi; }
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
if want tests; then
step gpu-tests 420 "$tests" --gtest_filter='MnChunksGpu.*:Sm90PathGpu.NarrowMn*:Sm90PathGpu.SwapAbForcedEveryLayout:CoverageGpu.TilesEightColumns*:OnePathGpu.*'
grep -E '^\[  (FAILED|PASSED) ' "$out/gpu-tests.txt" | tee -a "$out/summary.txt"
pack
fi
if want fuzz; then
step fuzz 420 "$cli" fuzz --count 1500 --seed 2801 --narrow-mn-chunks --layouts tt,tn,nn
step fuzz-nopdl 300 "$cli" fuzz --count 600 --seed 2803 --no-pdl
step racecheck 300 compute-sanitizer --tool racecheck "$cli" fuzz --count 12 --seed 2802 \
  --max-dim 500 --narrow-mn-chunks --layouts tt,tn,nn
pack
fi

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
  timeout 280 "$cli" bench --layout "$layout" --timer events --iters 30 --json-out "$out/bench-$name.json" "$@" \
    > "$out/bench-$name.txt" 2>&1
  local rc=$?
  [ "$rc" = 0 ] || status=1
  log "bench $name rc=$rc"
  pack
}
if want narrow; then
for layout in tt tn; do
  bench "$layout" "$layout-narrow" --narrow-mn-chunks "${small_m[@]}"
  bench "$layout" "$layout-default" "${small_m[@]}"
done
bench nn nn-narrow --narrow-mn-chunks "${small_n[@]}"
bench nn nn-default "${small_n[@]}"
# The llm suite with B MN-major: narrow chunks also give NN and TN the widths NT runs (128x176
# ping-pong, 128x144, 64x112: not multiples of 64), which the model prefers by up to 15 %.
for layout in nn tn; do
  bench "$layout" "$layout-llm-narrow" --narrow-mn-chunks --suite llm
  bench "$layout" "$layout-llm-default" --suite llm
done

fi

# PDL: calls that copy an operand first (odd leading dimensions; TT narrow batches) and a few that
# do not, with and without it, timed with events.
copies=(--shape 1023x8191x2047 --shape 6007x1501x513 --shape 2049x6001x4097 --shape 4001x3999x256 --shape 3000x3000x3000
        --shape 1x4096x4096 --shape 128x7168x2048 --shape 4096x4096x4096)
if want pdl; then
bench nt nt-pdl --own-stream "${copies[@]}"
bench nt nt-nopdl --own-stream --no-pdl "${copies[@]}"
bench tt tt-pdl --own-stream --shape 8x6144x4096 --shape 24x5120x5120 --shape 40x11008x4096
bench tt tt-nopdl --own-stream --no-pdl --shape 8x6144x4096 --shape 24x5120x5120 --shape 40x11008x4096
# Back-to-back calls (the stream time per call: launch gaps + kernels), with and without PDL.
for shape in 1x4096x4096 1x7168x2048 128x7168x2048 4096x4096x4096; do
  for flag in pdl no-pdl; do
    step "overhead-$shape-$flag" 120 "$cli" overhead --shape "$shape" --calls 200 --repeats 5 --json --own-stream \
      $([ "$flag" = no-pdl ] && echo --no-pdl)
  done
done

fi

# The state of the build on the llm suite (NT, model only) and on issue 9's odd shapes beside their
# aligned neighbours: the numbers a decision above is weighed against.
if want suite; then
bench nt nt-llm --no-tuning --suite llm
bench nt odd --no-tuning --neighbours --shape 1023x8191x2047 --shape 6007x1501x513 --shape 2049x6001x4097 \
  --shape 4001x3999x256 --shape 4095x4095x4095 --shape 2500x7001x1999
fi

# Issue 9's odd-K copies: their rate over the whole GPU and on P SMs (one 512-thread block each),
# the figure that decides whether they can run beside a GEMM on the other SMs; the GPU test first.
if want copies; then
step copies-test 120 "$tests" --gtest_filter='OnePathGpu.PinnedOperandCopiesWriteWhatTheSpreadOnesDo'
step copy-rate 240 "$cli" copy-rate --shape 1023x8191x2047 --shape 2049x6001x4097 --shape 6007x1501x513 \
  --shape 4095x4095x4095 --ctas 0,8,16,24,32,48,66 --json
pack
fi

if want narrow; then
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
for layout in ("tt", "tn", "nn", "nn-llm", "tn-llm"):
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
fi
if want pdl; then
python3 - "$out" > "$out/pdl-table.txt" 2>&1 <<'EOF'
import json, os, sys
out = sys.argv[1]
for layout in ("nt", "tt"):
    try:
        runs = [{(r["m"], r["n"], r["k"]): r for r in json.load(open(os.path.join(out, f"bench-{layout}-{x}.json")))["results"]}
                for x in ("pdl", "nopdl")]
    except (OSError, KeyError, ValueError) as e:
        print(f"{layout}: {e}")
        continue
    print(f"{layout}: shape, with PDL us, without us, ratio (events: the call's wall time)")
    for key in sorted(runs[0]):
        if key in runs[1]:
            a, b = runs[0][key]["tilegemm"]["median_us"], runs[1][key]["tilegemm"]["median_us"]
            print(f"  {key[0]}x{key[1]}x{key[2]}  {a:8.1f}  {b:8.1f}  {a / b:5.3f}")
EOF
log "pdl: $(tail -n 1 "$out/pdl-table.txt")"
fi
pack
exit $status
