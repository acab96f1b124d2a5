// The layer rules of layers.config.mjs, checked by docs/tools/layers.ts over the real sources
// (CI fails on the first upward import, circle or unplaced folder, one line each) and over a
// small tree that breaks each rule on purpose, so the check is known to bite. `pnpm lint`
// enforces the same order (docs/tools/layers-lint.test.ts shows it biting).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  capoLayers,
  checkLayers,
  coreKnownCircles,
  coreLayers,
  formatViolation,
  type LayerOrder,
  type LayerReport,
} from './layers.js';
import { repoRoot } from './markdown.js';

/** Every problem of a report, one line each, as a failure prints them. */
const problems = (r: LayerReport) => [
  ...r.violations.map(formatViolation),
  ...[...r.folderCircles, ...r.fileCircles].map(
    (c) => `import circle ${c.members.join(' <-> ')}: ${c.imports.join('; ')}`,
  ),
  ...r.goneCircles.map((c) => `${c}: no longer a circle, strike it from the known circles`),
  ...r.unplaced.map((u) => `${u} is in no layer: place it in the layer list (layers.config.mjs)`),
];

describe('layers', () => {
  it('@noderepair/core: each folder imports only lower layers, no circles', () => {
    const src = join(repoRoot, 'packages/core/src');
    expect(problems(checkLayers(src, coreLayers, repoRoot, coreKnownCircles))).toEqual([]);
  });

  it('@noderepair/capo-remediation: each folder imports only lower layers, no circles', () => {
    const src = join(repoRoot, 'packages/capo-remediation/src');
    expect(problems(checkLayers(src, capoLayers, repoRoot))).toEqual([]);
  });

  describe('on a tree that breaks the rules', () => {
    const root = mkdtempSync(join(tmpdir(), 'layers-'));
    afterAll(() => rmSync(root, { recursive: true, force: true }));
    const order: LayerOrder = ['low', ['left', 'right'], 'high', 'index.ts'];
    const files: Record<string, string> = {
      'src/low/a.ts': "import type { H } from '../high/h.js';\nexport const a = 1;\n",
      'src/low/b.ts':
        "export * from './a.js';\nimport { s } from './b.test-support.js';\nimport type { H } from '../high/h.js';\n",
      'src/low/b.test-support.ts': 'export const s = 1;\n',
      'src/low/a.test.ts': "import { x } from '../high/h.js';\n",
      'src/left/l.ts': "import { a } from '../low/a.js';\nexport { r } from '../right/r.js';\n",
      'src/right/r.ts': "import { q } from './q.js';\nexport const r = 1;\n",
      'src/right/q.ts': "import { r } from './r.js';\nexport const q = 1;\n",
      'src/high/h.ts': "import { a } from '../low/a.js';\nconst m = await import('../index.js');\n",
      'src/extra/e.ts': "import { a } from '../low/a.js';\n",
      'src/index.ts': "export * from './high/h.js';\n",
    };
    for (const [f, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, f)), { recursive: true });
      writeFileSync(join(root, f), text);
    }
    const r = checkLayers(join(root, 'src'), order, root, [['low/x.ts', 'low/y.ts']]);

    it('names each import up a layer, across peers, out of the list or into test code', () => {
      expect(r.violations.map(formatViolation)).toEqual([
        'src/extra/e.ts:1 imports low (not in the layer list)',
        'src/high/h.ts:2 imports index.ts (higher layer)',
        'src/left/l.ts:2 imports right (same layer)',
        'src/low/a.ts:1 imports high (higher layer)',
        'src/low/b.ts:2 imports low (test code)',
        'src/low/b.ts:3 imports high (higher layer)',
      ]);
    });

    it('names a circle of folders, and of files, with the imports that close it', () => {
      expect(r.folderCircles).toEqual([
        {
          members: ['high', 'index.ts', 'low'],
          imports: [
            'src/high/h.ts:1 imports low',
            'src/high/h.ts:2 imports index.ts',
            'src/index.ts:1 imports high',
            'src/low/a.ts:1 imports high and 1 more',
          ],
        },
      ]);
      expect(r.fileCircles).toEqual([
        {
          members: ['right/q.ts', 'right/r.ts'],
          imports: ['src/right/q.ts:1 imports right/r.ts', 'src/right/r.ts:1 imports right/q.ts'],
        },
      ]);
    });

    it('names a known circle that is gone, and a folder the order does not place', () => {
      expect(r.goneCircles).toEqual(['low/x.ts low/y.ts']);
      expect(r.unplaced).toEqual(['extra']);
    });
  });
});
