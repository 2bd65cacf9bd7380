#!/usr/bin/python3
"""Browser test of the HTML reports: every report kind loads in headless Chromium (Debian's
`chromium`, driven by playwright-core from npm) with the network off; no console error, no page
error, no dialog, no request leaving the file; every chart's series drew graphic elements; the
first table sorts; a kernel named `<img src=x onerror=alert(1)>` shows as text (table cell, axis
label, tooltip) and creates no element. Screenshots go to $SEXTANT_REPORT_SHOTS (the build folder).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report_fixtures as fx  # noqa: E402

NPM = os.environ.get("SEXTANT_NPM_DIR", os.path.join(fx.ROOT, ".deps", "npm"))
SHOTS = os.environ.get("SEXTANT_REPORT_SHOTS", os.path.join(fx.ROOT, "build", "report-screenshots"))
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


class BrowserTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        for need, what in ((CHROMIUM, "Debian's chromium"), (shutil.which("node") or "", "node"),
                           (os.path.join(NPM, "node_modules", "playwright-core", "package.json"), "playwright-core")):
            if not need or not os.path.exists(need):
                raise AssertionError(f"{what} missing ({need or 'not on PATH'}): run scripts/install-deps.sh")
        cls.tmp = tempfile.TemporaryDirectory()
        cls.reports = fx.write_reports(os.path.join(cls.tmp.name, "reports"))
        listing = [{"kind": k, "path": p} for k, (p, _) in cls.reports.items()]
        list_file = os.path.join(cls.tmp.name, "list.json")
        with open(list_file, "w") as f:
            json.dump(listing, f)
        env = dict(os.environ, NODE_PATH=os.path.join(NPM, "node_modules"), CHROMIUM=CHROMIUM)
        t0 = time.time()
        p = subprocess.run(["node", os.path.join(os.path.dirname(os.path.abspath(__file__)), "browser_check.cjs"),
                            list_file, SHOTS], capture_output=True, text=True, env=env, timeout=360)
        cls.seconds = time.time() - t0
        # Reported, not asserted: a wall-clock bound fails on a loaded machine without a defect (the
        # ctest TIMEOUT bounds a hang; review of 2026-12-07).
        print(f"browser: {len(listing)} reports in {cls.seconds:.1f} s", file=sys.stderr)
        if p.returncode != 0:
            raise AssertionError(f"browser run failed ({p.returncode}):\n{p.stderr[-4000:]}")
        cls.results = {r["kind"]: r for r in json.loads(p.stdout)}

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_every_report_renders_cleanly(self):
        self.assertEqual(set(self.results), set(self.reports))
        for kind, r in self.results.items():
            with self.subTest(kind=kind):
                self.assertTrue(r["rendered"], r)
                self.assertEqual(r["console_errors"], [])
                self.assertEqual(r["page_errors"], [])
                self.assertEqual(r["dialogs"], [])
                self.assertEqual(r["remote_requests"], [])
                self.assertTrue(os.path.exists(r["screenshot"]))
                self.assertGreater(r["screenshot_bytes"], 10_000)

    def test_every_chart_drew_its_data(self):
        for kind, r in self.results.items():
            expected = self.reports[kind][1]
            ids = [c["id"] for c in r["charts"]]
            for e in expected:
                self.assertIn(e, ids, kind)
            for c in r["charts"]:
                with self.subTest(kind=kind, chart=c["id"]):
                    self.assertGreater(c["svg_width"], 200)
                    self.assertGreater(c["svg_height"], 100)
                    self.assertGreater(c["series"], 0)
                    self.assertGreater(c["points"], 0)
                    self.assertGreater(c["drawn"], 0, c)
                    self.assertTrue(c["takeaway"])

    def test_tables_sort(self):
        for kind, r in self.results.items():
            if r["sort"] is None:
                continue
            with self.subTest(kind=kind):
                self.assertTrue(r["sort"]["sorted_desc"], r["sort"])

    def test_reference_lines_lie_on_their_axes(self):
        """Review of 2026-12-06: a marked line beyond the data (the required SLO attainment under the
        infer plan's candidates, the memory capacity past the plans) was outside its axis and not drawn."""
        seen = 0
        for kind, r in self.results.items():
            for c in r["charts"]:
                for line in c["lines"]:
                    seen += 1
                    with self.subTest(kind=kind, chart=c["id"], line=line):
                        self.assertTrue(line["inside"])
        self.assertGreater(seen, 3)

    def test_ticks_in_si_form_on_every_value_axis(self):
        """Review of 2026-12-06: log axes (serve latency, roofline) printed "10,000" and "100,000"."""
        for kind, r in self.results.items():
            for c in r["charts"]:
                with self.subTest(kind=kind, chart=c["id"]):
                    self.assertEqual(c["grouped"], [])

    def test_filter_finds_rows_by_the_text_shown(self):
        """Review of 2026-12-06: the estimate's ops table showed 7.516e-4, but typing it found no row."""
        tried = [(kind, f) for kind, r in self.results.items() for f in r["filter"]]
        self.assertTrue(any(kind == "estimate" and "e-" in f["text"] for kind, f in tried), tried)
        for kind, f in tried:
            with self.subTest(kind=kind, table=f["table"], text=f["text"]):
                self.assertGreater(f["rows"], 0)

    def test_roofline_and_gantt_drew_their_series(self):
        """estimate's roofline: both ceilings and at least one group of ops, every op drawn as a point;
        simulate's Gantt: a custom series per activity kind, one rect per bar, over every rank lane."""
        charts = {c["id"]: c for c in self.results["estimate"]["charts"]}
        roof = charts["roofline"]
        self.assertGreaterEqual(roof["series"], 3, roof)
        self.assertGreater(roof["points"], 4 + 10, roof)  # 2 + 2 ceiling points and the ops
        self.assertGreaterEqual(roof["drawn"], roof["points"] - 4, roof)
        gantt = {c["id"]: c for c in self.results["simulate"]["charts"]}["timeline"]
        self.assertGreaterEqual(gantt["series"], 3, gantt)  # compute passes and communication groups
        self.assertGreater(gantt["points"], 100, gantt)
        self.assertGreater(gantt["drawn"], 100, gantt)
        self.assertGreater(gantt["svg_shapes"], 100, gantt)

    def test_markup_kernel_name_is_text(self):
        x = self.results["xss"]["xss"]
        self.assertEqual(x["img_elements"], 0)
        self.assertEqual(x["onerror_attributes"], 0)
        self.assertTrue(x["cell_as_text"])
        self.assertTrue(x["svg_text"])
        self.assertEqual(self.results["xss"]["dialogs"], [])

    def test_integers_and_shares_show_their_digits(self):
        """Review of 2026-12-06: a seed of 9007199254740993 read "9.007e+15" (and JSON.parse makes
        ...992 of it); a share of 99.99999% read "100", a fraction of 0.9999999 "1"."""
        n = self.results["numbers"]["numbers"]
        seed = str(fx.BIG_SEED)
        self.assertEqual(n["figure"], seed)
        self.assertEqual(n["seeds"], ["5", str(fx.BIG_SEED - 1), seed])  # sorted by the exact digits
        self.assertEqual(n["met"], "0.999999")
        self.assertEqual(n["fractions"][n["seeds"].index(seed)], "0.999999")
        self.assertIn("99.9999 %", n["tip"])

    def test_figures_fit_the_page_and_wrap_their_texts(self):
        """Review of 2026-12-06: every scalar cell was right-aligned and did not wrap, so a long text
        (a sweep's node_power_source, a serve's price_source) pushed the Figures table off-screen."""
        long_texts = 0
        for kind, r in self.results.items():
            f = r["figures"]
            if f is None:
                continue
            with self.subTest(kind=kind):
                self.assertLessEqual(f["right"], f["page_width"] + 0.5, f)
                for c in f["text_cells"]:
                    self.assertEqual(c["align"], "left", c)
                    self.assertEqual(c["white_space"], "normal", c)
                    long_texts += c["length"] > 100
        self.assertGreater(long_texts, 0)  # the sweep and serve reports have them

    def test_serve_tooltips_give_each_value_its_unit(self):
        """Review of 2026-12-06: throughput-vs-load and kv-timeline labelled their series' values
        "value", with no unit."""
        tips = self.results["infer-serve"]["tips"]
        for chart in ("throughput-vs-load", "kv-timeline"):
            self.assertTrue(tips[chart], chart)
            for t in tips[chart]:
                with self.subTest(chart=chart, series=t["series"]):
                    self.assertNotIn("value ", t["value"])
                    labels = [part.rsplit(" ", 1)[0] for part in t["value"].split(", ")]
                    self.assertEqual(len(labels), 2, t)
                    for label in labels:
                        self.assertRegex(label, r"\([^()]+\)$", t)



if __name__ == "__main__":
    unittest.main()
