#!/usr/bin/env python3
"""The Parquet peers of bench-peers.sh: the same JSONL records to zstd
Parquet with our schema given explicitly (read from ngcat's file of the
same records), so that all three write the same columns.

  parquet.py extra SCHEMA.parquet IN.jsonl EXTRA.json     the keys our schema keeps in extra, typed
  parquet.py pyarrow SCHEMA.parquet IN.jsonl OUT.parquet EXTRA.json   pyarrow.json.read_json + parquet.write_table
  parquet.py duckdb SCHEMA.parquet IN.jsonl OUT.parquet EXTRA.json    DuckDB's read_json(columns=...) COPY TO
  parquet.py same A.parquet B.parquet                      "same" when pyarrow reads equal values
"""
import json
import sys

import pyarrow as pa
import pyarrow.parquet as pq


def duck_type(t):
    """DuckDB's spelling of an Arrow type."""
    if pa.types.is_dictionary(t):
        return duck_type(t.value_type)
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "VARCHAR"
    if pa.types.is_boolean(t):
        return "BOOLEAN"
    if pa.types.is_integer(t):
        return {8: "TINYINT", 16: "SMALLINT", 32: "INTEGER", 64: "BIGINT"}[t.bit_width] if pa.types.is_signed_integer(t) \
            else {8: "UTINYINT", 16: "USMALLINT", 32: "UINTEGER", 64: "UBIGINT"}[t.bit_width]
    if pa.types.is_float32(t):
        return "FLOAT"
    if pa.types.is_float64(t):
        return "DOUBLE"
    if pa.types.is_timestamp(t):
        return "TIMESTAMP"
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return duck_type(t.value_type) + "[]"
    if pa.types.is_map(t):
        return f"MAP({duck_type(t.key_type)}, {duck_type(t.item_type)})"
    if pa.types.is_struct(t):
        return "STRUCT(" + ", ".join(f'"{f.name}" {duck_type(f.type)}' for f in t) + ")"
    raise SystemExit(f"parquet.py: no DuckDB type for {t}")


def nullable(t):
    """t with every field nullable: DuckDB's files have no required fields."""
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, nullable(f.type)) for f in t])
    if pa.types.is_list(t):
        return pa.list_(nullable(t.value_type))
    return t


def main():
    cmd = sys.argv[1]
    if cmd == "same":
        a, b = pq.read_table(sys.argv[2]), pq.read_table(sys.argv[3])
        try:
            # extra is compared by the columns the peers made of it
            schema = pa.schema([pa.field(f.name, nullable(f.type)) for f in a.schema if f.name != "extra"])
            extra = [json.loads(x) if x is not None else {} for x in a.column("extra").to_pylist()]
            for k in sorted({k for e in extra for k in e}):
                if [e.get(k) for e in extra] != b.column(k).to_pylist():
                    print(f"differ: extra.{k}")
                    return
            a, b = a.select(schema.names).cast(schema), b.select(schema.names).cast(schema)
        except (KeyError, ValueError, pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
            print(f"differ: {str(e).splitlines()[0][:120]}")
            return
        bad = [n for n in schema.names if not a.column(n).equals(b.column(n))]
        print("same" if not bad else "differ: " + ",".join(bad))
        return
    if cmd == "extra":
        # the union of the keys the record does not own, typed: given to both
        # peers with our schema
        names = set(pq.read_schema(sys.argv[2]).names)
        kinds = {str: "string", int: "int64", float: "float64", bool: "bool"}
        extra = {}
        with open(sys.argv[3], encoding="utf-8") as f:
            for line in f:
                for k, v in json.loads(line).items():
                    if k not in names and v is not None:
                        extra.setdefault(k, kinds.get(type(v), "string"))
        with open(sys.argv[4], "w") as w:
            json.dump(extra, w)
        return
    schema, src, dst = pq.read_schema(sys.argv[2]).remove_metadata(), sys.argv[3], sys.argv[4]
    with open(sys.argv[5]) as f:
        extra = json.load(f)
    if cmd == "pyarrow":
        import pyarrow.json as pj

        # the fields the record does not own are top-level keys in the
        # JSONL and one JSON text, extra, in our file: the peers' readers
        # cannot gather them, so they write them as columns of their own
        # (pyarrow infers them); fields are nullable (JSONL leaves out a
        # zero or empty value)
        explicit = pa.schema([pa.field(f.name, nullable(f.type)) for f in schema if f.name != "extra"] +
                             [pa.field(k, pa.type_for_alias(t)) for k, t in extra.items()])
        t = pj.read_json(src, parse_options=pj.ParseOptions(explicit_schema=explicit, unexpected_field_behavior="error"))
        pq.write_table(t, dst, compression="zstd")
    elif cmd == "duckdb":
        import duckdb

        # extra: as for pyarrow, a column per key
        types = [(f.name, duck_type(f.type)) for f in schema if f.name != "extra"]
        types += [(k, duck_type(pa.type_for_alias(t))) for k, t in extra.items()]
        cols = "{" + ", ".join(f"'{n}': '{t}'" for n, t in types) + "}"
        duckdb.sql(f"COPY (SELECT * FROM read_json('{src}', format='newline_delimited', columns={cols})) "
                   f"TO '{dst}' (FORMAT parquet, COMPRESSION zstd)")
    else:
        sys.exit(f"parquet.py: unknown command {cmd}")


if __name__ == "__main__":
    main()
