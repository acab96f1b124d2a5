// Finds an npm package's ES module entry as seen from a directory (the user's working
// directory), for `--provider-module SPEC` and built-in provider names when the package is not
// installed next to core (e.g. `npm i @noderepair/openstack` in the user's own project).
// Node 20 cannot resolve a bare specifier from another directory for `import` (createRequire
// applies the "require" condition, which ESM-only packages such as ours do not export, and
// import.meta.resolve's parent argument is behind a flag), so the lookup is done here: the
// nearest node_modules/<name>/package.json upwards, then its "exports" with the conditions
// an `import` uses. Patterns with one `*` are supported; the rest of Node's algorithm
// (imports maps, self-reference) is not needed for a package entry point.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** "@scope/name/sub/path" -> { name: "@scope/name", subpath: "./sub/path" }. Pure. */
export function splitPackageSpec(spec: string): { name: string; subpath: string } {
  const parts = spec.split('/');
  const n = spec.startsWith('@') ? 2 : 1;
  const rest = parts.slice(n).join('/');
  return { name: parts.slice(0, n).join('/'), subpath: rest === '' ? '.' : `./${rest}` };
}

const importConditions = ['node', 'import', 'default'];

function conditionalTarget(target: unknown): string | undefined {
  if (typeof target === 'string') return target;
  if (Array.isArray(target)) {
    for (const t of target) {
      const r = conditionalTarget(t);
      if (r !== undefined) return r;
    }
    return undefined;
  }
  if (target !== null && typeof target === 'object') {
    for (const [cond, t] of Object.entries(target as Record<string, unknown>))
      if (importConditions.includes(cond)) {
        const r = conditionalTarget(t);
        if (r !== undefined) return r;
      }
  }
  return undefined;
}

/**
 * The file (relative to the package, "./dist/x.js") that `exports` maps `subpath` to for an
 * `import`, or undefined when the package does not export it. Pure.
 */
export function exportsTarget(exportsField: unknown, subpath: string): string | undefined {
  // `"exports": "./index.js"` or `{ "import": ... }` (no "." keys) is the "." entry alone.
  const isSubpathMap =
    exportsField !== null &&
    typeof exportsField === 'object' &&
    !Array.isArray(exportsField) &&
    Object.keys(exportsField).some((k) => k.startsWith('.'));
  const map: Record<string, unknown> = isSubpathMap
    ? (exportsField as Record<string, unknown>)
    : { '.': exportsField };
  if (Object.hasOwn(map, subpath)) return conditionalTarget(map[subpath]);
  for (const [key, target] of Object.entries(map)) {
    const star = key.indexOf('*');
    if (star === -1) continue;
    const [pre, post] = [key.slice(0, star), key.slice(star + 1)];
    // As in Node, the star matches at least one character.
    if (subpath.length >= key.length && subpath.startsWith(pre) && subpath.endsWith(post)) {
      const middle = subpath.slice(pre.length, subpath.length - post.length);
      return conditionalTarget(target)?.replaceAll('*', middle);
    }
  }
  return undefined;
}

export type PackageResolution =
  | { readonly kind: 'Found'; readonly file: string }
  | { readonly kind: 'NotInstalled' }
  | { readonly kind: 'NotExported'; readonly packageDir: string };

/** Resolves `spec` (a bare package specifier) as an import from a file in `fromDir` would. */
export function resolvePackageFrom(spec: string, fromDir: string): PackageResolution {
  const { name, subpath } = splitPackageSpec(spec);
  for (let dir = resolve(fromDir); ; dir = dirname(dir)) {
    const packageDir = join(dir, 'node_modules', name);
    let manifest: { exports?: unknown; main?: unknown } | undefined;
    try {
      manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
        exports?: unknown;
        main?: unknown;
      };
    } catch {
      manifest = undefined;
    }
    if (manifest !== undefined) {
      const target =
        manifest.exports !== undefined
          ? exportsTarget(manifest.exports, subpath)
          : subpath === '.'
            ? typeof manifest.main === 'string'
              ? manifest.main
              : './index.js'
            : subpath;
      return target === undefined
        ? { kind: 'NotExported', packageDir }
        : { kind: 'Found', file: join(packageDir, target) };
    }
    if (dirname(dir) === dir) return { kind: 'NotInstalled' };
  }
}
