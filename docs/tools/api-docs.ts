// API reference pages (docs/api/, `pnpm api:docs`): API Extractor turns each published entry
// point's built .d.ts (the same entry points as the API reports, api-entries.ts) into a doc
// model, one .api.json each; API Documenter renders the models as markdown, a page per package
// entry point, declaration and member, from their TSDoc comments.
//
// API Documenter renders only the first entry point of a package and names its files after the
// package, so a subpath entry point (@noderepair/core/kfc) enters the model as a package of its
// own with a valid package name (@noderepair/core__kfc); the pages' text is then given the real
// specifier back. File names keep the alias (core__kfc.md).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import {
  CompilerState,
  Extractor,
  ExtractorConfig,
  ExtractorLogLevel,
  type ExtractorMessage,
} from '@microsoft/api-extractor';
import { extractorCompiler, specifierOf, type EntryPoint } from './api-entries.js';

export { specifierOf };

const require = createRequire(import.meta.url);
const typescriptFolder = dirname(require.resolve('typescript/package.json'));

/**
 * The package name the entry point has in the doc model: the package's own for ".", else the
 * subpath joined on with `__` (a valid package name: API Documenter derives file names from it).
 */
export function modelNameOf(e: Pick<EntryPoint, 'packageName' | 'subpath'>): string {
  return e.subpath === '.'
    ? e.packageName
    : `${e.packageName}__${e.subpath.slice(2).replaceAll('/', '__')}`;
}

/**
 * Gives rendered markdown the real specifiers back. API Documenter escapes `_` in text as
 * `\_`, so only text changes: link targets (./core__kfc.md) keep the unescaped alias.
 */
export function restoreSpecifiers(
  markdown: string,
  entries: readonly Pick<EntryPoint, 'packageName' | 'subpath'>[],
): string {
  const unscoped = (name: string) => name.replace(/^@[^/]+\//, '');
  const escaped = (s: string) => s.replaceAll('_', '\\_');
  // Longest alias first: envtest__vitest is the start of envtest__vitest__global-setup.
  const subpaths = entries
    .filter((e) => e.subpath !== '.')
    .map((e) => ({ alias: modelNameOf(e), real: specifierOf(e) }))
    .sort((a, b) => b.alias.length - a.alias.length);
  let out = markdown;
  // The scoped name before the unscoped one it contains.
  for (const { alias, real } of subpaths)
    out = out.replaceAll(escaped(alias), real).replaceAll(escaped(unscoped(alias)), unscoped(real));
  return out;
}

function configFor(e: EntryPoint, apiJsonFilePath: string, files: string[]): ExtractorConfig {
  const packageJsonFullPath = join(e.packageDir, 'package.json');
  const manifest = JSON.parse(readFileSync(packageJsonFullPath, 'utf8')) as {
    name: string;
    version: string;
  };
  return ExtractorConfig.prepare({
    configObject: {
      projectFolder: e.packageDir,
      mainEntryPointFilePath: e.dts,
      compiler: extractorCompiler(files),
      apiReport: { enabled: false },
      docModel: { enabled: true, apiJsonFilePath },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      newlineKind: 'lf',
      // The API reports are where API problems are reported; here they would only repeat.
      messages: {
        compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
        extractorMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
        tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
      },
    },
    configObjectFullPath: undefined,
    packageJsonFullPath,
    packageJson: { ...manifest, name: modelNameOf(e) },
  });
}

/** Writes one .api.json per entry point into modelFolder (emptied first). */
export function writeDocModels(entries: readonly EntryPoint[], modelFolder: string): void {
  if (entries.length === 0) throw new Error('no entry points');
  rmSync(modelFolder, { recursive: true, force: true });
  mkdirSync(modelFolder, { recursive: true });
  const files = entries.map((e) => e.dts);
  const jsonOf = (e: EntryPoint) =>
    join(modelFolder, `${modelNameOf(e).replace(/^@[^/]+\//, '')}.api.json`);
  const first = configFor(entries[0]!, jsonOf(entries[0]!), files);
  const compilerState = CompilerState.create(first, {
    typescriptCompilerFolder: typescriptFolder,
    additionalEntryPoints: files,
  });
  for (const e of entries) {
    const errors: string[] = [];
    const r = Extractor.invoke(configFor(e, jsonOf(e), files), {
      localBuild: true,
      compilerState,
      typescriptCompilerFolder: typescriptFolder,
      messageCallback: (m: ExtractorMessage) => {
        m.handled = true;
        if (m.logLevel === ExtractorLogLevel.Error) errors.push(m.text);
      },
    });
    if (!r.succeeded || errors.length)
      throw new Error(`${specifierOf(e)}: API Extractor failed: ${errors.join('; ')}`);
  }
}

/**
 * Renders the models in modelFolder into outFolder (API Documenter empties it first) and
 * restores the subpath specifiers. Returns the number of pages written.
 */
export function renderMarkdown(
  entries: readonly EntryPoint[],
  modelFolder: string,
  outFolder: string,
): number {
  const bin = join(dirname(require.resolve('@microsoft/api-documenter/package.json')), 'bin');
  execFileSync(
    process.execPath,
    [join(bin, 'api-documenter'), 'markdown', '-i', modelFolder, '-o', outFolder],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const pages = readdirSync(outFolder).filter((f) => f.endsWith('.md'));
  for (const f of pages) {
    const path = join(outFolder, f);
    const text = readFileSync(path, 'utf8');
    const fixed = restoreSpecifiers(text, entries);
    if (fixed !== text) writeFileSync(path, fixed);
  }
  return pages.length;
}

/** The rendered pages in folder, by file name (the .md files only); empty when it does not exist. */
export function readPages(folder: string): Map<string, string> {
  if (!existsSync(folder)) return new Map();
  const names = readdirSync(folder).filter((f) => f.endsWith('.md'));
  return new Map(names.sort().map((f) => [f, readFileSync(join(folder, f), 'utf8')]));
}

/** How checked-in pages differ from freshly rendered ones, by file name (sorted). */
export interface StalePages {
  /** Rendered both times, with different text. */
  readonly changed: readonly string[];
  /** Rendered now, not checked in (a new declaration or entry point). */
  readonly missing: readonly string[];
  /** Checked in, no longer rendered (a removed declaration): API Documenter would delete it. */
  readonly orphaned: readonly string[];
}

/** Compares freshly rendered pages with the checked-in ones (pure); all empty: up to date. */
export function stalePages(
  fresh: ReadonlyMap<string, string>,
  checkedIn: ReadonlyMap<string, string>,
): StalePages {
  const sorted = (xs: Iterable<string>) => [...xs].sort();
  return {
    changed: sorted(
      [...fresh].filter(([f, t]) => checkedIn.has(f) && checkedIn.get(f) !== t).map(([f]) => f),
    ),
    missing: sorted([...fresh.keys()].filter((f) => !checkedIn.has(f))),
    orphaned: sorted([...checkedIn.keys()].filter((f) => !fresh.has(f))),
  };
}
