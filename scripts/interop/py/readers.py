"""pyarrow and Python polars read ngkit's files, value by value.

    python readers.py --jsonl records.jsonl FILE... [-v]
    python readers.py JSONL:FILE...      (each file against its own JSONL)
    python readers.py --write SRC.parquet SRC.jsonl OUT
        pyarrow and polars write ngkit's records into OUT/ (Parquet, Arrow IPC
        file and stream, JSONL; from the Parquet and from the JSONL, whose
        schema they infer: maps as structs), for ngcat to read back

FILE is a .parquet file or a glob of --hf shards ("DIR/data/*.parquet"),
an Arrow IPC stream (.arrows), an Arrow IPC file (.arrow) or JSONL (.jsonl).
Every reader's rows are compared with the JSONL ngkit wrote for the same
records by the rule of values.py (compare.mjs's). Exits 0 when every reader
agrees on every record, 1 on a mismatch, 2 on bad usage or an unreadable
file.
"""

import argparse
import glob
import os
import sys

import polars as pl
import pyarrow as pa
import pyarrow.ipc
import pyarrow.json
import pyarrow.parquet as pq

from values import Checker


def polars_rows(df):
    return df.to_dicts()


def check_schema(c, file, schema):
    """The record schema as users meet it: turns a list of structs whose
    labels are a struct, maps lists of {key, value} (Parquet MAPs in -o
    files), narration_at a list of integers, extra a string."""
    where = f"pyarrow schema {file}"
    if "turns" not in schema.names:
        return  # not records: a --to export's rows
    try:
        turn = schema.field("turns").type.value_type
        labels = turn.field("labels").type
        nd = labels.field("norm_dist").type
    except (KeyError, AttributeError) as e:
        c.fail(f"{where}: no turns.labels.norm_dist ({e})")
        return
    if not (pa.types.is_map(nd) or (pa.types.is_list(nd) and [f.name for f in nd.value_type] == ["key", "value"])):
        c.fail(f"{where}: turns.labels.norm_dist is {nd}, want a map or a list of {{key, value}}")
    if not pa.types.is_struct(labels):
        c.fail(f"{where}: turns.labels is {labels}, want a struct")
    # where each narration line stands: a list of integers beside narration
    if "narration" in schema.names:
        at = schema.field("narration_at").type if "narration_at" in schema.names else None
        if at is None or not (pa.types.is_list(at) and pa.types.is_integer(at.value_type)):
            c.fail(f"{where}: narration_at is {at}, want a list of integers")
    if "extra" in schema.names and not pa.types.is_string(schema.field("extra").type):
        c.fail(f"{where}: extra is {schema.field('extra').type}, want a string")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jsonl")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    if a.write:
        write(*a.files)
        return
    specs = [(a.jsonl, f) for f in a.files] if a.jsonl else [tuple(x.split(":", 1)) for x in a.files]
    if any(len(x) != 2 for x in specs):
        raise SystemExit("readers.py: want --jsonl J FILE... or J:FILE...")
    checkers = {}
    for jsonl, f in specs:
        if jsonl not in checkers:
            checkers[jsonl] = Checker(jsonl, a.verbose)
        check(checkers[jsonl], f)
    failures = [m for c in checkers.values() for m in c.failures]
    if failures:
        for m in failures:
            print(f"FAIL {m}", file=sys.stderr)
        print(f"readers.py: {len(failures)} mismatch(es)", file=sys.stderr)
        sys.exit(1)
    for jsonl, c in checkers.items():
        print(f"pyarrow {pa.__version__} and polars {pl.__version__}: {c.checked} reader/file pairs agree with {jsonl} on every value of {len(c.want)} records")


def write(src_parquet, src_jsonl, out):
    os.makedirs(out, exist_ok=True)
    o = lambda name: os.path.join(out, name)  # noqa: E731
    t = pq.read_table(src_parquet)
    pq.write_table(t, o("pyarrow.parquet"))
    with pa.ipc.new_file(o("pyarrow.arrow"), t.schema) as w:
        w.write_table(t)
    with pa.ipc.new_stream(o("pyarrow.arrows"), t.schema) as w:
        w.write_table(t)
    pq.write_table(pa.json.read_json(src_jsonl), o("pyarrow-from-json.parquet"))
    df = pl.read_parquet(src_parquet)
    df.write_parquet(o("polars.parquet"))
    df.write_ipc(o("polars.arrow"))
    df.write_ipc_stream(o("polars.arrows"))
    df.write_ndjson(o("polars.jsonl"))
    pl.read_ndjson(src_jsonl, infer_schema_length=None).write_parquet(o("polars-from-json.parquet"))


def check(c, f):
    paths = sorted(glob.glob(f)) if "*" in f else [f]
    if not paths:
        raise SystemExit(f"readers.py: {f}: no files")
    if f.endswith(".parquet"):
        tables = [pq.read_table(p) for p in paths]
        for p, t in zip(paths, tables):
            check_schema(c, p, t.schema)
        c.compare("pyarrow", f, [r for t in tables for r in t.to_pylist()])
        c.compare("polars", f, [r for p in paths for r in polars_rows(pl.read_parquet(p))])
        # pyarrow over the shards at once, as a user points it at data/.
        if len(paths) > 1:
            c.compare("pyarrow.parquet.read_table(list)", f, pq.read_table(paths).to_pylist())
    elif f.endswith(".arrows"):
        with pa.ipc.open_stream(f) as r:
            t = r.read_all()
        check_schema(c, f, t.schema)
        c.compare("pyarrow", f, t.to_pylist())
        c.compare("polars", f, polars_rows(pl.read_ipc_stream(f)))
    elif f.endswith(".arrow"):
        with pa.ipc.open_file(f) as r:
            t = r.read_all()
        check_schema(c, f, t.schema)
        c.compare("pyarrow", f, t.to_pylist())
        c.compare("polars", f, polars_rows(pl.read_ipc(f)))
    elif f.endswith(".jsonl"):
        c.compare("pyarrow", f, pa.json.read_json(f).to_pylist())
        c.compare("polars", f, polars_rows(pl.read_ndjson(f, infer_schema_length=None)))
    else:
        raise SystemExit(f"readers.py: {f}: unknown file kind (want .parquet, .arrows, .arrow, .jsonl)")

if __name__ == "__main__":
    try:
        main()
    except SystemExit:
        raise
    except Exception as e:  # an unreadable file: exit 2, as compare.mjs
        print(f"readers.py: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(2)
