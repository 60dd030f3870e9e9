"""`tilegemm trace` as a user runs it (ctest cli_trace, label cpu): usage errors exit 2 naming the
argument; without a Hopper GPU it says so and exits 3; `--decode` turns a buffer recorded on the
H200 (tests/cpu/trace/fixtures/) into Chrome-trace JSON and the HTML viewer with no GPU, and the
JSON holds what the buffer holds; with chromium on PATH the viewer is opened headless and what it
drew is checked against the JSON (stage rows, TMA and WGMMA bars, WAIT FULL / WAIT EMPTY marks).

  python3 tests/cpu/cli/test_cli_trace.py --tilegemm build/cli/tilegemm"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

TILEGEMM = None
HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "trace", "fixtures")
# The fixture with two consumers, a TMA-store epilogue and two tiles per CTA.
FIXTURE = os.path.join(FIXTURES, "h200_4096x2048x128_tma_store.tgtrace")


def run(*args):
    return subprocess.run([TILEGEMM, *args], capture_output=True, text=True, timeout=300)


def load(path):
    with open(path) as f:
        return json.load(f)


class Usage(unittest.TestCase):
    def usage(self, args, *texts):
        r = run(*args)
        self.assertEqual(r.returncode, 2, f"tilegemm {' '.join(args)}: exit {r.returncode}\n{r.stdout}{r.stderr}")
        for t in texts:
            self.assertIn(t, r.stderr, f"tilegemm {' '.join(args)}")

    def test_help(self):
        r = run("trace", "--help")
        self.assertEqual(r.returncode, 0)
        for option in ("--layout", "--config", "--out", "--html", "--raw", "--decode", "--capacity", "--json",
                       "--dtype", "--d-major", "--alpha", "--beta", "--c-dtype", "--in-place"):
            self.assertIn(option, r.stdout)

    def test_usage_errors(self):
        self.usage(["trace", "64", "64", "64"], "--out")  # --out is required
        self.usage(["trace", "64", "64", "--out", "x.json"], "M N K")
        self.usage(["trace", "0", "64", "64", "--out", "x.json"], "M, N and K must be >= 1", "got 0")
        self.usage(["trace", "64", "64", "64", "--out", "x.json", "--layout", "xy"], "--layout")
        self.usage(["trace", "64", "64", "64", "--out", "x.json", "--config", "100x100"], "--config")
        self.usage(["trace", "64", "64", "64", "--out", ""], "empty")
        self.usage(["trace", "--decode", "/nonexistent/trace.bin", "--out", "x.json"], "--decode", "cannot read")
        # The call flags are bench's, with the same rules (D's dtype is --dtype: --out is the file).
        self.usage(["trace", "64", "64", "64", "--out", "x.json", "--dtype", "fp16"], "--dtype")
        self.usage(["trace", "64", "64", "64", "--out", "x.json", "--in-place"], "--in-place", "--beta")
        self.usage(["trace", "64", "64", "64", "--out", "x.json", "--c-dtype", "fp32"], "--c-dtype", "--beta")
        self.usage(["trace", "64", "64", "64", "--out", "x.json", "--beta", "1", "--in-place", "--c-dtype", "fp32"],
                   "--in-place", "--dtype's (bf16)")
        self.usage(["trace", "64", "64", "64", "--out", "x.json", "--d-major", "diag"], "--d-major")
        with tempfile.NamedTemporaryFile(suffix=".bin") as f:
            f.write(b"not a trace buffer at all, not at all, no, not one bit of it, definitely not one")
            f.flush()
            self.usage(["trace", "--decode", f.name, "--out", "x.json"], "magic")

    def test_no_gpu_is_reported(self):
        for extra in ([], ["--dtype", "fp32", "--beta", "1", "--in-place"], ["--beta", "0.5", "--c-dtype", "fp32",
                                                                               "--dtype", "fp32", "--d-major", "col"]):
            with tempfile.TemporaryDirectory() as d:
                r = run("trace", "64", "64", "64", "--out", os.path.join(d, "t.json"), "--iters", "0", *extra)
            if r.returncode == 3:
                self.assertIn("no Hopper (sm_90) GPU found", r.stderr)
            else:  # a Hopper GPU is present: the traced GEMM ran and was checked
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                self.assertIn("check: ok", r.stdout)


class Decode(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()
        cls.json_path = os.path.join(cls.dir, "t.json")
        cls.html_path = os.path.join(cls.dir, "v.html")
        cls.result = run("trace", "--decode", FIXTURE, "--out", cls.json_path, "--html", cls.html_path)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_decode_without_gpu(self):
        r = self.result
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("4 CTAs x (1 producer + 2 consumers), 4 stages; 400 events, 0 dropped", r.stdout)
        self.assertRegex(r.stdout, r"pipeline order \(trace/invariants.hpp\): ok over 8 tiles and 16 k-blocks")
        self.assertIn("epilogue overlap", r.stdout)

    def test_json_holds_the_buffer(self):
        doc = load(self.json_path)
        events = [e for e in doc["traceEvents"] if e["ph"] == "X"]
        self.assertEqual(len(events), 400)
        sms = {e["pid"] for e in events}
        self.assertEqual(len(sms), 4)  # a process per SM (one CTA each)
        names = {e["args"]["name"] for e in doc["traceEvents"] if e["ph"] == "M" and e["name"] == "thread_name"}
        self.assertEqual(len(names), 12)  # 4 CTAs x (producer + 2 consumers)
        self.assertIn("CTA 0 producer", names)
        kinds = {e["args"]["kind"] for e in events}
        for k in ("tile", "wait_empty", "tma_issue", "wait_full", "wgmma_issue", "wgmma_wait", "stage_release",
                  "epilogue", "stmatrix", "tma_store_issue", "tma_store_wait"):
            self.assertIn(k, kinds)
        info = doc["otherData"]
        self.assertEqual(info["summary"]["dropped"], 0)
        self.assertEqual(info["invariants"]["violations"], 0)
        self.assertEqual(info["stages"], 4)

    def test_viewer_in_a_browser(self):
        chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        if not chromium:
            self.skipTest("no chromium on PATH")
        doc = load(self.json_path)
        cta0 = [e for e in doc["traceEvents"] if e["ph"] == "X" and e["args"].get("cta") == 0]
        expect = {k: sum(1 for e in cta0 if e["args"]["kind"] == k) for k in ("tma_issue", "wgmma_issue", "wait_full", "wait_empty")}
        with tempfile.TemporaryDirectory() as profile:
            r = subprocess.run([chromium, "--headless=new", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}",
                                "--virtual-time-budget=5000", "--dump-dom", "file://" + self.html_path],
                               capture_output=True, text=True, timeout=120)
        dom = r.stdout
        self.assertIn('data-ready="yes"', dom, r.stderr[-2000:])
        svg = re.search(r'<svg[^>]*data-view="stages"[^>]*>', dom)
        self.assertIsNotNone(svg, "no stage timeline drawn")
        attrs = dict(re.findall(r'(data-[a-z-]+)="([^"]*)"', svg.group(0)))
        self.assertEqual(attrs["data-cta"], "0")
        self.assertEqual(attrs["data-stages"], "4")
        self.assertEqual(int(attrs["data-rows"]), 4 * (1 + 2) + 1 + 2)  # per stage TMA + 2 WGMMA; tiles; 2 epilogues
        self.assertEqual(int(attrs["data-tma"]), expect["tma_issue"])
        self.assertEqual(int(attrs["data-wgmma"]), expect["wgmma_issue"])
        self.assertEqual(int(attrs["data-wait-full"]), expect["wait_full"])
        self.assertEqual(int(attrs["data-wait-empty"]), expect["wait_empty"])
        overview = re.search(r'<svg[^>]*data-view="overview"[^>]*>', dom)
        self.assertIsNotNone(overview)
        self.assertIn('data-ctas="4"', overview.group(0))


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--tilegemm", required=True)
    args, rest = p.parse_known_args()
    TILEGEMM = os.path.abspath(args.tilegemm)
    unittest.main(argv=[sys.argv[0], *rest], verbosity=2)
