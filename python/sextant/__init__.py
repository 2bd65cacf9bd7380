"""Sextant from Python: the same library as the ``sextant`` command, with data-shaped results.

Every function returns a dict::

    {"command": "estimate",
     "scalars": {"step_time_s": 9.39, ...},
     "tables": {"breakdown": {"category": [...], "item": [...], "time_s": [...]}, ...},
     "notes": [...]}

A table is a dict of equal-length column lists, so ``pandas.DataFrame(r["tables"]["breakdown"])``
works directly. Inputs are a dict, a path to a YAML file, or YAML text, plus keyword overrides:
``estimate("llama.yaml", overrides={"parallel.tp": 4})`` or ``estimate("llama.yaml", parallel__tp=4)``
(a double underscore stands for the dot of a ``--set`` key). Errors raise :class:`SextantError` with
the message the CLI prints. The C++ work runs without the GIL: calls from several threads run
concurrently and give the results they give one at a time.
"""
import decimal as _decimal
import difflib as _difflib
import json as _json
import numbers as _numbers
import os as _os
import re as _re

_here = _os.path.dirname(_os.path.abspath(__file__))
# An installed package carries the catalogs and examples in sextant/data; the build tree finds the
# source tree's data/ by itself. SEXTANT_DATA_DIR set by the user wins.
if not _os.environ.get("SEXTANT_DATA_DIR") and _os.path.isdir(_os.path.join(_here, "data", "catalog")):
    _os.environ["SEXTANT_DATA_DIR"] = _os.path.join(_here, "data")
if not _os.environ.get("SEXTANT_ECHARTS_JS") and _os.path.isfile(_os.path.join(_here, "echarts.min.js")):
    _os.environ["SEXTANT_ECHARTS_JS"] = _os.path.join(_here, "echarts.min.js")

from . import _sextant  # noqa: E402
from ._sextant import SextantError  # noqa: E402

__all__ = ["estimate", "simulate", "plan", "sweep", "goodput", "infer", "analyze", "catalog", "report",
           "SextantError", "result_from_json"]
__version__ = "0.1.0"


_NAN = float("nan")
# goodput::kMaxReplicas (src/goodput/config.hpp), the CLI's bound on --replicas: the extension does
# not export it (python/tests/test_sextant.py checks that the two agree).
_MAX_REPLICAS = 1000000


_I64_MIN, _I64_MAX, _U64_MAX = -2 ** 63, 2 ** 63 - 1, 2 ** 64 - 1


def _shown(v):
    """v as the C++ result reader's messages show a value (its JSON, compact), cut when long."""
    try:
        text = _json.dumps(v, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        text = repr(v)
    return text if len(text) <= 200 else "%s... (%d characters)" % (text[:80], len(text))


def _is_int(v):
    return type(v) is int or (isinstance(v, int) and not isinstance(v, bool))


def _is_number(v):
    return _is_int(v) or isinstance(v, float)


def _check_result_doc(doc):
    """Raises SextantError where the C++ reader of a saved result (`sextant report FILE`:
    core/result.cpp result_from_json, then report.cpp result_of_document) refuses doc, with its
    key path and wording. 2026-12-07 review: a column one row short, an f64 column holding "x", an
    unknown column type, a column without a type (or a type without a column) and a scalar that is
    an object had been taken here, and `command: 5` was refused without naming the key."""
    def bad(where, what, hint=""):
        return SextantError("%smalformed result JSON: %s%s" % ("key '%s': " % where if where else "", what,
                                                                " (%s)" % hint if hint else ""))

    if not isinstance(doc, dict):
        raise bad("", "the document is not an object of a Sextant result")
    if not any(k in doc for k in ("schema_version", "command", "tables")):
        keys = list(doc)
        listed = ", ".join(str(k) for k in keys[:5]) + (", ..." if len(keys) > 5 else "")
        raise SextantError("not a Sextant result: the document has none of the keys schema_version, command and tables %s "
                           "(give the JSON file a command wrote with --json)"
                           % ("(its keys: %s)" % listed if keys else "(it is an empty object)"))
    # Another schema is refused, as report() and the CLI's readers refuse it: any value had been
    # taken (99, the string "1"), and the result then failed in report() (review of 2026-12-06).
    version = doc.get("schema_version")
    if type(version) is not int or version != _sextant.SCHEMA_VERSION:
        raise SextantError("result JSON has schema_version %s, this build reads %d"
                           % ("(none)" if "schema_version" not in doc else _json.dumps(version), _sextant.SCHEMA_VERSION))

    def only_keys(obj, where, keys):
        for k in obj:
            if k not in keys:
                # A result dict (what the functions return) given back: it is read already.
                hint = "this is a result dict, as the functions return it: it needs no reading" \
                    if not where and k in ("table_types", "table_descriptions") else ""
                raise bad("%s.%s" % (where, k) if where else str(k), "unknown key (valid: %s)" % ", ".join(keys), hint)

    def text_of(obj, key, where):
        if key in obj and not isinstance(obj[key], str):
            raise bad(where, "must be text, got " + _shown(obj[key]))

    def i64_of(v, where):
        # Integers beyond int64 are refused, not wrapped (the C++ reader's i64_of).
        if v < _I64_MIN or v > _I64_MAX:
            raise bad(where, "the integer %d is beyond the signed 64-bit range" % v)

    only_keys(doc, "", ("schema_version", "command", "scalars", "tables", "notes"))
    text_of(doc, "command", "command")
    if "scalars" in doc:
        if not isinstance(doc["scalars"], dict):
            raise bad("scalars", "not an object")
        for k, v in doc["scalars"].items():
            if isinstance(v, bool) or v is None or isinstance(v, (str, float)):
                continue
            if _is_int(v):
                # Beyond int64 the C++ reader takes a number as unsigned (refused) up to 2^64-1,
                # and as a float (taken) beyond either end.
                if _I64_MAX < v <= _U64_MAX:
                    i64_of(v, "scalars." + k)
                continue
            raise bad("scalars." + k, "a scalar must be a number, text, boolean or null")
    if "tables" in doc:
        if not isinstance(doc["tables"], dict):
            raise bad("tables", "not an object")
        for name, tj in doc["tables"].items():
            at = "tables." + name
            if not isinstance(tj, dict) or not isinstance(tj.get("columns"), dict):
                raise bad(at, "a table needs an object of columns")
            only_keys(tj, at, ("description", "types", "columns"))
            text_of(tj, "description", at + ".description")
            types_at = at + ".types"
            if "types" not in tj:
                raise bad(types_at, "missing: table '%s' needs the type of each of its columns (f64, i64 or str)" % name)
            types, columns = tj["types"], tj["columns"]
            if not isinstance(types, dict):
                raise bad(types_at, "must be an object of column types (f64, i64 or str)")
            for cname in types:
                if cname not in columns:
                    raise bad("%s.%s" % (types_at, cname),
                              "column '%s' has a type but no values: table '%s' has no such column" % (cname, name))
            rows = None
            for cname, arr in columns.items():
                where = "%s.columns.%s" % (at, cname)
                if not isinstance(arr, list):
                    raise bad(where, "a column must be an array")
                if cname not in types:
                    raise bad("%s.%s" % (types_at, cname),
                              "missing: column '%s' of table '%s' has no type (valid: f64, i64, str)" % (cname, name))
                text_of(types, cname, "%s.%s" % (types_at, cname))
                ty = types[cname]
                if ty == "i64":
                    for v in arr:
                        if not _is_int(v):
                            raise bad(where, "an i64 column holds " + _shown(v))
                        i64_of(v, where)
                elif ty == "str":
                    for v in arr:
                        if not isinstance(v, str):
                            raise bad(where, "a str column holds " + _shown(v))
                elif ty == "f64":
                    for v in arr:
                        if v is not None and not _is_number(v):
                            raise bad(where, "an f64 column holds " + _shown(v))
                else:
                    raise bad("%s.%s" % (types_at, cname), "unknown column type '%s' (valid: f64, i64, str)" % ty)
                if rows is not None and len(arr) != rows:
                    raise bad(where, "has %d rows where the table's other columns have %d" % (len(arr), rows))
                rows = len(arr)
    if "notes" in doc:
        if not isinstance(doc["notes"], list):
            raise bad("notes", "not an array")
        if not all(isinstance(n, str) for n in doc["notes"]):
            raise bad("notes", "a note must be text")
    # The keys every result has (result_of_document): a missing one had made an empty page.
    for key, what in (("command", "the command that wrote it"), ("scalars", "its scalars"), ("tables", "its tables")):
        if key not in doc:
            raise bad(key, "missing: a Sextant result has %s (command, scalars and tables, as --json writes them)" % what,
                      "give the JSON file a command wrote with --json")


def _not_json_constant(name):
    # NaN and Infinity are not JSON (the C++ readers refuse them; a number that is unknown is null).
    raise ValueError("%s is not JSON: a number that is unknown is written null" % name)


def result_from_json(text):
    """The dict form of a Result from its JSON (``--json`` output or the library's), checked as the
    C++ reader of a saved result (``sextant report FILE``) checks it."""
    try:
        doc = _json.loads(text, parse_constant=_not_json_constant) if isinstance(text, (str, bytes)) else text
    except ValueError as e:  # json.JSONDecodeError, UnicodeDecodeError
        raise SextantError("result_from_json: not JSON (%s)" % e) from None
    _check_result_doc(doc)

    # JSON writes an unknown number (NaN) as null: an f64 column keeps it as float("nan"), so a
    # pandas column of it stays numeric (None made it dtype object, dropped by corr(); review of
    # 2026-12-04).
    # One NaN object for all: list and dict equality compare items by identity first, so two equal
    # results still compare equal (a NaN is not equal to another NaN).
    def column(values, kind):
        if kind == "f64":
            return [_NAN if v is None else v for v in values]
        return list(values)
    return {
        "schema_version": doc["schema_version"],
        "command": doc["command"],
        "scalars": dict(doc["scalars"]),
        "tables": {name: {c: column(v, t["types"][c]) for c, v in t["columns"].items()} for name, t in doc["tables"].items()},
        "table_types": {name: dict(t["types"]) for name, t in doc["tables"].items()},
        "table_descriptions": {name: t.get("description", "") for name, t in doc["tables"].items()},
        "notes": list(doc.get("notes", [])),
    }


def _to_json_doc(result):
    """Inverse of result_from_json (for report())."""
    from . import _schema
    return _schema.to_json_doc(result)


def _overrides(overrides, kwargs):
    if overrides is not None and not isinstance(overrides, dict):
        # The CLI's form ("parallel.tp=4") as a list had raised AttributeError (review of 2026-12-03).
        raise SextantError("overrides: expected a dict {key: value} (e.g. {'parallel.tp': 4}), got %s; or give "
                           "keyword arguments (parallel__tp=4)" % type(overrides).__name__)
    sets = []
    for k, v in list((overrides or {}).items()) + [(k.replace("__", "."), v) for k, v in kwargs.items()]:
        if v is None:
            # str(None) had set the text "None" (a scenario named 'None'; seed "expected an integer").
            raise SextantError("override %s: None is not a value; leave the key out to keep the file's" % k)
        try:
            sets.append((str(k), _scalar_text(v)))
        except RecursionError:
            raise SextantError("override %s: nests too deeply" % k) from None
    # A key given twice (in overrides and as a keyword, or as parallel.tp and parallel[tp]) is
    # refused with the CLI's --set message, by the CLI's code: the last had won in silence
    # (review of 2026-12-06).
    _sextant.check_sets(sets)
    return sets


def _keyword_names(kwargs):
    """{set key: keyword as written} of the overrides given as keywords ("parallel.tp":
    "parallel__tp"): plan() and sweep() name such an override by its keyword in their errors, not
    as an overrides= entry the caller never passed (review of 2026-12-07)."""
    return {k.replace("__", "."): k for k in kwargs}


def _plain(v):
    """numpy/pandas scalars and arrays as Python ones (their .item() / .tolist()), inside lists,
    tuples and dicts too; a whole float such as 32.0 as the integer 32 (an integer key takes it,
    a float key reads it as 32.0)."""
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, float):
        return int(v) if v.is_integer() and abs(v) < 2 ** 63 else v
    if isinstance(v, int):
        return v
    # Other numbers (decimal.Decimal, fractions.Fraction, numbers.Integral/Real types): their value,
    # an integer where whole. A dict had written them as JSON text, refused as "the quoted string"
    # where an override took the same value (review of 2026-12-07).
    if isinstance(v, _decimal.Decimal):
        return _plain(int(v)) if v.is_finite() and v == v.to_integral_value() else _plain(float(v))
    if isinstance(v, _numbers.Integral):
        return int(v)
    if isinstance(v, _numbers.Rational) and v.denominator == 1:
        return int(v.numerator)
    if isinstance(v, _numbers.Real):
        return _plain(float(v))
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple, range)):
        return [_plain(x) for x in v]
    if hasattr(v, "tolist") and callable(v.tolist):
        return _plain(v.tolist())
    if hasattr(v, "item") and callable(v.item):
        return _plain(v.item())
    return v


def _scalar_text(v):
    v = _plain(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, dict)):
        return _json.dumps(v, ensure_ascii=False)  # a YAML flow collection
    return str(v)


def _bool(v, what):
    v = _plain(v)
    if not isinstance(v, bool):
        raise SextantError("%s: expected True or False, got %r" % (what, v))
    return v


def _price(v):
    """sweep's price_usd_per_gpu_hour: None (the system's node price) or a positive number."""
    if v is None:
        return 0.0
    f = _number(v, "price_usd_per_gpu_hour")
    if not (f > 0 and f <= 1e6):
        raise SextantError("price_usd_per_gpu_hour: must be a positive price up to 1e6 USD, got %r (None: the system's node price)" % (v,))
    return f


def _number(v, what):
    """v as a finite float (numbers and numpy scalars; not bool or text), as the CLI's options."""
    v = _plain(v)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise SextantError("%s: expected a number, got %r" % (what, v))
    try:
        f = float(v)
    except OverflowError:
        f = float("inf")
    if f != f or f in (float("inf"), float("-inf")):
        raise SextantError("%s: must be a finite number, got %r" % (what, v))
    return f


def _int_in(v, what, lo, hi=None, why=""):
    """v as an int in [lo, hi], with the CLI's message for the option of the same name (why: the
    CLI's reason for hi, after the range); without hi, at most what the C++ int takes (2^31-1)."""
    n = _whole(_plain(v), what)
    if hi is not None and (n < lo or n > hi):
        bound = "from %d to %s" % (lo, "2^63-1" if hi == 2 ** 63 - 1 else hi)
        raise SextantError("%s: must be an integer %s%s, got %r" % (what, bound, ", " + why if why else "", v))
    if n < lo:
        raise SextantError("%s: must be an integer >= %d, got %r" % (what, lo, v))
    # With hi given, hi is the cap (seeds and byte counts take int64; the 2^31-1 cap had refused
    # seed=2**31, which the CLI takes, before 2026-12-04).
    if hi is None and n > 2 ** 31 - 1:
        raise SextantError("%s: must be an integer at most 2147483647, got %r" % (what, v))
    return n


def _source(obj, what):
    """(text_or_path, is_text, name) for a dict, a path, or YAML text."""
    if isinstance(obj, dict):
        # JSON is YAML: the C++ reader sees the dict as a document, one key per line.
        # numpy values and dates (yaml.safe_load's) are taken as their plain values; a raw
        # "Object of type int64 is not JSON serializable" escaped before 2026-12-02.
        # ensure_ascii=False: an escaped non-BMP character (a surrogate pair, "\\ud83d\\ude80") is
        # refused by the YAML reader ("invalid unicode") where the text itself is read.
        try:
            return _json.dumps(_plain(obj), indent=1, default=str, ensure_ascii=False), True, "<%s dict>" % what
        except RecursionError:
            # As YAML text the same input is refused as nesting too deeply; the dict had raised a bare
            # RecursionError (review of 2026-12-03).
            raise SextantError("%s: the dict nests too deeply" % what) from None
    def no_nul(path):
        return _no_nul(path, what)
    if isinstance(obj, _os.PathLike):
        no_nul(_os.fspath(obj))
        return _os.fspath(obj), False, _os.fspath(obj)
    if isinstance(obj, str) and not obj.strip():
        # "" had been read as the data folder's path: "is a directory, not a file".
        raise SextantError("%s: empty; give a dict, a YAML path or YAML text" % what)
    if isinstance(obj, str):
        # One line of YAML (``"model: llama3-8b"``) is text too when no file of that name exists:
        # its parse error is then the one reported, not "file not found".
        one_line_yaml = ": " in obj and not _os.path.exists(obj)
        if "\n" in obj or obj.lstrip().startswith("{") or one_line_yaml:
            return obj, True, "<%s text>" % what
        return no_nul(obj), False, obj
    raise SextantError("%s: expected a dict, a YAML path or YAML text, got %s" % (what, type(obj).__name__))


def _done(text):
    return result_from_json(text)


def _no_nul(path, what):
    """A path with a NUL byte is refused: the C++ file layer would cut it there and read or write
    another file or folder (catalog=, cache_dir= and analyze's paths had been cut; 2026-12-05 review)."""
    if ("\0" if isinstance(path, str) else b"\0") in path:
        raise SextantError("%s: the path holds a NUL byte (\\0): no file has such a name" % what)
    return path


def _path(v, what):
    """A catalog or data directory: None, a str or a path-like object."""
    if v is None:
        return ""
    try:
        return _no_nul(_os.fspath(v), what)
    except TypeError:
        raise SextantError("%s: expected a directory path, got %s" % (what, type(v).__name__)) from None


def _text(v, what, default=""):
    """A text option: None (its default) or a str."""
    if v is None:
        return default
    if not isinstance(v, str):
        raise SextantError("%s: expected text, got %s" % (what, type(v).__name__))
    return v


def estimate(scenario, *, overrides=None, catalog=None, **kw):
    """Closed-form step estimate of a training scenario (``sextant estimate``)."""
    src, is_text, name = _source(scenario, "scenario")
    return _done(_sextant.estimate(src, is_text, name, _overrides(overrides, kw), _path(catalog, "catalog")))


def simulate(scenario, *, overrides=None, catalog=None, all_ranks=False, stragglers=None, seed=None, jitter=0.0,
             contention=True, interference=True, timeline_rows=5000, timeline_ranks=None, timeline=None, **kw):
    """Event-level simulation of one training step (``sextant simulate``); stragglers: {rank: factor}
    or [(rank, factor), ...], ranks integers and factors numbers (neither a bool nor text).

    timeline_rows: at most this many rows in the table "timeline" (per-rank spans; 0: no table), as
    ``sextant simulate --timeline-rows`` puts in its --json output. timeline_ranks: the ranks in that
    table and in the trace file (``--timeline-ranks``; a list of ints, e.g. list(range(8)) + [64]).
    timeline: a path to write the Chrome trace-event JSON to (``--timeline``), for Perfetto."""
    src, is_text, name = _source(scenario, "scenario")
    # (a pandas Series or numpy array: `x or []` had raised "truth value ... is ambiguous")
    pairs = stragglers.items() if hasattr(stragglers, "items") else ([] if stragglers is None else stragglers)
    # Text ("3=1.2", the CLI's --straggler form) is refused as a whole: iterated, it had been read
    # a character at a time and its first character quoted ("got '3'"; review of 2026-12-07).
    if isinstance(pairs, (str, bytes)):
        pairs = [pairs]
    st = []
    for item in pairs:
        if isinstance(item, (str, bytes)):
            raise SextantError("stragglers: expected {rank: factor} or [(rank, factor), ...], got %r (text: the CLI's "
                               "--straggler RANK=FACTOR form; give {RANK: FACTOR}, e.g. {3: 1.2})" % (item,))
        try:
            r, f = item
        except (TypeError, ValueError) as e:
            raise SextantError("stragglers: expected {rank: factor} or [(rank, factor), ...], got %r (%s)" % (item, e))
        st.append((_rank_int(r, "stragglers: rank"), _number(f, "stragglers: factor of rank %r" % (r,))))
    all_ranks, contention, interference = (_bool(all_ranks, "all_ranks"), _bool(contention, "contention"),
                                           _bool(interference, "interference"))
    seed = -1 if seed is None else _int_in(seed, "seed", 0, 2 ** 63 - 1)  # None: the scenario's seed:
    j = _plain(jitter)
    # True had been read as sigma 1.0, the largest (review of 2026-12-03): a number, not a flag.
    if isinstance(j, bool) or not isinstance(j, (int, float)) or not 0 <= j <= 1:
        raise SextantError("jitter: must be a finite number from 0 to 1 (the lognormal sigma), got %r" % (jitter,))
    jitter = float(j)
    # A seed draws the jitter: without it the seed changes nothing (refused, as the CLI's --seed
    # without --jitter; it was ignored in silence, review of 2026-12-04).
    if seed >= 0 and jitter == 0:
        raise SextantError("seed: draws the per-rank jitter, which is 0 here: give jitter as well (or leave seed out)")
    ranks = _rank_list(timeline_ranks, "timeline_ranks")
    if timeline is not None and not isinstance(timeline, (str, _os.PathLike)):
        raise SextantError("timeline: expected a file path, got %r" % (timeline,))
    # An empty path is refused, as the CLI's --timeline "" is: it had been read as no timeline, the
    # call returning without a word and writing nothing (review of 2026-12-05).
    if timeline is not None and _os.fspath(timeline) == "":
        raise SextantError("timeline: an empty path: give a file name, or leave timeline out (None) for no trace")
    # timeline_rows: the CLI's bounds, 0 to 2^63-1 (--timeline-rows takes an int64; the 2^31-1 cap
    # had refused what the CLI runs, review of 2026-12-07).
    return _done(_sextant.simulate(src, is_text, name, _overrides(overrides, kw), _path(catalog, "catalog"), all_ranks,
                                   contention, interference, seed, float(jitter), st, _int_in(timeline_rows, "timeline_rows", 0, 2 ** 63 - 1),
                                   ranks, _os.fspath(timeline) if timeline is not None else ""))


def _rank_list(v, what):
    """Ranks as a list of ints: None, one rank, a list of ranks, or the CLI's text ("0-7,12")."""
    if v is None:
        return []
    # (not _plain(v): it reads 3.0 as the rank 3; _rank_items takes numpy values itself)
    out = _rank_items(v, what)
    # An empty selection is refused, as the CLI's --timeline-ranks "" is: it had been read as no
    # selection, every class (review of 2026-12-06).
    if not out:
        raise SextantError("%s: lists no rank; give ranks and ranges (e.g. [0, 1] or '0-7,64'), or leave it out (None) "
                           "for every class" % (what,))
    return out


# A rank as the CLI's --timeline-ranks reads one: digits, or '-' and digits; no blank or '+' at
# either end (review of 2026-12-07: leading blanks and '+' were taken, trailing blanks refused).
_INT_TEXT = _re.compile(r"-?[0-9]+")


def _rank_text(text, what, entry=None):
    """One rank written as text, read as the CLI's --timeline-ranks reads it; entry: the range it
    is a side of, quoted in the error ("bad range '24-': '' is not an integer")."""
    if not _INT_TEXT.fullmatch(text):
        where = "" if entry is None else "bad range '%s': " % (entry,)
        raise SextantError("%s: %s'%s' is not an integer (ranks and ranges of digits separated by commas, without blanks "
                           "or signs, e.g. 0-7,64)" % (what, where, text))
    return _int_in(int(text), what, 0)


def _rank_items(v, what):
    """_rank_list's ranks as given, before the empty selection is refused. Ranks are integers (a
    Python or numpy int) or integer text, as the CLI's --timeline-ranks takes them: '1e1', '3.0',
    '0 - 3', 3.0 and [3.0] had been read as ranks (review of 2026-12-06)."""
    if isinstance(v, str):
        out = []
        parts = v.split(",")
        if parts and parts[-1] == "":
            parts.pop()  # as the CLI's getline: "0,1," lists 0 and 1 ("," has one empty entry)
        for part in parts:
            if part == "":
                raise SextantError("%s: empty entry in '%s' (ranks and ranges separated by commas, e.g. 0-7,64)" % (what, v))
            dash = part.find("-", 1)
            if dash >= 0:
                lo, hi = _rank_text(part[:dash], what, part), _rank_text(part[dash + 1:], what, part)
                if hi < lo:
                    raise SextantError("%s: bad range %r: the end is below the start" % (what, part))
                if hi - lo >= 100000 or len(out) + hi - lo >= 100000:
                    raise SextantError("%s: bad range %r: a range lists at most 100000 ranks" % (what, part))
                out.extend(range(lo, hi + 1))
            else:
                out.append(_rank_text(part, what))
        return out
    if hasattr(v, "tolist") and callable(v.tolist) and not isinstance(v, (int, float)):
        v = v.tolist()  # a numpy array as its list (a numpy scalar as its Python value)
    if isinstance(v, (list, tuple, range)):
        return [_rank_text(r, what) if isinstance(r, str) else _rank_int(r, what) for r in v]
    if isinstance(v, (int, float)) or hasattr(v, "item"):
        # Ranks are C++ ints: 2**70 had escaped as pybind11's "incompatible function arguments".
        return [_rank_int(v, what)]
    raise SextantError("%s: expected a rank, a list of ranks or text such as '0-7,12', got %r" % (what, v))


def _rank_int(v, what):
    """v as a rank: an integer (Python or numpy) from 0 to 2^31-1; a bool, a float (3.0) or text
    ("3") is refused, as a factor that is a bool or text is. Before 2026-12-06 {'3': 1.2} and
    {3.0: 1.2} were taken while {3: '1.2'} and {True: 1.2} were refused (review)."""
    if not isinstance(v, (bool, int, float, str)) and hasattr(v, "item") and callable(v.item):
        v = v.item()  # a numpy scalar: numpy.int64(3) is a rank, numpy.bool_ and numpy.float64 are not
    if isinstance(v, bool) or not isinstance(v, int):
        raise SextantError("%s: expected an integer (not a bool, float or text), got %r" % (what, v))
    return _int_in(v, what, 0)


def _whole(v, what):
    """v as an int when it is a whole number (an int, or a float or string that states one)."""
    if isinstance(v, bool):
        raise SextantError("%s: expected an integer, got %r" % (what, v))
    try:
        f = int(v) if isinstance(v, int) else float(v)
        if f != int(f):
            raise ValueError("not whole")
    except (TypeError, ValueError, OverflowError):
        raise SextantError("%s: expected an integer, got %r" % (what, v)) from None
    return int(f)


def _fix_items(fix):
    """fix as the CLI's --fix items: a dict {"tp": 8} or a list of "tp=8" strings."""
    if fix is None:
        return []
    if isinstance(fix, dict):
        def text(v):
            v = _plain(v)
            if isinstance(v, bool):
                return "true" if v else "false"  # (True had been sent as 'True', not a boolean)
            if isinstance(v, float) and v.is_integer():
                return str(int(v))  # a whole float is an integer, as elsewhere (np.float64(4.0))
            return str(v)
        return ["%s=%s" % (k, text(v)) for k, v in fix.items()]
    if isinstance(fix, (list, tuple)) and all(isinstance(x, str) and "=" in x for x in fix):
        return list(fix)
    raise SextantError('fix: expected a dict like {"tp": 8} or a list like ["tp=8"], got %r' % (fix,))


def _text_list(v, what, kinds=(str,)):
    """A list option of the CLI (--zero 0,1): None (the default), one value, a comma-joined string
    or a list of values; each as text."""
    v = _plain(v)
    if v is None:
        return []
    if isinstance(v, str):
        return [x.strip() for x in v.split(",")]
    items = list(v) if isinstance(v, (list, tuple, range)) else [v]
    for x in items:
        if isinstance(x, bool) or not isinstance(x, kinds):
            raise SextantError("%s: expected %s or a list of them, got %r" %
                               (what, " or ".join("text" if k is str else "an integer" for k in kinds), v))
    return [str(x) for x in items]


def _search_list(v, what, kinds=(str,)):
    """A search option's list (zero, schedules, recompute): None searches every value; an empty list
    names none and is refused, as the CLI refuses an empty --zero (it had been sent as the unset
    option and searched everything; review of 2026-12-05)."""
    items = _text_list(v, what, kinds)
    if v is not None and not items:
        raise SextantError("%s: an empty list names nothing to search; leave it out (None) to search every value" % (what,))
    return items


def _search_args(fix, top, threads, recompute_modules, any_framework_feature, zero, schedules, recompute, max_micro_batch,
                 max_vpp, headroom_gib, tie_fraction, no_tp_overlap, sp_only, vary_dp_overlap):
    """The search options of plan() and sweep(), checked in C++ as the CLI's flags of the same
    names (--zero, --schedules, ...; plan/search_args.hpp)."""
    if recompute_modules is None:
        sets = []
    elif isinstance(recompute_modules, str):
        sets = [recompute_modules]
    else:
        sets = [x if isinstance(x, str) else "+".join(x) for x in recompute_modules]
        if not sets:
            raise SextantError("recompute_modules: an empty list names no module set; use 'ladder', 'scenario' or a list of sets")
    return {"fix": _fix_items(fix), "top": _int_in(top, "top", 0), "threads": _int_in(threads, "threads", 0),
            "recompute_modules": sets, "any_framework_feature": _bool(any_framework_feature, "any_framework_feature"),
            "zero": _search_list(zero, "zero", (int, str)), "schedules": _search_list(schedules, "schedules"),
            "recompute": _search_list(recompute, "recompute"), "max_micro_batch": _int_in(max_micro_batch, "max_micro_batch", 0),
            "max_vpp": _int_in(max_vpp, "max_vpp", 0), "headroom_gib": _number(headroom_gib, "headroom_gib"),
            "tie_fraction": None if tie_fraction is None else _number(tie_fraction, "tie_fraction"),
            "no_tp_overlap": _bool(no_tp_overlap, "no_tp_overlap"), "sp_only": _bool(sp_only, "sp_only"),
            "vary_dp_overlap": _bool(vary_dp_overlap, "vary_dp_overlap")}


# plan()'s job without a scenario, as the CLI's --model --system --num-gpus --global-batch --seq-len
# (required) and --precision.
_JOB_KEYS = ("model", "system", "num_gpus", "global_batch", "seq_len", "precision")


# A scenario's top-level keys, as the scenario reader (src/scenario/scenario.cpp, parse_root) lists
# them; test_sextant.py pins this list to the reader's "unknown key (valid: ...)" message.
_SCENARIO_KEYS = ("accelerator", "framework", "hardware", "model", "name", "num_gpus", "parallel", "seed", "system",
                  "training")


def _refuse_unknown_job_keys(sets):
    """An override key the job's scenario does not know is named before a job key is missed: a
    misspelt keyword (sytem=) had been reported as the job key it meant, "missing system", without
    a word of the misspelling (review of 2026-12-06). The message is the scenario reader's, which
    _typed_errors completes with the closest argument (the job's keywords among them)."""
    for key, _ in sets:
        top = _re.split(r"[.\[]", key, 1)[0]
        if top not in _SCENARIO_KEYS:
            raise SextantError("command line (--set): key '%s': unknown key (%s)"
                               % (top, _sextant.valid_choices_hint(top, list(_SCENARIO_KEYS))))


def plan(scenario=None, *, overrides=None, catalog=None, fix=None, top=20, threads=0, rerank_top=10, recompute_modules=None,
         any_framework_feature=False, zero=None, schedules=None, recompute=None, max_micro_batch=0, max_vpp=0, headroom_gib=0,
         tie_fraction=None, no_tp_overlap=False, sp_only=False, vary_dp_overlap=False, write_scenario=None, write_rank=1, **kw):
    """Search every valid parallel plan of the scenario's job (``sextant plan``); fix: {"tp": 8, ...}.

    Without a scenario the job is given as the CLI's options are, by keyword: model, system,
    num_gpus, global_batch, seq_len and precision (default "bf16"); overrides then set other keys.

    A scenario that names a framework is searched within that stack's plan features, as the CLI
    does; any_framework_feature=True lifts it (``--any-framework-feature``).

    recompute_modules: the module sets selective recompute is searched with (``--recompute-modules``):
    None or "ladder" (the model's modules added cheapest first), "scenario" (the scenario's set), or
    a list of sets, each a list of module names or a string joined by "+" ("core_attn+moe_act").

    write_scenario: a path; the scenario that runs plan ``write_rank`` of the ranking (1: the
    fastest) is written there, as ``--write-scenario`` does; estimate() of it gives that plan's step
    time.

    The other search options are the CLI's flags of the same name: zero=[0, 1] (``--zero``),
    schedules=["1f1b", "dualpipev"], recompute=["none", "full"], max_micro_batch, max_vpp,
    headroom_gib, tie_fraction, no_tp_overlap, sp_only, vary_dp_overlap. A list may also be given
    as one value or as the CLI's comma-joined text ("0,1").
    """
    search = _search_args(fix, top, threads, recompute_modules, any_framework_feature, zero, schedules, recompute,
                          max_micro_batch, max_vpp, headroom_gib, tie_fraction, no_tp_overlap, sp_only, vary_dp_overlap)
    job = {}
    if scenario is None:
        for k in ("model", "system", "precision"):
            if k in kw:
                v = _plain(kw.pop(k))
                if not isinstance(v, str):
                    raise SextantError("%s: expected a string, got %s" % (k, type(v).__name__))
                job[k] = v
        for k in ("num_gpus", "global_batch", "seq_len"):
            if k in kw:
                # The CLI's message for --num-gpus 0; the upper bounds are the scenario's own
                # (num_gpus at most 2^30, global_batch x seq_len at most 2^53 tokens), said by the
                # library as for the CLI: here only what an int64 cannot hold is refused (a bound
                # of 2^62 had been named that no call could reach; review of 2026-12-07).
                v = kw.pop(k)
                n = _whole(_plain(v), k)
                if n < 1:
                    raise SextantError("key '%s': must be a positive integer (got %r)" % (k, v))
                job[k] = _int_in(n, k, 1, 2 ** 63 - 1)
        src, is_text, name = "", True, "plan()"
        if any(k not in job for k in _JOB_KEYS[:5]):
            _refuse_unknown_job_keys(_overrides(overrides, kw))
    else:
        src, is_text, name = _source(scenario, "scenario")
    if write_scenario is None:
        if write_rank != 1:
            raise SextantError("write_rank: names the plan write_scenario writes, and no write_scenario is given")
        out_path = ""
    elif isinstance(write_scenario, (str, _os.PathLike)) and _os.fspath(write_scenario):
        out_path = _os.fspath(write_scenario)
    else:
        raise SextantError("write_scenario: expected the path of the file to write, got %r" % (write_scenario,))
    return _done(_sextant.plan(src, is_text, name, _overrides(overrides, kw), _path(catalog, "catalog"), search,
                               _int_in(rerank_top, "rerank_top", 0), job, out_path, _int_in(write_rank, "write_rank", 1, 2 ** 63 - 1),
                               _keyword_names(kw)))


def sweep(scenario, *, vary=None, elasticity=False, pareto=None, overrides=None, catalog=None, fix=None, threads=0,
          train_tokens=1e12, any_framework_feature=False, price_usd_per_gpu_hour=None, idle_fraction=0.10,
          elasticity_step=None, recompute_modules=None, zero=None, schedules=None, recompute=None, max_micro_batch=0,
          max_vpp=0, headroom_gib=0, no_tp_overlap=False, sp_only=False, vary_dp_overlap=False, max_points=10000, **kw):
    """Hardware sweep with re-planning (``sextant sweep``); the scenario's framework restricts the
    plans searched at each point as in plan() (any_framework_feature=True lifts it).

    vary: {"accelerator.memory_bandwidth_bytes_per_s": [2e12, 3e12]} or ["KEY=V1,V2", ...];
    pareto: ("step_time_s", "tokens_per_joule"); price_usd_per_gpu_hour, idle_fraction and
    elasticity_step (None: 0.1; only with elasticity=True) are the CLI's --price-usd-per-gpu-hour,
    --idle-fraction and --elasticity-step;
    max_points (default 10000) refuses a larger grid before it starts, as --max-points.
    The search at each point takes plan()'s search options (fix, zero, schedules, recompute,
    recompute_modules, max_micro_batch, max_vpp, headroom_gib, no_tp_overlap, sp_only,
    vary_dp_overlap); a sweep keeps each point's best plan, so it has no tie_fraction (nor does the CLI's).
    """
    if elasticity_step is not None and not _bool(elasticity, "elasticity"):
        raise SextantError("elasticity_step: is the step of elasticity's central difference; give elasticity=True too, or leave it out")
    if elasticity_step is None:
        elasticity_step = 0.1
    search = _search_args(fix, 20, threads, recompute_modules, any_framework_feature, zero, schedules, recompute,
                          max_micro_batch, max_vpp, headroom_gib, None, no_tp_overlap, sp_only, vary_dp_overlap)
    items = []
    if isinstance(vary, (list, tuple)) and all(isinstance(x, (list, tuple)) and len(x) == 2 for x in vary):
        # [(key, values), ...]: the dict's pairs. A key given twice is the CLI's error, not the
        # last pair silently kept (review of 2026-12-04).
        keys = [k for k, _ in vary]
        for k in keys:
            if keys.count(k) > 1:
                raise SextantError("sweep: vary: the key '%s' is varied twice (give all its values in one pair)" % (k,))
        vary = dict(vary)
    if isinstance(vary, dict):
        for k, vals in vary.items():
            vals = _plain(vals)
            vals = list(vals) if isinstance(vals, (list, tuple, range)) else [vals]
            # An empty list had become "KEY=" and failed "'' is not a number" (2026-12-06 review).
            if not vals:
                raise SextantError("vary: no values given for %s, expected {%r: [V1, V2, ...]}" % (k, k))
            items.append("%s=%s" % (k, ",".join(repr(v) if isinstance(v, float) else str(v) for v in map(_plain, vals))))
    elif isinstance(vary, str):
        items = [vary]
    else:
        items = [] if vary is None else list(vary)
        if not all(isinstance(x, str) for x in items):
            raise SextantError('vary: expected {key: [values]}, [(key, [values]), ...] or ["KEY=V1,V2", ...], got %r' % (vary,))
    if pareto is None:
        px, py = "", ""
    elif isinstance(pareto, (list, tuple)) and len(pareto) == 2 and all(isinstance(x, str) for x in pareto):
        px, py = pareto
    else:
        raise SextantError('pareto: expected two column names, e.g. ("step_time_s", "tokens_per_joule"), got %r' % (pareto,))
    elasticity = _bool(elasticity, "elasticity")
    src, is_text, name = _source(scenario, "scenario")
    return _done(_sextant.sweep(src, is_text, name, _overrides(overrides, kw), _path(catalog, "catalog"), items, elasticity,
                                px, py, search, _number(train_tokens, "train_tokens"), _price(price_usd_per_gpu_hour), _number(idle_fraction, "idle_fraction"),
                                _number(elasticity_step, "elasticity_step"),
                                # The CLI's bounds (--max-points takes an int64; the 2^31-1 cap had
                                # refused what the CLI runs, review of 2026-12-07).
                                _int_in(max_points, "max_points", 1, 2 ** 63 - 1), _keyword_names(kw)))


def goodput(config, *, overrides=None, replicas=None, seed=None, threads=None, search=True, search_replicas=None, **kw):
    """Goodput under failures, checkpoints and recovery (``sextant goodput``)."""
    # search_replicas: the CLI's --search-replicas (replicas per evaluation of the interval search
    # and knob solving), the file's simulation.search_replicas; with search=False there is nothing
    # it sizes, as the CLI refuses (2026-12-07 review: only simulation__search_replicas= reached it,
    # and the error for search_replicas= suggested replicas=).
    if search_replicas is not None:
        n = _int_in(search_replicas, "search_replicas", 2, _MAX_REPLICAS)
        if search is False:
            raise SextantError("search_replicas sizes the interval search and knob solving, which search=False turns off; "
                               "leave search_replicas out, or search=True")
        if "simulation__search_replicas" in kw:
            raise SextantError("search_replicas= and simulation__search_replicas= both given: give one")
        kw["simulation__search_replicas"] = n
    # The CLI's bound and words for --replicas (2026-12-07 review: without a bound, 2^31-1 was the
    # cap, and a count beyond the simulation's was blamed on the file's simulation map).
    replicas = 0 if replicas is None else _int_in(replicas, "replicas", 2, _MAX_REPLICAS, "the most the simulation holds in memory")
    seed = -1 if seed is None else _int_in(seed, "seed", 0, 2 ** 63 - 1)
    # The CLI's bound (--threads 0 to 4096, as simulation.threads); 5000 had been taken.
    threads = -1 if threads is None else _int_in(threads, "threads", 0, 4096)
    src, is_text, name = _source(config, "goodput")
    return _done(_sextant.goodput(src, is_text, name, _overrides(overrides, kw), replicas, seed, threads,
                                  _bool(search, "search"), _os.getcwd()))


class _Default:
    """An argument left out (as distinct from one given with the default's value)."""

    def __init__(self, value):
        self.value = value

    def __repr__(self):
        return repr(self.value)


def _given(v):
    return v.value if isinstance(v, _Default) else v


# infer()'s deployment arguments whose key in a study's deployment: is spelt otherwise (the rest
# are the same words): a misspelt argument beside a study is pointed to deployment__KEY=.
_INFER_STUDY_KEYS = {"weights": "weight_format", "activations": "activation_format", "kv": "kv_format"}


def infer(study=None, *, mode=None, overrides=None, catalog=None, infer_data=None, model=None, accelerator=None,
          engine=_Default("generic"), system=_Default(""), tp=_Default(1), pp=_Default(1), ep=_Default(1), weights=None,
          activations=None, kv=None, kv_share_layers=_Default(1), prompt=_Default(1024), output=_Default(256),
          batch=_Default(1), expert_load_factor=_Default(0), memory_gib=None, memory_utilization_fraction=None,
          max_model_len=_Default(0), **kw):
    """LLM inference (``sextant infer``).

    With a study (dict, YAML path or text): ``mode="serve"`` (default) simulates serving,
    ``mode="plan"`` searches the cheapest deployment meeting the SLO, ``mode="estimate"`` is
    ``infer estimate FILE`` (the study's deployment at its workload's mean prompt and output
    lengths; ``prompt``, ``output`` and ``batch`` may be given); keyword overrides apply to the
    study (``workload__rate_per_s=20``, ``deployment__tp=2``). Without a study: the
    single-deployment estimate (``infer estimate``) of ``model`` on ``accelerator``.
    """
    # The deployment arguments as given (a study refuses any, default value or not: engine="generic"
    # beside a study of vllm had been accepted and ignored, review of 2026-12-03).
    given = dict(model=model, accelerator=accelerator, engine=engine, system=system, tp=tp, pp=pp, ep=ep, weights=weights,
                 activations=activations, kv=kv, kv_share_layers=kv_share_layers, prompt=prompt, output=output, batch=batch,
                 expert_load_factor=expert_load_factor, memory_gib=memory_gib,
                 memory_utilization_fraction=memory_utilization_fraction, max_model_len=max_model_len)
    (engine, system, tp, pp, ep, kv_share_layers, prompt, output, batch, expert_load_factor, max_model_len) = (
        _given(engine), _given(system), _given(tp), _given(pp), _given(ep), _given(kv_share_layers), _given(prompt),
        _given(output), _given(batch), _given(expert_load_factor), _given(max_model_len))
    if study is None:
        if mode not in (None, "estimate"):
            raise SextantError("infer: mode '%s' needs a study (dict or YAML file)" % mode)
        if not model or not accelerator:
            raise SextantError("infer: without a study, model= and accelerator= are required (infer estimate)")
        if kw or overrides:
            # Overrides apply to a study; here every setting is an argument of its own.
            bad = sorted(list(kw) + (["overrides"] if overrides else []))
            valid = ["model", "accelerator", "engine", "system", "tp", "pp", "ep", "weights", "activations", "kv",
                     "kv_share_layers", "prompt", "output", "batch", "expert_load_factor", "memory_gib",
                     "memory_utilization_fraction", "max_model_len", "catalog", "infer_data"]
            # The nearest argument of each misspelt one (tpp= had been listed without naming tp;
            # review of 2026-12-07), as the other functions' errors say it.
            near = [(k, _difflib.get_close_matches(k, valid, n=1)) for k in bad]
            hints = ["%s= (for %s)" % (n[0], k) if len(bad) > 1 else "%s=" % n[0] for k, n in near if n]
            raise SextantError("infer: unknown argument(s) %s without a study (valid: %s)%s"
                               % (", ".join(bad), ", ".join(valid), "; did you mean %s?" % ", ".join(hints) if hints else ""))
        # None: the catalog's memory, the engine's utilisation; a value given must be positive.
        given = {}
        for k, v in (("memory_gib", memory_gib), ("memory_utilization_fraction", memory_utilization_fraction)):
            given[k] = 0.0 if v is None else _number(v, k)
            if v is not None and not given[k] > 0:
                raise SextantError("infer: %s must be positive, got %r (leave it out for the default)" % (k, v))
        if isinstance(model, _os.PathLike):
            model = _os.fspath(model)  # a config.json path
        for k, v in (("model", model), ("accelerator", accelerator), ("engine", engine), ("system", system),
                     ("weights", weights), ("activations", activations), ("kv", kv)):
            if not isinstance(v, str) and not (v is None and k in ("weights", "activations", "kv")):
                raise SextantError("infer: %s must be a string, got %r" % (k, v))
        # None is a format's default; "" is refused, as the CLI's --kv "" is: it had silently meant
        # the default, as had any false value (weights=0; review of 2026-12-06).
        for k, v in (("weights", weights), ("activations", activations), ("kv", kv)):
            if v == "":
                raise SextantError("infer: %s: is empty: give a format (%s), or leave it out (None) for the default"
                                   % (k, _sextant.valid_choices_hint("", _sextant.format_names())))
        weights, activations, kv = weights or "", activations or "", kv or ""
        ints = {k: _int_in(v, k, 1) for k, v in (("tp", tp), ("pp", pp), ("ep", ep), ("kv_share_layers", kv_share_layers),
                                                ("prompt", prompt), ("output", output), ("batch", batch))}
        return _done(_sextant.infer_estimate(model, accelerator, engine, system, ints["tp"], ints["pp"], ints["ep"], weights or "",
                                             activations or "", kv or "", ints["kv_share_layers"], ints["prompt"], ints["output"],
                                             ints["batch"], _path(catalog, "catalog"), _path(infer_data, "infer_data"),
                                             _number(expert_load_factor, "expert_load_factor"), given["memory_gib"],
                                             given["memory_utilization_fraction"],
                                             _int_in(max_model_len, "max_model_len", 0)))
    # The deployment arguments are infer estimate's: a study gives its own (they were dropped
    # without a word before 2026-12-03, and the result still named the study's model). With
    # mode="estimate" the run's lengths and batch are arguments, as infer estimate FILE's options.
    lengths = ("prompt", "output", "batch") if mode == "estimate" else ()
    ignored = sorted(k for k, v in given.items() if v is not None and not isinstance(v, _Default) and k not in lengths)
    if ignored:
        raise SextantError("infer: argument(s) %s apply to the estimate without a study; with a study give its keys as overrides "
                           "(e.g. deployment__tp=8, or overrides={'deployment.tp': 8})" % ", ".join(ignored))
    mode = mode or "serve"
    if mode not in ("serve", "plan", "estimate"):
        raise SextantError("infer: unknown mode '%s' (valid with a study: serve, plan, estimate)" % mode)
    src, is_text, name = _source(study, "study")
    sets = _overrides(overrides, kw)
    run_lengths = {}
    if mode == "estimate":
        # given[] holds the arguments as passed (a _Default where left out).
        for k in ("prompt", "output"):
            v = given[k]
            run_lengths[k] = -1 if v is None or isinstance(v, _Default) else _int_in(v, k, 1)
        v = given["batch"]
        run_lengths["batch"] = 1 if v is None or isinstance(v, _Default) else _int_in(v, "batch", 1)
    # Text (or a dict) is read in place: relative files it names resolve from the working
    # directory. It had been written to a temporary file, and a file of the same name in the
    # temporary folder shadowed the caller's model (2026-12-03 review).
    return _done(_sextant.infer_study(src, bool(is_text), name, mode, sets, _path(catalog, "catalog"),
                                      _path(infer_data, "infer_data"), **run_lengths))


def analyze(paths, *, compat="sextant", only=None, top=10, threads=0, device=None, catalog=None, scale=None, drop_gaps=None,
            stragglers=None, per_launch=False, kernel_delay_us=30, unexplained_gap_us=10.0, critical_path_rows=40,
            sequence_depth=0, gap_threshold_us=100.0, clock_sync=True, cache=False, cache_dir=None, max_inflate_bytes=None):
    """Analysis of PyTorch profiler traces: files or directories of per-rank files (``sextant analyze``).

    The CLI's options, by the same names: device (catalog id for the roofline; default from the
    trace's deviceProperties), catalog (a catalog folder), scale (what-if factors, "CLASS=FACTOR"
    or a list of them, or a dict {class: factor}), drop_gaps ("host", "gpu" or both), stragglers
    (with compat="hta"), per_launch, kernel_delay_us, unexplained_gap_us, critical_path_rows,
    sequence_depth, gap_threshold_us, clock_sync (False: --no-clock-sync), cache, cache_dir and
    max_inflate_bytes (None: the default gzip-bomb guard; 0: no limit)."""
    if isinstance(paths, (str, bytes, _os.PathLike)):
        paths = [paths]
    # One name, a list of names, or the CLI's comma-separated text (a string was split into its
    # characters before 2026-12-02: "unknown analysis 't'").
    names = [only] if isinstance(only, str) else ([] if only is None else list(only))
    names = [n.strip() for x in names for n in str(x).split(",") if n.strip()]
    if hasattr(scale, "items"):
        # The factor as written on the command line: 2, not 2.0 (whatif_scenario had differed from the
        # CLI's and from the list form; review of 2026-12-05).
        scales = ["%s=%s" % (k, _plain(_number(v, "scale: factor of %s" % k))) for k, v in scale.items()]
    elif isinstance(scale, str):
        # One spec, as the CLI's --scale takes one: a kernel pattern may hold commas
        # ('kernel:gemm{1,2}=0.5' had been split at them before 2026-12-04).
        scales = [scale.strip()]
    else:
        scales = _text_list(scale, "scale") if scale is not None else []
    gaps = _text_list(drop_gaps, "drop_gaps") if drop_gaps is not None else []
    try:
        files = [_no_nul(_os.fspath(p), "paths") for p in paths]
    except TypeError:
        raise SextantError("paths: expected a trace file or folder path, or a list of them, got %r" % (paths,)) from None
    return _done(_sextant.analyze(files, _text(compat, "compat", "sextant"), names, _int_in(top, "top", 1),
                                  _int_in(threads, "threads", 0), "" if device is None else str(device),
                                  _path(catalog, "catalog"), scales, gaps,
                                  -1 if stragglers is None else _int_in(stragglers, "stragglers", 1),
                                  _bool(per_launch, "per_launch"), _number(kernel_delay_us, "kernel_delay_us"),
                                  _number(unexplained_gap_us, "unexplained_gap_us"), _int_in(critical_path_rows, "critical_path_rows", 0),
                                  _int_in(sequence_depth, "sequence_depth", 0), _number(gap_threshold_us, "gap_threshold_us"),
                                  _bool(clock_sync, "clock_sync"), _bool(cache, "cache"), _path(cache_dir, "cache_dir"),
                                  -1 if max_inflate_bytes is None else _int_in(max_inflate_bytes, "max_inflate_bytes", 0, 2 ** 63 - 1)))


def catalog(kind=None, *, name=None, catalog=None):
    """``catalog()``/``catalog("models")``: the listing; ``catalog(name="h100-sxm-80gb")``: one entry."""
    if kind and name:
        # One entry is found by its id in every kind (kind was ignored before 2026-12-03).
        raise SextantError("catalog: give kind (a listing) or name (one entry), not both")
    if name is not None and not _text(name, "name").strip():
        # An empty name is no entry, as `sextant catalog show ""` says: it had returned the whole
        # listing (review of 2026-12-07).
        raise SextantError("catalog: name is empty: give an entry id (catalog() lists them)")
    return _done(_sextant.catalog(_text(kind, "kind"), _text(name, "name"), _path(catalog, "catalog")))


def report(result, path):
    """Writes the self-contained HTML report of a result dict (or its JSON text) to path."""
    if isinstance(result, (str, bytes)):
        text = result if isinstance(result, str) else result.decode()
        def no_constant(c):  # NaN and Infinity are not JSON (json.loads takes them; the C++ reader does not)
            raise ValueError("%s is not a JSON value (write null)" % c)
        try:
            _json.loads(text, parse_constant=no_constant)
        except ValueError as e:
            raise SextantError("report: the result is not JSON (%s); give a result dict or the text of --json" % e) from None
    elif _json_layout(result):
        # The document --json writes, as json.load reads it: taken as its text is. Its tables of
        # {description, types, columns} had been read as tables of three columns ("has 4 rows where
        # the table's other columns have 43"; review of 2026-12-06).
        result_from_json(result)  # (a document of another shape or schema is refused as such)
        try:
            text = _json.dumps(result, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise SextantError("report: the result holds a value JSON cannot write (%s)" % e) from None
    else:
        # A dict without a result's command, scalars or tables is refused as its JSON text is
        # (sextant report): the conversion filled command "" and scalars {}, and {'tables': {}}
        # made an empty page (2026-12-06 review). Every function's result carries the three.
        if isinstance(result, dict):
            for key in ("command", "scalars", "tables"):
                if key not in result:
                    raise SextantError("report: key %r: the result dict has no %s; a Sextant result has its command, "
                                       "scalars and tables (as every sextant function returns them and --json writes "
                                       "them)" % (key, key))
        if not isinstance(result, dict) or not isinstance(result.get("tables"), dict) or not all(
                isinstance(c, dict) for c in result["tables"].values()):
            raise SextantError("report: expected a result dict (command, scalars, tables of columns) or the text of "
                               "--json, got %s" % type(result).__name__)
        # The other mappings of the schema (a None or a number there had raised AttributeError
        # from inside the conversion; 2026-12-06 review).
        for key in ("scalars", "table_types", "table_descriptions"):
            if key in result and not isinstance(result[key], dict):
                raise SextantError("report: the result's %r must be a dict, got %s" % (key, type(result[key]).__name__))
        if "table_types" in result and not all(isinstance(t, dict) for t in result["table_types"].values()):
            raise SextantError("report: the result's 'table_types' must map each table to a dict of column types")
        try:
            text = _json.dumps(_to_json_doc(result), allow_nan=False)
        except (TypeError, ValueError) as e:
            raise SextantError("report: the result holds a value JSON cannot write (%s)" % e) from None
    _sextant.report(text, _os.fspath(path))


def _json_layout(result):
    """Whether result is a --json document as json.load gives it (each table a dict holding its
    "columns" and "types" dicts) rather than a result dict (each table a dict of column lists)."""
    tables = result.get("tables") if isinstance(result, dict) else None
    return isinstance(tables, dict) and bool(tables) and all(
        isinstance(t, dict) and isinstance(t.get("columns"), dict) and isinstance(t.get("types"), dict)
        for t in tables.values())


def _typed_errors(fn):
    """A wrong argument type is a SextantError naming the function, as every other bad input is
    (docs/python.md): pybind11's TypeError showed the C++ signature, and None or a number where a
    path was expected raised "'NoneType' object is not iterable" (review of 2026-12-04)."""
    import difflib
    import functools
    import inspect
    import re

    params = [n for n, p in inspect.signature(fn).parameters.items()
              if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and n not in ("scenario", "config", "study")]

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except SextantError as e:
            # A misspelt argument (threds=2) is taken as an input key and refused as such; the
            # message now names the function's arguments too (review of 2026-12-04).
            m = re.search(r"\(--set\): key '([^'.]+)': unknown key", str(e))
            if not m or m.group(1) not in kwargs:
                raise
            names = params
            if fn.__name__ == "plan" and (args[0] if args else kwargs.get("scenario")) is None:
                # Without a scenario the job's keywords are arguments too (review of 2026-12-06).
                names = params + [k for k in _JOB_KEYS if k not in params]
            if fn.__name__ == "infer" and (args or kwargs.get("study") is not None):
                # With a study the deployment keywords are refused (tp= had been suggested for
                # tpp=): only these arguments apply, the study's keys go as overrides.
                # The study's own arguments are searched first: mdoe= had been told "a deployment
                # key goes as deployment__model=" and catalgo= had no hint (review of 2026-12-07).
                lengths = ["prompt", "output", "batch"]
                names = ["mode", "overrides", "catalog", "infer_data"] + (lengths if kwargs.get("mode") == "estimate" else [])
                deployment = [n for n in params if n not in names and n not in lengths]
                near = difflib.get_close_matches(m.group(1), names, n=1)
                near_dep = [] if near else difflib.get_close_matches(m.group(1), deployment, n=1)
                near_len = [] if near or near_dep else difflib.get_close_matches(
                    m.group(1), [n for n in lengths if n not in names], n=1)
                hint = ("; did you mean %s=?" % near[0] if near
                        else "; a deployment key goes as deployment__%s=" % _INFER_STUDY_KEYS.get(near_dep[0], near_dep[0])
                        if near_dep
                        else "; %s= is taken with mode='estimate' (the study's workload gives the lengths otherwise)" % near_len[0]
                        if near_len else "")
                raise SextantError("%s; or, as an argument of sextant.infer() with a study: %s%s"
                                   % (e, ", ".join(names), hint)) from None
            near = difflib.get_close_matches(m.group(1), names, n=1)
            raise SextantError("%s; or, as an argument of sextant.%s(): its arguments are %s%s"
                               % (e, fn.__name__, ", ".join(names),
                                  "; did you mean %s=?" % near[0] if near else "")) from None
        except TypeError as e:
            first = str(e).splitlines()[0] if str(e) else type(e).__name__
            # A misspelt argument of a function that takes no input keys (analyze, catalog): named
            # with the nearest argument, not as a "wrong type" (2026-12-05 review).
            m = re.search(r"unexpected keyword argument '([^']+)'", first)
            if m and m.group(1) in kwargs:
                near = difflib.get_close_matches(m.group(1), params, n=1)
                raise SextantError("sextant.%s: unknown argument '%s'; its arguments are %s%s"
                                   % (fn.__name__, m.group(1), ", ".join(params),
                                      "; did you mean %s=?" % near[0] if near else "")) from None
            # A str that cannot become UTF-8 (a lone surrogate, as surrogateescape decoding leaves
            # in text read from a non-UTF-8 file) is refused by the binding as a wrong type, though
            # it is a str: named as what it is (review of 2026-12-05).
            bad = _not_utf8(list(args) + list(kwargs.values()))
            if bad is not None:
                raise SextantError("sextant.%s: an argument's text is not valid UTF-8 (%s at character %d: a lone surrogate, "
                                   "as text decoded with errors='surrogateescape' holds); read the file as UTF-8 or pass its path"
                                   % (fn.__name__, bad[0], bad[1])) from None
            raise SextantError("sextant.%s: an argument has the wrong type (%s); see help(sextant.%s)"
                               % (fn.__name__, first, fn.__name__)) from None
        except ValueError as e:
            # Not a SextantError (caught above): a value whose truth or comparison raises, as a
            # numpy array's does where one value is expected (`write_rank=np.array([1, 2])`
            # escaped as numpy's "truth value of an array ... is ambiguous", 2026-12-06 review).
            first = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise SextantError("sextant.%s: an argument has the wrong type (%s); see help(sextant.%s)"
                               % (fn.__name__, first, fn.__name__)) from None
    return wrapper


def _not_utf8(values, depth=0):
    """(repr of the first code point, its index) of the first str in values (lists, tuples and
    dicts looked into) that cannot be encoded as UTF-8, else None."""
    for v in values:
        if isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError as e:
                return repr(v[e.start]), e.start
        elif depth < 4 and isinstance(v, (list, tuple)):
            r = _not_utf8(v, depth + 1)
            if r is not None:
                return r
        elif depth < 4 and isinstance(v, dict):
            r = _not_utf8(list(v.keys()) + list(v.values()), depth + 1)
            if r is not None:
                return r
    return None


for _name in ("estimate", "simulate", "plan", "sweep", "goodput", "infer", "analyze", "catalog", "report"):
    globals()[_name] = _typed_errors(globals()[_name])
del _name
