// One exported name means one thing across the packages: the checked-in API reports of every
// entry point (pnpm api:update) may not declare the same name twice in different packages, nor
// differently in two entry points of one package. A re-export of the same declaration (core's
// name through capo-remediation, a concept name through core's root) is fine.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { entryPoints } from './api-entries.js';
import { clashingNames, exportedNames } from './api-names.js';
import { repoRoot } from './markdown.js';

const report = (body: string) =>
  `## API Report File for "x"\n\n\`\`\`ts\n\nimport { Shared } from '@x/core';\n\n${body}\n\n\`\`\`\n`;

describe('exported names of an API report', () => {
  it('are its exported declarations, aliases and re-exports', () => {
    const text = report(
      [
        '// @public\nexport function drainNode(a: string): void;',
        '// @public\nexport function drainNode(a: number): void;',
        '// @public\ninterface EventSource_2 {\n    x: string;\n}\nexport { EventSource_2 as EventSource }',
        '// @public\nexport { Shared }',
        '// @public\nfunction local(): void;',
      ].join('\n\n'),
    );
    expect(exportedNames(text).map((e) => [e.name, e.declaration === null])).toEqual([
      ['drainNode', false],
      ['EventSource', false],
      ['Shared', true],
    ]);
    expect(exportedNames(text).find((e) => e.name === 'drainNode')!.declaration).toContain(
      'a: number',
    );
  });

  it('clash when two packages declare one name, or one package declares it two ways', () => {
    const a = report('// @public\nexport function drainNode(port: Port): void;');
    const b = report('// @public\nexport const drainNode: s.Node<{}>;');
    const reexport = report('// @public\nexport { Shared }');
    const shared = report('// @public\nexport interface Shared {\n    x: string;\n}');
    expect(
      clashingNames([
        { packageName: '@x/core', entry: '.', text: a },
        { packageName: '@x/core', entry: './drain', text: a },
        { packageName: '@x/capo', entry: '.', text: b },
        { packageName: '@x/core', entry: './kube', text: shared },
        { packageName: '@x/capo', entry: './api', text: reexport },
      ]).map((c) => [c.name, c.declarations.map((d) => `${d.packageName}${d.entry}`)]),
    ).toEqual([['drainNode', ['@x/core.', '@x/core./drain', '@x/capo.']]]);
    expect(
      clashingNames([
        { packageName: '@x/core', entry: '.', text: a },
        { packageName: '@x/core', entry: './other', text: b },
      ]).map((c) => c.name),
    ).toEqual(['drainNode']);
  });
});

describe('the checked-in API reports', () => {
  it('declare no exported name in two packages or two ways', () => {
    const reports = entryPoints(repoRoot).map((e) => ({
      packageName: e.packageName,
      entry: e.subpath,
      text: readFileSync(join(repoRoot, e.report), 'utf8'),
    }));
    expect(reports.length).toBeGreaterThan(10);
    const clashes = clashingNames(reports).map(
      (c) =>
        `${c.name}: ${c.declarations.map((d) => `${d.packageName}${d.entry === '.' ? '' : d.entry.slice(1)}`).join(', ')}`,
    );
    expect(clashes).toEqual([]);
  });
});
