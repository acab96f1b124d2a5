// The docs as npm users get them: the Markdown files inside the installed packages
// (node_modules/@noderepair/*/README.md and any other .md a tarball ships), their TypeScript
// blocks extracted with the docs check's own parser (docs/tools/snippets.ts: same fence flags,
// `fragment` and `run`) and compiled as the consumer's own modules against the installed
// packages only. Nothing of the checkout is in what is compiled: a block that imports a
// repository path, a workspace-only package or a file the tarballs do not ship fails here.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { consumerOptions, extractSnippets, type Snippet } from '../../../docs/tools/snippets.js';

export { extractSnippets };

/** Every .md file an installed package holds (outside its own node_modules), relative to `app`. */
export function shippedMarkdown(app: string, packages: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name === 'node_modules') continue;
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.name.toLowerCase().endsWith('.md')) out.push(relative(app, path));
    }
  };
  for (const name of packages) walk(join(app, 'node_modules', name));
  return out.sort();
}

/** The TypeScript blocks of the shipped Markdown files; `file` is relative to the consumer. */
export function shippedSnippets(app: string, files: readonly string[]): Snippet[] {
  return files.flatMap((f) => extractSnippets(f, readFileSync(join(app, f), 'utf8')));
}

export const SNIPPET_DIR = 'doc-snippets';
export const SNIPPET_OUT = 'doc-snippets-dist';

/**
 * The tsconfig that compiles the snippets: the docs check's strictest consumer settings
 * (strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess, verbatimModuleSyntax, ...,
 * NodeNext), with the library declarations checked too (`skipLibCheck: false`), emitting JS so
 * the `run` blocks can run.
 */
export function snippetTsconfig(): Record<string, unknown> {
  const flags = Object.fromEntries(
    Object.entries(consumerOptions).filter(([, v]) => typeof v === 'boolean'),
  );
  return {
    compilerOptions: {
      ...flags,
      skipLibCheck: false,
      noEmit: false,
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      target: 'ES2022',
      lib: ['ES2023'],
      types: ['node'],
      rootDir: SNIPPET_DIR,
      outDir: SNIPPET_OUT,
    },
    include: [SNIPPET_DIR],
  };
}

/**
 * Writes each snippet that is not a fragment as its own module under `app/doc-snippets/` and the
 * tsconfig that compiles them (`tsconfig.snippets.json`); returns the module names (without
 * extension) and their snippets.
 */
export function writeSnippetProject(
  app: string,
  snippets: readonly Snippet[],
): Map<string, Snippet> {
  mkdirSync(join(app, SNIPPET_DIR), { recursive: true });
  const modules = new Map<string, Snippet>();
  for (const s of snippets.filter((x) => !x.fragment)) {
    const name = `${s.file.replace(/^node_modules\//, '').replace(/[@/\\.]/g, '_')}_L${s.line}`;
    // `export {}` keeps every snippet a module (its own scope) without moving its lines.
    writeFileSync(join(app, SNIPPET_DIR, `${name}.ts`), `${s.code}\nexport {};\n`);
    modules.set(name, s);
  }
  writeFileSync(join(app, 'tsconfig.snippets.json'), JSON.stringify(snippetTsconfig(), null, 2));
  return modules;
}

/**
 * tsc's diagnostics (`doc-snippets/<module>.ts(line,col): error TS...`) as places in the
 * shipped Markdown: `node_modules/@noderepair/core/README.md:150 (snippet at line 145): TS2307
 * ...`. A diagnostic in another file (a library declaration) is kept as tsc wrote it.
 */
export function snippetDiagnostics(
  output: string,
  modules: ReadonlyMap<string, Snippet>,
): string[] {
  const out: string[] = [];
  for (const line of output.split('\n')) {
    if (line.trim() === '') continue;
    const m = /^(\S.*?)\((\d+),(\d+)\): error (TS\d+): (.*)$/.exec(line);
    if (!m) {
      // A continuation line of the previous message (tsc indents chained messages).
      if (out.length > 0 && /^\s/.test(line)) out[out.length - 1] += `\n${line}`;
      else out.push(line);
      continue;
    }
    const [, file, row, , code, text] = m as unknown as [
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const mod = new RegExp(`^${SNIPPET_DIR}/(.*)\\.ts$`).exec(file)?.[1];
    const s = mod === undefined ? undefined : modules.get(mod);
    // The fence is s.line; the snippet's first line is the next one.
    out.push(
      s === undefined
        ? `${file}:${row}: ${code} ${text}`
        : `${s.file}:${s.line + Number(row)} (snippet at line ${s.line}): ${code} ${text}`,
    );
  }
  return out;
}

export interface Block {
  /** The fence's language and flags (`ts run`, `sh`, ...). */
  readonly info: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly code: string;
}

/**
 * The section of a Markdown text under the heading `title` (any level, up to the next heading
 * of the same or a higher level) and its fenced blocks; undefined when no heading has that title.
 */
export function section(
  markdown: string,
  title: string,
): { text: string; blocks: Block[] } | undefined {
  const lines = markdown.split('\n');
  let start = -1;
  let level = 0;
  let fence: string | undefined;
  const blocks: Block[] = [];
  let open: { info: string; line: number; body: string[] } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!;
    const f = /^(`{3,}|~{3,})\s*(.*)$/.exec(text);
    if (f && fence === undefined) {
      fence = f[1]!;
      if (start >= 0) open = { info: f[2]!.trim(), line: i + 1, body: [] };
      continue;
    }
    if (fence !== undefined) {
      if (f && f[1]!.startsWith(fence) && f[2] === '') {
        fence = undefined;
        if (open) blocks.push({ info: open.info, line: open.line, code: open.body.join('\n') });
        open = undefined;
      } else open?.body.push(text);
      continue;
    }
    const h = /^(#{1,6})\s+(.*?)\s*$/.exec(text);
    if (!h) continue;
    if (start >= 0 && h[1]!.length <= level)
      return { text: lines.slice(start, i).join('\n'), blocks };
    if (start < 0 && h[2] === title) {
      start = i;
      level = h[1]!.length;
    }
  }
  return start < 0 ? undefined : { text: lines.slice(start).join('\n'), blocks };
}

/** The commands of a shell block: one per line, comments and blank lines dropped, heredocs kept whole. */
export function shellCommands(code: string): string[] {
  const out: string[] = [];
  const lines = code.split('\n');
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!;
    if (line.trim() === '' || line.trim().startsWith('#')) continue;
    const heredoc = /<<'?(\w+)'?/.exec(line);
    if (heredoc) {
      const body = [line];
      while (i + 1 < lines.length && lines[i + 1] !== heredoc[1]) body.push(lines[++i]!);
      body.push(lines[++i] ?? heredoc[1]!);
      out.push(body.join('\n'));
      continue;
    }
    line = line.replace(/\s+#\s.*$/, '');
    out.push(line);
  }
  return out;
}
