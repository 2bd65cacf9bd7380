#!/usr/bin/python3
"""Does `sextant validate` read training CSVs as its documentation says, end to end?

Questions of the review of 2026-12-06 (docs/validation.md), each on rows of the bundled
data/validation/training.csv edited as a user would edit them:
  - a stated vpp that the micro-batch count cannot interleave runs as vpp 1, with vpp 1's stage
    layout (61 layers over pp 4 had been refused);
  - a plan-check error names the CSV's column and gives its remedy in columns, not scenario keys;
  - --fit --leave-one-source-out predicts a source no other can refit with the catalog's constants,
    as its table says (it used --fit's in-sample constants);
  - in a CR-only file with a multi-line quoted field an error gives the physical line;
  - columns of one's own that a read name contains (`dim`, `issue`, ...) are accepted, while a
    misspelt column is refused;
  - boolean cells in any letter case (pandas writes True/False) give the same figures.
Review of 2026-12-07:
  - the row table names the inputs a row left to the policy (`assumed`; an empty micro_batch ran
    at 1 in 22 rows without a word), with a note counting them;
  - a misspelt column beside the correctly named one (`head_dims` beside `head_dim`) is refused;
  - --leave-one-source-out gives each row's held-out prediction and error, which reproduce the
    per-source and pooled figures;
  - an unknown inference engine is named at its column.
"""
import csv
import io
import json
import os
import subprocess
import tempfile
import unittest

BIN = os.environ.get("SEXTANT_BIN", "build/sextant")
DATA = os.environ.get("SEXTANT_DATA_DIR", "data")
TRAINING_CSV = os.path.join(DATA, "validation", "training.csv")
BOOLEAN_COLUMNS = ["sequence_parallel", "tp_comm_overlap", "overlap_grad_reduce", "overlap_param_gather", "ep_comm_overlap", "qk_norm"]


def read_rows():
    with open(TRAINING_CSV, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def csv_text(header, rows, eol="\n"):
    s = io.StringIO()
    w = csv.writer(s, lineterminator=eol)
    w.writerow(header)
    w.writerows(rows)
    return s.getvalue()


class ValidateReview(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sextant-validate-review-")
        self.header, self.rows = read_rows()
        self.col = {c: i for i, c in enumerate(self.header)}

    def tearDown(self):
        for root, dirs, files in os.walk(self.tmp, topdown=False):
            for n in files:
                os.remove(os.path.join(root, n))
            for n in dirs:
                os.rmdir(os.path.join(root, n))
        os.rmdir(self.tmp)

    def write(self, name, text):
        p = os.path.join(self.tmp, name)
        with open(p, "w", newline="") as f:
            f.write(text)
        return p

    def validate(self, path, *args):
        out = os.path.join(self.tmp, "out.json")
        if os.path.exists(out):
            os.remove(out)
        r = subprocess.run([BIN, "validate", path, "-q", "--json", out, *args], capture_output=True, text=True, timeout=300)
        result = None
        if r.returncode == 0:
            with open(out) as f:
                result = json.load(f)
        return r, result

    def row(self, rid):
        return next(list(r) for r in self.rows if r[0] == rid)

    def set(self, rec, **cells):
        for k, v in cells.items():
            rec[self.col[k]] = v
        return rec

    @staticmethod
    def table(result, name):
        return result["tables"][name]

    def test_a_vpp_fallback_runs_as_vpp_one(self):
        # 61 layers over pp 4 (neither 61 nor 63 a multiple of 4), 192 / (1 x 32) = 6 micro-batches.
        base = self.set(self.row("MLM-SC21-T1-06"), layers="61", global_batch="192")
        stated = self.write("v2.csv", csv_text(self.header, [self.set(list(base), vpp="2")]))
        plain = self.write("v1.csv", csv_text(self.header, [self.set(list(base), vpp="1")]))
        r2, j2 = self.validate(stated)
        r1, j1 = self.validate(plain)
        self.assertEqual(r1.returncode, 0, r1.stderr)
        self.assertEqual(r2.returncode, 0, r2.stderr)
        self.assertEqual(j2["scalars"]["median_abs_error_pct"], j1["scalars"]["median_abs_error_pct"])
        self.assertTrue(any("vpp stated but run as 1" in n for n in j2["notes"]), j2["notes"])

    def test_plan_errors_name_the_csv_column_and_a_remedy_in_columns(self):
        rec = self.set(self.row("MLM-README-H100-02"), sequence_parallel="false")
        self.assertEqual(rec[self.col["tp_comm_overlap"]], "true")
        r, _ = self.validate(self.write("tpo.csv", csv_text(self.header, [rec])))
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("key 'tp_comm_overlap'", r.stderr)
        self.assertIn("sequence_parallel = true, or tp_comm_overlap = false", r.stderr)
        self.assertNotIn("parallel.", r.stderr)
        self.assertNotIn("scenario key", r.stderr)

    def test_leave_one_source_out_under_fit_uses_the_catalogs_constants(self):
        one = [r for r in self.rows if r[self.col["source"]] == "NEMO-2407"]
        p = self.write("one.csv", csv_text(self.header, one))
        rp, jp = self.validate(p, "--leave-one-source-out")
        rf, jf = self.validate(p, "--leave-one-source-out", "--fit")
        self.assertEqual(rp.returncode, 0, rp.stderr)
        self.assertEqual(rf.returncode, 0, rf.stderr)
        lp, lf = self.table(jp, "leave_one_source_out"), self.table(jf, "leave_one_source_out")
        self.assertIn("not refitted", json.dumps(lf))
        self.assertEqual(json.dumps(lp), json.dumps(lf))
        # The in-sample fit is kinder than the catalog: the two are told apart.
        self.assertLess(jf["scalars"]["median_abs_error_pct"], jp["scalars"]["median_abs_error_pct"])

    def test_cr_only_files_give_the_physical_line(self):
        rows = [list(r) for r in self.rows[:5]]
        rows[1][self.col["notes"]] = "line one\rline two\rline three"
        rows[4][self.col["layers"]] = "abc"  # row 5: line 2 + 4 + the two extra lines of row 2
        p = self.write("cr.csv", csv_text(self.header, rows, eol="\r"))
        r, _ = self.validate(p)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("cr.csv:8:", r.stderr)

    def test_own_columns_are_accepted_and_misspellings_refused(self):
        extra = ["dim", "issue", "fp8", "recipe", "dispatcher"]
        rows = [r + ["x"] * len(extra) for r in self.rows[:3]]
        r, _ = self.validate(self.write("extra.csv", csv_text(self.header + extra, rows)))
        self.assertEqual(r.returncode, 0, r.stderr)
        for right, wrong in [("micro_batch", "micro_bach"), ("seq_len", "seq_lenght"), ("framework", "framewrok")]:
            with self.subTest(wrong):
                header = [wrong if c == right else c for c in self.header]
                r, _ = self.validate(self.write(f"{wrong}.csv", csv_text(header, self.rows[:3])))
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn(right, r.stderr)

    def test_booleans_in_any_letter_case_give_the_same_figures(self):
        rows = [list(r) for r in self.rows]
        for i, rec in enumerate(rows):
            for c in (c for c in BOOLEAN_COLUMNS if c in self.col):
                v = rec[self.col[c]]
                if v in ("true", "false"):
                    rec[self.col[c]] = v.capitalize() if i % 2 else v.upper()
        r, j = self.validate(self.write("cased.csv", csv_text(self.header, rows)))
        self.assertEqual(r.returncode, 0, r.stderr)
        _, j0 = self.validate(TRAINING_CSV)
        for k in ("median_abs_error_pct", "p90_abs_error_pct", "max_abs_error_pct", "mean_signed_error_pct"):
            self.assertEqual(j["scalars"][k], j0["scalars"][k], k)

    def test_the_inputs_left_to_the_policy_are_listed_and_counted(self):
        d = os.path.join(self.tmp, "csv")
        r = subprocess.run([BIN, "validate", TRAINING_CSV, "-q", "--csv", d], capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(d, "validation_rows.csv"), newline="") as f:
            out = list(csv.DictReader(f))
        with open(os.path.join(d, "validation_rows.csv"), newline="") as f:
            header = next(csv.reader(f))
        self.assertEqual(header[:7], ["id", "source", "model", "num_gpus", "predicted_step_time_s", "target_step_time_s", "error_pct"])
        empty_mb = {rec[0] for rec in self.rows if rec[self.col["micro_batch"]].strip() == ""}
        self.assertEqual(len(empty_mb), 22)
        for o in out:
            self.assertEqual("micro_batch=1" in o["assumed"].split("; "), o["id"] in empty_mb, o)
        with open(os.path.join(d, "notes.csv"), newline="") as f:
            notes = [n["note"] for n in csv.DictReader(f)]
        self.assertTrue(any(n.startswith("22 of 124 rows") and "micro_batch=1 in 22 rows" in n for n in notes), notes)
        # docs/validation.md: MLM-README-H100-04 is +32.5% at the assumed micro-batch 1, +4.0% at 2.
        row = self.set(self.row("MLM-README-H100-04"), micro_batch="2")
        r2, j2 = self.validate(self.write("mb2.csv", csv_text(self.header, [row])))
        self.assertEqual(r2.returncode, 0, r2.stderr)
        t = self.table(j2, "validation_rows")["columns"]
        self.assertEqual(round(t["error_pct"][0], 1), 4.0)
        self.assertEqual(t["assumed"][0], "")
        base = next(o for o in out if o["id"] == "MLM-README-H100-04")
        self.assertEqual(round(float(base["error_pct"]), 1), 32.5)

    def test_a_misspelt_column_beside_the_read_one_is_refused(self):
        rows = [r + [r[self.col["head_dim"]] or "128"] for r in self.rows if r[self.col["source"]] == "MBRIDGE-ARCHIVE"]
        for rec in rows:
            rec[self.col["head_dim"]] = ""
        p = self.write("both.csv", csv_text(self.header + ["head_dims"], rows))
        r, _ = self.validate(p)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(f"both.csv:1:{len(self.header) + 1}:", r.stderr)
        self.assertIn("'head_dims'", r.stderr)
        self.assertIn("'head_dim'", r.stderr)
        self.assertIn("both are present", r.stderr)

    def test_leave_one_source_out_rows_reproduce_its_figures(self):
        d = os.path.join(self.tmp, "loso")
        r = subprocess.run([BIN, "validate", TRAINING_CSV, "-q", "--leave-one-source-out", "--csv", d], capture_output=True, text=True,
                           timeout=600)
        self.assertEqual(r.returncode, 0, r.stderr)

        def read(name):
            with open(os.path.join(d, name), newline="") as f:
                return list(csv.DictReader(f))

        def q(e, frac):  # the harness's quantile of |error| (linear between ranks)
            e = sorted(abs(x) for x in e)
            pos = frac * (len(e) - 1)
            lo = int(pos)
            hi = min(len(e) - 1, lo + 1)
            return e[lo] + (e[hi] - e[lo]) * (pos - lo)

        rows, lo, sc = read("validation_rows.csv"), read("leave_one_source_out.csv"), {x["name"]: float(x["value"]) for x in read("scalars.csv")
                                                                                       if x["name"].startswith("loso_")}
        for t in lo:
            e = [float(x["loso_error_pct"]) for x in rows if x["source"] == t["held_out_source"]]
            self.assertEqual(len(e), int(t["rows_count"]))
            self.assertAlmostEqual(q(e, 0.5), float(t["median_abs_error_pct"]), places=9)
            self.assertAlmostEqual(max(map(abs, e)), float(t["max_abs_error_pct"]), places=9)
        e = [float(x["loso_error_pct"]) for x in rows]
        held = [float(x["loso_error_pct"]) for x in rows if x["loso_refitted"] == "true"]
        for k, v in [("median", q(e, 0.5)), ("p90", q(e, 0.9)), ("max", q(e, 1.0))]:
            self.assertAlmostEqual(sc[f"loso_{k}_abs_error_pct"], v, places=9)
        self.assertEqual(int(sc["loso_held_out_rows_count"]), len(held))
        for k, v in [("median", q(held, 0.5)), ("p90", q(held, 0.9)), ("max", q(held, 1.0))]:
            self.assertAlmostEqual(sc[f"loso_held_out_{k}_abs_error_pct"], v, places=9)
        for x in rows:
            t = float(x["target_step_time_s"])
            self.assertAlmostEqual(float(x["loso_error_pct"]), (float(x["loso_predicted_step_time_s"]) - t) / t * 100, places=9)

    def test_an_unknown_inference_engine_is_named_at_its_column(self):
        with open(os.path.join(DATA, "validation", "inference.csv"), newline="") as f:
            rows = list(csv.reader(f))
        header, body = rows[0], [list(r) for r in rows[1:4]]
        body[2][header.index("engine")] = "llamacpp"
        p = self.write("eng.csv", csv_text(header, body))
        r = subprocess.run([BIN, "infer", "validate", p, "-q"], capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(f"eng.csv:4:{header.index('engine') + 1}: key 'engine'", r.stderr)


if __name__ == "__main__":
    unittest.main()
