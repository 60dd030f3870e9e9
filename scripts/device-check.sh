#!/usr/bin/env bash
# Runs on the H200 device machine over a build folder built on the dev box and carried along
# (see docs/DEVICE.md). Leaves logs in $OUT (or ./device-logs): device info, GPU tests, ladder,
# bench suite, ptxas/SASS facts. Usage: scripts/device-check.sh [build-dir] [what...]
#   what: info tests ladder bench sass (default: these five), and on request:
#     shards  the GPU tests in 6 parallel shards (scripts/gpu-tests.sh: the whole binary in ~2 min)
#     odd     the odd-shape table: bench --suite odd --neighbours --no-tuning (issue 9's fractions)
#     model   the llm suite from the model alone: bench --suite llm --no-tuning
#     smallk  the small-K suite from the model alone: bench --suite smallk --no-tuning
#     models  the models suite (other layers and batch sizes of open models) from the model alone
#     fuzz    fuzz --count 3000 --seed ${FUZZ_SEED:-1} --jobs 16
#     layouts the llm suite from the model alone in the NN, TN and TT layouts (NT is `model`)
#     fp32    the llm suite with fp32 output, model alone
#     beta1   the llm suite with C (beta = 1), model alone
#     tuned   tune --suite llm --top 4 into a fresh tuning cache under the logs, then the suite with it
#     sanitizers  compute-sanitizer memcheck, racecheck and synccheck over fuzz --count 50 --max-dim 700
#             (memcheck with --report-api-errors no: the JIT loader's deliberate cuKernelGetParamInfo probe
#             returns an API error by design, which memcheck would count and exit nonzero on:
#             docs/TESTING.md)
#     h200    stop here (status 0) unless the GPU is an H200: for calls that only want an H200's numbers
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
# One CLI run as a step: cli_step NAME LABEL PATTERN ARGS... runs `tilegemm ARGS...` into
# $out/NAME.txt and logs "LABEL rc=…: " with its line matching PATTERN; a failure sets status.
cli_step() {
  local name=$1 label=$2 pattern=$3; shift 3
  "$cli" "$@" > "$out/$name.txt" 2>&1
  local rc=$?; log "$label rc=$rc: $(line_of "$out/$name.txt" "$pattern")"; [ "$rc" = 0 ] || status=1
}

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
      cli_step odd odd 'geomean fraction' bench --suite odd --neighbours --no-tuning --json-out "$out/odd.json" ;;
    model)
      cli_step bench-model "model-only bench" 'geomean speed' bench --suite llm --no-tuning --json-out "$out/bench-model.json" ;;
    models)
      cli_step bench-models "models bench" 'geomean speed' bench --suite models --no-tuning --json-out "$out/bench-models.json" ;;
    smallk)
      cli_step bench-smallk "small-K bench" 'geomean speed' bench --suite smallk --no-tuning --json-out "$out/bench-smallk.json" ;;
    fuzz)
      cli_step fuzz fuzz 'problem(s) in' fuzz --count 3000 --seed "${FUZZ_SEED:-1}" --jobs 16 ;;
    sass)
      if command -v cuobjdump >/dev/null; then
        for lib in "$build"/src/ladder/libtilegemm_ladder.a; do
          cuobjdump --dump-sass "$lib" > "$out/sass.txt" 2>&1
        done
        log "HGMMA count: $(grep -c HGMMA "$out/sass.txt")  LDL/STL count: $(grep -cE 'LDL|STL' "$out/sass.txt")"
      fi ;;
    layouts)
      for layout in nn tn tt; do
        cli_step "bench-$layout" "model-only bench $layout" 'geomean speed' \
          bench --suite llm --layout "$layout" --no-tuning --json-out "$out/bench-$layout.json"
      done ;;
    fp32)
      cli_step bench-fp32 "model-only bench fp32 out" 'geomean speed' \
        bench --suite llm --out fp32 --no-tuning --json-out "$out/bench-fp32.json" ;;
    beta1)
      cli_step bench-beta1 "model-only bench with C" 'geomean speed' \
        bench --suite llm --beta 1 --no-tuning --json-out "$out/bench-beta1.json" ;;
    tuned)
      TILEGEMM_TUNING="$out/tuning.json" cli_step tune tune 'regret of the model' tune --suite llm --top 4 --iters 15
      TILEGEMM_TUNING="$out/tuning.json" cli_step bench-tuned "tuned bench" 'geomean speed' \
        bench --suite llm --json-out "$out/bench-tuned.json" ;;
    sanitizers)
      for tool in memcheck racecheck synccheck; do
        api=(); [ "$tool" = memcheck ] && api=(--report-api-errors no)
        compute-sanitizer --tool "$tool" "${api[@]}" --print-limit 5 "$cli" fuzz --count 50 --seed "${FUZZ_SEED:-1}" --max-dim 700 \
          > "$out/sanitizer-$tool.txt" 2>&1
        rc=$?; log "$tool rc=$rc: $(grep -E 'problem\(s\) in|ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer-$tool.txt" | tr '\n' ' ')"
        [ "$rc" = 0 ] || status=1
      done ;;
    h200)
      case "$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null)" in
        *H200*) ;;
        *) log "not an H200: the rest skipped"; exit 0 ;;
      esac ;;
    *) echo "unknown step: $w" >&2; status=2 ;;
  esac
done
log "device-check status=$status"
exit $status
