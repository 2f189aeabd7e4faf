// Loads ngcat --to labelstudio tasks with their labeling config into the
// published Label Studio editor (@heartexlabs/label-studio, its built
// main.js) in headless Chromium, and checks that every prediction is a
// region placed on its turn: the region's start and end are the turn's
// index and the text the editor highlighted is the turn's text. Then, per
// task, it does what a reviewer does in the editor: starts an annotation
// from the prediction, relabels one norm region (selects it, then the
// other label, as a click does), draws a new norm region over another
// turn beside the predicted one (the label, then the turn's text
// selected), picks the verdict and writes a comment;
// the editor serializes the annotation, and the task goes to a Label
// Studio JSON export (the tasks with their annotations) for
// ngcat --from labelstudio. expect.json says what that import must give.
//
// Usage: node check.mjs --tasks tasks.json --config config.xml --export export.json --expect expect.json
// Env: CHROMIUM (default /usr/bin/chromium).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []));
for (const k of ['tasks', 'config', 'export', 'expect']) {
  if (!args[k]) throw new Error(`--${k} is required`);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const build = path.join(here, 'node_modules/@heartexlabs/label-studio/build/static');
const tasks = JSON.parse(fs.readFileSync(args.tasks, 'utf8'));
const config = fs.readFileSync(args.config, 'utf8');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ngkit-ls-'));
const page0 = path.join(tmp, 'index.html');
fs.writeFileSync(page0, `<!doctype html><html><head><meta charset="utf-8">
<link rel="stylesheet" href="file://${build}/css/main.css"></head>
<body><div id="label-studio"></div><script src="file://${build}/js/main.js"></script></body></html>`);

const ctx = await chromium.launchPersistentContext(path.join(tmp, 'profile'), {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
const failures = [];
const fail = (msg) => { failures.push(msg); console.error('FAIL ' + msg); };
try {
  const page = await ctx.newPage();
  page.on('pageerror', (e) => fail(`editor error: ${e.message}`));
  const exported = [];
  const expect = [];
  let placed = 0, predicted = 0;
  for (const [ti, task] of tasks.entries()) {
    await page.goto('file://' + page0);
    const pred = task.predictions?.[0]?.result ?? [];
    // The reviewer relabels the norm region of the second turn (or the first).
    const target = pred.find((r) => r.from_name === 'norm' && r.value.start === '1') ?? pred.find((r) => r.from_name === 'norm');
    const norms = ['adhered', 'violated', 'not_relevant'];
    const newLabel = target && norms.find((l) => l !== target.value.paragraphlabels[0]);
    const verdict = ti % 2 === 0 ? 'reject' : 'accept';
    const comment = `reviewed in the editor: task ${ti}`;
    // And draws a new norm region over the third turn with another label,
    // leaving the predicted one there (the reviewer's region must win).
    const drawn = pred.find((r) => r.from_name === 'norm' && r.value.start === '2');
    const drawLabel = drawn && norms.find((l) => l !== drawn.value.paragraphlabels[0]);
    const got = await page.evaluate(({ config, task, targetId, newLabel, drawTurn, drawLabel, verdict, comment }) => new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the editor did not load the task in 30 s')), 30000);
      const tick = () => new Promise((r) => setTimeout(r, 300));
      new window.LabelStudio('label-studio', {
        config,
        interfaces: ['panel', 'update', 'submit', 'controls', 'side-column', 'predictions:menu', 'annotations:menu'],
        user: { pk: 1, firstName: 'Reviewer' },
        task: { id: 1, data: task.data, predictions: (task.predictions ?? []).map((p, i) => ({ id: i + 1, ...p })) },
        async onStorageInitialized(LS) {
          await tick(); // the first render, when regions have their highlights
          const as = LS.annotationStore;
          const p = as.predictions[0];
          const regions = p ? p.regionStore.regions.map((r) => ({
            id: r.id.replace(/#.*$/, ''), start: r.start, end: r.end,
            highlighted: (r._spans ?? []).map((s) => s.textContent).join(''),
            label: r.labeling?.selectedLabels?.[0]?.value ?? null,
          })) : [];
          try {
            if (!p) {
              resolve({ regions, result: [] });
              return;
            }
            const a = as.addAnnotationFromPrediction(p);
            await tick();
            if (targetId) {
              const region = a.regionStore.regions.find((r) => r.id.replace(/#.*$/, '') === targetId);
              a.selectArea(region);
              a.names.get('norm').findLabel(newLabel).toggleSelected();
              a.unselectAll();
            }
            if (drawTurn !== null) {
              // As a reviewer does: pick the label, select the turn's text, let go of the mouse.
              a.names.get('norm').findLabel(drawLabel).toggleSelected();
              const dialogue = a.names.get('dialogue');
              const root = document.querySelector('[data-update]');
              const text = root.children[drawTurn].getElementsByClassName(dialogue.layoutClasses.text)[0];
              const walk = document.createTreeWalker(text, NodeFilter.SHOW_TEXT);
              const nodes = [];
              while (walk.nextNode()) nodes.push(walk.currentNode);
              const range = document.createRange();
              range.setStart(nodes[0], 0);
              range.setEnd(nodes[nodes.length - 1], nodes[nodes.length - 1].length);
              window.getSelection().removeAllRanges();
              window.getSelection().addRange(range);
              root.dispatchEvent(new MouseEvent('mouseup', { bubbles: true }));
              await tick();
              a.names.get('norm').findLabel(drawLabel).setSelected(false);
              a.unselectAll();
            }
            a.names.get('verdict').findLabel(verdict).toggleSelected();
            a.names.get('comment').addText(comment);
            resolve({ regions, result: a.serializeAnnotation() });
          } catch (e) {
            resolve({ regions, result: [], error: String(e) });
          } finally {
            clearTimeout(timer);
          }
        },
      });
    }), { config, task, targetId: target?.id, newLabel, drawTurn: drawn ? 2 : null, drawLabel, verdict, comment });

    if (got.error) fail(`task ${ti}: the reviewer's annotation could not be made in the editor: ${got.error}`);
    // Every prediction is a region on its turn, with its label.
    for (const r of pred) {
      predicted++;
      const reg = got.regions.find((g) => g.id === r.id);
      const turn = Number(r.value.start);
      const text = task.data.dialogue[turn]?.text;
      if (!reg) fail(`task ${ti}: prediction ${r.id} is not a region in the editor`);
      else if (reg.start !== String(turn) || reg.end !== r.value.end) fail(`task ${ti}: region ${r.id} is on ${reg.start}-${reg.end}, want ${turn}`);
      else if (reg.highlighted !== text) fail(`task ${ti}: region ${r.id} highlights ${JSON.stringify(reg.highlighted)}, want the turn's text ${JSON.stringify(text)}`);
      else if (reg.label !== r.value.paragraphlabels[0]) fail(`task ${ti}: region ${r.id} has the label ${reg.label}, want ${r.value.paragraphlabels[0]}`);
      else placed++;
    }
    // What the reviewer submitted: the relabelled region and every other
    // prediction as it was, with positions.
    const labels = got.result.filter((r) => r.type === 'paragraphlabels');
    if (labels.length !== pred.length + (drawn ? 1 : 0)) fail(`task ${ti}: the annotation has ${labels.length} regions, want the prediction's ${pred.length} and the drawn one`);
    if (drawn) {
      const mine = labels.find((r) => r.origin === 'manual');
      if (!mine || mine.value.start !== '2' || mine.value.end !== '2' || mine.value.paragraphlabels?.[0] !== drawLabel) {
        fail(`task ${ti}: the region drawn over turn 2 serialized as ${JSON.stringify(mine)}`);
      }
    }
    const changed = labels.find((r) => r.id.replace(/#.*$/, '') === target?.id);
    if (target && changed?.value.paragraphlabels?.[0] !== newLabel) fail(`task ${ti}: region ${target.id} serialized as ${JSON.stringify(changed?.value)}, want the label ${newLabel}`);
    const now = new Date(Date.UTC(2026, 11, 1, 12, 0, ti)).toISOString();
    exported.push({
      id: ti + 1, data: task.data, predictions: task.predictions,
      annotations: [{ id: 100 + ti, completed_by: 1, was_cancelled: false, ground_truth: false, created_at: now, updated_at: now, lead_time: 12.5, result: got.result }],
    });
    // The labels_human the import must give: the prediction, but the relabelled turn.
    const human = task.data.dialogue.map(() => ({}));
    for (const r of pred) human[Number(r.value.start)][r.from_name] = r.value.paragraphlabels[0];
    if (target) human[Number(target.value.start)].norm = newLabel;
    if (drawn) human[2].norm = drawLabel;
    expect.push({ id: task.data.ngkit_id, human, verdict, comments: [comment] });
  }
  fs.writeFileSync(args.export, JSON.stringify(exported, null, 1));
  fs.writeFileSync(args.expect, JSON.stringify(expect));
  console.log(`label studio editor: ${placed} of ${predicted} predicted labels placed on their turns in ${tasks.length} tasks; ${tasks.length} annotations serialized`);
} finally {
  await ctx.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}
if (failures.length) {
  console.error(`${failures.length} failures`);
  process.exit(1);
}
