// The entry points whose API reports are checked in: every "exports" subpath of every
// published (non-private) package under packages/, and where its report lives
// (api/<package>/<subpath>.api.md, "." as index). Derived from the manifests, so a new
// package or subpath gets a report without touching this file.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, posix } from 'node:path';

export interface EntryPoint {
  /** The package's name, e.g. @noderepair/core. */
  readonly packageName: string;
  /** Absolute directory of the package (API Extractor reads its package.json). */
  readonly packageDir: string;
  /** The "exports" key, e.g. "." or "./kfc". */
  readonly subpath: string;
  /** Absolute path of the built .d.ts the subpath's "types" condition names. */
  readonly dts: string;
  /** The checked-in report, relative to the repository root, with / separators. */
  readonly report: string;
}

/** The folder, relative to the repository root, that holds every report. */
export const apiFolder = 'api';

/** api/<unscoped package>/<subpath without ./>.api.md; the root subpath "." is index. */
export function reportPathOf(packageName: string, subpath: string): string {
  const unscoped = packageName.replace(/^@[^/]+\//, '');
  if (subpath !== '.' && !/^\.\/[\w./-]+$/.test(subpath))
    throw new Error(
      `${packageName}: exports key "${subpath}" is not a plain subpath (patterns have no report)`,
    );
  const rest = subpath === '.' ? 'index' : subpath.slice(2);
  return posix.join(apiFolder, unscoped, `${rest}.api.md`);
}

/** Every entry point of every published package under root/packages, by package, "." first. */
export function entryPoints(root: string): EntryPoint[] {
  const out: EntryPoint[] = [];
  for (const dir of readdirSync(join(root, 'packages')).sort()) {
    const packageDir = join(root, 'packages', dir);
    const file = join(packageDir, 'package.json');
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as {
      name: string;
      private?: boolean;
      exports?: Record<string, unknown>;
    };
    if (manifest.private) continue;
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      // "./package.json": "./package.json" (a plain path to a JSON file) is data for tools
      // that read the manifest, not a module: no declarations, no report.
      if (isDataExport(target)) continue;
      const types = (target as { types?: unknown } | null)?.types;
      // A published subpath without types is a consumer's compile error: say which.
      if (typeof types !== 'string')
        throw new Error(`${manifest.name}: exports["${subpath}"] has no "types" condition`);
      out.push({
        packageName: manifest.name,
        packageDir,
        subpath,
        dts: join(packageDir, types),
        report: reportPathOf(manifest.name, subpath),
      });
    }
  }
  const key = (e: EntryPoint) => `${e.packageName}\0${e.subpath === '.' ? '' : e.subpath}`;
  out.sort((a, b) => key(a).localeCompare(key(b)));
  const reports = out.map((e) => e.report);
  const clash = reports.find((r, i) => reports.indexOf(r) !== i);
  if (clash) throw new Error(`two entry points share the report ${clash}`);
  return out;
}

/** An exports target that is a plain path to a JSON file, e.g. "./package.json". */
export function isDataExport(target: unknown): boolean {
  return typeof target === 'string' && target.endsWith('.json');
}

/** Reports under root/api that belong to no entry point (a removed subpath), relative paths. */
export function orphanReports(root: string, entries: readonly EntryPoint[]): string[] {
  const dir = join(root, apiFolder);
  if (!existsSync(dir)) return [];
  const known = new Set(entries.map((e) => e.report));
  return (readdirSync(dir, { recursive: true }) as string[])
    .map((f) => posix.join(apiFolder, f.split('\\').join('/')))
    .filter((f) => f.endsWith('.api.md') && !known.has(f))
    .sort();
}

/** The import specifier of an entry point, e.g. @noderepair/core/kfc. */
export function specifierOf(e: Pick<EntryPoint, 'packageName' | 'subpath'>): string {
  return e.subpath === '.' ? e.packageName : `${e.packageName}/${e.subpath.slice(2)}`;
}

const require = createRequire(import.meta.url);
// The workspace's @types, wherever the analysed files are (a test's fixture is in a temp dir).
const typeRoots = [dirname(dirname(require.resolve('@types/node/package.json')))];

/**
 * API Extractor's compiler settings for `files`, the same for the reports and the reference
 * pages: no "source" custom condition, so imports of sibling packages resolve to their built
 * .d.ts, as a consumer's would.
 */
export function extractorCompiler(files: string[]) {
  return {
    overrideTsconfig: {
      compilerOptions: {
        target: 'ES2022',
        lib: ['ES2023'],
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        skipLibCheck: true,
        types: ['node'],
        typeRoots,
      },
      files,
    },
  };
}
