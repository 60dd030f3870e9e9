#!/usr/bin/env python3
"""Fit the time model's C-read term (src/plan/cost_model.cpp, "C's read") to paired measurements.

Input: `tilegemm tune --json` files measured with C (--beta 1) and one measured without C over the
same (shape, output, config) triples (`tune --shape S [--out fp32] --top 1 --config SPEC ...`, the
configs of the +C files). For every triple present in both, the target is the time C added beyond
what the binary's model adds (measured(C) - measured(no C)) - (predicted(C) - predicted(no C)), the
predictions taken from `tilegemm explain --config SPEC --json` with the binary's C term subtracted.
Features per busiest CTA (stores = tiles it stores):
  staged_tiles   stores of a staged epilogue                      -> c_tile_us
  direct_tiles   stores of the direct epilogue                    -> c_tile_direct_us
  direct_rows    stores x rows of C a consumer reads (row-major)  -> c_direct_line_us
  reload_us      cooperative: stores x reloaded box bytes / (HBM rate / SMs) -> 1 / c_reload share
  slot_rounds    cooperative, one slot: stores x (boxes - 1)      -> c_slot_round_us
Non-negative least squares weighted by 1 / measured; prints the coefficients and the regret of the
picks among the measured configs before and after. Usage:

  scripts/fit_c_term.py --tilegemm build/cli/tilegemm --noc NOC.json C1.json [C2.json ...]
"""
import argparse, collections, json, math, subprocess
import numpy as np


def explain(tg, m, n, k, out, beta, spec):
    cmd = [tg, "explain", str(m), str(n), str(k), "--config", spec, "--json", "--out", out]
    if beta is not None:
        cmd += ["--beta", str(beta)]
    doc = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    c = doc["user_config"]["candidate"]
    # (what the binary ranks by beside the time: the seed score, and a k-split's margin, planner.hpp)
    return dict(c["config"], seed_score=c["seed"]["score"], ksplit_margin=doc.get("ksplit_margin", 0.0)), c["time"]


def features(m, n, cfg, out, hbm, sms):
    ob = 4 if out == "fp32" else 2
    box = 128 // ob
    M, N = (n, m) if cfg["swap_ab"] else (m, n)
    stores = math.ceil(math.ceil(M / cfg["bm"]) * math.ceil(N / cfg["bn"]) / sms)
    staged = cfg["epilogue"] != "direct"
    boxes = math.ceil(cfg["bn"] / box)
    slots = max(1, cfg["stage_cols"] // box) if staged else boxes
    coop = staged and not cfg["pingpong"] and boxes > slots
    reload = (boxes - slots) * box * cfg["bm"] * ob / (hbm / sms) * 1e6 if coop else 0.0
    rows = 0 if cfg["swap_ab"] else min(64, M)
    return [stores if staged else 0, 0 if staged else stores, 0 if staged else stores * rows,
            stores * reload, stores * (boxes - 1) if coop and slots == 1 else 0]


def nnls(X, y, w):
    active = list(range(X.shape[1]))
    while True:
        coef = np.zeros(X.shape[1])
        coef[active] = np.linalg.lstsq(X[:, active] * w[:, None], y * w, rcond=None)[0]
        neg = [i for i in active if coef[i] < 0]
        if not neg:
            return coef
        active.remove(min(neg, key=lambda i: coef[i]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tilegemm", default="build/cli/tilegemm")
    ap.add_argument("--noc", required=True)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    noc = {}
    for r in json.load(open(a.noc))["results"]:
        for c in r["candidates"]:
            if c.get("measured_us"):
                noc[(r["m"], r["n"], r["k"], r["out"], c["config"])] = c["measured_us"]
    rows = []
    for f in a.files:
        for r in json.load(open(f))["results"]:
            for c in r["candidates"]:
                key = (r["m"], r["n"], r["k"], r["out"], c["config"])
                if not c.get("measured_us") or key not in noc:
                    continue
                cfg, t = explain(a.tilegemm, r["m"], r["n"], r["k"], r["out"], r["beta"], c["config"])
                _, t0 = explain(a.tilegemm, r["m"], r["n"], r["k"], r["out"], None, c["config"])
                rows.append(dict(key=key, cfg=cfg, meas=c["measured_us"], noc=noc[key],
                                 pred=t["predicted_us"] - t.get("c_us", 0.0), pred0=t0["predicted_us"], built=t["predicted_us"]))
    dev = json.loads(subprocess.run([a.tilegemm, "explain", "64", "64", "64", "--json"], check=True,
                                    capture_output=True, text=True).stdout)["device"]
    X = np.array([features(r["key"][0], r["key"][1], r["cfg"], r["key"][3], dev["hbm_bytes_per_s"], dev["sm_count"]) for r in rows], float)
    y = np.array([(r["meas"] - r["noc"]) - (r["pred"] - r["pred0"]) for r in rows])
    w = np.array([1 / r["meas"] for r in rows])
    coef = nnls(X, y, w)
    names = ["c_tile_us", "c_tile_direct_us", "c_direct_line_us", "reload share", "c_slot_round_us"]
    print(f"{len(rows)} paired (shape, config) measurements")
    for n_, v in zip(names, coef):
        print(f"  {n_:18} {v:.3f}")
    for label, pred in [("without the term", [r["pred"] for r in rows]), ("fitted", list(np.array([r["pred"] for r in rows]) + X @ coef)),
                        ("as built", [r["built"] for r in rows])]:
        by = collections.defaultdict(list)
        for r, p in zip(rows, pred):
            # (ranked as the planner does: a k-split's time ksplit_margin higher)
            margin = 1.0 + r["cfg"]["ksplit_margin"] if r["cfg"]["stream_k"] else 1.0
            by[r["key"][:4]].append((p * margin, r["cfg"]["seed_score"], r["meas"]))
        # (ties broken as the planner does, by the seed score, never by the measured time)
        regrets = [min(v, key=lambda x: x[:2])[2] / min(x[2] for x in v) - 1 for v in by.values()]
        err = sorted(abs(p - r["meas"]) / r["meas"] for r, p in zip(rows, pred))[len(rows) // 2]
        geo = math.expm1(sum(map(math.log1p, regrets)) / len(regrets))
        print(f"{label:18} regret geomean {100 * geo:.2f}% max {100 * max(regrets):.1f}%, median error {100 * err:.1f}%")


if __name__ == "__main__":
    main()
