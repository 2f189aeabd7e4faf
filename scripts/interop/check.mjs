#!/usr/bin/env node
// Checks ngkit's columnar output outside Go: the Parquet file (and the
// shards of a Hugging Face folder written by ngcat --hf) with DuckDB, the
// Arrow IPC stream and file with Apache Arrow JS, against expect.json
// ({rows, turns, samples: [{id, turn_index, speaker, text}]}, turn_index
// being the 0-based position in the turns list).
//
//   cd scripts/interop && npm ci
//   node check.mjs --parquet F.parquet --arrow F.arrows --arrow-file F.arrow --hf DIR --expect expect.json [-v]
//
// Exits 0 when everything matches, 1 on a mismatch (each one printed), 2 on
// bad usage or unreadable input.

import { readFileSync, readdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { RecordBatchReader, Type, tableFromIPC } from 'apache-arrow';

const usage = 'usage: node check.mjs --parquet FILE --arrow FILE.arrows --arrow-file FILE.arrow --hf DIR --expect FILE.json [-v]';

let opts;
try {
  opts = parseArgs({
    options: {
      parquet: { type: 'string' },
      arrow: { type: 'string' },
      'arrow-file': { type: 'string' },
      hf: { type: 'string' },
      expect: { type: 'string' },
      verbose: { type: 'boolean', short: 'v', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  }).values;
} catch (e) {
  console.error(`check.mjs: ${e.message}\n${usage}`);
  process.exit(2);
}
if (opts.help) {
  console.log(usage);
  process.exit(0);
}
if (!opts.expect || !(opts.parquet || opts.arrow || opts['arrow-file'] || opts.hf)) {
  console.error(`check.mjs: --expect and at least one of --parquet, --arrow, --arrow-file, --hf are required\n${usage}`);
  process.exit(2);
}

const verbose = opts.verbose;
const failures = [];
const fail = (msg) => failures.push(msg);
const log = (msg) => { if (verbose) console.log(msg); };

let expect;
try {
  expect = JSON.parse(readFileSync(opts.expect, 'utf8'));
} catch (e) {
  console.error(`check.mjs: ${opts.expect}: ${e.message}`);
  process.exit(2);
}
for (const k of ['rows', 'turns', 'samples']) {
  if (!(k in expect)) {
    console.error(`check.mjs: ${opts.expect}: no "${k}"`);
    process.exit(2);
  }
}

function eq(where, what, got, want) {
  if (got !== want) fail(`${where}: ${what} = ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
}

const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;

// checkParquet reads path (a file or a glob) with DuckDB.
async function checkParquet(path) {
  const where = `DuckDB ${path}`;
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  try {
    const src = `read_parquet(${sqlString(path)})`;

    const desc = (await conn.runAndReadAll(`DESCRIBE SELECT * FROM ${src}`)).getRowObjectsJS();
    const types = Object.fromEntries(desc.map((r) => [r.column_name, r.column_type]));
    if (verbose) {
      console.log(`${where}: DESCRIBE`);
      for (const r of desc) console.log(`  ${r.column_name}  ${r.column_type}`);
    }
    eq(where, 'type of extra', types.extra, 'VARCHAR');
    eq(where, 'type of id', types.id, 'VARCHAR');
    const turns = types.turns ?? '';
    if (!/^STRUCT\(.*\)\[\]$/s.test(turns)) fail(`${where}: turns is ${JSON.stringify(turns)}, want a list of structs (STRUCT(...)[])`);
    for (const field of ['"index" BIGINT', 'speaker VARCHAR', '"text" VARCHAR']) {
      if (!turns.includes(field)) fail(`${where}: turns struct has no ${field}: ${turns}`);
    }
    // One schema for -o and --hf: maps are lists of {key, value} (datasets
    // cannot load MAP columns).
    if (!/norm_dist STRUCT\("?key"? VARCHAR, "?value"? DOUBLE\)\[\]/.test(turns)) {
      fail(`${where}: turns struct has no norm_dist as a list of {key, value}: ${turns}`);
    }

    const [agg] = (await conn.runAndReadAll(
      `SELECT count(*) AS n, coalesce(sum(len(turns)), 0) AS t, count(DISTINCT id) AS ids FROM ${src}`,
    )).getRowObjectsJS();
    eq(where, 'count(*)', Number(agg.n), expect.rows);
    eq(where, 'sum(len(turns))', Number(agg.t), expect.turns);
    eq(where, 'count(DISTINCT id)', Number(agg.ids), expect.rows);
    log(`${where}: ${agg.n} rows, ${agg.t} turns`);

    for (const s of expect.samples) {
      // DuckDB lists are 1-based.
      const rows = (await conn.runAndReadAll(
        `SELECT turns[$i + 1].speaker AS speaker, turns[$i + 1].text AS text, len(turns) AS n FROM ${src} WHERE id = $id`,
        { i: s.turn_index, id: s.id },
      )).getRowObjectsJS();
      if (rows.length !== 1) {
        fail(`${where}: id ${s.id}: ${rows.length} rows, want 1`);
        continue;
      }
      eq(where, `id ${s.id} turns[${s.turn_index + 1}].speaker`, rows[0].speaker, s.speaker);
      eq(where, `id ${s.id} turns[${s.turn_index + 1}].text`, rows[0].text, s.text);
    }
    log(`${where}: ${expect.samples.length} sampled turns checked`);
  } finally {
    conn.closeSync();
    db.closeSync();
  }
}

// checkHF checks a folder written by ngcat --hf: its shards with DuckDB,
// and the card's num_examples against the rows.
async function checkHF(dir) {
  const files = readdirSync(`${dir}/data`);
  const bad = files.filter((f) => !/^\w+-\d{5}-of-\d{5}\.parquet$/.test(f));
  if (files.length === 0 || bad.length) fail(`${dir}/data: files ${JSON.stringify(files)}`);
  const card = readFileSync(`${dir}/README.md`, 'utf8');
  const counts = [...card.matchAll(/^\s*num_examples: (\d+)$/gm)].map((m) => Number(m[1]));
  eq(`${dir}/README.md`, 'sum of num_examples', counts.reduce((a, b) => a + b, 0), expect.rows);
  await checkParquet(`${dir}/data/*.parquet`);
}

function checkArrow(path, wantFile) {
  const kind = wantFile ? 'IPC file' : 'IPC stream';
  const where = `Arrow JS ${kind} ${path}`;
  const bytes = readFileSync(path);
  const reader = RecordBatchReader.from(bytes);
  eq(where, 'isFile()', reader.isFile(), wantFile);
  const table = tableFromIPC(bytes);
  if (verbose) {
    console.log(`${where}: schema`);
    for (const f of table.schema.fields) console.log(`  ${f.name}  ${f.type}${f.nullable ? '' : ' not null'}`);
  }
  eq(where, 'numRows', table.numRows, expect.rows);
  const ids = table.getChild('id');
  const turns = table.getChild('turns');
  const extra = table.getChild('extra');
  if (!ids || !turns || !extra) {
    fail(`${where}: missing column(s): ${['id', 'turns', 'extra'].filter((c) => !table.getChild(c)).join(', ')}`);
    return;
  }
  eq(where, 'type of extra', String(extra.type), 'Utf8');
  const elem = turns.type.typeId === Type.List ? turns.type.children[0].type : null;
  if (!elem || elem.typeId !== Type.Struct) {
    fail(`${where}: turns is ${turns.type}, want a list of structs`);
    return;
  }
  for (const name of ['speaker', 'text']) {
    const f = elem.children.find((c) => c.name === name);
    if (!f || f.type.typeId !== Type.Utf8) fail(`${where}: turns struct has no ${name}: Utf8 field: ${elem}`);
  }

  let total = 0;
  const rowOf = new Map();
  for (let i = 0; i < table.numRows; i++) {
    const list = turns.get(i);
    total += list ? list.length : 0;
    rowOf.set(ids.get(i), i);
  }
  eq(where, 'total turns', total, expect.turns);
  eq(where, 'distinct ids', rowOf.size, expect.rows);
  log(`${where}: ${table.numRows} rows in ${table.batches.length} batches, ${total} turns`);

  for (const s of expect.samples) {
    const i = rowOf.get(s.id);
    if (i === undefined) {
      fail(`${where}: id ${s.id} not found`);
      continue;
    }
    const list = turns.get(i);
    const turn = list && list.get(s.turn_index);
    if (!turn) {
      fail(`${where}: id ${s.id}: no turn ${s.turn_index} (of ${list ? list.length : 0})`);
      continue;
    }
    eq(where, `id ${s.id} turns[${s.turn_index}].speaker`, turn.speaker, s.speaker);
    eq(where, `id ${s.id} turns[${s.turn_index}].text`, turn.text, s.text);
  }
  log(`${where}: ${expect.samples.length} sampled turns checked`);
}

async function main() {
  const steps = [];
  if (opts.parquet) steps.push(['parquet', () => checkParquet(opts.parquet)]);
  if (opts.arrow) steps.push(['arrow stream', () => checkArrow(opts.arrow, false)]);
  if (opts['arrow-file']) steps.push(['arrow file', () => checkArrow(opts['arrow-file'], true)]);
  if (opts.hf) steps.push(['hf folder', () => checkHF(opts.hf)]);
  for (const [name, step] of steps) {
    try {
      await step();
    } catch (e) {
      console.error(`check.mjs: ${name}: cannot read: ${e.message}`);
      process.exitCode = 2;
      return;
    }
  }
  if (failures.length) {
    for (const f of failures) console.error(`FAIL ${f}`);
    console.error(`check.mjs: ${failures.length} mismatch(es)`);
    process.exitCode = 1;
    return;
  }
  console.log(`interop OK: ${steps.map(([n]) => n).join(', ')}: ${expect.rows} rows, ${expect.turns} turns, ${expect.samples.length} samples`);
}

await main();
