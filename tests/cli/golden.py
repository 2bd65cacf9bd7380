"""Shared parts of the golden diff tests (test_estimate_golden.py, test_simulate_golden.py): where
the binary, the frozen test catalog and the expected files are, and the comparison of a result
with its expected file (same keys in the same order, floats within rel 1e-9)."""
import math, os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("SEXTANT_BIN", os.path.join(ROOT, "build", "sextant"))
CAT = os.path.join(ROOT, "tests", "data", "catalog-frozen")
GOLDEN = os.path.join(ROOT, "tests", "golden")


def close(a, b, path, errors):
    """Appends to errors every place where a differs from the expected b."""
    if isinstance(a, dict):
        if list(a) != list(b):
            errors.append(f"{path}: keys differ: {list(a)} vs {list(b)}")
            return
        for k in a:
            close(a[k], b[k], f"{path}.{k}", errors)
    elif isinstance(a, list):
        if len(a) != len(b):
            errors.append(f"{path}: length {len(a)} vs {len(b)}")
            return
        for i, (x, y) in enumerate(zip(a, b)):
            close(x, y, f"{path}[{i}]", errors)
    elif isinstance(a, float) or isinstance(b, float):
        if not math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12):
            errors.append(f"{path}: {a} vs expected {b}")
    elif a != b:
        errors.append(f"{path}: {a!r} vs expected {b!r}")
