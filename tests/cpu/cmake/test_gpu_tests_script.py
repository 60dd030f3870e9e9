"""scripts/gpu-tests.sh without a GPU (ctest gpu_tests_script, label cpu): a stand-in for test_gpu
that prints gtest's result lines and honours --gtest_filter, GTEST_TOTAL_SHARDS and
GTEST_SHARD_INDEX is run through the script, which must run the timing suites alone first, give
every other test to exactly one shard, report a failing test and exit non-zero, pass the binary's
77 (no SM90 GPU) through, and refuse a bad shard count.

  python3 tests/cpu/cmake/test_gpu_tests_script.py <source dir>"""
import os
import re
import subprocess
import sys
import tempfile

# The stand-in: a fixed test list; a test named in $FAKE_FAIL fails; $FAKE_EXIT replaces the run.
FAKE = r'''#!/usr/bin/env python3
import fnmatch, os, sys
TESTS = ["Timer.SaneNumbers", "CuptiTimer.Spin", "Runner.Checks", "TuningGpu.Tune",
         "ApiGpu.A", "ApiGpu.B", "CoverageGpu.C", "CoverageGpu.D", "Sm90PathGpu.E", "JitGpu.F", "TraceGpu.G"]
if os.environ.get("FAKE_EXIT"):
    print("skipped: no SM90 GPU"); sys.exit(int(os.environ["FAKE_EXIT"]))
flt = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--gtest_filter=")), "*")
pos, _, neg = flt.partition("-")
match = lambda t, pats: any(fnmatch.fnmatchcase(t, p) for p in pats.split(":") if p)
chosen = [t for t in TESTS if match(t, pos or "*") and not match(t, neg)]
total, index = int(os.environ.get("GTEST_TOTAL_SHARDS", "1")), int(os.environ.get("GTEST_SHARD_INDEX", "0"))
chosen = [t for i, t in enumerate(chosen) if i % total == index]
failed = [t for t in chosen if t == os.environ.get("FAKE_FAIL")]
with open(os.environ["FAKE_LOG"], "a") as log:
    for t in chosen:
        log.write(f"{total} {index} {t}\n")
for t in chosen:
    print(f"[ RUN      ] {t}")
    print(f"[  FAILED  ] {t} (2 ms)" if t in failed else f"[       OK ] {t} (2 ms)")
if failed:
    print(f"[  FAILED  ] {len(failed)} test, listed below:")
    for t in failed:
        print(f"[  FAILED  ] {t}")
sys.exit(1 if failed else 0)
'''

SERIAL = {"Timer.SaneNumbers", "CuptiTimer.Spin", "Runner.Checks", "TuningGpu.Tune"}
REST = {"ApiGpu.A", "ApiGpu.B", "CoverageGpu.C", "CoverageGpu.D", "Sm90PathGpu.E", "JitGpu.F", "TraceGpu.G"}


def run(script, tmp, args, **env):
    log = os.path.join(tmp, "runs.txt")
    if os.path.exists(log):
        os.remove(log)
    e = dict(os.environ, TEST_BIN=os.path.join(tmp, "fake_test_gpu"), OUT=os.path.join(tmp, "out"), FAKE_LOG=log,
             TILEGEMM_CACHE_DIR=os.path.join(tmp, "cache"), **env)
    p = subprocess.run(["bash", script, tmp] + args, env=e, capture_output=True, text=True, timeout=60)
    runs = [l.split(" ", 2) for l in open(log).read().splitlines()] if os.path.exists(log) else []
    return p, runs


def main():
    script = os.path.join(sys.argv[1], "scripts", "gpu-tests.sh")
    failures = []

    def check(cond, what):
        if not cond:
            failures.append(what)
            print("FAIL:", what)

    with tempfile.TemporaryDirectory() as tmp:
        fake = os.path.join(tmp, "fake_test_gpu")
        with open(fake, "w") as f:
            f.write(FAKE)
        os.chmod(fake, 0o755)

        p, runs = run(script, tmp, ["3"])
        check(p.returncode == 0, f"all passing: exit 0, got {p.returncode}\n{p.stdout}{p.stderr}")
        serial = [t for total, _, t in runs if total == "1"]
        sharded = [(int(i), t) for total, i, t in runs if total == "3"]
        check(set(serial) == SERIAL, f"the timing suites run alone, unsharded: {serial}")
        check(sorted(t for _, t in sharded) == sorted(REST), f"every other test in exactly one shard: {sharded}")
        check({i for i, _ in sharded} == {0, 1, 2}, f"three shards ran: {sharded}")
        check(re.search(r"^serial: rc=0 passed=4 failed=0", p.stdout, re.M) is not None, "serial summary line")
        passed = sum(int(m) for m in re.findall(r"^shard\d: rc=0 passed=(\d+)", p.stdout, re.M))
        check(passed == len(REST), f"the shards' summaries count {passed} passed, want {len(REST)}")

        p, _ = run(script, tmp, ["2"], FAKE_FAIL="CoverageGpu.D")
        check(p.returncode == 1, f"a failing test: exit 1, got {p.returncode}")
        check("[  FAILED  ] CoverageGpu.D (2 ms)" in p.stdout, f"the failing test is named:\n{p.stdout}")

        p, _ = run(script, tmp, ["2"], FAKE_FAIL="Runner.Checks")
        check(p.returncode == 1, f"a failing timing test: exit 1, got {p.returncode}")

        p, runs = run(script, tmp, ["2", "ApiGpu.*:TraceGpu.*"])
        check(p.returncode == 0, f"a filter: exit 0, got {p.returncode}")
        check(sorted(t for _, _, t in runs) == ["ApiGpu.A", "ApiGpu.B", "TraceGpu.G"], f"a filter runs its tests only: {runs}")

        p, _ = run(script, tmp, ["2"], FAKE_EXIT="77")
        check(p.returncode == 77 and "no SM90 GPU" in p.stdout, f"no GPU: exit 77, got {p.returncode}")
        p, _ = run(script, tmp, ["2", "ApiGpu.*"], FAKE_EXIT="77")
        check(p.returncode == 77, f"no GPU with a filter: exit 77, got {p.returncode}")

        for bad in ("0", "x", "-1"):
            p, _ = run(script, tmp, [bad])
            check(p.returncode == 2 and "SHARDS" in p.stderr, f"SHARDS={bad}: exit 2 naming SHARDS, got {p.returncode}")

    print(f"{'FAILED' if failures else 'passed'}: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
