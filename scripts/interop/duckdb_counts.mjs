// DuckDB baseline for ngstats in scripts/bench.sh: the counts part of the
// report alone, on the flat release JSONL (see flatten.mjs):
//   SELECT culture, type, count(*), avg(len(dialogue)) ... GROUP BY ALL
// Usage: node duckdb_counts.mjs flat.jsonl
import { DuckDBInstance } from '@duckdb/node-api';
const [input] = process.argv.slice(2);
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const q = (s) => s.replaceAll("'", "''");
const r = await con.runAndReadAll(
  `SELECT culture, type, count(*) AS n, avg(len(dialogue)) AS mean_len FROM read_json('${q(input)}') GROUP BY ALL ORDER BY ALL`);
process.stdout.write(JSON.stringify(r.getRowObjects(), (_, v) => (typeof v === 'bigint' ? Number(v) : v)) + '\n');
