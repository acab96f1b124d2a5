// Writes config/ (CRDs, RBAC, manager, kustomizations) from the TypeScript definitions.
// Run: pnpm --filter @noderepair/capo-remediation generate
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderManifests } from '../src/manifests/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
for (const f of renderManifests()) {
  const target = join(root, f.path);
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, f.content);
  console.log(`wrote ${f.path}`);
}
