// Compressed and uncompressed bytes per column of Parquet files, largest
// first, read by DuckDB's parquet_metadata (not by our reader), for
// scripts/bench.sh's size comparison.
// Usage: node colsizes.mjs [-n N] FILE.parquet...
import { DuckDBInstance } from '@duckdb/node-api';
let args = process.argv.slice(2);
let top = 12;
if (args[0] === '-n') { top = Number(args[1]); args = args.slice(2); }
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
for (const f of args) {
  const r = await con.runAndReadAll(`SELECT path_in_schema, sum(total_compressed_size)::BIGINT, sum(total_uncompressed_size)::BIGINT
    FROM parquet_metadata('${f.replaceAll("'", "''")}') GROUP BY ALL ORDER BY 2 DESC`);
  const rows = r.getRows();
  const total = rows.reduce((s, x) => s + Number(x[1]), 0);
  console.log(`${f}: ${rows.length} columns, ${total} bytes of column chunks (compressed / uncompressed, largest first)`);
  for (const [p, c, u] of rows.slice(0, top)) console.log(`${String(c).padStart(10)} ${String(u).padStart(10)}  ${String(p).replaceAll(', list, element', '[]')}`);
  const rest = rows.slice(top);
  if (rest.length) console.log(`${String(rest.reduce((s, x) => s + Number(x[1]), 0)).padStart(10)} ${' '.repeat(10)}  the other ${rest.length} columns`);
}
