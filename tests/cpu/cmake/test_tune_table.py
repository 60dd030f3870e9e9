#!/usr/bin/env python3
"""scripts/tune_table.py over the H100 records kept in bench/measurements/: every problem printed,
its rows fastest first with the first 0.0 % behind, the model's pick marked once, the regret line
recomputed from the JSON; --top and --shape cut; a file that is not tune JSON exits 2."""
import json
import math
import os
import subprocess
import sys
import tempfile

root = sys.argv[1]
script = os.path.join(root, "scripts", "tune_table.py")
record = os.path.join(root, "bench", "measurements", "h100-2026-12-05-tune-odd-625b92c.json")


def run(*args):
    return subprocess.run([sys.executable, script, *args], capture_output=True, text=True)


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


out = run(record)
if out.returncode != 0:
    fail(f"exit {out.returncode}: {out.stderr}")
doc = json.load(open(record))
blocks = out.stdout.split("\n")
headers = [i for i, line in enumerate(blocks) if "(" + record in line]
if len(headers) != len(doc["results"]):
    fail(f"{len(headers)} problems printed, {len(doc['results'])} in the file")
regrets = []
for h, r in zip(headers, doc["results"]):
    name = f"{r['m']}x{r['n']}x{r['k']}"
    if not blocks[h].startswith(name):
        fail(f"problem {name} printed as {blocks[h]!r}")
    rows = []
    for line in blocks[h + 2:]:
        if not line.startswith(("   ", " * ")):
            break
        rows.append(line)
    n_measured = sum(1 for c in r["candidates"] if isinstance(c.get("measured_us"), (int, float)))
    if len(rows) != n_measured:
        fail(f"{name}: {len(rows)} rows, {n_measured} measured configs")
    times = [float(line.split()[-3]) for line in rows]
    if times != sorted(times):
        fail(f"{name}: not fastest first: {times}")
    if rows[0].split()[-2] != "0.0%":
        fail(f"{name}: first row not 0.0 % behind: {rows[0]!r}")
    if sum(1 for line in rows if line.startswith(" * ")) != 1:
        fail(f"{name}: the model's pick not marked exactly once")
    best = min(c["measured_us"] for c in r["candidates"] if isinstance(c.get("measured_us"), (int, float)))
    regrets.append(r["model"]["measured_us"] / best - 1)
g = math.exp(sum(math.log1p(x) for x in regrets) / len(regrets)) - 1
want = f"geomean {100 * g:.1f} %, max {100 * max(regrets):.1f} %"
if want not in out.stdout:
    fail(f"regret line: want {want!r} in {out.stdout.splitlines()[-1]!r}")

top = run(record, "--top", "2", "--shape", "7001x3001")
if top.returncode != 0 or top.stdout.count("(" + record) != 1:
    fail(f"--shape 7001x3001 printed {top.stdout.count('(' + record)} problems")
if len([line for line in top.stdout.splitlines() if line[:3] in ("   ", " * ") and "config" not in line]) != 2:
    fail("--top 2 printed another number of rows")

with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
    json.dump({"schema": "tilegemm.bench/1"}, f)
bad = run(f.name)
os.unlink(f.name)
if bad.returncode != 2 or "not tilegemm.tune/1" not in bad.stderr:
    fail(f"a bench file: exit {bad.returncode}, {bad.stderr!r}")
print("tune_table.py: ok")
