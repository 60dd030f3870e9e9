#!/usr/bin/env python3
"""Refit the time model's mainloop and epilogue constants to measured configurations.

Input: the JSON of `tilegemm tune --json` (schema tilegemm.tune/1), one or more files, measured
on the GPU. For every measured (problem, config) pair this script asks `tilegemm explain --config
SPEC --json` (CPU only) for the model's terms with the constants the binary was built with, then
re-evaluates the prediction for other values of the constants the measurements are most
sensitive to (src/plan/cost_model.hpp):

  efficiency = PEAK / (1 + (HALF / BN)^4), x ONE_CONSUMER for BM = 64   (the tensor term)
  epilogue   = the built-in term + TILE_US per stored tile (cooperative consumers; ping-pong
               hides it behind the other consumer's mainloop)
  fixed      = FIXED_US per kernel;  fixup = the built-in k-split term x FIXUP
  l2         = the built-in TMA-feed term / TMA (the per-SM TMA rate scaled by TMA)
  limits     = the P-norm of (l2, local, hbm x HBM, tensor) over the terms within FLOOR of the
               largest (P = 0: their maximum); a second grid varies HBM, P and FLOOR alone

and prints, for a grid of values, the median |predicted - measured| / measured and the regret of
the pick (the first by the planner's ranking among the measured configs of a problem -- the fastest
predicted, a k-split's time counted kKSplitMargin higher -- against the fastest measured). Usage:

  scripts/fit_time_model.py --tilegemm build/cli/tilegemm tune_llm.json [tune_llama.json ...]
"""
import argparse
import itertools
import json
import math
import statistics
import subprocess
import sys


NORM_FLOOR = 0.75  # cost_model.cpp: a term under this share of the largest is not in the norm


def device_of(doc):
    """The builtin profile of the GPU that measured a tune file (its device name): h100 or h200."""
    return "h100" if "H100" in doc.get("device", {}).get("name", "") else "h200"


def explain_terms(tilegemm, m, n, k, layout, out_dtype, beta, spec, device):
    args = [tilegemm, "explain", str(m), str(n), str(k), "--layout", layout, "--out", out_dtype, "--config", spec,
            "--device", device, "--json"]
    if beta is not None:
        args += ["--beta", str(beta)]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    doc = json.loads(out)
    cand = doc["user_config"]["candidate"]
    # (the binary's ranking: a k-split's predicted time counted ksplit_margin higher, planner.hpp)
    return cand["config"], cand["time"], cand["seed"], doc["device"]["limit_norm_p"], doc.get("ksplit_margin", 0.0)


def load(tilegemm, files):
    """Each record as tune measured it: its output dtype and C (beta) too, which key its problem."""
    rows = []
    for f in files:
        doc = json.load(open(f))
        for r in doc["results"]:
            out_dtype = r.get("out", doc["options"].get("out", "bf16"))
            beta = r.get("beta", doc["options"].get("beta"))
            for c in r["candidates"]:
                if c.get("measured_us") is None:
                    continue
                cfg, t, seed, norm_p, margin = explain_terms(tilegemm, r["m"], r["n"], r["k"], r["layout"], out_dtype, beta,
                                                             c["config"], device_of(doc))
                rows.append({"problem": (f, r["m"], r["n"], r["k"], r["layout"], out_dtype, beta), "spec": c["config"],
                             "cfg": cfg, "t": t, "seed": seed, "norm_p": norm_p, "margin": margin,
                             # (the kernel's time: tune's measured call includes route's copies before it)
                             "measured": c["measured_us"] - c.get("copies_us", 0.0)})
    return rows


def limits(terms, p, floor):
    top = max(terms)
    if p == 0 or top <= 0:
        return top
    return top * sum((x / top) ** p for x in terms if x >= floor * top) ** (1.0 / p)


def built_cluster_scale(t, cfg):
    """The binary's cluster factor, as it divided the time (1 without a cluster)."""
    if cfg["cluster_m"] * cfg["cluster_n"] == 1:
        return 1.0
    return t["predicted_us"] / (t["limits_us"] + t["epilogue_us"] + t.get("c_us", 0.0) + t["fixed_us"] + t["fixup_us"])


def predict(row, peak, half, one_consumer, tile_us, fixed_us, fixup, tma=1.0):
    cfg, t = row["cfg"], row["t"]
    bn, bm = cfg["bn"], cfg["bm"]
    eff = peak / (1 + (half / bn) ** 4) * (one_consumer if bm < 128 else 1.0)
    tc = t["tc_us"] * t["efficiency"] / eff
    worst = limits([t["l2_us"] / tma, t["local_us"], t["hbm_us"], tc], row["norm_p"], NORM_FLOOR)
    epi = t["epilogue_us"]
    ksplit = cfg["stream_k"]
    if not cfg["pingpong"] and not ksplit:
        epi += tile_us * row["seed"]["num_waves"] * (1 if cfg["persistent"] else 2)
    return (worst + epi + t.get("c_us", 0.0) + fixed_us + t["fixup_us"] * fixup) * built_cluster_scale(t, cfg)


def predict_built(row, hbm, p, floor):
    """The binary's own terms with only the HBM rate and the norm of the limits changed."""
    t, cfg = row["t"], row["cfg"]
    worst = limits([t["l2_us"], t["local_us"], t["hbm_us"] * hbm, t["tc_us"]], p, floor)
    return (worst + t["epilogue_us"] + t.get("c_us", 0.0) + t["fixed_us"] + t["fixup_us"]) * built_cluster_scale(t, cfg)


def score(rows, model):
    errors, regrets = [], []
    by_problem = {}
    for r in rows:
        p = model(r)
        errors.append(abs(p - r["measured"]) / r["measured"])
        rank = p * (1 + r["margin"] if r["cfg"]["stream_k"] else 1)
        # (ties as the planner breaks them: the seed score next, never the measured time)
        by_problem.setdefault(r["problem"], []).append((rank, r["seed"]["score"], r["measured"]))
    for pairs in by_problem.values():
        pick = min(pairs, key=lambda x: x[:2])[2]
        best = min(x[2] for x in pairs)
        regrets.append(pick / best - 1)
    geo = math.expm1(sum(math.log1p(x) for x in regrets) / len(regrets))
    return statistics.median(errors), geo, max(regrets), statistics.mean(errors)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tilegemm", default="build/cli/tilegemm")
    ap.add_argument("--top", type=int, default=15, help="best parameter sets printed")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    rows = load(a.tilegemm, a.files)
    print(f"{len(rows)} measured (problem, config) pairs over {len({r['problem'] for r in rows})} problems")
    med, geo, worst, mean = score(rows, lambda r: r["t"]["predicted_us"])
    print(f"as built: median error {100 * med:.1f}% (mean {100 * mean:.1f}%), regret geomean {100 * geo:.2f}%, "
          f"max {100 * worst:.1f}%")
    grid = itertools.product([0.80, 0.82, 0.84, 0.86, 0.88], [0, 40, 50, 55, 60, 65, 70], [0.75, 0.8, 0.85, 0.9, 0.95, 1.0],
                             [0.0, 0.5, 1.0], [4.0, 5.0], [0.75, 1.0], [1.0, 1.1, 1.2, 1.3])
    results = []
    for params in grid:
        med, geo, worst, mean = score(rows, lambda r: predict(r, *params))
        results.append((mean + geo, med, mean, geo, worst, params))  # mean, not median: outliers count
    results.sort()
    print("peak half one_consumer tile_us fixed_us fixup tma | median (mean) error | regret geomean | regret max")
    for _, med, mean, geo, worst, p in results[:a.top]:
        print(f"{p[0]:.2f} {p[1]:>3} {p[2]:.2f} {p[3]:.2f} {p[4]:.1f} {p[5]:.2f} {p[6]:.1f} | {100 * med:.1f}% ({100 * mean:.1f}%) | "
              f"{100 * geo:.2f}% | {100 * worst:.1f}%")
    # The HBM rate and the norm of the limits, the other constants as built (the built-in
    # mainloop efficiency 0.88 * BN / (BN + 10) is not of the form above, so the built-in terms
    # are rescaled directly: HBM multiplies the hbm term, e.g. 4.3 / 3.75 = 1.147 for 3.75 TB/s in
    # a binary built with 4.3).
    results = []
    for hbm, p, floor in itertools.product([0.87, 0.93, 1.0, 1.07, 1.147], [0, 8, 12, 16, 24], [0.0, 0.5, 0.75, 0.85]):
        if p == 0 and floor > 0:
            continue
        med, geo, worst, mean = score(rows, lambda r: predict_built(r, hbm, p, floor))
        results.append((mean + geo, med, mean, geo, worst, (hbm, p, floor)))
    results.sort()
    print("HBM P FLOOR (other constants as built) | median (mean) error | regret geomean | regret max")
    for _, med, mean, geo, worst, p in results[:a.top]:
        print(f"{p[0]:.3f} {p[1]:>2} {p[2]:.2f} | {100 * med:.1f}% ({100 * mean:.1f}%) | {100 * geo:.2f}% | {100 * worst:.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
