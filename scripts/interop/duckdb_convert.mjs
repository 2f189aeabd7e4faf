// DuckDB baseline for scripts/bench.sh: convert flat JSONL to zstd Parquet,
// as `COPY (SELECT * FROM read_json(...)) TO ... (FORMAT parquet, COMPRESSION zstd)`.
// Prints the in-process time of the COPY on stderr (the whole process is
// timed by the caller).
// Usage: node duckdb_convert.mjs IN.jsonl OUT.parquet
import { DuckDBInstance } from '@duckdb/node-api';
const [input, output] = process.argv.slice(2);
const t0 = performance.now();
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const q = (s) => s.replaceAll("'", "''");
await con.run(`COPY (SELECT * FROM read_json('${q(input)}')) TO '${q(output)}' (FORMAT parquet, COMPRESSION zstd)`);
const t1 = performance.now();
const r = await con.runAndReadAll(`SELECT count(*) FROM read_parquet('${q(output)}')`);
process.stderr.write(`duckdb COPY ${(t1 - t0).toFixed(0)} ms, rows ${r.getRows()[0][0]}\n`);
