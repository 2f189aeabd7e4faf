// Rewrites an ngkit Parquet file as another tool would write it, for the
// bad-input check of scripts/interop.sh: DuckDB's own writer (dictionary
// pages, v1 pages, its statistics), columns in the reverse order, and the
// label distributions and quality.explanations as Parquet MAP columns (the
// form ngkit wrote before maps became lists of {key, value}).
// Usage: node duckdb_rewrite.mjs IN.parquet OUT.parquet
import { DuckDBInstance } from '@duckdb/node-api';
const [input, output] = process.argv.slice(2);
const q = (s) => s.replaceAll("'", "''");
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const src = `read_parquet('${q(input)}')`;
const m = (x) => `map_from_entries(${x})`;
const labels = `CASE WHEN t.labels IS NULL THEN NULL ELSE struct_pack(norm := t.labels.norm, intent := t.labels.intent,
  emotion := t.labels.emotion, stage := t.labels.stage, safety := t.labels.safety, rots := t.labels.rots,
  explanation := t.labels.explanation, norm_dist := ${m('t.labels.norm_dist')}, intent_dist := ${m('t.labels.intent_dist')},
  emotion_dist := ${m('t.labels.emotion_dist')}, stage_dist := ${m('t.labels.stage_dist')},
  safety_dist := ${m('t.labels.safety_dist')}, agreement := t.labels.agreement) END`;
const turns = `list_transform(turns, t -> struct_pack("index" := t."index", speaker := t.speaker, action := t.action,
  "text" := t."text", lang := t.lang, stage := t.stage, labels := ${labels}))`;
const quality = `CASE WHEN quality IS NULL THEN NULL ELSE struct_pack(consistency := quality.consistency,
  naturalness := quality.naturalness, relevance := quality.relevance, coherence := quality.coherence,
  emotion := quality.emotion, norm := quality.norm, fit := quality.fit, explanations := ${m('quality.explanations')}) END`;
const cols = (await con.runAndReadAll(`SELECT column_name FROM (DESCRIBE SELECT * FROM ${src})`)).getRows().map((r) => r[0]);
const select = cols.reverse().map((c) => (c === 'turns' ? `${turns} AS turns` : c === 'quality' ? `${quality} AS quality` : `"${c}"`));
await con.run(`COPY (SELECT ${select.join(', ')} FROM ${src}) TO '${q(output)}' (FORMAT parquet, COMPRESSION zstd)`);
const d = (await con.runAndReadAll(`SELECT column_type FROM (DESCRIBE SELECT * FROM read_parquet('${q(output)}')) WHERE column_name = 'turns'`)).getRows();
if (!/MAP\(VARCHAR, DOUBLE\)/.test(String(d[0][0]))) {
  console.error(`duckdb_rewrite.mjs: turns has no MAP: ${d[0][0]}`);
  process.exit(1);
}
con.closeSync();
db.closeSync();
