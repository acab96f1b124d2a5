// Doc snippets as a consumer compiles them: every ```ts / ```typescript block of the READMEs and
// docs is extracted and type-checked as its own ES module under the strictest settings a user
// may have, against the packages' built declarations reached through their package exports.
// A block that is deliberately a fragment says so in its fence (```ts fragment); nothing else
// opts out, so a doc example cannot rot unnoticed. A block that needs no cluster, cloud or file
// says so too (```ts run): run-snippets.ts also runs it, so its asserts are checked claims.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

export interface Snippet {
  /** Path relative to the repository root, e.g. packages/core/docs/health.md. */
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly code: string;
  readonly fragment: boolean;
  /** Runnable as it stands (```ts run): no cluster, no cloud, no file it does not write. */
  readonly run: boolean;
}

/** Words a ```ts fence may carry after the language; any other word is a typo, not an opt-out. */
const FENCE_FLAGS = new Set(['fragment', 'run']);

/** The TypeScript blocks of one Markdown text; throws naming the line of an unknown fence flag. */
export function extractSnippets(file: string, markdown: string): Snippet[] {
  const out: Snippet[] = [];
  const lines = markdown.split('\n');
  let open:
    | { fence: string; indent: number; line: number; ts: boolean; fragment: boolean; run: boolean }
    | undefined;
  let body: string[] = [];
  lines.forEach((text, i) => {
    const m = /^( *)(`{3,}|~{3,})\s*(.*)$/.exec(text);
    if (open === undefined) {
      if (!m) return;
      const [lang = '', ...flags] = m[3]!.trim().split(/\s+/);
      const isTs = lang === 'ts' || lang === 'typescript';
      const unknown = flags.filter((f) => !FENCE_FLAGS.has(f));
      if (isTs && unknown.length > 0)
        throw new Error(
          `${file}:${i + 1}: unknown fence flag ${unknown.map((f) => `"${f}"`).join(', ')} (known: ${[...FENCE_FLAGS].join(', ')})`,
        );
      // A fragment cannot run: it is not a whole program.
      if (isTs && flags.includes('fragment') && flags.includes('run'))
        throw new Error(
          `${file}:${i + 1}: a fragment cannot be run (fence flags fragment and run)`,
        );
      open = {
        fence: m[2]!,
        indent: m[1]!.length,
        line: i + 1,
        ts: isTs,
        fragment: flags.includes('fragment'),
        run: flags.includes('run'),
      };
      body = [];
      return;
    }
    // A closing fence: same character, at least as long, nothing after it.
    if (m && m[2]![0] === open.fence[0] && m[2]!.length >= open.fence.length && m[3] === '') {
      if (open.ts)
        out.push({
          file,
          line: open.line,
          code: body.join('\n'),
          fragment: open.fragment,
          run: open.run,
        });
      open = undefined;
      return;
    }
    body.push(text.slice(Math.min(open.indent, /^ */.exec(text)![0].length)));
  });
  if (open !== undefined) throw new Error(`${file}:${open.line}: code fence is never closed`);
  return out;
}

/** README.md, docs/*.md, packages/*\/README.md and packages/*\/docs/*.md, relative to root. */
export function docFiles(root: string): string[] {
  const md = (dir: string) =>
    existsSync(join(root, dir))
      ? readdirSync(join(root, dir))
          .filter((f) => f.endsWith('.md'))
          .sort()
          .map((f) => join(dir, f))
      : [];
  const packages = readdirSync(join(root, 'packages')).sort();
  return [
    'README.md',
    ...md('docs'),
    ...packages
      .filter((p) => existsSync(join(root, 'packages', p, 'README.md')))
      .map((p) => join('packages', p, 'README.md')),
    ...packages.flatMap((p) => md(join('packages', p, 'docs'))),
  ];
}

/**
 * The strictest settings a consumer may compile with (@tsconfig/strictest's checks, ESM,
 * NodeNext), except the unused-name checks: a snippet shows a value by binding it.
 */
export const consumerOptions: ts.CompilerOptions = {
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  noImplicitOverride: true,
  noImplicitReturns: true,
  noFallthroughCasesInSwitch: true,
  noPropertyAccessFromIndexSignature: true,
  allowUnreachableCode: false,
  allowUnusedLabels: false,
  verbatimModuleSyntax: true,
  esModuleInterop: true,
  // Third-party declarations are not the docs' business (a consumer's usual setting too).
  skipLibCheck: true,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2023.d.ts'],
  types: ['node'],
  noEmit: true,
};

/** Packages a consumer installs next to ours because the snippets import them. */
const THIRD_PARTY = ['@kubernetes/client-node', 'fp-ts', 'io-ts', 'yaml', 'vitest', '@types/node'];

export interface Workspace {
  readonly dir: string;
  readonly private: boolean;
}

function workspacePackages(root: string): Map<string, Workspace> {
  const out = new Map<string, Workspace>();
  for (const p of readdirSync(join(root, 'packages'))) {
    const pj = join(root, 'packages', p, 'package.json');
    if (!existsSync(pj)) continue;
    const json = JSON.parse(readFileSync(pj, 'utf8')) as {
      name: string;
      private?: boolean;
      exports?: unknown;
    };
    if (json.exports !== undefined)
      out.set(json.name, { dir: join(root, 'packages', p), private: json.private === true });
  }
  return out;
}

/** Where the workspace installed a third-party package (the root, else any package's node_modules). */
function installed(root: string, name: string): string {
  const dirs = [root, ...readdirSync(join(root, 'packages')).map((p) => join(root, 'packages', p))];
  for (const d of dirs) {
    const candidate = join(d, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
  }
  throw new Error(`${name} is not installed anywhere in the workspace (pnpm install)`);
}

/**
 * A throwaway consumer project: a temp dir with `"type": "module"` whose node_modules links the
 * workspace packages and the third-party ones the snippets import. The caller removes `dir`.
 */
export function consumerProject(root: string): { dir: string; packages: Map<string, Workspace> } {
  const dir = mkdtempSync(join(tmpdir(), 'noderepair-snippets-'));
  const nm = join(dir, 'node_modules');
  const packages = workspacePackages(root);
  const link = (target: string, name: string) => {
    mkdirSync(dirname(join(nm, name)), { recursive: true });
    symlinkSync(target, join(nm, name), 'dir');
  };
  for (const [name, w] of packages) link(w.dir, name);
  for (const name of THIRD_PARTY) link(installed(root, name), name);
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  return { dir, packages };
}

export interface SnippetFailure {
  readonly snippet: Snippet;
  /** file:line in the Markdown, the TS error code and the compiler's message. */
  readonly message: string;
}

export interface CheckResult {
  readonly failures: SnippetFailure[];
  /** Every `@noderepair/*` import of a snippet and the file it resolved to (repo-relative). */
  readonly resolutions: { specifier: string; resolved: string | undefined; private: boolean }[];
}

/**
 * Type-checks each snippet as its own module in a throwaway consumer project: a temp dir with
 * `"type": "module"` whose node_modules links the workspace packages and the third-party ones
 * the snippets import. Published packages resolve through their exports' `types` condition
 * (the built dist/*.d.ts: `pnpm run build` first); private ones (not built by `pnpm run build`,
 * never published) through their `source` condition.
 */
export function checkSnippets(root: string, snippets: readonly Snippet[]): CheckResult {
  const { dir, packages } = consumerProject(root);
  try {
    const byPath = new Map<string, Snippet>();
    for (const s of snippets) {
      const path = join(dir, `${s.file.replace(/[/\\.]/g, '_')}_L${s.line}.ts`);
      // `export {}` at the end keeps every snippet a module (its own scope) without moving lines.
      writeFileSync(path, `${s.code}\nexport {};\n`);
      byPath.set(path, s);
    }

    const options = { ...consumerOptions };
    const sourceOptions = { ...options, customConditions: ['source'] };
    const host = ts.createCompilerHost(options);
    const resolutions: CheckResult['resolutions'] = [];
    host.resolveModuleNameLiterals = (
      literals,
      containingFile,
      redirected,
      opts,
      containingSourceFile,
    ) =>
      literals.map((lit) => {
        const name = lit.text;
        const pkg = packages.get(name.split('/').slice(0, 2).join('/'));
        const mode = ts.getModeForUsageLocation(containingSourceFile, lit, opts);
        const r = ts.resolveModuleName(
          name,
          containingFile,
          pkg?.private ? sourceOptions : opts,
          host,
          undefined,
          redirected,
          mode,
        );
        if (byPath.has(containingFile) && pkg !== undefined) {
          const file = r.resolvedModule?.resolvedFileName;
          resolutions.push({
            specifier: name,
            resolved: file && relative(root, realpathSync(file)),
            private: pkg.private,
          });
        }
        return r;
      });

    const program = ts.createProgram({ rootNames: [...byPath.keys()], options, host });
    const failures: SnippetFailure[] = [];
    const global = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()];
    for (const d of global)
      failures.push({
        snippet: snippets[0]!,
        message: `compiler: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
      });
    for (const [path, s] of byPath) {
      const sf = program.getSourceFile(path)!;
      for (const d of [
        ...program.getSyntacticDiagnostics(sf),
        ...program.getSemanticDiagnostics(sf),
      ]) {
        const line = d.start === undefined ? 0 : sf.getLineAndCharacterOfPosition(d.start).line;
        // The fence is line s.line; the snippet's first line is the next one.
        const at = `${s.file}:${s.line + 1 + line}`;
        const text = ts.flattenDiagnosticMessageText(d.messageText, '\n  ');
        failures.push({
          snippet: s,
          message: `${at} (snippet at line ${s.line}): TS${d.code} ${text}`,
        });
      }
    }
    return { failures, resolutions };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
