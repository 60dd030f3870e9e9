"""The tilegemm CLI's answers to bad input, run as a user would type them (ctest cli_usage, label
cpu; any machine: every case here is decided before a GPU is looked for, or needs none).
Usage errors exit 2 with one line naming the option or argument, the value and the rule (tune's
too, and its missing cache directory; tp-bench's options). The fuzz
command's problem list is deterministic, and the explain command it prints for each problem reports
the same route as the list.

  python3 tests/cpu/cli/test_cli_usage.py --tilegemm build/cli/tilegemm"""
import argparse
import json
import re
import subprocess
import sys
import unittest

TILEGEMM = None


def run(*args):
    return subprocess.run([TILEGEMM, *args], capture_output=True, text=True, timeout=120)


class UsageErrors(unittest.TestCase):
    def usage(self, args, *texts):
        r = run(*args)
        self.assertEqual(r.returncode, 2, f"tilegemm {' '.join(args)}: exit {r.returncode}\n{r.stdout}{r.stderr}")
        for t in texts:
            self.assertIn(t, r.stderr, f"tilegemm {' '.join(args)}")
        return r

    def test_parse_errors_exit_2(self):
        self.usage(["map", "abc", "1", "1"], "abc")  # not a number
        self.usage(["map", "1", "1"], "K is required")  # missing positional
        self.usage(["explain", "1", "1", "1", "--bogus"], "--bogus")  # unknown flag
        self.usage(["bench", "--iters", "0"], "--iters")

    def test_huge_numbers_are_refused_not_clamped(self):
        r = self.usage(["map", "99999999999999999999999", "1", "1"], "99999999999999999999999", "64-bit")
        self.assertNotIn("9223372036854775807 x", r.stdout + r.stderr.split("(at most")[0])
        self.usage(["explain", "1", "1", "1", "--lda", "-99999999999999999999"], "--lda")

    def test_ladder_step(self):
        r = self.usage(["ladder", "--step", "0"], "--step", "1 to 9")
        self.assertLess(len(r.stderr), 300, r.stderr)  # not CLI11's 309-digit range
        r = self.usage(["ladder", "--step", "99"], "--step", "99")
        self.assertNotIn("Hopper", r.stderr)  # the bad argument before the missing GPU

    def test_empty_values(self):
        for args in (["map", "8", "8", "8", "--svg", ""], ["bench", "--suite", ""], ["explain", "8", "8", "8", "--device", ""],
                     ["explain", "8", "8", "8", "--config", ""], ["ladder", "--json-out", ""], ["map", "", "8", "8"]):
            with self.subTest(args=args):
                self.usage(args, "empty")

    def test_suite_files(self):
        import os
        suites = os.path.join(os.path.dirname(__file__), "..", "..", "..", "bench", "suites")
        self.usage(["bench", "--suite", suites], "is a directory")
        r = self.usage(["bench", "--suite", "/dev/zero"], "longer than 1048576 bytes")
        self.assertNotIn("bad_alloc", r.stderr)


class Fuzz(unittest.TestCase):
    def usage(self, args, *texts):
        return UsageErrors.usage(self, args, *texts)

    def listed(self, *args):
        r = run("fuzz", "--list", "--json", *args)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)["problems"]

    def test_usage_errors(self):
        self.usage(["fuzz", "--count", "0"], "--count", "0")
        self.usage(["fuzz", "--count", "abc"], "--count")
        self.usage(["fuzz", "--max-dim", "0"], "--max-dim")
        self.usage(["fuzz", "--max-macs", "0"], "--max-macs")
        self.usage(["fuzz", "--layouts", "nt,xx"], "--layouts", "xx")
        self.usage(["fuzz", "--first", "-1"], "--first")
        self.usage(["fuzz", "--bogus"], "--bogus")

    def test_help(self):
        r = run("fuzz", "--help")
        self.assertEqual(r.returncode, 0, r.stderr)
        for option in ("--count", "--seed", "--first", "--max-dim", "--max-macs", "--layouts", "--json", "--list"):
            self.assertIn(option, r.stdout)

    def test_without_a_gpu_it_says_so(self):
        r = run("fuzz", "--count", "1")
        if r.returncode in (0, 1):
            self.skipTest("a Hopper GPU is here: the fuzz ran")
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        self.assertIn("no Hopper (sm_90) GPU found", r.stderr)

    def test_same_seed_same_problems(self):
        a, b = self.listed("--count", "40", "--seed", "9"), self.listed("--count", "40", "--seed", "9")
        self.assertEqual(a, b)
        self.assertEqual(self.listed("--count", "5", "--seed", "9", "--first", "10"), a[10:15])
        other = self.listed("--count", "40", "--seed", "10")
        self.assertGreater(sum(x["describe"] != y["describe"] for x, y in zip(a, other)), 35)
        for p in a:
            self.assertIn(p["route"]["path"], ("sm90", "fallback"), p)
            self.assertIn(f"--first {p['index']} --count 1", p["rerun"])
        only = self.listed("--count", "30", "--layouts", "tn", "--max-dim", "100")
        self.assertTrue(all(p["layout"] == "tn" and max(p["m"], p["n"], p["k"]) <= 100 for p in only))

    def test_explain_agrees_with_the_route_of_each_listed_problem(self):
        # The fuzz list routes its own GemmArgs (route() on the arguments gemm() will get); the
        # explain command it prints must describe the same call and report the same path and reason.
        problems = self.listed("--count", "60", "--seed", "3")
        self.assertGreaterEqual(len(problems), 50)
        for p in problems:
            args = p["explain"].split()[1:] + ["--json", "--device", "h200", "--top", "1", "--rejected", "0"]
            r = run(*args)
            self.assertEqual(r.returncode, 0, f"{p['explain']}: {r.stderr}")
            j = json.loads(r.stdout)
            self.assertEqual((j["path"], j["route_reason"]), (p["route"]["path"], p["route"]["reason"]), p["explain"])
            if j["path"] == "sm90":
                self.assertEqual(j["route_steps"], p["route"]["steps"], p["explain"])

    def test_bench_and_explain_call_options(self):
        self.usage(["bench", "--in-place", "--shape", "64x64x64"], "--in-place", "--beta")
        self.usage(["bench", "--ld-pad", "-8", "--shape", "64x64x64"], "--ld-pad", "-8")
        self.usage(["bench", "--c-dtype", "fp32", "--shape", "64x64x64"], "--c-dtype", "--beta")
        self.usage(["bench", "--beta", "1", "--in-place", "--c-dtype", "fp32"], "--in-place", "fp32")
        self.usage(["bench", "--d-major", "diag"], "--d-major")
        self.usage(["bench", "--flush", "memset"], "--flush", "memset")
        self.usage(["explain", "64", "64", "64", "--in-place"], "--in-place", "--beta")
        self.usage(["explain", "64", "64", "64", "--ldc", "80"], "--ldc", "--beta")
        self.usage(["explain", "64", "64", "64", "--beta", "1", "--in-place", "--c-major", "col"], "--in-place")
        self.usage(["explain", "64", "64", "64", "--c-major", "diag", "--beta", "1"], "--c-major", "diag")
        self.usage(["explain", "64", "64", "64", "--offset-a", "-1"], "--offset-a")
        self.usage(["explain", "64", "64", "64", "--accumulate", "--beta", "2"], "--accumulate")
        r = self.usage(["explain", "64", "64", "64", "--ldd", "60"], "d.ld = 60")
        r = run("explain", "64", "64", "64", "--d-major", "col", "--ldd", "64", "--offset-d", "1", "--device", "h200")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("call: D col-major ldd 64", r.stdout)
        self.assertIn("path: ", r.stdout)

    def test_pdl_is_the_default_and_no_pdl_turns_it_off(self):
        # Programmatic dependent launch is gemm()'s default: bench, fuzz and overhead take --no-pdl
        # (with either timer), and the old opt-in flag is gone.
        for args in (["bench", "--no-pdl", "--timer", "cupti", "--shape", "64x64x64"],
                     ["bench", "--no-pdl", "--own-stream", "--shape", "64x64x64"],
                     ["overhead", "--no-pdl", "--shape", "64x64x64"]):
            with self.subTest(args=args):
                r = run(*args)
                self.assertNotEqual(r.returncode, 2, r.stderr)
        r = run("fuzz", "--list", "--count", "2", "--no-pdl")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.usage(["bench", "--pdl", "--shape", "64x64x64"], "--pdl")

    def test_copy_rate_usage(self):
        self.usage(["copy-rate", "--shape", "64x64x64"], "--shape 64x64x64", "multiple of 8")
        self.usage(["copy-rate", "--ctas", "8,-1"], "--ctas -1")
        self.usage(["copy-rate", "--iters", "0"], "--iters 0")
        self.usage(["copy-rate", "--shape", "abc"], "abc")

    def test_narrow_mn_chunks_change_what_explain_plans(self):
        # TT with a batch of 16 (A MN-major): copied into K-major lines by default on the h200 model,
        # read in place in 16-wide chunks with --narrow-mn-chunks (measured 0.84-0.88 of the copy's
        # time on the H100, docs/PERF.md twenty-ninth session).
        base = ["explain", "16", "3072", "3072", "--layout", "tt", "--device", "h200"]
        r = run(*base)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("transposed", r.stdout)
        self.assertNotIn("chunks of 16 elements", r.stdout)
        r = run(*base, "--narrow-mn-chunks")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("transposed", r.stdout)
        self.assertIn("the MN-major A is stored in smem in chunks of 16 elements along M", r.stdout)
        r = run(*base, "--narrow-mn-chunks", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        chosen = json.loads(r.stdout)["chosen"]
        self.assertTrue(any("chunks of 16" in f for f in chosen["flags"]), chosen)


class Tune(unittest.TestCase):
    def usage(self, args, *texts):
        return UsageErrors.usage(self, args, *texts)

    def test_usage_errors(self):
        self.usage(["tune", "--top", "0"], "--top", "0", "1 to 64")
        self.usage(["tune", "--top", "65"], "--top", "65")
        self.usage(["tune", "--layout", "xy"], "--layout", "xy")
        self.usage(["tune", "--out", "fp8"], "--out", "fp8")
        self.usage(["tune", "--iters", "0"], "--iters")
        self.usage(["tune", "--beta", "abc"], "--beta")
        self.usage(["tune", "--config", "128x999"], "--config", "128x999")
        self.usage(["tune", "--config", "128x128,stages=99"], "--config", "stages")
        self.usage(["tune", "--shape", "64x64"], "64x64")
        self.usage(["tune", "--suite", "no-such-suite"], "no-such-suite")
        self.usage(["tune", "--suite", "llm", "--shape", "64x64x64"], "--shape")
        self.usage(["tune", "--jobs", "-1"], "--jobs")
        self.usage(["tune", "--cache", ""], "empty")
        self.usage(["tune", "--bogus"], "--bogus")
        self.usage(["tune", "--flush", "none"], "--flush", "none")
        self.usage(["tune", "--ld-pad", "-1"], "--ld-pad", "-1")
        self.usage(["tune", "--ld-pad", "x"], "--ld-pad")

    def test_no_cache_file_is_a_usage_error(self):
        # No --cache and nowhere to put the default file: said before any GPU is looked for.
        import os
        env = {k: v for k, v in os.environ.items() if k not in ("HOME", "XDG_CACHE_HOME", "TILEGEMM_TUNING")}
        env["TILEGEMM_CACHE_DIR"] = "off"
        r = subprocess.run([TILEGEMM, "tune", "--shape", "64x64x64"], capture_output=True, text=True, timeout=120,
                           env=env)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("--cache", r.stderr)
        self.assertIn("TILEGEMM_CACHE_DIR=off", r.stderr)

    def test_help(self):
        r = run("tune", "--help")
        self.assertEqual(r.returncode, 0, r.stderr)
        for option in ("--suite", "--shape", "--top", "--layout", "--out", "--beta", "--iters", "--cache", "--json",
                       "--flush", "--ld-pad"):
            self.assertIn(option, r.stdout)

    def test_without_a_gpu_it_says_so(self):
        import tempfile, os
        with tempfile.TemporaryDirectory() as d:
            cache = os.path.join(d, "tuning.json")
            r = run("tune", "--shape", "64x64x64", "--layout", "all", "--cache", cache)
            if r.returncode in (0, 1):
                self.skipTest("a Hopper GPU is here: the tuner ran")
            self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
            self.assertIn("no Hopper (sm_90) GPU found", r.stderr)
            self.assertFalse(os.path.exists(cache), "nothing measured, nothing written")


class TpBench(unittest.TestCase):
    def usage(self, args, *texts):
        return UsageErrors.usage(self, args, *texts)

    def test_usage_errors(self):
        self.usage(["tp-bench", "--op", "allreduce"], "--op", "allreduce")
        self.usage(["tp-bench", "--shape", "8192x3584"], "8192x3584")
        self.usage(["tp-bench", "--world", "0"], "--world")
        self.usage(["tp-bench", "--world", "65"], "--world")
        self.usage(["tp-bench", "--reserve-sms", "-1"], "--reserve-sms")
        self.usage(["tp-bench", "--partial", "fp16"], "--partial", "fp16")

    def test_help(self):
        r = run("tp-bench", "--help")
        self.assertEqual(r.returncode, 0, r.stderr)
        for option in ("--op", "--shape", "--world", "--loopback", "--iters", "--reserve-sms", "--partial", "--json"):
            self.assertIn(option, r.stdout)

    def test_without_a_gpu_it_says_so(self):
        r = run("tp-bench", "--loopback", "--world", "2", "--shape", "256x256x256", "--iters", "1")
        if r.returncode == 0:
            self.skipTest("a Hopper GPU is here: the bench ran")
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        self.assertIn("no Hopper (sm_90) GPU found", r.stderr)


class Numbers(unittest.TestCase):
    def test_explain_large_valid_problem_has_no_negative_numbers(self):
        # 700000^3: each matrix ~0.98 TB, under the 2^40-byte span rule, so it is valid.
        r = run("explain", "700000", "700000", "700000", "--device", "h200")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("predicted", r.stdout)
        numbers = re.findall(r"(?<![\w.-])-\d[\d.]*", r.stdout.replace("--", "").replace("-1 for all", ""))
        self.assertEqual(numbers, [], "negative numbers in explain's output")


class Demo(unittest.TestCase):
    def test_dry_run_columns_line_up(self):
        r = run()
        if r.returncode == 0 and "would run" not in r.stdout:
            self.skipTest("a Hopper GPU is here: the demo ran the bench instead of the dry run")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        header = next(l for l in lines if "pred. us" in l)
        rows = [l for l in lines if re.match(r"^\s*\d+\s+\d+\s+\d+\s", l)]
        self.assertEqual(len(rows), 24)
        end = header.index("pred. us") + len("pred. us")
        for row in rows:  # the predicted-time column ends where its header ends, whatever the label
            self.assertRegex(row[:end], r"\d$", row)
            self.assertEqual(row[end], " ", row)


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--tilegemm", required=True)
    a, rest = p.parse_known_args()
    TILEGEMM = a.tilegemm
    unittest.main(argv=[sys.argv[0], *rest])
