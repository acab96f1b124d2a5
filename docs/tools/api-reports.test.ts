// The API report machinery (`pnpm api:check` / `pnpm api:update`) on a small workspace of
// hand-written .d.ts files, with the real API Extractor: a change of the API makes exactly its
// entry point's report stale, check writes nothing, update rewrites and removes orphans. The
// repository's own reports are checked by `pnpm api:check` in CI (after the build).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { entryPoints, orphanReports, reportPathOf } from './api-entries.js';
import { countsFile, runApiReports } from './api-reports.js';
import { repoRoot } from './markdown.js';

// Not under a node_modules folder: API Extractor takes what is there for external packages.
const root = mkdtempSync(join(tmpdir(), 'api-reports-test-'));
const temp = join(root, 'temp');
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(rel: string, text: string) {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
}
const read = (rel: string) => readFileSync(join(root, rel), 'utf8');

write(
  'packages/lib/package.json',
  JSON.stringify({
    name: '@fx/lib',
    version: '1.0.0',
    exports: {
      '.': { types: './dist/index.d.ts' },
      './sub': { types: './dist/sub.d.ts' },
      // Data for tools, not a module: no report.
      './package.json': './package.json',
    },
  }),
);
write(
  'packages/lib/dist/index.d.ts',
  "export * from './a.js';\nexport declare const version: string;\n",
);
write(
  'packages/lib/dist/a.d.ts',
  'export interface Shape {\n    readonly sides: number;\n}\nexport declare function area(s: Shape): number;\n',
);
write('packages/lib/dist/sub.d.ts', "export type { Shape } from './a.js';\n");
write(
  'packages/tool/package.json',
  JSON.stringify({
    name: '@fx/tool',
    private: true,
    exports: { '.': { types: './dist/index.d.ts' } },
  }),
);

describe('entry points', () => {
  it('are the exports subpaths of the published packages, each with its report path (not ./package.json)', () => {
    expect(entryPoints(root).map((e) => [e.packageName, e.subpath, e.report])).toEqual([
      ['@fx/lib', '.', 'api/lib/index.api.md'],
      ['@fx/lib', './sub', 'api/lib/sub.api.md'],
    ]);
  });

  it('map nested subpaths to folders and refuse patterns', () => {
    expect(reportPathOf('@noderepair/envtest', './vitest/global-setup')).toBe(
      'api/envtest/vitest/global-setup.api.md',
    );
    expect(() => reportPathOf('@x/y', './*')).toThrow(
      '@x/y: exports key "./*" is not a plain subpath',
    );
  });

  it('name a published subpath that has no types', () => {
    const other = mkdtempSync(join(tmpdir(), 'api-reports-test-'));
    try {
      mkdirSync(join(other, 'packages', 'p'), { recursive: true });
      const manifest = { name: '@fx/p', exports: { './x': { import: './x.js' } } };
      writeFileSync(join(other, 'packages', 'p', 'package.json'), JSON.stringify(manifest));
      expect(() => entryPoints(other)).toThrow('@fx/p: exports["./x"] has no "types" condition');
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('of this repository all have a checked-in report, and no report is left over', () => {
    const entries = entryPoints(repoRoot);
    expect(entries.map((e) => e.packageName)).toContain('@noderepair/core');
    for (const e of entries) expect(existsSync(join(repoRoot, e.report)), e.report).toBe(true);
    expect(orphanReports(repoRoot, entries)).toEqual([]);
    const counts = readFileSync(join(repoRoot, countsFile), 'utf8');
    for (const e of entries) expect(counts).toContain(`](${e.report.slice('api/'.length)})`);
  });
});

describe('runApiReports', () => {
  it('writes reports and counts, finds exactly the stale report, and removes orphans', () => {
    const run = (mode: 'check' | 'update') => runApiReports(root, entryPoints(root), mode, temp);

    const first = run('update');
    expect(first.entries.map((r) => [r.entry.report, r.exports, r.changed])).toEqual([
      ['api/lib/index.api.md', 3, true],
      ['api/lib/sub.api.md', 1, true],
    ]);
    expect(first.entries.flatMap((r) => r.problems)).toEqual([]);
    expect(read('api/lib/index.api.md')).toContain('export function area(s: Shape): number;');
    expect(read(countsFile)).toContain(
      '| `@fx/lib/sub` | new | 1 | [lib/sub.api.md](lib/sub.api.md) |',
    );

    const clean = run('check');
    expect(clean.entries.map((r) => r.changed)).toEqual([false, false]);
    expect(clean.countsChanged).toBe(false);

    // A new export in a module that only the root entry re-exports.
    write(
      'packages/lib/dist/a.d.ts',
      read('packages/lib/dist/a.d.ts') + 'export declare function perimeter(s: Shape): number;\n',
    );
    write('api/lib/old.api.md', 'a removed entry point\n');
    const before = read('api/lib/index.api.md');
    const stale = run('check');
    expect(stale.entries.map((r) => [r.entry.report, r.exports, r.changed])).toEqual([
      ['api/lib/index.api.md', 4, true],
      ['api/lib/sub.api.md', 1, false],
    ]);
    expect(stale.entries[0]!.diff).toContain('+export function perimeter(s: Shape): number;');
    expect(stale.orphans).toEqual(['api/lib/old.api.md']);
    expect(stale.countsChanged).toBe(true);
    // check writes nothing under api/
    expect(read('api/lib/index.api.md')).toBe(before);
    expect(existsSync(join(root, 'api/lib/old.api.md'))).toBe(true);

    run('update');
    expect(read('api/lib/index.api.md')).toContain('export function perimeter(s: Shape): number;');
    expect(existsSync(join(root, 'api/lib/old.api.md'))).toBe(false);
    const after = run('check');
    expect([
      ...after.entries.map((r) => r.changed),
      after.orphans.length,
      after.countsChanged,
    ]).toEqual([false, false, 0, false]);
  }, 180_000);
});
