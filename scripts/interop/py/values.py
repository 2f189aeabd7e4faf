"""The value-by-value rule of scripts/interop/compare.mjs, in Python.

A reader's row is brought to the shape of ngkit's JSONL and compared with
the JSONL record of the same id:

- a null, an empty list or an empty object is absent (the JSONL omits
  them), so a field the JSONL lacks must be null in the reader, never "",
  0 or false;
- a map field (label distributions, quality.explanations, persona) is a
  list of {key, value} structs (or of (key, value) pairs, as pyarrow gives
  a Parquet MAP) in the files and an object in the JSONL;
- the `extra` column is a JSON object string holding the JSONL's other keys;
- a bool is never equal to a number (Python's True == 1 is not), and an
  integer equals a float only when they are the same number.
"""

import json

MAP_FIELDS = {"norm_dist", "intent_dist", "emotion_dist", "stage_dist", "safety_dist", "explanations", "persona"}


def norm(v, key=None):
    """v in the JSONL's shape; None when absent."""
    if v is None:
        return None
    if isinstance(v, (list, tuple)):
        if key in MAP_FIELDS:
            out = {}
            for e in v:
                if isinstance(e, (list, tuple)) and len(e) == 2:
                    k, x = e
                else:
                    e = norm(e)
                    if not e:
                        continue
                    k, x = e.get("key"), e.get("value")
                out[k] = x
            return out or None
        out = [n if (n := norm(x)) is not None else None for x in v]
        return out or None
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            n = norm(x, k)
            if n is not None:
                out[k] = n
        return out if out or key is None else None
    return v


def from_columns(row):
    """A columnar reader's row in the JSONL's shape: extra's keys on top."""
    o = norm(row) or {}
    if isinstance(o.get("extra"), str):
        o.update(json.loads(o.pop("extra")))
        o = norm(o)
    return o


def json_norm(v, key=None):
    """A JSONL record with nulls, empty lists and empty objects dropped."""
    if v is None:
        return None
    if isinstance(v, list):
        out = [n if (n := json_norm(x)) is not None else None for x in v]
        return out or None
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            n = json_norm(x, k)
            if n is not None:
                out[k] = n
        return out if out or key is None else None
    return v


def _j(v):
    return json.dumps(v, ensure_ascii=False)[:200]


def diff(got, want, path="", tol=0.0):
    """The first difference between got and want, as a path; None if equal.
    Floats may differ by tol (0: not at all)."""
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return f"{path or '.'}: {_j(got)} != {_j(want)}"
        for k in list(got) + [k for k in want if k not in got]:
            if k not in want:
                return f"{path}.{k}: {_j(got[k])}, want null (absent in the JSONL)"
            if k not in got:
                return f"{path}.{k}: null, want {_j(want[k])}"
            d = diff(got[k], want[k], f"{path}.{k}", tol)
            if d:
                return d
        return None
    if isinstance(want, list):
        if not isinstance(got, list):
            return f"{path or '.'}: {_j(got)} != {_j(want)}"
        if len(got) != len(want):
            return f"{path}: {len(got)} elements, want {len(want)}"
        for i, (g, w) in enumerate(zip(got, want)):
            d = diff(g, w, f"{path}[{i}]", tol)
            if d:
                return d
        return None
    if isinstance(want, bool) or isinstance(got, bool):
        same = type(got) is type(want) and got == want
    elif isinstance(want, (int, float)):
        same = isinstance(got, (int, float)) and not isinstance(got, bool) and (got == want or abs(got - want) <= tol)
    else:
        same = type(got) is type(want) and got == want
    return None if same else f"{path or '.'}: {_j(got)} != {_j(want)}"


def load_jsonl(path):
    """The records of a JSONL file by id (by position when they have none,
    as the --to exports' rows), normalised."""
    want = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                want[r.get("id", len(want)) if isinstance(r, dict) else len(want)] = json_norm(r)
    return want


class Checker:
    """Collects the mismatches of every reader/file pair against one JSONL."""

    def __init__(self, jsonl, verbose=False):
        self.jsonl = jsonl
        self.want = load_jsonl(jsonl)
        # Rows without ids (the --to exports) are matched by position.
        self.key = "id" if all(isinstance(k, str) for k in self.want) else None
        self.failures = []
        self.checked = 0
        self.verbose = verbose

    def fail(self, msg):
        self.failures.append(msg)

    def compare(self, reader, file, rows, key="auto", shape=from_columns, tol=0.0):
        """rows (dicts) against the JSONL, matched by id (by position when
        key is None); each row is brought to the JSONL's shape by shape."""
        where = f"{reader} {file}"
        want = self.want
        if key == "auto":
            key = self.key
        if len(rows) != len(want):
            self.fail(f"{where}: {len(rows)} rows, want {len(want)}")
        bad, seen = 0, set()
        for i, row in enumerate(rows):
            got = shape(row)
            k = got.get(key) if key else i
            w = want.get(k)
            if w is None:
                bad += 1
                if bad <= 5:
                    self.fail(f"{where}: {key or 'row'} {k} not in the JSONL")
                continue
            seen.add(k)
            d = diff(got, w, tol=tol)
            if d:
                bad += 1
                if bad <= 5:
                    self.fail(f"{where}: {k}: {d}")
        if bad > 5:
            self.fail(f"{where}: {bad} records differ in all")
        if len(seen) != len(want):
            self.fail(f"{where}: {len(seen)} distinct records, want {len(want)}")
        self.checked += 1
        if self.verbose:
            print(f"{where}: {len(rows)} rows, {bad} differ")
