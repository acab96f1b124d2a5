// The layer rules of layers.config.mjs (the repository root: the architecture's one rule file,
// which eslint.config.js also turns into `pnpm lint` errors) over a package's resolved
// imports: run by the docs project in CI (docs/tools/layers.test.ts). Beside the order, which
// the lint checks too, this finds what a per-file lint rule cannot: circles of files inside a
// folder, folders the order does not place, known circles that are gone. The rules themselves
// are written in layers.config.mjs.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import type { LayerOrder } from '../../layers.config.mjs';

export type { LayerOrder } from '../../layers.config.mjs';
export { capoLayers, coreKnownCircles, coreLayers } from '../../layers.config.mjs';

/** One import that breaks the rules: where it stands and what it names. */
export interface LayerViolation {
  /** The importing file, relative to the repository root. */
  readonly file: string;
  readonly line: number;
  /** What the file imports: the folder (or top-level file) of the target. */
  readonly imports: string;
  /** Why it is not allowed: 'higher layer', 'same layer', 'not in the layer list', 'test code'. */
  readonly why: string;
}

/** `file:line imports <folder> (why)`, the one line a failure prints per violation. */
export function formatViolation(v: LayerViolation): string {
  return `${v.file}:${v.line} imports ${v.imports} (${v.why})`;
}

/** An import between two folders of the source tree. */
interface Edge {
  /** The importing file, relative to the repository root. */
  readonly file: string;
  readonly line: number;
  /** The importing file and the imported one, relative to src. */
  readonly source: string;
  readonly target: string;
  /** Their folders (or top-level files). */
  readonly from: string;
  readonly to: string;
}

const isTest = (f: string) => /\.test\.ts$/.test(f);
const isTestSupport = (f: string) => /\.test-support\.[cm]?[jt]s$/.test(f);

/** The product .ts files under `dir` (no tests, no declarations), relative to `dir`. */
function productFiles(dir: string, under = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(dir, under), { withFileTypes: true })) {
    const rel = under === '' ? e.name : `${under}/${e.name}`;
    if (e.isDirectory()) out.push(...productFiles(dir, rel));
    else if (/\.ts$/.test(e.name) && !/\.d\.ts$/.test(e.name) && !isTest(e.name)) out.push(rel);
  }
  return out.sort();
}

/** The folder (or, for a file directly under src, the file) that `rel` belongs to. */
const unitOf = (rel: string) => rel.split('/')[0]!;

/**
 * Every relative import, export-from and import() of the product files under `srcDir`, read
 * with the TypeScript scanner (type-only imports count: they tie the files as much as any
 * other).
 */
function edgesOf(srcDir: string, repoRoot: string): Edge[] {
  const edges: Edge[] = [];
  for (const rel of productFiles(srcDir)) {
    const path = join(srcDir, rel);
    const text = readFileSync(path, 'utf8');
    const info = ts.preProcessFile(text, true, true);
    for (const ref of info.importedFiles) {
      if (!ref.fileName.startsWith('.')) continue;
      const target = relative(srcDir, resolve(dirname(path), ref.fileName))
        .split(sep)
        .join('/')
        .replace(/\.js$/, '.ts');
      if (target.startsWith('..')) continue; // another package's files: not this rule's business
      const from = unitOf(rel);
      const to = unitOf(target);
      const line = text.slice(0, ref.pos).split('\n').length;
      const file = relative(repoRoot, path).split(sep).join('/');
      edges.push({ file, line, source: rel, target, from, to });
    }
  }
  return edges;
}

/** The layer index of each folder of `order`. */
function ranks(order: LayerOrder): Map<string, number> {
  const r = new Map<string, number>();
  order.forEach((entry, i) => {
    for (const f of typeof entry === 'string' ? [entry] : entry) r.set(f, i);
  });
  return r;
}

/** The circles of a graph: its strongly connected components of more than one node. */
function circlesOf(arrows: readonly (readonly [string, string])[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const [a, b] of arrows) if (a !== b) next.set(a, (next.get(a) ?? new Set()).add(b));
  // Tarjan's algorithm.
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of next.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1) out.push(c.sort());
    }
  };
  for (const v of [...next.keys()].sort()) if (!idx.has(v)) visit(v);
  return out;
}

/** A circle of folders or files, with the imports that close it (`file:line imports <what>`). */
export interface Circle {
  readonly members: readonly string[];
  readonly imports: readonly string[];
}

/** What the layer rules find in one package's source tree. */
export interface LayerReport {
  /** Each import that breaks the order, in file order. */
  readonly violations: readonly LayerViolation[];
  /** Each circle of folders. */
  readonly folderCircles: readonly Circle[];
  /** Each circle of files inside one folder, but those the caller knows of (`knownCircles`). */
  readonly fileCircles: readonly Circle[];
  /** Circles of `knownCircles` that no longer stand: strike them from the list. */
  readonly goneCircles: readonly string[];
  /** Folders (or top-level files) under src that the order does not place. */
  readonly unplaced: readonly string[];
}

/**
 * Checks the product files under `srcDir` against `order`. `knownCircles`: circles of files
 * that stand today and are to be broken (each as its files, relative to src, sorted); they
 * are not reported, and one that no longer stands is reported, so the list only shrinks.
 */
export function checkLayers(
  srcDir: string,
  order: LayerOrder,
  repoRoot: string,
  knownCircles: readonly (readonly string[])[] = [],
): LayerReport {
  const rank = ranks(order);
  const edges = edgesOf(srcDir, repoRoot);
  const violations: LayerViolation[] = [];
  for (const e of edges) {
    const why =
      isTest(e.target) || isTestSupport(e.target)
        ? 'test code'
        : e.from === e.to
          ? undefined
          : !rank.has(e.to) || !rank.has(e.from)
            ? 'not in the layer list'
            : rank.get(e.to)! > rank.get(e.from)!
              ? 'higher layer'
              : rank.get(e.to) === rank.get(e.from)
                ? 'same layer'
                : undefined;
    if (why !== undefined) violations.push({ file: e.file, line: e.line, imports: e.to, why });
  }
  // A circle of folders can ride on hundreds of imports: one line per pair of folders, with
  // its first import and how many more there are.
  const folderCircles = circlesOf(edges.map((e) => [e.from, e.to] as const)).map((members) => {
    const pairs = new Map<string, Edge[]>();
    for (const e of edges)
      if (e.from !== e.to && members.includes(e.from) && members.includes(e.to))
        pairs.set(`${e.from} -> ${e.to}`, [...(pairs.get(`${e.from} -> ${e.to}`) ?? []), e]);
    const imports = [...pairs.values()].map(([first, ...more]) => {
      const also = more.length > 0 ? ` and ${more.length} more` : '';
      return `${first!.file}:${first!.line} imports ${first!.to}${also}`;
    });
    return { members, imports: imports.sort() };
  });
  const key = (files: readonly string[]) => [...files].sort().join(' ');
  const known = new Set(knownCircles.map(key));
  const all = circlesOf(
    edges.filter((e) => e.from === e.to).map((e) => [e.source, e.target] as const),
  ).map((members) => ({
    members,
    imports: edges
      .filter((e) => members.includes(e.source) && members.includes(e.target))
      .map((e) => `${e.file}:${e.line} imports ${e.target}`),
  }));
  const found = new Set(all.map((c) => key(c.members)));
  const fileCircles = all.filter((c) => !known.has(key(c.members)));
  const goneCircles = knownCircles.map(key).filter((k) => !found.has(k));
  const units = new Set(productFiles(srcDir).map(unitOf));
  const unplaced = [...units].filter((u) => !rank.has(u)).sort();
  return { violations, folderCircles, fileCircles, unplaced, goneCircles };
}
