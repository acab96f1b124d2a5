// One-off migration (issue 25): rewrites imports of `@noderepair/core` and
// `@noderepair/capo-remediation` to the concept subpaths that now export each name, and applies
// the renames of names that meant different things across the packages. Kept in the repository
// so the same rewrite can be run on a branch that was cut before the change:
//   node --import tsx scripts/migrate-entry-points.ts <file.ts|file.md>...
// An import whose names are all in the package's small root entry stays on the root.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { repoRoot } from '../docs/tools/markdown.js';

/** Exported names that changed, per package: old -> new. */
export const renames: Record<string, Record<string, string>> = {
  '@noderepair/capo-remediation': {
    drainNode: 'drainNodeSchema',
    DrainOptions: 'RemediationDrainOptions',
    ObjectMeta: 'RemediationObjectMeta',
    actionIdFor: 'remediationActionIdFor',
    NodeView: 'WorkloadNodeView',
  },
  '@noderepair/openstack': {
    Secret: 'OpenStackSecret',
    backoffDelay: 'retryBackoffDelay',
    HttpRequest: 'OpenStackHttpRequest',
    HttpResponse: 'OpenStackHttpResponse',
    HttpTransport: 'OpenStackHttpTransport',
    HttpTransportOptions: 'OpenStackHttpTransportOptions',
  },
  '@noderepair/envtest': { loadKubeConfig: 'loadKubeConfigFile' },
  '@noderepair/overlayfs-gen': { Backoff: 'RestartBackoff' },
};

/** Packages whose root was split into concept subpaths. */
const splitPackages: Record<string, string> = {
  '@noderepair/core': 'packages/core',
  '@noderepair/capo-remediation': 'packages/capo-remediation',
};

interface SubpathMap {
  /** Name -> the one concept subpath ("./health") exporting it. */
  readonly concept: Map<string, string>;
  /** Names the root "." exports. */
  readonly root: Set<string>;
}

function exportsOf(program: ts.Program, file: string): string[] {
  const checker = program.getTypeChecker();
  const sf = program.getSourceFile(file);
  if (!sf) throw new Error(`not in the program: ${file}`);
  const sym = checker.getSymbolAtLocation(sf);
  return sym ? checker.getExportsOfModule(sym).map((s) => s.name) : [];
}

export function subpathMaps(): Map<string, SubpathMap> {
  const files: [string, string, string][] = [];
  for (const [pkg, dir] of Object.entries(splitPackages)) {
    const manifest = JSON.parse(readFileSync(join(repoRoot, dir, 'package.json'), 'utf8')) as {
      exports: Record<string, { source: string } | string>;
    };
    // A plain path ("./package.json": "./package.json") is data, not a module with names.
    for (const [sub, t] of Object.entries(manifest.exports))
      if (typeof t !== 'string') files.push([pkg, sub, join(repoRoot, dir, t.source)]);
  }
  const program = ts.createProgram(
    files.map((f) => f[2]),
    {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      customConditions: ['source'],
      noEmit: true,
      skipLibCheck: true,
    },
  );
  const out = new Map<string, SubpathMap>();
  for (const [pkg, sub, file] of files) {
    const m = out.get(pkg) ?? { concept: new Map(), root: new Set() };
    out.set(pkg, m);
    for (const name of exportsOf(program, file)) {
      if (sub === '.') m.root.add(name);
      else if (m.concept.has(name) && sub !== './kfc')
        throw new Error(`${pkg}: ${name} is exported by ${m.concept.get(name)} and ${sub}`);
      else if (!m.concept.has(name)) m.concept.set(name, sub);
    }
  }
  return out;
}

interface Element {
  readonly imported: string;
  readonly local: string;
  readonly typeOnly: boolean;
}

function render(
  kind: 'import' | 'export',
  declTypeOnly: boolean,
  els: readonly Element[],
  spec: string,
): string {
  // All names types: one `import type`, not a statement that only imports for side effects.
  if (!declTypeOnly && els.every((e) => e.typeOnly)) declTypeOnly = true;
  const parts = els.map(
    (e) =>
      `${e.typeOnly && !declTypeOnly ? 'type ' : ''}${e.imported}${e.local !== e.imported ? ` as ${e.local}` : ''}`,
  );
  return `${kind} ${declTypeOnly ? 'type ' : ''}{ ${parts.join(', ')} } from '${spec}';`;
}

/** The statements replacing one import/export of `pkg` with these elements. */
export function rewrite(
  maps: Map<string, SubpathMap>,
  kind: 'import' | 'export',
  declTypeOnly: boolean,
  pkg: string,
  subpath: string,
  els: readonly Element[],
): { text: string; renamed: [string, string][] } | null {
  const rn = subpath === '.' ? (renames[pkg] ?? {}) : {};
  const renamed: [string, string][] = [];
  const next = els.map((e) => {
    const to = rn[e.imported];
    if (!to) return e;
    // A local name equal to the old exported name follows the rename.
    if (e.local === e.imported) renamed.push([e.imported, to]);
    return { ...e, imported: to, local: e.local === e.imported ? to : e.local };
  });
  const map = maps.get(pkg);
  if (!map || subpath !== '.') {
    if (renamed.length === 0 && next.every((e, i) => e.imported === els[i]!.imported)) return null;
    return { text: render(kind, declTypeOnly, next, pkg + subpath.slice(1)), renamed };
  }
  if (next.every((e) => map.root.has(e.imported)) && renamed.length === 0) return null;
  const groups = new Map<string, Element[]>();
  for (const e of next) {
    const sub = map.concept.get(e.imported);
    if (!sub) throw new Error(`${pkg} no longer exports ${e.imported}`);
    const g = groups.get(sub) ?? [];
    g.push(e);
    groups.set(sub, g);
  }
  const text = [...groups]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([sub, g]) => render(kind, declTypeOnly, g, `${pkg}/${sub.slice(2)}`))
    .join('\n');
  return { text, renamed };
}

function packageOf(spec: string): [string, string] | null {
  const m = /^(@noderepair\/[\w.-]+)(\/.*)?$/.exec(spec);
  return m ? [m[1]!, m[2] ? `.${m[2]}` : '.'] : null;
}

function isReferenceName(id: ts.Identifier): boolean {
  const p = id.parent;
  if (ts.isPropertyAccessExpression(p) && p.name === id) return false;
  if (ts.isQualifiedName(p) && p.right === id) return false;
  if (
    (ts.isPropertyAssignment(p) ||
      ts.isPropertySignature(p) ||
      ts.isPropertyDeclaration(p) ||
      ts.isMethodDeclaration(p) ||
      ts.isMethodSignature(p)) &&
    p.name === id
  )
    return false;
  if (ts.isImportSpecifier(p) || ts.isExportSpecifier(p)) return false;
  return true;
}

export function migrateTs(maps: Map<string, SubpathMap>, file: string, text: string): string {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const edits: { start: number; end: number; text: string }[] = [];
  const renamed: [string, string][] = [];
  for (const st of sf.statements) {
    const isImport = ts.isImportDeclaration(st);
    if (!isImport && !ts.isExportDeclaration(st)) continue;
    const spec = st.moduleSpecifier;
    if (!spec || !ts.isStringLiteral(spec)) continue;
    const pk = packageOf(spec.text);
    if (!pk) continue;
    let els: Element[];
    let typeOnly: boolean;
    if (isImport) {
      const nb = st.importClause?.namedBindings;
      if (!nb || !ts.isNamedImports(nb) || st.importClause!.name) continue;
      typeOnly = st.importClause!.isTypeOnly;
      els = nb.elements.map((e) => ({
        imported: (e.propertyName ?? e.name).text,
        local: e.name.text,
        typeOnly: e.isTypeOnly,
      }));
    } else {
      const ec = st as ts.ExportDeclaration;
      if (!ec.exportClause || !ts.isNamedExports(ec.exportClause)) continue;
      typeOnly = ec.isTypeOnly;
      els = ec.exportClause.elements.map((e) => ({
        imported: (e.propertyName ?? e.name).text,
        local: e.name.text,
        typeOnly: e.isTypeOnly,
      }));
    }
    const r = rewrite(maps, isImport ? 'import' : 'export', typeOnly, pk[0], pk[1], els);
    if (!r) continue;
    edits.push({ start: st.getStart(sf), end: st.getEnd(), text: r.text });
    if (isImport) renamed.push(...r.renamed);
  }
  if (renamed.length) {
    const from = new Map(renamed);
    const visit = (n: ts.Node): void => {
      if (ts.isImportDeclaration(n)) return;
      if (ts.isIdentifier(n) && from.has(n.text) && isReferenceName(n))
        edits.push({ start: n.getStart(sf), end: n.getEnd(), text: from.get(n.text)! });
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  edits.sort((a, b) => b.start - a.start);
  let out = text;
  for (const e of edits) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}

/** Markdown: the import lines of its code blocks (names used in prose are left to a human). */
export function migrateMarkdown(maps: Map<string, SubpathMap>, text: string): string {
  return text.replace(
    /^([ \t]*)(import|export) (type )?\{([^}]*)\} from '(@noderepair\/[^']+)';/gm,
    (
      whole,
      indent: string,
      kind: 'import' | 'export',
      type: string | undefined,
      list: string,
      spec: string,
    ) => {
      const pk = packageOf(spec);
      if (!pk) return whole;
      const els = list
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
        .map((s) => {
          const typeOnly = s.startsWith('type ');
          const [imported, local] = s.replace(/^type /, '').split(/\s+as\s+/);
          return { imported: imported!, local: local ?? imported!, typeOnly };
        });
      const r = rewrite(maps, kind, type !== undefined, pk[0], pk[1], els);
      return r
        ? r.text
            .split('\n')
            .map((l) => indent + l)
            .join('\n')
        : whole;
    },
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const maps = subpathMaps();
  for (const f of process.argv.slice(2)) {
    const text = readFileSync(f, 'utf8');
    const out = f.endsWith('.md') ? migrateMarkdown(maps, text) : migrateTs(maps, f, text);
    if (out !== text) {
      writeFileSync(f, out);
      console.log(`rewrote ${f}`);
    }
  }
}
