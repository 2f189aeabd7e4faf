// Start-up cost of the DuckDB baseline alone: node, the DuckDB library and
// an in-memory database, no work. scripts/bench.sh subtracts it.
import { DuckDBInstance } from '@duckdb/node-api';
const db = await DuckDBInstance.create(':memory:');
await db.connect();
