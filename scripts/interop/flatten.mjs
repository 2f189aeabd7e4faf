// Writes the NormGenesis release as flat JSONL (one release object per line,
// plus culture and type from the file name): the DuckDB baseline's input.
// Usage: node flatten.mjs FILE.json... > flat.jsonl
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
const out = [];
for (const f of process.argv.slice(2)) {
  const [culture, type] = basename(f, '.json').split('_');
  for (const r of JSON.parse(readFileSync(f, 'utf8'))) out.push(JSON.stringify({ culture, type, ...r }));
}
process.stdout.write(out.join('\n') + '\n');
