"""The Python binding (src/python/roofcost) against the command-line tool: the same inputs give
the same JSON, errors carry the tool's message and exit code, a sweep's shards merge into the
unsharded answer. Run by tests/library.sh (make test) with Debian's python3 and nothing else:
    PYTHONPATH=src/python ROOFCOST_LIB=build/libroofcost.so ROOFCOST_HOME=. ROOFCOST_BIN=./roofcost \
        python3 -m unittest tests/python/test_roofcost.py
"""

import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

import roofcost

builtins_open = open

BIN = os.environ.get("ROOFCOST_BIN", "./roofcost")


def tool(*args, env=None):
    """The tool's JSON for args (stdout), as the binding would return it."""
    out = subprocess.run([BIN, *args, "--format", "json"], capture_output=True, text=True,
                         env=env or os.environ)
    if out.returncode != 0:
        raise AssertionError("%s: exit %d: %s" % (" ".join(args), out.returncode, out.stderr))
    return json.loads(out.stdout)


def without(d, keys=("seconds", "peak_rss_mb", "threads")):
    """A sweep's JSON without its timing (the same search takes its own time each run)."""
    d = json.loads(json.dumps(d))
    for k in keys:
        d.get("summary", {}).pop(k, None)
    return d


class Eval(unittest.TestCase):
    def test_done_when(self):
        # The done-when, with the figure held to the tool's.
        mfu = roofcost.eval(system="trn2.48xlarge", workload="llama3-8b-train")["mfu"]
        self.assertEqual(mfu, tool("eval", "-s", "trn2.48xlarge", "-w", "llama3-8b-train")["mfu"])
        self.assertTrue(0 < mfu < 1)

    def test_same_json_as_the_tool(self):
        for system, workload in (("p5.48xlarge", "llama3-70b-serve"), ("tpu-v6e", "mixtral-8x7b-train"),
                                 ("gb200-nvl72", "deepseek-v3-serve")):
            with self.subTest(system=system, workload=workload):
                self.assertEqual(roofcost.eval(system=system, workload=workload),
                                 tool("eval", "-s", system, "-w", workload))

    def test_plan_and_set_as_dicts(self):
        got = roofcost.eval(system="p5.48xlarge", workload="llama3-70b-serve", plan={"tp": 4},
                            set={"concurrency": 16, "scenario": "single"})
        want = tool("eval", "-s", "p5.48xlarge", "-w", "llama3-70b-serve", "--plan", "tp=4",
                    "--set", "concurrency=16", "--set", "scenario=single")
        self.assertEqual(got, want)
        self.assertEqual(got["plan"]["tp"], 4)

    def test_figures(self):
        f = roofcost.eval_figures(system="trn2.48xlarge", workload="llama3-8b-train")
        j = tool("eval", "-s", "trn2.48xlarge", "-w", "llama3-8b-train")
        self.assertTrue(f["training"] and f["feasible"])
        self.assertEqual(f["mfu"], j["mfu"])
        self.assertEqual(f["step_time_s"], j["step_time_s"])
        self.assertIsNone(f["ttft_ms"])      # a serving figure of a training workload
        s = roofcost.eval_figures(system="p5.48xlarge", workload="llama3-70b-serve")
        self.assertFalse(s["training"])
        self.assertEqual(s["tpot_ms"], tool("eval", "-s", "p5.48xlarge", "-w", "llama3-70b-serve")["tpot_ms"])

    def test_infeasible_is_a_result(self):
        r = roofcost.eval(system="trn2.48xlarge", workload="llama3-8b-train", plan="tp=3")
        self.assertFalse(r["feasible"])
        self.assertIn("tp 3 does not divide", r["reason"])


class Errors(unittest.TestCase):
    def test_message_and_code(self):
        with self.assertRaises(roofcost.RoofcostError) as c:
            roofcost.eval(system="no-such-system", workload="llama3-8b-train")
        self.assertEqual(c.exception.code, 1)
        self.assertIn("unknown system 'no-such-system'", str(c.exception))
        out = subprocess.run([BIN, "eval", "-s", "no-such-system", "-w", "llama3-8b-train"],
                             capture_output=True, text=True)
        self.assertEqual(out.stderr.strip(), "roofcost: " + str(c.exception))
        with self.assertRaises(roofcost.RoofcostError) as c:
            roofcost.eval(system="trn2.48xlarge", workload="llama3-8b-train", set={"tokens": "lots"})
        self.assertEqual(c.exception.code, 2)

    def test_bad_home(self):
        with self.assertRaises(roofcost.RoofcostError) as c:
            roofcost.open(home="/nonexistent-roofcost-home")
        self.assertIn("not a roofcost data folder", str(c.exception))

    def test_unknown_option(self):
        with self.assertRaises(TypeError):
            roofcost.eval(system="trn2.48xlarge", workload="llama3-8b-train", bogus=1)


class Compare(unittest.TestCase):
    def test_same_json_as_the_tool(self):
        got = roofcost.compare(workload="llama3-70b-serve", system=["trn2.48xlarge", "p5.48xlarge", "tpu-v6e"])
        self.assertEqual(got, tool("compare", "-w", "llama3-70b-serve", "-s", "trn2.48xlarge,p5.48xlarge,tpu-v6e"))
        self.assertEqual([s["rank"] for s in got["systems"]], [1, 2, 3])

    def test_training_range(self):
        got = roofcost.compare(workload="llama3-8b-train", system="p5.48xlarge,trn2.48xlarge", chips="8-64")
        self.assertEqual(got, tool("compare", "-w", "llama3-8b-train", "-s", "p5.48xlarge,trn2.48xlarge",
                                   "--chips", "8-64"))

    def test_frame(self):
        rows = roofcost.to_frame(roofcost.compare(workload="llama3-70b-serve", system="p5.48xlarge,tpu-v6e"))
        try:
            import pandas  # noqa: F401
            self.assertEqual(len(rows.index), 2)
        except ImportError:
            self.assertEqual([r["rank"] for r in rows], [1, 2])


class Sweep(unittest.TestCase):
    ARGS = dict(workload="llama3-8b-train", system="p5.48xlarge,tpu-v6e", chips="8-64", top=4, threads=2)

    def cli(self, *extra):
        return tool("sweep", "-w", "llama3-8b-train", "-s", "p5.48xlarge,tpu-v6e", "--chips", "8-64",
                    "--top", "4", "--threads", "2", *extra)

    def test_same_json_as_the_tool(self):
        self.assertEqual(without(roofcost.sweep(**self.ARGS)), without(self.cli()))

    def test_callback_sees_every_point(self):
        seen = []
        r = roofcost.sweep(on_point=seen.append, **self.ARGS)
        self.assertEqual(len(seen), len(r["top"]) + len(r["pareto"]))
        # The callback has the doubles; the JSON prints 15 significant digits where they read back.
        for a, b in zip([p for p in seen if not p["front"]], r["top"]):
            self.assertEqual((a["system"], a["chips"], a["tp"], a["pp"]), (b["system"], b["chips"], b["tp"], b["pp"]))
            self.assertAlmostEqual(a["run_time_s"] / b["run_time_s"], 1, places=13)
        first = []
        roofcost.sweep(on_point=lambda p: first.append(p) or True, **self.ARGS)
        self.assertEqual(len(first), 1)

    def test_callback_exception_propagates(self):
        def boom(p):
            raise ValueError("stop here")
        with self.assertRaises(ValueError):
            roofcost.sweep(on_point=boom, **self.ARGS)

    def test_shards_merge_to_the_whole(self):
        with tempfile.TemporaryDirectory() as d:
            files = []
            for i in range(3):
                path = os.path.join(d, "s%d.json" % i)
                with open(path, "w") as f:
                    json.dump(roofcost.sweep(shard="%d/3" % i, **self.ARGS), f)
                files.append(path)
            merged = roofcost.sweep_merge(files, top=4)
            whole = roofcost.sweep(**self.ARGS)
            self.assertEqual(without(merged, ("seconds", "peak_rss_mb", "threads")),
                             without(whole, ("seconds", "peak_rss_mb", "threads")))
            with self.assertRaises(roofcost.RoofcostError) as c:
                roofcost.sweep_merge(files[:2], top=4)
            self.assertIn("shard 2/3 is missing", str(c.exception))

    def test_shard_auto(self):
        os.environ.pop("JOB_COMPLETION_INDEX", None)
        os.environ["SLURM_ARRAY_TASK_ID"] = "2"
        os.environ["SLURM_ARRAY_TASK_COUNT"] = "3"
        try:
            r = roofcost.sweep(shard="auto", **self.ARGS)
            self.assertEqual((r["summary"]["shard"], r["summary"]["shards"]), (2, 3))
        finally:
            del os.environ["SLURM_ARRAY_TASK_ID"], os.environ["SLURM_ARRAY_TASK_COUNT"]
        with self.assertRaises(roofcost.RoofcostError) as c:
            roofcost.sweep(shard="auto", **self.ARGS)
        self.assertEqual(c.exception.code, 2)


class Lists(unittest.TestCase):
    def test_systems(self):
        got = roofcost.list_systems()
        self.assertEqual(got, tool("list", "systems"))
        self.assertIn("trn2.48xlarge", [s["system"] for s in got])

    def test_every_list(self):
        for what in ("chips", "networks", "workloads", "frameworks"):
            with self.subTest(what=what):
                self.assertEqual(roofcost.list(what), tool("list", what))


class Validate(unittest.TestCase):
    def test_same_json_as_the_tool(self):
        for cases in ("tests/validation/public.csv", "tests/validation/disagg.csv"):
            with self.subTest(cases=cases):
                got = roofcost.validate(cases=cases)
                self.assertEqual(got, tool("validate", cases))
                with builtins_open(cases) as f:
                    self.assertEqual(len(got["cases"]), sum(1 for _ in f) - 1)

    def test_a_file_that_is_not_there(self):
        with self.assertRaises(roofcost.RoofcostError) as c:
            roofcost.validate(cases="/nonexistent/cases.csv")
        self.assertEqual(c.exception.code, 1)
        self.assertIn("/nonexistent/cases.csv", str(c.exception))


class Baseline(unittest.TestCase):
    """A release record made by the tool, checked by the binding, in a store of its own."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.env = dict(os.environ, ROOFCOST_DB=os.path.join(self.dir.name, "records.db"))
        for name, system, workload in (("r1", "trn2.48xlarge", "llama3-8b-train"),
                                       ("r2", "p5.48xlarge", "llama3-70b-serve")):
            subprocess.run([BIN, "baseline", "record", name, "-s", system, "-w", workload], env=self.env,
                           capture_output=True, check=True)
        self.h = roofcost.open(store=self.env["ROOFCOST_DB"])

    def tearDown(self):
        self.h.close()
        self.dir.cleanup()

    def test_same_json_as_the_tool(self):
        got = self.h.baseline_check("r1")
        self.assertEqual(got, tool("baseline", "check", "r1", env=self.env))
        self.assertEqual(got["passed"], 1)
        self.assertEqual(self.h.baseline_check(frozen=True), tool("baseline", "check", "--all", "--frozen", env=self.env))

    def test_fell_short_is_a_result(self):
        # p5's price before 2025-06-01 is the capacity block's: the serving record's costs regress.
        got = self.h.baseline_check("r2", as_of="2025-01-01")
        out = subprocess.run([BIN, "baseline", "check", "r2", "--as-of", "2025-01-01", "--format", "json"],
                             env=self.env, capture_output=True, text=True)
        self.assertEqual(out.returncode, 3)
        self.assertEqual(got, json.loads(out.stdout))
        self.assertEqual(got["fell_short"], 1)

    def test_no_such_record(self):
        with self.assertRaises(roofcost.RoofcostError) as c:
            self.h.baseline_check("nosuch")
        self.assertEqual(c.exception.code, 1)
        self.assertIn("no record 'nosuch'", str(c.exception))


class Handles(unittest.TestCase):
    def test_two_handles(self):
        with roofcost.open() as a, roofcost.open() as b:
            self.assertEqual(a.eval("trn2.48xlarge", "llama3-8b-train"), b.eval("trn2.48xlarge", "llama3-8b-train"))
            self.assertTrue(os.path.isdir(os.path.join(a.home, "models")))
            self.assertTrue(a.store)

    def test_version(self):
        out = subprocess.run([BIN, "--version"], capture_output=True, text=True).stdout.split()[-1]
        self.assertEqual(roofcost.version(), out)


if __name__ == "__main__":
    unittest.main()
