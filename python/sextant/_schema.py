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


def to_json_doc(result):
    types = result.get("table_types", {})
    descriptions = result.get("table_descriptions", {})
    tables = {}
    for name, cols in result["tables"].items():
        cols = {c: [_clean(x) for x in (v.tolist() if hasattr(v, "tolist") else v)] for c, v in cols.items()}
        t = types.get(name)
        if t is None:  # a table made in Python: infer column types from the values
            t = {}
            for c, values in cols.items():
                vals = [x for x in values if x is not None]
                if all(isinstance(x, int) and not isinstance(x, bool) for x in vals) and vals:
                    t[c] = "i64"
                elif all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in vals):
                    t[c] = "f64"
                else:
                    t[c] = "str"
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
