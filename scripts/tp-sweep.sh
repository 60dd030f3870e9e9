#!/usr/bin/env bash
# The multi-GPU measurement of docs/TENSOR_PARALLEL.md in one command, for a device machine with
# two or more GPUs (nvidia-h200-x2/-x4/-x8) over a build folder carried from the dev box:
#   scripts/tp-sweep.sh [build-dir] [worlds...]       (default: build/, world sizes 2 4 8 up to the GPU count)
# Leaves in $OUT (or ./tp-logs): topology, the *Tp* GPU tests, one JSON file per tp-bench run
# (tp-bench-OP-SHAPE-wW-rR.json: column-parallel AG + GEMM and row-parallel GEMM + RS for an LLM layer of hidden
# 8192 and FFN 28672 at 4096/8192/16384 tokens, each with --reserve-sms 0/4/8/16), and the
# torch.distributed baseline of tests/python/test_distributed_gpu.py --bench.
set -uo pipefail
build=${1:-build}; shift || true
out=${OUT:-./tp-logs}
mkdir -p "$out"
cli="$build/cli/tilegemm"; [ -x "$cli" ] || cli="$build/tilegemm"
tests="$build/tests/test_gpu"; [ -x "$tests" ] || tests="$build/test_gpu"
lib="$build/lib/libtilegemm.so"
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | wc -l)
worlds=${*:-$(for w in 2 4 8; do [ "$w" -le "$gpus" ] && echo "$w"; done)}
status=0
log() { echo "== $*" | tee -a "$out/summary.txt"; }
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}  # NVLink multicast stays off on these machines

log "$(date -u +%FT%TZ) build of commit $(cat "$build/COMMIT" 2>/dev/null || echo unknown), $gpus GPU(s), worlds: $worlds"
nvidia-smi topo -m > "$out/topo.txt" 2>&1
"$tests" --gtest_filter='*Tp*' > "$out/tp-tests.txt" 2>&1; rc=$?
log "test_gpu *Tp* rc=$rc: $(grep -E '^\[  (PASSED|SKIPPED|FAILED) ' "$out/tp-tests.txt" | tr '\n' ' ')"
[ "$rc" = 0 ] || status=1
for w in $worlds; do
  for tokens in 4096 8192 16384; do
    # column-parallel up-projection: D[T, 28672/W] = all_gather(A)[T, 8192] · B_r[28672/W, 8192]ᵀ
    # row-parallel down-projection: D_r = A_r[T, 28672/W] · B_r[8192, 28672/W]ᵀ, reduce-scattered
    for spec in "ag ${tokens}x$((28672 / w))x8192" "rs ${tokens}x8192x$((28672 / w))"; do
      set -- $spec
      for reserve in 0 4 8 16; do
        timeout 300 "$cli" tp-bench --op "$1" --shape "$2" --world "$w" --reserve-sms "$reserve" --iters 20 --json \
          > "$out/tp-bench-$1-$2-w$w-r$reserve.json" 2>>"$out/tp-bench.err"
        rc=$?; [ "$rc" = 0 ] || status=1
        log "tp-bench --op $1 --shape $2 --world $w --reserve-sms $reserve rc=$rc"
      done
    done
  done
done
if python3 -c 'import torch' 2>/dev/null; then
  PYTHONPATH="$PWD/python" TILEGEMM_LIBRARY="$PWD/$lib" timeout 900 python3 tests/python/test_distributed_gpu.py --bench \
    > "$out/torch-distributed.txt" 2>&1; rc=$?
  log "test_distributed_gpu.py --bench rc=$rc"; [ "$rc" = 0 ] || status=1
fi
log "tp-sweep status=$status"
exit $status
