#!/usr/bin/env node
// Compares every column of ngkit's columnar files, as independent readers
// load them, with the JSONL ngkit wrote for the same records, value by
// value, nulls included:
//
//   Parquet (a file, or a glob of --hf shards): DuckDB, nodejs-polars,
//     hyparquet (+ hyparquet-compressors for zstd)
//   Arrow IPC stream (.arrows) and file (.arrow): apache-arrow JS,
//     nodejs-polars
//
//   node compare.mjs --jsonl records.jsonl FILE... [-v]
//
// A field the JSONL does not have must be null (or absent) in the reader,
// never "", 0 or false; maps (label distributions, quality.explanations)
// are lists of {key, value} in the files and objects in the JSONL; the
// `extra` column is a JSON object string holding the JSONL's other keys.
// Records are matched by id (a glob of shards holds them in another
// order). Exits 0 when every reader agrees on every record, 1 on a
// mismatch (the first ones printed), 2 on bad usage or unreadable input.

import { readFileSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { tableFromIPC } from 'apache-arrow';
import pl from 'nodejs-polars';
import { parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

let opts;
try {
  opts = parseArgs({
    options: {
      jsonl: { type: 'string' },
      verbose: { type: 'boolean', short: 'v', default: false },
    },
    allowPositionals: true,
    strict: true,
  });
} catch (e) {
  console.error(`compare.mjs: ${e.message}`);
  process.exit(2);
}
const { jsonl, verbose } = opts.values;
const files = opts.positionals;
if (!jsonl || files.length === 0) {
  console.error('usage: node compare.mjs --jsonl FILE.jsonl FILE.parquet|FILE.arrows|FILE.arrow|"DIR/data/*.parquet"... [-v]');
  process.exit(2);
}

const mapFields = new Set(['norm_dist', 'intent_dist', 'emotion_dist', 'stage_dist', 'safety_dist', 'explanations', 'persona']);

// norm turns a value into the JSONL's shape: bigints become numbers,
// nulls and empty lists are dropped (the JSONL omits them), lists of
// {key, value} under a map field become objects, typed arrays and Arrow
// vectors plain arrays.
function norm(v, key) {
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'bigint') return Number(v);
  if (ArrayBuffer.isView(v)) v = Array.from(v);
  if (typeof v === 'object' && !Array.isArray(v) && typeof v.toArray === 'function' && typeof v.get === 'function') {
    v = [...v]; // an Arrow vector
  }
  if (Array.isArray(v)) {
    if (mapFields.has(key)) {
      const o = {};
      for (const e of v) {
        const kv = norm(e);
        if (kv) o[kv.key] = kv.value ?? null;
      }
      return Object.keys(o).length ? o : undefined;
    }
    const out = v.map((x) => norm(x) ?? null);
    return out.length ? out : undefined;
  }
  if (v instanceof Map) v = Object.fromEntries(v); // a MAP, from a reader that keeps it
  if (typeof v === 'object') {
    if (typeof v.toJSON === 'function' && !(v instanceof Date)) v = v.toJSON(); // an Arrow struct row
    const o = {};
    for (const [k, x] of Object.entries(v)) {
      const n = norm(x, k);
      if (n !== undefined) o[k] = n;
    }
    return Object.keys(o).length || key === undefined ? o : undefined;
  }
  return v;
}

// fromColumns is a reader's row in the JSONL's shape: extra's keys at the
// top level.
function fromColumns(row) {
  const o = norm(row) ?? {};
  if (typeof o.extra === 'string') {
    Object.assign(o, JSON.parse(o.extra));
    delete o.extra;
  }
  return o;
}

// jsonNorm is a JSONL record with empty objects and lists dropped, as the
// columns give them back (none are written by ngkit anyway).
function jsonNorm(v, key) {
  if (v === null || v === undefined) return undefined;
  if (Array.isArray(v)) {
    const out = v.map((x) => jsonNorm(x) ?? null);
    return out.length ? out : undefined;
  }
  if (typeof v === 'object') {
    const o = {};
    for (const [k, x] of Object.entries(v)) {
      const n = jsonNorm(x, k);
      if (n !== undefined) o[k] = n;
    }
    return Object.keys(o).length || key === undefined ? o : undefined;
  }
  return v;
}

// diff returns the first difference between got and want as a path.
function diff(got, want, path = '') {
  if (typeof got !== typeof want || Array.isArray(got) !== Array.isArray(want)) {
    return `${path || '.'}: ${JSON.stringify(got)} != ${JSON.stringify(want)}`;
  }
  if (Array.isArray(want)) {
    if (got.length !== want.length) return `${path}: ${got.length} elements, want ${want.length}`;
    for (let i = 0; i < want.length; i++) {
      const d = diff(got[i], want[i], `${path}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (want && typeof want === 'object') {
    for (const k of new Set([...Object.keys(got), ...Object.keys(want)])) {
      if (!(k in want)) return `${path}.${k}: ${JSON.stringify(got[k])}, want null (absent in the JSONL)`;
      if (!(k in got)) return `${path}.${k}: null, want ${JSON.stringify(want[k])}`;
      const d = diff(got[k], want[k], `${path}.${k}`);
      if (d) return d;
    }
    return null;
  }
  return got === want ? null : `${path}: ${JSON.stringify(got)} != ${JSON.stringify(want)}`;
}

const want = new Map();
for (const line of readFileSync(jsonl, 'utf8').split('\n')) {
  if (!line.trim()) continue;
  const r = JSON.parse(line);
  want.set(r.id, jsonNorm(r));
}

const failures = [];
let checked = 0;

function compare(reader, file, rows) {
  const where = `${reader} ${file}`;
  if (rows.length !== want.size) failures.push(`${where}: ${rows.length} rows, want ${want.size}`);
  let bad = 0;
  const seen = new Set();
  for (const row of rows) {
    const got = fromColumns(row);
    const w = want.get(got.id);
    if (!w) {
      failures.push(`${where}: id ${got.id} not in the JSONL`);
      continue;
    }
    seen.add(got.id);
    const d = diff(got, w);
    if (d && bad++ < 5) failures.push(`${where}: id ${got.id}: ${d}`);
  }
  if (bad > 5) failures.push(`${where}: ${bad} records differ in all`);
  if (seen.size !== want.size) failures.push(`${where}: ${seen.size} distinct ids, want ${want.size}`);
  checked++;
  if (verbose) console.log(`${where}: ${rows.length} rows, ${bad} differ`);
}

function expand(pattern) {
  if (!pattern.includes('*')) return [pattern];
  const dir = dirname(pattern);
  const re = new RegExp(`^${basename(pattern).replace(/[.]/g, '\\.').replace(/\*/g, '.*')}$`);
  return readdirSync(dir).filter((f) => re.test(f)).sort().map((f) => join(dir, f));
}

const sql = (s) => `'${s.replaceAll("'", "''")}'`;

async function duckdbRows(pattern) {
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  try {
    return (await conn.runAndReadAll(`SELECT * FROM read_parquet(${sql(pattern)})`)).getRowObjectsJS();
  } finally {
    conn.closeSync();
    db.closeSync();
  }
}

async function hyparquetRows(path) {
  const b = readFileSync(path);
  const file = b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
  return parquetReadObjects({ file, compressors });
}

// polarsRows serializes a polars frame with polars' own JSON writer:
// nodejs-polars' toRecords cannot convert structs in lists in structs
// ("StructOwned is not supported").
function polarsRows(df) {
  const text = df.writeJSON({ format: 'lines' }).toString('utf8');
  return text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
}

async function main() {
  for (const f of files) {
    if (/\.parquet$/.test(f)) {
      const paths = expand(f);
      if (paths.length === 0) throw new Error(`${f}: no files`);
      compare('DuckDB', f, await duckdbRows(f));
      compare('polars', f, paths.flatMap((p) => polarsRows(pl.readParquet(p))));
      const hy = [];
      for (const p of paths) hy.push(...(await hyparquetRows(p)));
      compare('hyparquet', f, hy);
    } else if (/\.arrows$/.test(f)) {
      compare('Arrow JS', f, tableFromIPC(readFileSync(f)).toArray());
      compare('polars', f, polarsRows(pl.readIPCStream(readFileSync(f))));
    } else if (/\.(arrow|feather)$/.test(f)) {
      compare('Arrow JS', f, tableFromIPC(readFileSync(f)).toArray());
      // From a buffer: nodejs-polars 0.24's readIPC(path) fails on every IPC
      // file, its own included ("out-of-spec: InvalidFooter").
      compare('polars', f, polarsRows(pl.readIPC(readFileSync(f))));
    } else {
      throw new Error(`${f}: unknown file kind (want .parquet, .arrows, .arrow)`);
    }
  }
}

try {
  await main();
} catch (e) {
  console.error(`compare.mjs: ${e.stack || e.message}`);
  process.exit(2);
}
if (failures.length) {
  for (const f of failures) console.error(`FAIL ${f}`);
  console.error(`compare.mjs: mismatches in ${new Set(failures.map((f) => f.split(':')[0])).size} reader/file pair(s)`);
  process.exit(1);
}
console.log(`compare OK: ${checked} reader/file pairs agree with ${jsonl} on every column of ${want.size} records`);
