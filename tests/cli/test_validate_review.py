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


if __name__ == "__main__":
    unittest.main()
