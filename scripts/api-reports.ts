// API reports of the published entry points (docs/tools/api-reports.ts):
//   pnpm api:check   fails while a checked-in report under api/ is stale, naming it (CI)
//   pnpm api:update  rewrites the reports and api/exports.md
// Both print each entry point's exported-symbol count. The package scripts build first, so the
// reports always describe the current sources.
import { join, relative } from 'node:path';
import { entryPoints } from '../docs/tools/api-entries.js';
import { countsFile, runApiReports, specifierOf, type Mode } from '../docs/tools/api-reports.js';
import { repoRoot } from '../docs/tools/markdown.js';

const mode = process.argv[2];
if (mode !== 'check' && mode !== 'update') {
  console.error('usage: api-reports.ts check|update');
  process.exit(2);
}
// Fresh reports land here (gitignored); `diff -u` one against api/ to see a change in full.
const temp = join(repoRoot, 'node_modules', '.cache', 'api-reports');
const run = runApiReports(repoRoot, entryPoints(repoRoot), mode as Mode, temp);

const width = Math.max(...run.entries.map((r) => specifierOf(r.entry).length));
for (const r of run.entries) {
  const state = r.changed ? (mode === 'check' ? 'STALE' : 'updated') : 'ok';
  console.log(
    `${specifierOf(r.entry).padEnd(width)}  ${String(r.exports).padStart(4)} exported  ${r.entry.report}  ${state}`,
  );
  for (const p of r.problems) console.log(`    ${p}`);
}
const total = run.entries.reduce((a, r) => a + r.exports, 0);
console.log(`${run.entries.length} entry points, ${total} exported symbols`);

const changed = [
  ...run.entries.filter((r) => r.changed).map((r) => r.entry.report),
  ...run.orphans,
  ...(run.countsChanged ? [countsFile] : []),
];
if (mode === 'update') {
  for (const o of run.orphans) console.log(`deleted ${o} (no such entry point)`);
  console.log(
    changed.length ? `rewrote ${changed.length} file(s) under api/` : 'API reports are up to date',
  );
  process.exit(0);
}
if (changed.length === 0) {
  console.log('API reports are up to date');
  process.exit(0);
}
for (const r of run.entries.filter((x) => x.changed && x.diff)) {
  // Enough of the diff to see what kind of change it is; the whole file is in the temp folder.
  const lines = r.diff!.split('\n');
  console.log(`\n${r.entry.report} (new: ${relative(repoRoot, join(temp, r.entry.report))}):`);
  console.log(
    lines.slice(0, 40).join('\n') +
      (lines.length > 40 ? `\n... ${lines.length - 40} more lines` : ''),
  );
}
for (const o of run.orphans) console.log(`${o}: no entry point has this report any more`);
console.error(
  `\nstale API report(s): ${changed.join(', ')}\nthe public API changed: run \`pnpm api:update\` and commit api/ (review the diff)`,
);
process.exit(1);
