// Docs that compile: every TypeScript block of README.md, docs/*.md, packages/*/README.md and
// packages/*/docs/*.md type-checks as a consumer's own module (strictest settings, ESM,
// NodeNext) against the built packages. Run `pnpm run build` first (CI builds before tests).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from './markdown.js';
import { runSnippets, type SnippetRun } from './run-snippets.js';
import {
  checkSnippets,
  docFiles,
  extractSnippets,
  type CheckResult,
  type Snippet,
} from './snippets.js';

/** Fragments opt out of the check; each one is a snippet a reader cannot paste. Keep it small. */
const MAX_FRAGMENTS = 2;

describe('extractSnippets', () => {
  it('finds ts and typescript blocks with their fence line, and nothing else', () => {
    const md = [
      '# t',
      '```ts',
      'const a = 1;',
      '```',
      '```sh',
      'ls',
      '```',
      '- item',
      '  ```typescript fragment',
      '  a.b;',
      '  ```',
      '```ts run',
      'f();',
      '```',
      '',
    ].join('\n');
    expect(extractSnippets('x.md', md)).toEqual([
      { file: 'x.md', line: 2, code: 'const a = 1;', fragment: false, run: false },
      { file: 'x.md', line: 9, code: 'a.b;', fragment: true, run: false },
      { file: 'x.md', line: 12, code: 'f();', fragment: false, run: true },
    ]);
  });

  it('refuses a fragment marked to run', () => {
    expect(() => extractSnippets('x.md', '\n```ts fragment run\nx\n```\n')).toThrow(
      'x.md:2: a fragment cannot be run',
    );
  });

  it('refuses an unknown fence flag rather than silently skipping the block', () => {
    expect(() => extractSnippets('x.md', '\n```ts fragmnet\nx\n```\n')).toThrow(
      'x.md:2: unknown fence flag "fragmnet"',
    );
  });

  it('refuses a fence that is never closed', () => {
    expect(() => extractSnippets('x.md', '```ts\nx\n')).toThrow(
      'x.md:1: code fence is never closed',
    );
  });
});

describe('doc snippets compile as a consumer writes them', () => {
  const snippets: Snippet[] = docFiles(repoRoot).flatMap((f) =>
    extractSnippets(f, readFileSync(join(repoRoot, f), 'utf8')),
  );
  const fragments = snippets.filter((s) => s.fragment);
  const checked = snippets.filter((s) => !s.fragment);
  let result: CheckResult;

  beforeAll(() => {
    const built = join(repoRoot, 'packages', 'core', 'dist', 'index.d.ts');
    if (!existsSync(built)) throw new Error(`${built} is missing: run \`pnpm run build\` first`);
    result = checkSnippets(repoRoot, checked);
  }, 120_000);

  it('reads the READMEs and docs and finds their TypeScript blocks', () => {
    expect(docFiles(repoRoot)).toEqual(
      expect.arrayContaining([
        'README.md',
        'packages/core/README.md',
        'packages/core/docs/health.md',
      ]),
    );
    expect(checked.length).toBeGreaterThanOrEqual(15);
  });

  it(`marks at most ${MAX_FRAGMENTS} snippets as fragments`, () => {
    console.log(
      `${checked.length} snippets type-checked, ${fragments.length} fragments: ${fragments.map((s) => `${s.file}:${s.line}`).join(', ') || 'none'}`,
    );
    expect(fragments.length).toBeLessThanOrEqual(MAX_FRAGMENTS);
  });

  it('type-checks every snippet (file:line, TS code, message for each failure)', () => {
    expect(result.failures.map((f) => f.message)).toEqual([]);
  });

  it('resolves @noderepair imports through package exports: published ones to dist/*.d.ts', () => {
    expect(result.resolutions.length).toBeGreaterThan(10);
    const wrong = result.resolutions.filter(
      (r) =>
        r.resolved === undefined ||
        (r.private
          ? !/^packages\/[^/]+\/src\//.test(r.resolved)
          : !/^packages\/[^/]+\/dist\/.*\.d\.ts$/.test(r.resolved)),
    );
    expect(wrong).toEqual([]);
  });
});

describe('doc snippets marked ```ts run run as a consumer runs them', () => {
  const runnable = docFiles(repoRoot)
    .flatMap((f) => extractSnippets(f, readFileSync(join(repoRoot, f), 'utf8')))
    .filter((s) => s.run);
  let runs: SnippetRun[];

  beforeAll(() => {
    runs = runSnippets(repoRoot, runnable);
  }, 120_000);

  it('finds the pure ones: policy parsing, a decision on a literal Node, overlay generation, ...', () => {
    const files = new Set(runnable.map((s) => s.file));
    for (const f of [
      'packages/core/docs/health.md',
      'packages/core/README.md',
      'packages/overlayfs-gen/README.md',
    ])
      expect(files.has(f), f).toBe(true);
    expect(runnable.length).toBeGreaterThanOrEqual(4);
  });

  it('runs each one to exit 0 with nothing on stderr (its asserts hold)', () => {
    const failed = runs
      .filter((r) => r.status !== 0 || r.stderr !== '')
      .map(
        (r) =>
          `${r.snippet.file}:${r.snippet.line}: exit ${r.status}\n${r.stderr.split('\n').slice(0, 12).join('\n')}`,
      );
    expect(failed).toEqual([]);
  });
});
