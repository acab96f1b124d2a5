// Regenerates the reference tables in README.md (repair policy fields, CRD fields, metrics)
// from the code: `pnpm docs:reference`. docs/tools/reference.test.ts fails while they are stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, updateReadme } from '../docs/tools/reference.js';

const file = join(repoRoot, 'README.md');
const before = readFileSync(file, 'utf8');
const after = await updateReadme(before);
if (after === before) console.log('README.md reference tables are up to date');
else {
  writeFileSync(file, after);
  console.log('README.md reference tables regenerated');
}
