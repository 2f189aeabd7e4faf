// Checks what ngcat --from labelstudio made of the editor's export against
// expect.json (check.mjs), and ngstats' figures on it against the same
// figures computed here from the records: per task, the turns with both
// labels, accuracy and Cohen's kappa of the model's labels against the
// reviewer's; the dialogues reviewed and rejected.
// Usage: node verify.mjs --reviewed reviewed.jsonl --expect expect.json --report report.json
import fs from 'node:fs';

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []));
const recs = fs.readFileSync(args.reviewed, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
const expect = JSON.parse(fs.readFileSync(args.expect, 'utf8'));
const report = JSON.parse(fs.readFileSync(args.report, 'utf8'));
let bad = 0;
const fail = (m) => { bad++; console.error('FAIL ' + m); };
if (recs.length !== expect.length) fail(`${recs.length} records, want ${expect.length}`);
for (const [i, want] of expect.entries()) {
  const r = recs[i];
  if (!r || r.id !== want.id) { fail(`record ${i}: id ${r?.id}, want ${want.id}`); continue; }
  want.human.forEach((h, ti) => {
    for (const [task, l] of Object.entries(h)) {
      const got = r.turns[ti].labels_human?.[task];
      if (got !== l) fail(`${r.id} turn ${ti}: ${task} ${got}, want ${l}`);
    }
  });
  const rv = r.review ?? {};
  if (rv.tool !== 'labelstudio' || rv.verdict !== want.verdict || rv.reviewers !== 1 || JSON.stringify(rv.comments) !== JSON.stringify(want.comments)) {
    fail(`${r.id}: review ${JSON.stringify(rv)}, want ${want.verdict} by 1 with ${JSON.stringify(want.comments)}`);
  }
}
// The figures, from the records.
for (const task of ['norm', 'intent']) {
  const pairs = recs.flatMap((r) => r.turns.filter((t) => t.labels?.[task] && t.labels_human?.[task]).map((t) => [t.labels[task], t.labels_human[task]]));
  const n = pairs.length;
  const po = pairs.filter(([a, b]) => a === b).length / n;
  const count = (k) => pairs.reduce((m, p) => m.set(p[k], (m.get(p[k]) ?? 0) + 1), new Map());
  const rows = count(0), cols = count(1);
  let pe = 0;
  for (const [l, c] of rows) pe += (c / n) * ((cols.get(l) ?? 0) / n);
  const kappa = (po - pe) / (1 - pe);
  const a = report.review?.agreement?.find((x) => x.task === task && x.group === 'all');
  if (!a || a.turns !== n || Math.abs(a.accuracy - po) > 1e-9 || Math.abs(a.kappa - kappa) > 1e-9) {
    fail(`${task}: ngstats ${JSON.stringify(a && { turns: a.turns, accuracy: a.accuracy, kappa: a.kappa })}, computed ${n} turns, accuracy ${po}, kappa ${kappa}`);
  } else {
    console.log(`${task}: ${n} turns, accuracy ${po.toFixed(3)}, kappa ${kappa.toFixed(3)} (ngstats and this check agree)`);
  }
}
const v = report.review?.verdicts?.find((x) => x.group === 'all');
const rejected = expect.filter((e) => e.verdict === 'reject').length;
if (!v || v.reviewed !== expect.length || v.rejected !== rejected) fail(`verdicts ${JSON.stringify(v)}, want ${expect.length} reviewed, ${rejected} rejected`);
if (bad) {
  console.error(`${bad} failures`);
  process.exit(1);
}
console.log(`the editor's export read back: ${recs.length} records as expected`);
