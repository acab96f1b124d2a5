// Runs inside the image build (node only, no shell): removes from node_modules what the
// controllers never load at run time — source maps, TypeScript declarations and sources,
// changelogs and docs — about half of the installed bytes. Licence files stay.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const dropFile = /\.(map|d\.ts|d\.mts|d\.cts|ts|mts|cts|md|markdown)$/i;
const keepFile = /^(licen[cs]e|notice|copying)/i;

let removed = 0;
function walk(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (dropFile.test(e.name) && !keepFile.test(e.name)) {
      rmSync(p);
      removed++;
    }
  }
}
walk(process.argv[2] ?? 'node_modules');
console.log(`pruned ${removed} files`);
