#!/usr/bin/env python3
"""Summarise Nsight Compute's source page (SASS view, exported with
`ncu --import R.ncu-rep --page source --csv --print-source sass`) for one kernel:

  - the kernel's stall samples by reason (the `stall_*` columns; the "(Not Issued)" ones left out);
  - instructions executed and stall samples by opcode (`STG`, `LDS`, `HGMMA`, `BRA`, ... with the
    modifiers dropped and a predicate ignored), each opcode's leading stall reasons beside it;
  - the SASS lines with the most stall samples and with the most warp instructions executed.

Stall samples are sparse per line (a few thousand for a whole 30-us kernel), so the totals by
reason and by opcode are what to read first; the line lists then say where. Used by
scripts/ncu-sass.sh; tested by tests/cpu/cmake/test_ncu_sass_report.py.

  python3 scripts/ncu_sass_report.py SASS.csv [--top N]"""
import argparse
import collections
import csv
import re
import sys

SAMPLES = "Warp Stall Sampling (All"
INSTRUCTIONS = "Instructions Executed"


class Report:
    def __init__(self, rows):
        head = next((i for i, r in enumerate(rows) if any(c.strip() == "Source" for c in r)), None)
        if head is None:
            raise ValueError("no 'Source' column")
        self.cols = [c.strip() for c in rows[head]]
        self.src = self.col("Source")
        self.addr = self.col("Address")
        self.samples = self.col(SAMPLES)
        self.instructions = self.col(INSTRUCTIONS, exclude="Thread")
        if self.samples is None and self.instructions is None:
            raise ValueError("neither stall samples nor instructions executed among: " + ", ".join(self.cols))
        self.reasons = [(c[len("stall_"):], i) for i, c in enumerate(self.cols)
                        if c.startswith("stall_") and "Not Issued" not in c]
        self.body = [r for r in rows[head + 1:] if len(r) > self.src]

    def col(self, key, exclude=None):
        for i, c in enumerate(self.cols):
            if c.startswith(key) and (exclude is None or exclude not in c):
                return i
        return None

    @staticmethod
    def num(r, i):
        if i is None or i >= len(r):
            return 0.0
        try:
            return float(r[i].replace(",", ""))
        except ValueError:
            return 0.0

    def total(self, i):
        return sum(self.num(r, i) for r in self.body)

    def by_reason(self):
        """{reason: samples} over the kernel, largest first, zeros left out."""
        totals = {name: self.total(i) for name, i in self.reasons}
        return dict(sorted(((k, v) for k, v in totals.items() if v), key=lambda kv: -kv[1]))

    @staticmethod
    def opcode(source):
        """'@!P1 STG.E.U16 desc[UR32][R14.64], R13' -> 'STG'."""
        words = source.strip().split()
        if words and re.fullmatch(r"@!?U?P[T0-9]+", words[0]):
            words = words[1:]
        return words[0].split(".")[0] if words else ""

    def by_opcode(self):
        """[(opcode, instructions, samples, {reason: samples})], most instructions first."""
        acc = collections.defaultdict(lambda: [0.0, 0.0, collections.Counter()])
        for r in self.body:
            a = acc[self.opcode(r[self.src])]
            a[0] += self.num(r, self.instructions)
            a[1] += self.num(r, self.samples)
            for name, i in self.reasons:
                a[2][name] += self.num(r, i)
        out = [(op, v[0], v[1], +v[2]) for op, v in acc.items()]
        return sorted(out, key=lambda t: (-t[1], -t[2], t[0]))

    def print(self, top, out=sys.stdout):
        samples, instructions = self.total(self.samples), self.total(self.instructions)
        print(f"== kernel: {instructions:,.0f} warp instructions executed, {samples:,.0f} stall samples", file=out)
        reasons = self.by_reason()
        if reasons:
            print("== stall samples by reason: " + ", ".join(
                f"{k} {v:,.0f} ({100 * v / (samples or 1):.0f} %)" for k, v in reasons.items()), file=out)
        print("== by opcode: warp instructions executed, stall samples, leading reasons", file=out)
        for op, n, s, rs in self.by_opcode()[:top]:
            lead = ", ".join(f"{k} {v:,.0f}" for k, v in rs.most_common(3))
            print(f"{op:>12} {n:14,.0f} {100 * n / (instructions or 1):5.1f} % {s:8,.0f} {100 * s / (samples or 1):5.1f} %  {lead}",
                  file=out)
        for name, i in (("stall samples", self.samples), ("warp instructions executed", self.instructions)):
            if i is None:
                continue
            total = self.total(i) or 1.0
            print(f"== top {top} SASS lines by {name} (total {total:,.0f})", file=out)
            for r in sorted(self.body, key=lambda r: -self.num(r, i))[:top]:
                where = r[self.addr].strip() if self.addr is not None else ""
                print(f"{self.num(r, i):12,.0f} {100 * self.num(r, i) / total:5.1f} %  {where:>8}  {r[self.src].strip()}",
                      file=out)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", help="the source page exported as CSV (SASS view)")
    ap.add_argument("--top", type=int, default=40, help="lines and opcodes listed (default 40)")
    args = ap.parse_args(argv)
    if args.top < 1:
        ap.error("--top must be at least 1")
    try:
        with open(args.csv, newline="") as f:
            report = Report(list(csv.reader(f)))
    except (OSError, ValueError) as e:
        sys.exit(f"ncu_sass_report.py: {args.csv}: {e}")
    report.print(args.top)


if __name__ == "__main__":
    main(sys.argv[1:])
