// The examples and the pack test's consumer are what users copy: they may import a
// @noderepair package only through a subpath its package.json "exports" lists, and never reach
// into packages/ by a relative path. (examples/test, the repository's own checks of the
// examples, is not example code and may read the packages' sources.)
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../../', import.meta.url));

/** Package name -> its "exports" subpaths ("." and "./kfc" style), for every workspace package. */
function exportMaps(root: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const dir of readdirSync(join(root, 'packages'))) {
    const file = join(root, 'packages', dir, 'package.json');
    if (!existsSync(file)) continue;
    const m = JSON.parse(readFileSync(file, 'utf8')) as {
      name: string;
      exports?: Record<string, unknown>;
    };
    out.set(m.name, new Set(Object.keys(m.exports ?? {})));
  }
  return out;
}

const specifiers = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm;

/** What is wrong with the imports of one source file, one line per import. */
export function importProblems(
  file: string,
  text: string,
  exportsOf: Map<string, Set<string>>,
  root: string,
): string[] {
  const problems: string[] = [];
  const rel = relative(root, file).split(sep).join('/');
  const ownPackage = /^packages\/([^/]+)\//.exec(rel)?.[1];
  for (const m of text.matchAll(specifiers)) {
    const spec = m[1]!;
    const pkg = /^(@noderepair\/[^/]+)(\/.*)?$/.exec(spec);
    if (pkg) {
      const subpaths = exportsOf.get(pkg[1]!);
      const subpath = pkg[2] ? `.${pkg[2]}` : '.';
      if (!subpaths) problems.push(`${rel}: ${spec}: no workspace package ${pkg[1]}`);
      else if (!subpaths.has(subpath))
        problems.push(
          `${rel}: ${spec}: not an entry point of ${pkg[1]} (exports: ${[...subpaths].join(', ')})`,
        );
      continue;
    }
    if (!spec.startsWith('.')) continue;
    const target = relative(root, resolve(dirname(file), spec))
      .split(sep)
      .join('/');
    const into = /^packages\/([^/]+)/.exec(target)?.[1];
    if (into !== undefined && into !== ownPackage)
      problems.push(`${rel}: ${spec}: reaches into packages/${into} by a relative path`);
  }
  return problems;
}

function sources(dir: string, skip: (path: string) => boolean): string[] {
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true }) as string[])
    .map((f) => join(dir, f))
    .filter((f) => /\.(ts|mts|tsx)$/.test(f) && !/(^|[\\/])(node_modules|dist)[\\/]/.test(f))
    .filter((f) => !skip(f))
    .sort();
}

describe('imports of the examples and the pack test', () => {
  const exportsOf = exportMaps(repo);
  const files = [
    ...sources(join(repo, 'examples'), (f) => f.startsWith(join(repo, 'examples', 'test') + sep)),
    ...sources(join(repo, 'packages', 'pack-test'), () => false),
  ];

  it('finds the example and pack-test sources', () => {
    const rel = files.map((f) => relative(repo, f).split(sep).join('/'));
    expect(rel).toContain('examples/kfc-operator/src/operator.ts');
    expect(rel).toContain('packages/pack-test/consumer/src/main.ts');
  });

  it('name only subpaths in the packages\' "exports" and never reach into packages/', () => {
    const problems = files.flatMap((f) =>
      importProblems(f, readFileSync(f, 'utf8'), exportsOf, repo),
    );
    expect(problems).toEqual([]);
  });

  it('the check refuses internal paths, unknown subpaths and relative reaches', () => {
    const file = join(repo, 'examples', 'x', 'src', 'a.ts');
    const text = [
      "import { Manager } from '@noderepair/core/runtime';",
      "import { x } from '@noderepair/core/dist/index.js';",
      "import type { y } from '@noderepair/core/src/health/index.js';",
      "const z = await import('@noderepair/capo-remediation/flags');",
      "import { w } from '../../../packages/core/src/index.js';",
      "import { v } from './local.js';",
      "export { u } from '@noderepair/nope';",
    ].join('\n');
    expect(importProblems(file, text, exportsOf, repo).map((p) => p.split(': ')[1])).toEqual([
      '@noderepair/core/dist/index.js',
      '@noderepair/core/src/health/index.js',
      '@noderepair/capo-remediation/flags',
      '../../../packages/core/src/index.js',
      '@noderepair/nope',
    ]);
    // Inside packages/pack-test, its own files are fine; another package's are not.
    const own = join(repo, 'packages', 'pack-test', 'test', 'b.ts');
    expect(
      importProblems(
        own,
        "import { t } from './tarball.js';\nimport { c } from '../../core/src/index.js';",
        exportsOf,
        repo,
      ),
    ).toEqual([
      'packages/pack-test/test/b.ts: ../../core/src/index.js: reaches into packages/core by a relative path',
    ]);
  });
});
