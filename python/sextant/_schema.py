"""The Result JSON layout (src/core/result.hpp to_json) rebuilt from the dict form."""
import math

from . import _sextant

SCHEMA_VERSION = _sextant.SCHEMA_VERSION


def _clean(v):
    if not isinstance(v, (bool, int, float, str)) and v is not None and hasattr(v, "item"):
        v = v.item()  # a numpy scalar
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _infer(values):
    vals = [x for x in values if x is not None]
    if vals and len(vals) == len(values) and all(isinstance(x, int) and not isinstance(x, bool) for x in vals):
        return "i64"
    if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in vals):
        return "f64"
    return "str"


def _fits(kind, values):
    if kind == "i64":
        return all(isinstance(x, int) and not isinstance(x, bool) for x in values)
    if kind == "f64":
        return all(x is None or (isinstance(x, (int, float)) and not isinstance(x, bool)) for x in values)
    if kind == "bool":
        return all(isinstance(x, bool) for x in values)
    return all(isinstance(x, str) for x in values)


def to_json_doc(result):
    types = result.get("table_types", {})
    descriptions = result.get("table_descriptions", {})
    tables = {}
    for name, cols in result["tables"].items():
        cols = {c: [_clean(x) for x in (v.tolist() if hasattr(v, "tolist") else v)] for c, v in cols.items()}
        declared = types.get(name) or {}
        t = {}
        for c, values in cols.items():
            # A column the result declared keeps its type while its values still fit it; a
            # column added or changed in Python (a pandas round trip, a label column) is typed
            # from its values. An integer column with a missing value is f64: i64 has no null.
            t[c] = declared[c] if c in declared and _fits(declared[c], values) else _infer(values)
        tables[name] = {
            "description": descriptions.get(name, ""),
            "types": dict(t),
            "columns": {c: [_clean(x) for x in v] for c, v in cols.items()},
        }
    return {
        "schema_version": result.get("schema_version", SCHEMA_VERSION),
        "command": result.get("command", ""),
        "scalars": {k: _clean(v) for k, v in result.get("scalars", {}).items()},
        "tables": tables,
        "notes": list(result.get("notes", [])),
    }
