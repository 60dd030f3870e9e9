#!/usr/bin/env bash
# The Python package on the H200 (docs/PACKAGING.md): installs python/ offline next to the carried
# build's libtilegemm.so and runs the Python tests, logs under $OUT (or ./device-logs).
#   run(command="scripts/device-python.sh build", carry=["build/lib"])
# Usage: scripts/device-python.sh [build-dir] [--quick]
#   1. pip install --no-build-isolation --no-deps --no-index --target <scratch> ./python: a pure-Python
#      package, nothing to download or compile; if pip cannot (no setuptools there), python/ is put on
#      PYTHONPATH instead and the log says so;
#   2. TILEGEMM_LIBRARY = <build-dir>/lib/libtilegemm.so*: the package loads the library by path;
#   3. python -m tilegemm, tests/python/test_package_cpu.py, test_torch_cpu.py, test_torch_gpu.py
#      (suite, random layouts, stream, torch.compile, CUDA graph, errors, speed table ->
#      $OUT/python_speed.md and .json).
set -uo pipefail
build=${1:-build}
quick=${2:-}
out=${OUT:-./device-logs}
mkdir -p "$out"
py=${PYTHON:-python3}
status=0
log() { echo "== $*" | tee -a "$out/python-summary.txt"; }

lib=""
for f in "$build"/lib/libtilegemm.so "$build"/lib/libtilegemm.so.*; do
  if [ -f "$f" ]; then lib=$(cd "$(dirname "$f")" && pwd)/$(basename "$f"); break; fi
done
if [ -z "$lib" ]; then
  log "no libtilegemm.so under $build/lib: build the tilegemm_shared target and carry $build/lib"
  exit 2
fi
export TILEGEMM_LIBRARY=$lib
export TILEGEMM_CACHE_DIR=${TILEGEMM_CACHE_DIR:-$out/jit-cache}
log "$(date -u +%FT%TZ) build of commit $(cat "$build/COMMIT" 2>/dev/null || echo unknown); library $lib; $($py --version 2>&1)"

site=$(mktemp -d)
if $py -m pip install --no-build-isolation --no-deps --no-index --target "$site" ./python >"$out/python-install.log" 2>&1; then
  log "pip install --no-build-isolation --no-deps --no-index ./python: ok"
  export PYTHONPATH=$site
else
  log "pip install failed (python-install.log); using PYTHONPATH=python instead"
  export PYTHONPATH=$PWD/python
fi

run() {  # <name> <command...>: rc 0 pass, 77 skipped, else fail
  local name=$1; shift
  "$@" >"$out/$name.log" 2>&1
  local rc=$?
  tail -n 3 "$out/$name.log" | sed "s/^/   $name: /"
  log "$name rc=$rc"
  case $rc in 0|77) ;; *) status=1 ;; esac
}
run python-m-tilegemm $py -m tilegemm
run test_package_cpu $py tests/python/test_package_cpu.py -v
run test_torch_cpu $py tests/python/test_torch_cpu.py -v
run test_torch_gpu $py tests/python/test_torch_gpu.py --out "$out" $quick
[ -f "$out/python_speed.md" ] && cat "$out/python_speed.md"
log "device-python status=$status"
exit $status
