#!/usr/bin/env bash
# The GPU test binary in parallel shards, for a device call with a time limit (docs/DEVICE.md):
#   scripts/gpu-tests.sh BUILD [SHARDS] [FILTER]
# The whole of test_gpu takes longer than 480 s on an H100 when run in one process (docs/TESTING.md),
# much of it the JIT compiling each test's kernels one after the other on one core. Here the
# suites that time something run first, alone on the GPU (their numbers would suffer from company);
# every other test then runs in SHARDS processes at once (gtest's GTEST_TOTAL_SHARDS /
# GTEST_SHARD_INDEX), all sharing one JIT disk cache (its writes are atomic renames, so processes
# may fill it together). With a FILTER (gtest's positive patterns, e.g. 'CoverageGpu.*:ApiGpu.*'),
# only the matching tests run, all of them in the shards. Logs and a summary go to $OUT (or
# ./device-logs); the exit status is
# non-zero if any test failed or a process did not finish. The binary: $BUILD/tests/test_gpu, or
# $TEST_BIN.
set -uo pipefail
build=${1:?usage: gpu-tests.sh BUILD [SHARDS] [FILTER]}
shards=${2:-4}
extra=${3:-}
bin=${TEST_BIN:-$build/tests/test_gpu}
out=${OUT:-./device-logs}
mkdir -p "$out"
case $shards in ''|*[!0-9]*|0) echo "gpu-tests.sh: SHARDS must be a positive integer, got '$shards'" >&2; exit 2 ;; esac
[ -x "$bin" ] || { echo "gpu-tests.sh: no test binary at $bin" >&2; exit 2; }
export TILEGEMM_CACHE_DIR=${TILEGEMM_CACHE_DIR:-$(mktemp -d /tmp/tilegemm-gpu-tests.XXXXXX)}

# Suites whose tests time kernels or the host: run alone, before the shards.
serial='Timer.*:EventTimer.*:CuptiTimer.*:Runner.*:TuningGpu.*'
status=0
summary="$out/gpu-tests-summary.txt"
: > "$summary"

run_part() {  # name filter [env...]
  local name=$1 filter=$2; shift 2
  local start=$SECONDS
  env "$@" "$bin" --gtest_filter="$filter" > "$out/gpu-tests-$name.txt" 2>&1
  local rc=$?
  local passed failed skipped
  # (A test's own result line ends in its time; the closing lists repeat the names without one.)
  passed=$(grep -cE '^\[       OK \] .* \([0-9]+ ms\)$' "$out/gpu-tests-$name.txt")
  failed=$(grep -cE '^\[  FAILED  \] .* \([0-9]+ ms\)$' "$out/gpu-tests-$name.txt")
  skipped=$(grep -cE '^\[  SKIPPED \] .* \([0-9]+ ms\)$' "$out/gpu-tests-$name.txt")
  echo "$name: rc=$rc passed=$passed failed=$failed skipped=$skipped in $((SECONDS - start)) s" >> "$summary"
  # 77: no SM90 GPU (the binary skips itself); anything else but 0 is a failure.
  if [ "$rc" = 77 ]; then return 77; fi
  if [ "$rc" != 0 ]; then
    grep -E '^\[  FAILED  \] .* \([0-9]+ ms\)$' "$out/gpu-tests-$name.txt" >> "$summary"
    return 1
  fi
  return 0
}

if [ -z "$extra" ]; then
  run_part serial "$serial"
  rc=$?
  if [ "$rc" = 77 ]; then
    cat "$summary"; echo "gpu-tests.sh: no SM90 GPU here (the binary skipped itself)"; exit 77
  fi
  [ "$rc" = 0 ] || status=1
  rest="-$serial"
else
  rest=$extra
fi

start=$SECONDS
pids=()
for ((i = 0; i < shards; ++i)); do
  run_part "shard$i" "$rest" GTEST_TOTAL_SHARDS="$shards" GTEST_SHARD_INDEX="$i" &
  pids+=($!)
done
skipped_all=1
for pid in "${pids[@]}"; do
  wait "$pid"
  rc=$?
  [ "$rc" = 77 ] || skipped_all=0
  [ "$rc" = 0 ] || [ "$rc" = 77 ] || status=1
done
echo "shards: $shards processes in $((SECONDS - start)) s (JIT cache $TILEGEMM_CACHE_DIR)" >> "$summary"
cat "$summary"
if [ "$skipped_all" = 1 ] && [ -n "$extra" ]; then
  echo "gpu-tests.sh: no SM90 GPU here (the binary skipped itself)"; exit 77
fi
exit $status
