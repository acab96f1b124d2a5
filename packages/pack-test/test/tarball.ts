// Reading packed packages: what a tarball holds, its manifest, and the bare imports of its JS.
// Pure helpers over `tar` output and file text, so the assertions in the test stay readable.
import { execFileSync } from 'node:child_process';
import { builtinModules } from 'node:module';

export interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  main?: string;
  types?: string;
  bin?: Record<string, string>;
  files?: string[];
  exports?: Record<string, Record<string, string>>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  publishConfig?: { exports?: Record<string, Record<string, string>> };
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
    ...Object.values(m.exports ?? {}).flatMap((conds) => Object.values(conds)),
    ...(m.main ? [m.main] : []),
    ...(m.types ? [m.types] : []),
    ...Object.values(m.bin ?? {}),
  ];
  return [...new Set(targets.map((t) => t.replace(/^\.\//, '')))].sort();
}

/** The exports map as a consumer sees it: without the workspace-only "source" condition. */
export function withoutSourceCondition(
  exports: Record<string, Record<string, string>> | undefined,
): Record<string, Record<string, string>> {
  return Object.fromEntries(
    Object.entries(exports ?? {}).map(([k, conds]) => [
      k,
      Object.fromEntries(Object.entries(conds).filter(([c]) => c !== 'source')),
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
