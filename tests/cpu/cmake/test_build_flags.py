"""Compile flags of this build (ctest build_flags, label cpu), read from compile_commands.json:
ptxas prints its register/spill report (-Xptxas -v) only when TILEGEMM_PTXAS_VERBOSE=ON, for every
CUDA file or for none (src/ladder/CMakeLists.txt once forced it, ~100 'ptxas info' lines per build).

  python3 tests/cpu/cmake/test_build_flags.py <build dir> <ON|OFF>"""
import json
import os
import re
import sys

VERBOSE = re.compile(r"(-Xptxas[= ]-v\b|--ptxas-options[= ]-v\b|-Xptxas[= ]--verbose\b)")


def main():
    build, verbose = sys.argv[1], sys.argv[2].upper() in ("ON", "1", "TRUE", "YES")
    with open(os.path.join(build, "compile_commands.json")) as f:
        commands = [c for c in json.load(f) if c["file"].endswith(".cu")]
    if not commands:
        print("FAIL: no .cu file in compile_commands.json")
        return 1
    wrong = [c["file"] for c in commands if bool(VERBOSE.search(c["command"])) != verbose]
    for f in wrong:
        print(f"FAIL: {f}: -Xptxas -v is {'missing' if verbose else 'present'} with TILEGEMM_PTXAS_VERBOSE={sys.argv[2]}")
    print(f"{len(commands) - len(wrong)} passed, {len(wrong)} failed")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
