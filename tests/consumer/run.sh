#!/usr/bin/env bash
# The installed package, used the way a consumer uses it (ctest consumer_projects, label cpu):
#   1. `cmake --install` the build into a fresh prefix; the headers, both libraries and the CMake
#      package must be there, and libtilegemm.so must need no libcuda and nothing outside the CUDA
#      toolkit and the C/C++ runtime;
#   2. build tests/consumer/cpp (C++17; tilegemm::tilegemm and tilegemm::tilegemm_static) and
#      tests/consumer/c (C99, linked by the C compiler) with find_package(tilegemm) against that
#      prefix, and run them: validate() good and bad, then the device check (no_device without a
#      GPU, exit 0);
#   3. configure tests/consumer/subdir, which adds the source tree with add_subdirectory(), with
#      GTest and CLI11 made unfindable (CMAKE_DISABLE_FIND_PACKAGE_*).
# Usage: run.sh <tilegemm build dir> <scratch dir>
set -euo pipefail
build=$(cd "$1" && pwd)
work=$2
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../.." && pwd)
rm -rf "$work" && mkdir -p "$work"
prefix="$work/prefix"
fail() { echo "consumer_projects: FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >"$work/install.log" || { cat "$work/install.log"; fail "cmake --install"; }
libdir="$prefix/lib"
[ -d "$libdir" ] || libdir="$prefix/lib64"
for f in include/tilegemm/tilegemm.h include/tilegemm/tilegemm.hpp include/tilegemm/types.hpp; do
  [ -f "$prefix/$f" ] || fail "$f is not installed"
done
for f in libtilegemm.a libtilegemm.so cmake/tilegemm/tilegemmConfig.cmake cmake/tilegemm/tilegemmConfigVersion.cmake \
         cmake/tilegemm/tilegemmTargets.cmake; do
  [ -e "$libdir/$f" ] || fail "${libdir#"$prefix"/}/$f is not installed"
done
echo "installed: $(cd "$prefix" && find . -type f -o -type l | sort | tr '\n' ' ')"

# What a binary loads at start-up: never libcuda (the driver is reached through
# cudaGetDriverEntryPointByVersion), and for the library nothing but NVRTC and the C/C++ runtime.
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
check_no_libcuda() {
  if needed "$1" | grep -q '^libcuda\.so'; then fail "$1 links libcuda"; fi
}
lib_so=$(readlink -f "$libdir/libtilegemm.so")
check_no_libcuda "$lib_so"
for n in $(needed "$lib_so"); do
  case "$n" in
    libnvrtc.so.*|libstdc++.so.*|libm.so.*|libgcc_s.so.*|libc.so.*|ld-linux*|libpthread.so.*|libdl.so.*|librt.so.*) ;;
    *) fail "libtilegemm.so needs $n, which is neither the CUDA toolkit's NVRTC nor the C/C++ runtime" ;;
  esac
done
echo "libtilegemm.so needs: $(needed "$lib_so" | tr '\n' ' ')"
extra_exports=$(nm -D --defined-only "$lib_so" | awk '{print $3}' | grep -v -E '^(tg_|_ZN8tilegemm)' || true)
[ -z "$extra_exports" ] || fail "libtilegemm.so exports more than the public API (cmake/tilegemm.map): $extra_exports"

configure_build() {  # <source> <build>
  cmake -S "$1" -B "$2" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >"$2.log" 2>&1 &&
    cmake --build "$2" -j2 >>"$2.log" 2>&1 || { cat "$2.log"; fail "building $1"; }
}
configure_build "$here/cpp" "$work/cpp"
configure_build "$here/c" "$work/c"
# The C consumer is linked by the C compiler driver (its link line starts with CMAKE_C_COMPILER).
c_compiler=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$work/c/CMakeCache.txt")
[ "$(awk '{print $1; exit}' "$work/c/CMakeFiles/consumer_c.dir/link.txt")" = "$c_compiler" ] ||
  fail "consumer_c was not linked by the C compiler ($c_compiler): $(cat "$work/c/CMakeFiles/consumer_c.dir/link.txt")"

for exe in "$work/cpp/consumer_cpp_shared" "$work/cpp/consumer_cpp_static" "$work/c/consumer_c"; do
  check_no_libcuda "$exe"
  echo "--- $(basename "$exe")"
  "$exe" || fail "$(basename "$exe") exited $?"
done
if needed "$work/cpp/consumer_cpp_static" | grep -q '^libtilegemm'; then
  fail "consumer_cpp_static loads libtilegemm.so: the static archive was not used"
fi

cmake -S "$here/subdir" -B "$work/subdir" -DTILEGEMM_SOURCE_DIR="$source_dir" \
  -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_DISABLE_FIND_PACKAGE_CLI11=ON >"$work/subdir.log" 2>&1 ||
  { cat "$work/subdir.log"; fail "add_subdirectory() consumer did not configure without GTest and CLI11"; }
grep 'tilegemm consumer (add_subdirectory)' "$work/subdir.log"
echo "consumer_projects: all passed"
