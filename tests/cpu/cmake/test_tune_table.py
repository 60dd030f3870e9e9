#!/usr/bin/env python3
"""scripts/tune_table.py over the H100 records kept in bench/measurements/: every problem printed,
its rows fastest first with the first 0.0 % behind, the model's pick marked once, the regret line
recomputed from the JSON; --top and --shape cut; --against compares two runs config by config (a
record against itself: every row +0.0 %, geomean 1.000; against a copy with one problem's times
scaled: those rows and the geomean as computed here); a file that is not tune JSON exits 2."""
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

same = run(record, "--against", record)
n_configs = sum(1 for r in doc["results"] for c in r["candidates"] if isinstance(c.get("measured_us"), (int, float)))
rows = [line for line in same.stdout.splitlines() if line.endswith("%")]
if same.returncode != 0 or len(rows) != n_configs or any(not line.endswith("+0.0%") for line in rows):
    fail(f"--against itself: exit {same.returncode}, {len(rows)} rows of {n_configs}, or a row not +0.0 %")
if f"geomean B / A over {n_configs} config(s) measured in both: 1.000" not in same.stdout:
    fail(f"--against itself: {same.stdout.splitlines()[-1]!r}")
scaled = json.loads(json.dumps(doc))
target = scaled["results"][0]
for c in target["candidates"]:
    if isinstance(c.get("measured_us"), (int, float)):
        c["measured_us"] *= 0.8
with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
    json.dump(scaled, f)
vs = run(record, "--against", f.name)
os.unlink(f.name)
n_target = sum(1 for c in target["candidates"] if isinstance(c.get("measured_us"), (int, float)))
want_g = math.exp(n_target * math.log(0.8) / n_configs)
if vs.returncode != 0 or sum(1 for line in vs.stdout.splitlines() if line.endswith("-20.0%")) != n_target:
    fail(f"--against a scaled copy: exit {vs.returncode}, not {n_target} rows at -20.0 %")
if f"measured in both: {want_g:.3f}" not in vs.stdout:
    fail(f"--against a scaled copy: want geomean {want_g:.3f} in {vs.stdout.splitlines()[-1]!r}")
if run(record, record, "--against", record).returncode != 2:
    fail("--against with two FILEs did not exit 2")

with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
    json.dump({"schema": "tilegemm.bench/1"}, f)
bad = run(f.name)
os.unlink(f.name)
if bad.returncode != 2 or "not tilegemm.tune/1" not in bad.stderr:
    fail(f"a bench file: exit {bad.returncode}, {bad.stderr!r}")
print("tune_table.py: ok")
