#!/usr/bin/env python3
"""Every configuration `tilegemm tune --json` measured, per problem, fastest first.

`tune` prints the model's pick and the fastest per problem; its JSON (schema tilegemm.tune/1)
holds every measured configuration with its predicted time. This prints them all:

  scripts/tune_table.py FILE... [--top N] [--shape SUBSTRING]

Per problem (M x N x K, layout, output dtype, +C when beta was given, the file): one row per
measured configuration, fastest first: '*' marks the model's pick in that run, then the label,
the model's rank, the predicted time (with route's operand copies, `copies_us`, which the measured
time includes), the measured time, how far behind the fastest it ran and the model's error. Then
the regret of the model's pick (t(pick) / t(fastest) - 1) over the problems: geomean and max.

  scripts/tune_table.py A.json --against B.json [--shape SUBSTRING]

compares two runs instead (e.g. two builds timed in one call): one row per (problem, config)
measured in both, A's time, B's, B / A - 1; then the geomean of B / A over those rows.
Exit 2 on a file that is not tune JSON.
"""
import argparse
import json
import math
import sys


def problem_name(r):
    beta = r.get("beta")
    return f"{r['m']}x{r['n']}x{r['k']} {r.get('layout', 'nt')} {r.get('out', 'bf16')}" + (" +C" if beta else "")


def measured(r):
    """The candidates with a measured time, fastest first."""
    rows = [c for c in r.get("candidates", []) if isinstance(c.get("measured_us"), (int, float))]
    return sorted(rows, key=lambda c: c["measured_us"])


def load(path):
    """The tune JSON document at path, or None (after a message) when it is not one."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"tune_table.py: {path}: {e}", file=sys.stderr)
        return None
    if not isinstance(doc, dict) or doc.get("schema") != "tilegemm.tune/1":
        print(f"tune_table.py: {path}: not tilegemm.tune/1 JSON (schema {doc.get('schema') if isinstance(doc, dict) else None!r})",
              file=sys.stderr)
        return None
    return doc


def times_by_config(doc, shape):
    """{(problem, config label): measured us} of a tune document, in its order."""
    out = {}
    for r in doc.get("results", []):
        name = problem_name(r)
        if shape and shape not in name:
            continue
        for c in measured(r):
            out[(name, c.get("label", c.get("config", "?")))] = c["measured_us"]
    return out


def compare(a_path, b_path, shape):
    a_doc, b_doc = load(a_path), load(b_path)
    if a_doc is None or b_doc is None:
        return 2
    a, b = times_by_config(a_doc, shape), times_by_config(b_doc, shape)
    both = [key for key in a if key in b]
    print(f"{'problem':<24} {'config':<64} {'A us':>8} {'B us':>8} {'B/A-1':>7}   (A {a_path}, B {b_path})")
    for name, label in both:
        ta, tb = a[(name, label)], b[(name, label)]
        print(f"{name:<24} {label[:64]:<64} {ta:>8.1f} {tb:>8.1f} {100 * (tb / ta - 1):>+6.1f}%")
    if both:
        g = math.exp(sum(math.log(b[key] / a[key]) for key in both) / len(both))
        print(f"geomean B / A over {len(both)} config(s) measured in both: {g:.3f}")
    else:
        print("no (problem, config) measured in both files")
    return 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", help="tilegemm tune --json output (schema tilegemm.tune/1)")
    ap.add_argument("--top", type=int, default=0, help="rows per problem (0: all)")
    ap.add_argument("--shape", default="", help="only problems whose name contains this (e.g. 4000x4000)")
    ap.add_argument("--against", default="", metavar="B.json",
                    help="compare with another run: the times of every (problem, config) in both files")
    args = ap.parse_args(argv)
    if args.against:
        if len(args.files) != 1:
            print("tune_table.py: --against compares exactly one FILE with B.json", file=sys.stderr)
            return 2
        return compare(args.files[0], args.against, args.shape)

    regrets = []
    for path in args.files:
        doc = load(path)
        if doc is None:
            return 2
        gpu = doc.get("device", {}).get("name", "?")
        for r in doc.get("results", []):
            name = problem_name(r)
            if args.shape and args.shape not in name:
                continue
            rows = measured(r)
            if not rows:
                continue
            best = rows[0]["measured_us"]
            pick = (r.get("model") or {}).get("label")
            print(f"{name}  ({path}, {gpu})")
            print(f"   {'config':<76} {'rank':>5} {'pred us':>8} {'meas us':>8} {'behind':>7} {'error':>7}")
            for c in rows[: args.top or None]:
                pred = c.get("predicted_us", 0.0)  # tune's prediction already includes copies_us
                err = (pred - c["measured_us"]) / c["measured_us"]
                mark = "*" if c.get("label") == pick else " "
                print(f" {mark} {c.get('label', c.get('config', '?'))[:76]:<76} {c.get('model_rank', 0):>5} {pred:>8.1f} "
                      f"{c['measured_us']:>8.1f} {100 * (c['measured_us'] / best - 1):>6.1f}% {100 * err:>+6.1f}%")
            picked = [c for c in rows if c.get("label") == pick]
            if picked:
                regrets.append(picked[0]["measured_us"] / best - 1)
    if regrets:
        g = math.exp(sum(math.log1p(x) for x in regrets) / len(regrets)) - 1
        print(f"regret of the model's pick over {len(regrets)} problem(s): geomean {100 * g:.1f} %, "
              f"max {100 * max(regrets):.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
