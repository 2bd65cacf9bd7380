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
    if vals and len(vals) == len(values) and all(isinstance(x, int) for x in vals):
        return "i64"  # booleans too, as 0/1 (the schema's *_flag columns)
    if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in vals):
        return "f64"
    return "str"


def _fits(kind, values):
    if kind == "i64":
        return all(isinstance(x, int) and not isinstance(x, bool) for x in values)
    if kind == "f64":
        return all(x is None or (isinstance(x, (int, float)) and not isinstance(x, bool)) for x in values)
    return all(isinstance(x, str) for x in values)


def _as_kind(kind, values):
    """The values in the column's schema type: the schema has f64, i64 and str columns only (a
    pandas round trip brings booleans and NaN into any column; report() refused them before
    2026-12-02, "a str column holds null")."""
    if kind == "i64":
        return [int(x) for x in values]
    if kind == "str":
        return ["" if x is None else x if isinstance(x, str) else ("true" if x else "false") if isinstance(x, bool) else str(x)
                for x in values]
    return values


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
            "columns": {c: _as_kind(t[c], v) for c, v in cols.items()},
        }
    return {
        "schema_version": result.get("schema_version", SCHEMA_VERSION),
        "command": result.get("command", ""),
        "scalars": {k: _clean(v) for k, v in result.get("scalars", {}).items()},
        "tables": tables,
        "notes": list(result.get("notes", [])),
    }
