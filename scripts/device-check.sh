#!/usr/bin/env bash
# Runs on the H200 device machine over a build folder built on the dev box and carried along
# (see docs/DEVICE.md). Leaves logs in $OUT (or ./device-logs): device info, GPU tests, ladder,
# bench suite, ptxas/SASS facts. Usage: scripts/device-check.sh [build-dir] [what...]
#   what: info tests ladder bench sass (default: these five), and on request:
#     shards  the GPU tests in 6 parallel shards (scripts/gpu-tests.sh: the whole binary in ~2 min)
#     odd     the odd-shape table: bench --suite odd --neighbours --no-tuning (issue 9's fractions)
#     model   the llm suite from the model alone: bench --suite llm --no-tuning
#     smallk  the small-K suite from the model alone: bench --suite smallk --no-tuning
#     fuzz    fuzz --count 3000 --seed ${FUZZ_SEED:-1} --jobs 16
set -uo pipefail
build=${1:-build}; shift || true
what=${*:-info tests ladder bench sass}
out=${OUT:-./device-logs}
mkdir -p "$out"
cli="$build/cli/tilegemm"
status=0
log() { echo "== $*" | tee -a "$out/summary.txt"; }
# The line of FILE matching PATTERN, else FILE's last line (e.g. the reason it did not run).
line_of() { grep -m1 -- "$2" "$1" || tail -1 "$1"; }

log "$(date -u +%FT%TZ) build of commit $(cat "$build/COMMIT" 2>/dev/null || echo unknown) on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
for w in $what; do
  case $w in
    info) "$cli" info 2>&1 | tee "$out/info.txt" || status=1 ;;
    tests)
      "$build/tests/test_gpu" --gtest_brief=1 2>&1 | tee "$out/gpu-tests.txt"
      rc=${PIPESTATUS[0]}; log "gpu tests rc=$rc"; [ "$rc" = 0 ] || status=1 ;;
    ladder)
      "$cli" ladder --json-out "$out/ladder.json" 2>&1 | tee "$out/ladder.txt"
      rc=${PIPESTATUS[0]}; log "ladder rc=$rc"; [ "$rc" = 0 ] || status=1 ;;
    bench)
      "$cli" bench --suite bench/suites/llm.txt --json-out "$out/bench.json" 2>&1 | tee "$out/bench.txt"
      rc=${PIPESTATUS[0]}; log "bench rc=$rc"; [ "$rc" = 0 ] || status=1 ;;
    shards)
      OUT="$out/shards" bash "$(dirname "$0")/gpu-tests.sh" "$build" 6 > "$out/gpu-tests-shards.txt" 2>&1
      rc=$?; log "gpu tests in shards rc=$rc: $(tail -1 "$out/gpu-tests-shards.txt")"; [ "$rc" = 0 ] || status=1 ;;
    odd)
      "$cli" bench --suite odd --neighbours --no-tuning --json-out "$out/odd.json" > "$out/odd.txt" 2>&1
      rc=$?; log "odd rc=$rc: $(line_of "$out/odd.txt" 'geomean fraction')"; [ "$rc" = 0 ] || status=1 ;;
    model)
      "$cli" bench --suite llm --no-tuning --json-out "$out/bench-model.json" > "$out/bench-model.txt" 2>&1
      rc=$?; log "model-only bench rc=$rc: $(line_of "$out/bench-model.txt" 'geomean speed')"; [ "$rc" = 0 ] || status=1 ;;
    smallk)
      "$cli" bench --suite smallk --no-tuning --json-out "$out/bench-smallk.json" > "$out/bench-smallk.txt" 2>&1
      rc=$?; log "small-K bench rc=$rc: $(line_of "$out/bench-smallk.txt" 'geomean speed')"; [ "$rc" = 0 ] || status=1 ;;
    fuzz)
      "$cli" fuzz --count 3000 --seed "${FUZZ_SEED:-1}" --jobs 16 > "$out/fuzz.txt" 2>&1
      rc=$?; log "fuzz rc=$rc: $(line_of "$out/fuzz.txt" 'problem(s) in')"; [ "$rc" = 0 ] || status=1 ;;
    sass)
      if command -v cuobjdump >/dev/null; then
        for lib in "$build"/src/ladder/libtilegemm_ladder.a; do
          cuobjdump --dump-sass "$lib" > "$out/sass.txt" 2>&1
        done
        log "HGMMA count: $(grep -c HGMMA "$out/sass.txt")  LDL/STL count: $(grep -cE 'LDL|STL' "$out/sass.txt")"
      fi ;;
    *) echo "unknown step: $w" >&2; status=2 ;;
  esac
done
log "device-check status=$status"
exit $status
