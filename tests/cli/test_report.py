#!/usr/bin/python3
"""End-to-end tests of `--report FILE.html` and `sextant report`.

Questions: does every command kind write one self-contained page (library inlined, nothing fetched)
with the charts its renderer promises, each with a takeaway and unit-named axes; is a kernel named
`<img src=x onerror=alert(1)>` only ever data (never markup) in the page; does `sextant report` of a
saved --json give the same bytes as --report; does a missing charting library fail with a message
naming the file and how to install it?
"""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "report"))
import report_fixtures as fx  # noqa: E402


class ReportCli(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.reports = fx.write_reports(cls.tmp.name)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_every_kind_is_self_contained_with_its_charts(self):
        for kind, (path, charts) in self.reports.items():
            with self.subTest(kind=kind):
                with open(path, encoding="utf-8") as f:
                    html = f.read()
                self.assertTrue(html.startswith("<!DOCTYPE html>"))
                self.assertGreater(len(html), 500_000, "ECharts inlined")
                # Outside the inlined library: nothing that loads from elsewhere.
                lib_start = html.index("<script nonce=")
                lib_end = html.index("</script>", lib_start)
                page = html[:lib_start] + html[lib_end:]
                for remote in ("<script src", "src=\"http", "href=\"http", "<link", "<iframe", "@import", "fetch("):
                    self.assertNotIn(remote, page)
                doc = fx.embedded_data(html)
                ids = [c["id"] for c in doc["page"]["charts"]]
                for c in charts:
                    self.assertIn(c, ids)
                for c in doc["page"]["charts"]:
                    self.assertTrue(c["takeaway"], c["id"])
                    self.assertTrue(c["option"]["series"], c["id"])
                    for ax in ("xAxis", "yAxis"):
                        a = c["option"].get(ax)
                        for one in (a if isinstance(a, list) else [a] if a else []):
                            if one.get("type") != "category":
                                self.assertTrue(one.get("name"), (c["id"], ax))
                self.assertTrue(doc["result"]["tables"])

    def test_markup_in_a_kernel_name_is_data(self):
        path, _ = self.reports["xss"]
        with open(path, encoding="utf-8") as f:
            html = f.read()
        self.assertNotIn(fx.EVIL, html)
        lib_start = html.index("<script nonce=")
        page = html[:lib_start] + html[html.index("</script>", lib_start):]  # outside the inlined library
        self.assertNotIn("<img", page)
        self.assertIn("\\u003cimg src=x onerror=alert(1)\\u003e", html)
        doc = fx.embedded_data(html)
        self.assertIn(fx.EVIL, doc["result"]["tables"]["top_kernels"]["columns"]["name"])

    def test_report_of_saved_json_equals_report_option(self):
        with tempfile.TemporaryDirectory() as d:
            j, a, b = (os.path.join(d, n) for n in ("r.json", "a.html", "b.html"))
            fx.run("estimate", "data/examples/llama3-70b-h100.yaml", "--json", j, "--report", a, "-q")
            fx.run("report", j, "-o", b)
            with open(a, "rb") as fa, open(b, "rb") as fb:
                self.assertEqual(fa.read(), fb.read())

    def test_hta_compatible_analysis_reports_and_broken_json_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            j, a = os.path.join(d, "hta.json"), os.path.join(d, "hta.html")
            fx.run("analyze", "tests/data/trace/hta/timeline_analysis/sampled_rank-0.json.gz", "--compat", "hta",
                   "--json", j, "--report", a, "-q")
            with open(a, encoding="utf-8") as f:
                ids = [c["id"] for c in fx.embedded_data(f.read())["page"]["charts"]]
            self.assertIn("temporal-breakdown", ids)
            import json
            with open(j) as f:
                doc = json.load(f)
            cols = doc["tables"]["temporal_breakdown"]["columns"]
            first = next(iter(cols))
            cols[first].append(cols[first][0])  # one column longer than the others
            bad = os.path.join(d, "ragged.json")
            with open(bad, "w") as f:
                json.dump(doc, f)
            p = fx.run("report", bad, "-o", os.path.join(d, "x.html"), check=False)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("ragged.json", p.stderr)
            self.assertIn("tables.temporal_breakdown", p.stderr)
            # A truncated file: file:line:col and the parser's reason, not the library's prefix;
            # a folder: "is a directory" (before 2026-12-03 "not JSON ... end of input").
            cut = os.path.join(d, "cut.json")
            with open(cut, "w") as f:
                f.write('{"schema_version":1,\n')
            p = fx.run("report", cut, "-o", os.path.join(d, "x.html"), check=False)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("cut.json:2:1: not JSON", p.stderr)
            self.assertNotIn("json.exception", p.stderr)
            p = fx.run("report", d, "-o", os.path.join(d, "x.html"), check=False)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("is a directory", p.stderr)
            # Valid JSON the reader cannot hold (1e999) and fields of the wrong type: exit 2 naming
            # the file and the key, not an internal error or a library message without the key
            # (review of 2026-12-05).
            with open(j) as f:
                text = f.read()
            cases = [("huge.json", text.replace('"schema_version":', '"x_overflow": 1e999, "schema_version":', 1), "number overflow"),
                     ("cmd.json", json.dumps(dict(doc, command=5)), "key 'command'"),
                     ("desc.json", json.dumps(dict(doc, tables=dict(doc["tables"], temporal_breakdown=dict(
                         doc["tables"]["temporal_breakdown"], description=5)))), "key 'tables.temporal_breakdown.description'")]
            for name, body, want in cases:
                path = os.path.join(d, name)
                with open(path, "w") as f:
                    f.write(body)
                p = fx.run("report", path, "-o", os.path.join(d, "x.html"), check=False)
                self.assertEqual(p.returncode, 2, name + ": " + p.stderr)
                self.assertIn(name, p.stderr)
                self.assertIn(want, p.stderr)
                self.assertNotIn("internal error", p.stderr)

    def test_review_of_2026_12_03(self):
        import json
        with tempfile.TemporaryDirectory() as d:
            j = os.path.join(d, "est.json")
            fx.run("estimate", "data/examples/llama3-70b-h100.yaml", "--json", j, "-q")
            with open(j) as f:
                doc = json.load(f)
            # A renderer's complaint names the input file.
            del doc["tables"]["communication"]["columns"]["exposed_s"]
            del doc["tables"]["communication"]["types"]["exposed_s"]
            bad = os.path.join(d, "nocol.json")
            with open(bad, "w") as f:
                json.dump(doc, f)
            p = fx.run("report", bad, "-o", os.path.join(d, "x.html"), check=False)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("nocol.json", p.stderr)
            self.assertIn("exposed_s", p.stderr)
            # A text where the renderer needs a number is named by its path, as the schema checks
            # name theirs (it read "key 'step_time_s': scalar is not numeric"; review of 2026-12-07).
            with open(j) as f:
                doc = json.load(f)
            doc["scalars"]["step_time_s"] = "x"
            bad = os.path.join(d, "textscalar.json")
            with open(bad, "w") as f:
                json.dump(doc, f)
            p = fx.run("report", bad, "-o", os.path.join(d, "x.html"), check=False)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("textscalar.json: key 'scalars.step_time_s': is not a number", p.stderr)
            # Misspelt keys and integers beyond int64 are refused, not read as empty or wrapped.
            with open(j) as f:
                text = f.read()
            for name, body, msg in (("typo.json", text.replace('"tables"', '"tabels"', 1), "key 'tabels'"),
                                    ("big.json", text.replace('"scalars": {', '"scalars": {"huge": 18446744073709551615, ', 1),
                                     "beyond the signed 64-bit range")):
                path = os.path.join(d, name)
                with open(path, "w") as f:
                    f.write(body)
                p = fx.run("report", path, "-o", os.path.join(d, "x.html"), check=False)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(name, p.stderr)
                self.assertIn(msg, p.stderr)
            # Bandwidths in GB/s are labelled so (they read "1/s").
            c = os.path.join(d, "c.html")
            fx.run("catalog", "list", "-q", "--report", c)
            with open(c, encoding="utf-8") as f:
                page = fx.embedded_data(f.read())["page"]
            units = {ch.get("value_unit") for ch in page["charts"]}
            self.assertIn("GB/s", units)
            self.assertNotIn("1/s", units)
            # The collective heatmap has a row per rank present, not per rank up to the largest.
            a = os.path.join(d, "an.json")
            fx.run("analyze", "tests/data/trace/param/dlrm_8rank", "--json", a, "-q")
            with open(a) as f:
                an = json.load(f)
            for t in an["tables"].values():
                for col in ("rank", "last_rank"):
                    if col in t["columns"]:
                        t["columns"][col] = [x + 16000 for x in t["columns"][col]]
            path = os.path.join(d, "bigrank.json")
            with open(path, "w") as f:
                json.dump(an, f)
            h = os.path.join(d, "an.html")
            fx.run("report", path, "-o", h)
            with open(h, encoding="utf-8") as f:
                charts = {ch["id"]: ch for ch in fx.embedded_data(f.read())["page"]["charts"]}
            skew = charts["collective-skew"]
            self.assertLessEqual(len(skew["option"]["yAxis"]["data"]), 8)
            self.assertLess(skew["height_px"], 1000)

    def test_review_of_2026_12_04(self):
        import json
        with tempfile.TemporaryDirectory() as d:
            # A serving run without an SLO claims none ("SLO 0 s; 100% of requests meet the SLO").
            with open(os.path.join(fx.ROOT, "data", "examples", "infer-llama3-8b-h100.yaml")) as f:
                lines = f.read().splitlines()
            start = lines.index("slo:")
            end = start + 1
            while end < len(lines) and lines[end].startswith(" "):
                end += 1
            scen = os.path.join(d, "noslo.yaml")
            with open(scen, "w") as f:
                f.write("\n".join(lines[:start] + lines[end:]) + "\n")
            h = os.path.join(d, "noslo.html")
            fx.run("infer", "serve", scen, "--report", h, "-q")
            with open(h, encoding="utf-8") as f:
                page = fx.embedded_data(f.read())["page"]
            self.assertTrue(page["takeaways"])
            for t in page["takeaways"] + [c["takeaway"] for c in page["charts"]]:
                self.assertNotIn("SLO", t)
            # A text cell where a number belongs is named at its place in the saved result.
            j = os.path.join(d, "an.json")
            fx.run("analyze", "tests/data/trace/param/dlrm_8rank", "--json", j, "-q")
            with open(j) as f:
                an = json.load(f)
            tb = an["tables"]["temporal_breakdown"]
            tb["columns"]["rank"] = [str(x) for x in tb["columns"]["rank"]]
            tb["types"]["rank"] = "str"
            bad = os.path.join(d, "strrank.json")
            with open(bad, "w") as f:
                json.dump(an, f)
            p = fx.run("report", bad, "-o", os.path.join(d, "x.html"), check=False)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("tables.temporal_breakdown.columns.rank", p.stderr)
            # No headline bullet is blank, whatever the renderers found (a trace without
            # communication had an empty bullet and an overlap chart of zeros).
            for kind, (path, _) in self.reports.items():
                with open(path, encoding="utf-8") as f:
                    pg = fx.embedded_data(f.read())["page"]
                for t in pg["takeaways"]:
                    self.assertTrue(t.strip(), kind)

    def test_inference_headlines_say_the_fit_and_the_refusals(self):
        """Question (review of 2026-12-06): does the headline of `infer estimate` say that a
        deployment does not fit (16 GB of weights on a phone with 4.3 GB usable), and the one of
        `infer serve` the requests it refused (36 of 200)? Both had been in the JSON and a note only."""
        with tempfile.TemporaryDirectory() as d:
            est, srv = os.path.join(d, "est.html"), os.path.join(d, "srv.html")
            fx.run("infer", "estimate", "--model", "llama3-8b", "--accelerator", "apple-a17-pro", "--weights", "fp16",
                   "--engine", "llama.cpp", "--report", est, "-q")
            fx.run("infer", "serve", "data/examples/infer-on-device.yaml", "--set", "deployment.accelerator=apple-a17-pro",
                   "--report", srv, "-q")
            with open(est, encoding="utf-8") as f:
                headline = fx.embedded_data(f.read())["page"]["takeaways"]
            self.assertRegex(headline[0], r"^does not fit in memory: needs 15\.\d GiB per device, 4\.00 GiB usable \(weights ")
            with open(srv, encoding="utf-8") as f:
                headline = fx.embedded_data(f.read())["page"]["takeaways"]
            self.assertTrue(any(t.startswith("36 of 200 requests (18%) refused at arrival") for t in headline), headline)

    def test_an_estimate_beyond_the_context_window_gives_the_window(self):
        """Question (review of 2026-12-06): does the headline of an estimate whose prompt + output is
        beyond the model's window give the window (131,072 tokens for Llama 3.1 70B), not
        max_context_tokens (memory's limit capped by it)? A 200,000-token prompt on one H100 had read
        "(at most 0 tokens)"."""
        with tempfile.TemporaryDirectory() as d:
            est = os.path.join(d, "est.html")
            fx.run("infer", "estimate", "--model", "llama3.1-70b", "--accelerator", "h100-sxm-80gb", "--prompt", "200000",
                   "--output", "100", "--report", est, "-q")
            with open(est, encoding="utf-8") as f:
                doc = fx.embedded_data(f.read())
            self.assertEqual(doc["result"]["scalars"]["context_window_tokens"], 131072)
            headline = doc["page"]["takeaways"][0]
            self.assertIn("does not fit the model's context window: the prompt + output is beyond its 131072 tokens", headline)
            self.assertNotIn("at most", headline)

    def test_a_document_without_a_results_keys_is_refused(self):
        """Question (review of 2026-12-06): is a JSON document that is not a Sextant result refused,
        naming the file and the missing key? {"schema_version": 1} and a result without its command
        had made an empty page, exit 0. Notes may be left out."""
        import json
        with tempfile.TemporaryDirectory() as d:
            j = os.path.join(d, "r.json")
            fx.run("infer", "estimate", "--model", "llama3.1-8b", "--accelerator", "h100-sxm-80gb", "--json", j, "-q")
            with open(j) as f:
                doc = json.load(f)
            cases = [("min.json", {"schema_version": 1}, "command")]
            for key in ("command", "scalars", "tables"):
                cases.append(("no_%s.json" % key, {k: v for k, v in doc.items() if k != key}, key))
            for name, body, key in cases:
                path = os.path.join(d, name)
                with open(path, "w") as f:
                    json.dump(body, f)
                out = os.path.join(d, name + ".html")
                p = fx.run("report", path, "-o", out, check=False)
                self.assertEqual(p.returncode, 2, name + ": " + p.stderr)
                self.assertIn("%s: key '%s': malformed result JSON: missing" % (name, key), p.stderr)
                self.assertFalse(os.path.exists(out), name)
            path = os.path.join(d, "no_notes.json")
            with open(path, "w") as f:
                json.dump({k: v for k, v in doc.items() if k != "notes"}, f)
            fx.run("report", path, "-o", os.path.join(d, "no_notes.html"))

    def test_disaggregated_kv_takeaway_gives_the_busiest_pool(self):
        """Question (review of 2026-12-06): does a disaggregated serve report's KV takeaway give
        kv_peak_fraction, the busiest pool's peak the Figures table shows? It had given the peak of
        the pools' total drawn ("3.1%" beside 0.0492)."""
        import json
        with tempfile.TemporaryDirectory() as d:
            j, out = os.path.join(d, "disagg.json"), os.path.join(d, "disagg.html")
            fx.run("infer", "serve", "data/examples/infer-llama3-70b-disagg.yaml", "--json", j, "-q")
            fx.run("report", j, "-o", out)
            with open(j) as f:
                res = json.load(f)
            with open(out) as f:
                page = fx.embedded_data(f.read())["page"]
            kv = next(c for c in page["charts"] if c["id"] == "kv-timeline")
            peak = res["scalars"]["kv_peak_fraction"]
            drawn = max(res["tables"]["memory_timeline"]["columns"]["kv_used_fraction"])
            self.assertGreater(peak, drawn * 1.1)  # the busiest pool is fuller than the pools together
            pct = lambda f: "%.*f%%" % (1 if f < 0.1 else 0, f * 100)  # as the report writes shares
            self.assertTrue(kv["takeaway"].startswith("KV cache peaks at %s of capacity in the busiest pool" % pct(peak)),
                            kv["takeaway"])
            self.assertIn("all pools together, as drawn, peak at %s" % pct(drawn), kv["takeaway"])

    def test_a_trace_is_not_a_sextant_result(self):
        """Question (review of 2026-12-06): is a JSON document of another kind (a Kineto trace) refused
        as not a Sextant result? It had read "result JSON has schema_version (none), this build reads 1",
        as if it were a result of another version."""
        with tempfile.TemporaryDirectory() as d:
            fx.run("trace", "synth", "--out", d, "--ranks", "1", "--steps", "1", "--layers", "1", "-q")
            trace = sorted(f for f in os.listdir(d) if f.endswith(".json"))[0]
            out = os.path.join(d, "t.html")
            p = fx.run("report", os.path.join(d, trace), "-o", out, check=False)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("%s: not a Sextant result: the document has none of the keys schema_version, command and tables "
                          "(its keys: " % trace, p.stderr)
            self.assertIn("traceEvents", p.stderr)
            self.assertNotIn("this build reads", p.stderr)
            self.assertFalse(os.path.exists(out))

    def test_missing_library_is_a_clear_error(self):
        env = dict(os.environ, SEXTANT_ECHARTS_JS="/nonexistent/echarts.min.js")
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "r.html")
            p = fx.run("estimate", "data/examples/llama3-70b-h100.yaml", "--report", out, "-q", env=env, check=False)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("/nonexistent/echarts.min.js", p.stderr)
            self.assertIn("scripts/install-npm-deps.sh", p.stderr)
            self.assertFalse(os.path.exists(out))
            # An empty or foreign file is no charting library (review of 2026-12-05: accepted, and
            # every chart of the page said "charting library missing").
            for content, says in (("", "is empty"), ("var x = 1;\n", "is not Apache ECharts")):
                lib = os.path.join(d, "lib.js")
                with open(lib, "w") as f:
                    f.write(content)
                p = fx.run("estimate", "data/examples/llama3-70b-h100.yaml", "--report", out, "-q",
                           env=dict(os.environ, SEXTANT_ECHARTS_JS=lib), check=False)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(says, p.stderr)
                self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
