// Reading packed packages: what a tarball holds, its manifest, and the bare imports of its JS.
// Pure helpers over `tar` output and file text, so the assertions in the test stay readable.
import { execFileSync } from 'node:child_process';
import { builtinModules } from 'node:module';

/**
 * An "exports" map: subpath -> conditions, or a plain path (`"./package.json": "./package.json"`,
 * data for tools, not a module).
 */
export type ExportsMap = Record<string, string | Record<string, string>>;

export interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  main?: string;
  types?: string;
  bin?: Record<string, string>;
  files?: string[];
  exports?: ExportsMap;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  engines?: Record<string, string>;
  devDependencies?: Record<string, string>;
  publishConfig?: { exports?: ExportsMap };
}

/** Paths inside the tarball, without the leading `package/`. */
export function tarballFiles(tgz: string): string[] {
  return execFileSync('tar', ['-tzf', tgz], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.replace(/^package\//, ''));
}

/** Every file an entry point of the manifest names (exports conditions, main, types, bin). */
export function entryPointTargets(m: Manifest): string[] {
  const targets = [
    ...Object.values(m.exports ?? {}).flatMap((conds) =>
      typeof conds === 'string' ? [conds] : Object.values(conds),
    ),
    ...(m.main ? [m.main] : []),
    ...(m.types ? [m.types] : []),
    ...Object.values(m.bin ?? {}),
  ];
  return [...new Set(targets.map((t) => t.replace(/^\.\//, '')))].sort();
}

/** The exports map as a consumer sees it: without the workspace-only "source" condition. */
export function withoutSourceCondition(exports: ExportsMap | undefined): ExportsMap {
  return Object.fromEntries(
    Object.entries(exports ?? {}).map(([k, conds]) => [
      k,
      typeof conds === 'string'
        ? conds
        : Object.fromEntries(Object.entries(conds).filter(([c]) => c !== 'source')),
    ]),
  );
}

const builtins = new Set(builtinModules);

/**
 * Package names a compiled ES module imports (static `import`/`export ... from` and
 * `import('...')` with a literal), without relative paths and Node built-ins.
 */
export function bareImports(js: string): string[] {
  const specs = [
    ...js.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]/gm),
    ...js.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm),
    ...js.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((m) => m[1] as string);
  const names = specs
    .filter((s) => !s.startsWith('.') && !s.startsWith('node:') && !builtins.has(s))
    .map((s) =>
      s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : (s.split('/')[0] as string),
    );
  return [...new Set(names)].sort();
}

/** Relative module specifiers of a JS or .d.ts file (static, side-effect, `import()`, `new URL`). */
export function relativeImports(text: string): string[] {
  const specs = [
    ...text.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]/gm),
    ...text.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm),
    ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
    ...text.matchAll(/\bnew URL\(\s*['"]([^'"]+)['"]\s*,\s*import\.meta\.url/g),
  ].map((m) => m[1] as string);
  return [...new Set(specs.filter((s) => s.startsWith('./') || s.startsWith('../')))];
}

/**
 * Shipped modules (JS or .d.ts, named without the extension) that no entry point reaches
 * through relative imports. A module only a test imports (a harness, a fixture, an in-memory
 * double) is unreachable from the entry points, so it shows up here. The JS and the
 * declaration graphs are walked separately: type-only imports exist only in the .d.ts.
 */
export function unreachableModules(
  files: string[],
  entries: string[],
  read: (file: string) => string,
): string[] {
  const moduleOf = (f: string) => f.replace(/(\.d\.ts|\.js)$/, '');
  const shipped = new Set(files.filter((f) => /\.(d\.ts|js)$/.test(f)));
  const seen = new Set<string>();
  const queue = entries.filter((e) => shipped.has(e));
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const dir = file.split('/').slice(0, -1).join('/');
    const dts = file.endsWith('.d.ts');
    for (const spec of relativeImports(read(file))) {
      const target = normalize(`${dir}/${spec}`);
      const next = dts ? target.replace(/\.js$/, '.d.ts') : target;
      if (shipped.has(next)) queue.push(next);
    }
  }
  const reached = new Set([...seen].map(moduleOf));
  return [...new Set([...shipped].map(moduleOf))].filter((m) => !reached.has(m)).sort();
}

function normalize(path: string): string {
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return out.join('/');
}
