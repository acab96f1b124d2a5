// API reports: one API Extractor report per entry point (see api-entries.ts), checked in so
// every change of the public API shows in review. The input is the built .d.ts, what a
// consumer compiles against (and fast: no source type-check). `update` rewrites the reports,
// `check` writes nothing under api/ and names every stale one. One TypeScript program serves
// all entry points; it also counts each entry point's exported symbols (api/exports.md).
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, posix } from 'node:path';
import {
  CompilerState,
  Extractor,
  ExtractorConfig,
  ExtractorLogLevel,
  type ExtractorMessage,
} from '@microsoft/api-extractor';
import ts from 'typescript';
import {
  apiFolder,
  extractorCompiler,
  orphanReports,
  specifierOf,
  type EntryPoint,
} from './api-entries.js';

export { specifierOf };

export type Mode = 'check' | 'update';

export interface EntryResult {
  readonly entry: EntryPoint;
  /** Exported names (after following `export *`), types and values alike. */
  readonly exports: number;
  /** The checked-in report differed from the API (check: stale; update: rewritten). */
  readonly changed: boolean;
  /** API Extractor's warnings and errors about this entry point, one line each. */
  readonly problems: readonly string[];
  /** API Extractor's diff of the report, when it changed. */
  readonly diff: string | undefined;
}

export interface RunResult {
  readonly entries: readonly EntryResult[];
  /** Reports of no entry point (check: stale; update: deleted), relative paths. */
  readonly orphans: readonly string[];
  /** api/exports.md differed (check: stale; update: rewritten). */
  readonly countsChanged: boolean;
}

export const countsFile = posix.join(apiFolder, 'exports.md');

const require = createRequire(import.meta.url);
// API Extractor analyses with the compiler that builds the packages, not its bundled one.
const typescriptFolder = dirname(require.resolve('typescript/package.json'));

function configFor(
  root: string,
  e: EntryPoint,
  tempFolder: string,
  files: string[],
): ExtractorConfig {
  return ExtractorConfig.prepare({
    configObject: {
      projectFolder: e.packageDir,
      mainEntryPointFilePath: e.dts,
      compiler: extractorCompiler(files),
      apiReport: {
        enabled: true,
        reportFolder: join(root, dirname(e.report)),
        reportTempFolder: join(tempFolder, dirname(e.report)),
        reportFileName: posix.basename(e.report, '.api.md'),
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      newlineKind: 'lf',
      // The TSDoc summaries are a later step (issue 25); until then their absence is no noise.
      messages: {
        tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
      },
    },
    // No api-extractor.json: the whole configuration is this object.
    configObjectFullPath: undefined,
    packageJsonFullPath: join(e.packageDir, 'package.json'),
  });
}

/** Exported names of a module, `export *` chains followed. */
export function exportCount(program: ts.Program, file: string): number {
  const source = program.getSourceFile(file);
  const checker = program.getTypeChecker();
  const symbol = source && checker.getSymbolAtLocation(source);
  if (!symbol) throw new Error(`${file}: not a module in the analysed program`);
  return checker.getExportsOfModule(symbol).length;
}

/** Runs API Extractor on every entry point; tempFolder receives the fresh reports. */
export function runApiReports(
  root: string,
  entries: readonly EntryPoint[],
  mode: Mode,
  tempFolder: string,
): RunResult {
  const missing = entries.filter((e) => !existsSync(e.dts));
  if (missing.length)
    throw new Error(`not built (run \`pnpm run build\`): ${missing.map((e) => e.dts).join(', ')}`);
  if (entries.length === 0) throw new Error('no entry points');
  const files = entries.map((e) => e.dts);
  const first = configFor(root, entries[0]!, tempFolder, files);
  const compilerState = CompilerState.create(first, {
    typescriptCompilerFolder: typescriptFolder,
    additionalEntryPoints: files,
  });
  const program = compilerState.program as ts.Program;
  const results = entries.map((entry) => {
    const problems: string[] = [];
    let diff: string | undefined;
    const onMessage = (m: ExtractorMessage) => {
      m.handled = true; // printed by the caller, per entry point, or not at all
      if (m.messageId === 'console-api-report-diff') diff = m.text;
      else if (
        m.category !== 'console' &&
        (m.logLevel === ExtractorLogLevel.Warning || m.logLevel === ExtractorLogLevel.Error)
      )
        problems.push(m.formatMessageWithLocation(root));
    };
    if (mode === 'update') mkdirSync(join(root, dirname(entry.report)), { recursive: true });
    mkdirSync(join(tempFolder, dirname(entry.report)), { recursive: true });
    const existed = existsSync(join(root, entry.report));
    const r = Extractor.invoke(configFor(root, entry, tempFolder, files), {
      localBuild: mode === 'update',
      compilerState,
      typescriptCompilerFolder: typescriptFolder,
      printApiReportDiff: true,
      messageCallback: onMessage,
    });
    const exports = exportCount(program, entry.dts);
    return { entry, exports, changed: r.apiReportChanged || !existed, problems, diff };
  });
  const orphans = orphanReports(root, entries);
  const counts = renderCounts(results);
  const countsPath = join(root, countsFile);
  const countsChanged = !existsSync(countsPath) || readFileSync(countsPath, 'utf8') !== counts;
  if (mode === 'update') {
    for (const o of orphans) rmSync(join(root, o));
    if (countsChanged) writeFileSync(countsPath, counts);
  }
  return { entries: results, orphans, countsChanged };
}

/**
 * Exported-symbol counts of the entry points as released in 0.1.0 (one `export *` root per
 * package), kept beside today's so the effect of the per-concept entry points stays visible.
 */
export const releasedCounts: Readonly<Record<string, number>> = {
  '@noderepair/capo-remediation': 138,
  '@noderepair/core': 586,
  '@noderepair/core/codec': 24,
  '@noderepair/core/kfc': 2,
  '@noderepair/envtest': 25,
  '@noderepair/envtest/vitest': 3,
  '@noderepair/envtest/vitest/global-setup': 1,
  '@noderepair/openstack': 67,
  '@noderepair/openstack/provider': 5,
  '@noderepair/openstack/testing': 11,
  '@noderepair/overlayfs-gen': 62,
};

/** api/exports.md: the exported-symbol count of each entry point, linked to its report. */
export function renderCounts(
  results: readonly Pick<EntryResult, 'entry' | 'exports'>[],
  before: Readonly<Record<string, number>> = releasedCounts,
): string {
  const rows = results.map((r) => {
    const rel = posix.relative(apiFolder, r.entry.report);
    const was = before[specifierOf(r.entry)];
    return `| \`${specifierOf(r.entry)}\` | ${was ?? 'new'} | ${r.exports} | [${rel}](${rel}) |`;
  });
  // A released entry point of a package still here, which no longer exists.
  const gone = Object.keys(before)
    .filter((s) => results.some((r) => s.startsWith(r.entry.packageName)))
    .filter((s) => !results.some((r) => specifierOf(r.entry) === s))
    .map((s) => `| \`${s}\` | ${before[s]} | removed | |`);
  return [
    '# Exported symbols per entry point',
    '',
    'Generated by `pnpm api:update` from the built `.d.ts` (`pnpm api:check` fails while it or a',
    'report beside it is stale). A symbol is an exported name: a type and a value of the same name',
    'count once. "Before (0.1.0)" is the count as released in 0.1.0, when each package had one',
    '`export *` root; a name exported by a concept subpath and the root counts in both.',
    '',
    '| Entry point | Before (0.1.0) | Exported symbols | Report |',
    '| --- | ---: | ---: | --- |',
    ...rows,
    ...gone,
    '',
  ].join('\n');
}
