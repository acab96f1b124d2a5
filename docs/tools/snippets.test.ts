// Docs that compile: every TypeScript block of README.md, docs/*.md, packages/*/README.md and
// packages/*/docs/*.md type-checks as a consumer's own module (strictest settings, ESM,
// NodeNext) against the built packages. Run `pnpm run build` first (CI builds before tests).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from './markdown.js';
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
      '',
    ].join('\n');
    expect(extractSnippets('x.md', md)).toEqual([
      { file: 'x.md', line: 2, code: 'const a = 1;', fragment: false },
      { file: 'x.md', line: 9, code: 'a.b;', fragment: true },
    ]);
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
