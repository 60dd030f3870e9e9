"""scripts/ncu_sass_report.py without a GPU (ctest ncu_sass_report, label cpu): a source-page CSV
written here in the shape Nsight Compute exports (a kernel-name line, then the header, numbers
with thousands separators, per-reason stall columns and their "(Not Issued)" twins) must give the
kernel's totals, the samples by reason without the not-issued columns, the instructions and samples
by opcode with predicates and modifiers dropped, the lines in order of samples and instructions;
a file without a Source column and a missing file are refused with exit status 1.

  python3 tests/cpu/cmake/test_ncu_sass_report.py <source dir>"""
import csv
import io
import os
import subprocess
import sys
import tempfile

HEADER = ["Address", "Source", "Warp Stall Sampling (All Samples)", "Warp Stall Sampling (Not-issued Samples)",
          "Instructions Executed", "Thread Instructions Executed", "stall_wait", "stall_selected",
          "stall_long_sb", "stall_wait (Not Issued)", "stall_selected (Not Issued)", "stall_long_sb (Not Issued)"]
# address, source, samples, not-issued samples, instructions, thread instructions, wait, selected, long_sb
LINES = [
    ("0x10", "      LDS R13, [R17+0x30000]", 5, 4, "4,096", "131,072", 1, 1, 3),
    ("0x20", "  @!P1  STG.E.U16 desc[UR32][R166.64], R13", 9, 8, "4,096", "65,536", 7, 2, 0),
    ("0x30", "      STG.E desc[UR32][R166.64+0x2], R13", 3, 2, "1,000", "32,000", 2, 1, 0),
    ("0x40", "  @P0   BRA 0x7fb63b7b5ca0", 20, 19, "2,000,000", "64,000,000", 0, 1, 19),
    ("0x50", "      HGMMA.64x128x16.F32.BF16 R24, gdesc[UR12], R24", 2, 1, "16,384", "524,288", 0, 2, 0),
    ("0x60", "  @!UP0 UIADD3 UR6, UR24, 0x1, URZ", 0, 0, "10", "320", 0, 0, 0),
]


def write_csv(path):
    buf = io.StringIO()
    w = csv.writer(buf, quoting=csv.QUOTE_ALL)
    w.writerow(["Kernel Name", "tilegemm_gemm"])
    w.writerow(HEADER)
    for a, src, s, ns, n, tn, wait, sel, lsb in LINES:
        # the not-issued twins carry different numbers: they must not be counted
        w.writerow([a, src, s, ns, n, tn, wait, sel, lsb, 100, 100, 100])
    with open(path, "w", newline="") as f:
        f.write(buf.getvalue())


def run(script, *args):
    return subprocess.run([sys.executable, script, *args], capture_output=True, text=True)


def main():
    src_dir = sys.argv[1]
    script = os.path.join(src_dir, "scripts", "ncu_sass_report.py")
    failures = []

    def check(cond, what):
        if not cond:
            failures.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "sass.csv")
        write_csv(path)
        r = run(script, path, "--top", "3")
        check(r.returncode == 0, f"exit status {r.returncode}: {r.stderr}")
        out = r.stdout
        check("== kernel: 2,025,586 warp instructions executed, 39 stall samples" in out, "kernel totals:\n" + out)
        check("== stall samples by reason: long_sb 22 (56 %), wait 10 (26 %), selected 7 (18 %)" in out,
              "reasons (not-issued columns left out, largest first):\n" + out)
        lines = out.splitlines()
        ops = lines[lines.index("== by opcode: warp instructions executed, stall samples, leading reasons") + 1:][:3]
        # BRA 2,000,000 first; HGMMA 16,384; then STG: two lines, 5,096 instructions and 12 samples
        check(ops[0].split()[:2] == ["BRA", "2,000,000"], "opcode order: " + repr(ops))
        check(ops[1].split()[:2] == ["HGMMA", "16,384"], "opcode order: " + repr(ops))
        check(ops[2].split()[:2] == ["STG", "5,096"] and "12" in ops[2].split() and "wait 9" in ops[2],
              "STG folds predicated and modified lines: " + repr(ops))
        check(not any(l.split()[:1] == ["LDS"] for l in ops), "--top 3 lists three opcodes: " + repr(ops))
        top = lines[lines.index("== top 3 SASS lines by stall samples (total 39)") + 1:][:3]
        check([l.split()[3] for l in top] == ["0x40", "0x20", "0x10"], "lines by samples: " + repr(top))
        top = lines[lines.index("== top 3 SASS lines by warp instructions executed (total 2,025,586)") + 1:][:3]
        check([l.split()[3] for l in top[:1]] == ["0x40"] and "HGMMA" in top[1], "lines by instructions: " + repr(top))

        bad = os.path.join(tmp, "bad.csv")
        with open(bad, "w") as f:
            f.write('"Address","Text"\n"0x10","LDS"\n')
        r = run(script, bad)
        check(r.returncode == 1 and "no 'Source' column" in r.stderr, f"no Source column: {r.returncode} {r.stderr}")
        r = run(script, os.path.join(tmp, "missing.csv"))
        check(r.returncode == 1 and "missing.csv" in r.stderr, f"missing file: {r.returncode} {r.stderr}")
        r = run(script, path, "--top", "0")
        check(r.returncode == 2 and "--top" in r.stderr, f"--top 0: {r.returncode} {r.stderr}")

    for f in failures:
        print("FAILED:", f)
    print(f"ncu_sass_report: {'ok' if not failures else f'{len(failures)} failure(s)'}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
