// Reads the checked-in API reports (api/**/*.api.md) for the exported names and where each is
// declared, so a test can refuse one name meaning two things across the packages (a user who
// imports `drainNode` from two packages should get the same thing, or two different names).
// A report declares what the package itself defines; what it re-exports from another package
// appears as an import plus `export { X }`, which is not a declaration of its own.

/** One exported name of one report: the declaration text, or null for a re-export. */
export interface ExportedName {
  readonly name: string;
  /** The declaration block(s) as the report prints them; null when imported from a package. */
  readonly declaration: string | null;
}

const declarationHead =
  /^(?:export )?(?:declare )?(?:abstract )?(?:function|class|interface|type|const|let|var|enum|namespace) ([A-Za-z_$][\w$]*)/;

/** The exported names of one API Extractor report (the text of an .api.md file). */
export function exportedNames(report: string): ExportedName[] {
  const start = report.indexOf('```ts');
  const end = report.lastIndexOf('```');
  const body = start >= 0 && end > start ? report.slice(start + 5, end) : report;
  const imported = new Set<string>();
  for (const m of body.matchAll(/^import (?:type )?\{ ([\w$]+)(?: as ([\w$]+))? \} from '/gm))
    imported.add(m[2] ?? m[1]!);
  for (const m of body.matchAll(/^import (?:type )?\* as ([\w$]+) from '/gm)) imported.add(m[1]!);

  // Top-level blocks are separated by blank lines; a block's head names what it declares.
  const declared = new Map<string, { exported: boolean; text: string[] }>();
  for (const block of body.split(/\n\s*\n/)) {
    const lines = block.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('//'));
    const head = lines[0];
    if (head === undefined) continue;
    const m = declarationHead.exec(head);
    if (!m) continue;
    const entry = declared.get(m[1]!) ?? { exported: false, text: [] };
    entry.exported ||= head.startsWith('export ');
    entry.text.push(lines.join('\n'));
    declared.set(m[1]!, entry);
  }

  const out = new Map<string, ExportedName>();
  for (const [name, d] of declared)
    if (d.exported) out.set(name, { name, declaration: d.text.join('\n') });
  // `export { a, b as c }` at the top level (not the indented members of a namespace).
  for (const m of body.matchAll(/^export \{([^}]*)\}/gm))
    for (const part of m[1]!.split(',')) {
      const [local, alias] = part.trim().split(/\s+as\s+/);
      if (!local) continue;
      const name = alias ?? local;
      const d = declared.get(local);
      if (d) out.set(name, { name, declaration: d.text.join('\n') });
      else if (imported.has(local)) out.set(name, { name, declaration: null });
      else throw new Error(`report exports ${local}, which it neither declares nor imports`);
    }
  return [...out.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** Where a name is declared: the package and entry point whose report declares it. */
export interface Declaration {
  readonly packageName: string;
  readonly entry: string;
  readonly text: string;
}

/**
 * Names declared by more than one package, or declared differently by two entry points of the
 * same package: each with every declaration, sorted by name. Re-exports do not count.
 */
export function clashingNames(
  reports: readonly { packageName: string; entry: string; text: string }[],
): { name: string; declarations: Declaration[] }[] {
  const byName = new Map<string, Declaration[]>();
  for (const r of reports)
    for (const e of exportedNames(r.text)) {
      if (e.declaration === null) continue;
      const list = byName.get(e.name) ?? [];
      list.push({ packageName: r.packageName, entry: r.entry, text: e.declaration });
      byName.set(e.name, list);
    }
  const out: { name: string; declarations: Declaration[] }[] = [];
  for (const [name, declarations] of byName) {
    const packages = new Set(declarations.map((d) => d.packageName));
    const texts = new Set(declarations.map((d) => d.text));
    if (packages.size > 1 || texts.size > 1) out.push({ name, declarations });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}
