// Writes .changeset/entry-points.md (issue 25) from the API reports before and after: every
// export that moved to another entry point or was renamed, with its migration line, one table
// per former entry point. Generated so that the list is complete:
//   node --import tsx scripts/changeset-entry-points.ts <git ref of the reports before>
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { entryPoints, reportPathOf } from '../docs/tools/api-entries.js';
import { exportedNames } from '../docs/tools/api-names.js';
import { repoRoot } from '../docs/tools/markdown.js';
import { renames } from './migrate-entry-points.js';

const before = process.argv[2];
if (!before) {
  console.error('usage: changeset-entry-points.ts <git ref of the reports before>');
  process.exit(2);
}

/** Exports no entry point has any more, and why (internal to a CLI, or a test-only API). */
const removedBecause: Record<string, string> = {
  parseFlags:
    "the controller's flag parser is its CLI's (run `capo-remediation-controller --help`)",
  USAGE: "the controller's usage text is its CLI's",
  ControllerFlags: "the controller's flags are its CLI's",
  BindAddress: "re-export of core's, for the CLI only; `@noderepair/core/codec` has it",
  DrainClock:
    'one clock for every package: `Clock` from `@noderepair/core/runtime` (it has `now()` and `sleep(ms, signal)`)',
  drainSystemClock: 'one clock for every package: `systemClock` from `@noderepair/core/runtime`',
  InformerEvent:
    'went with `Informer.events$()` (rxjs); use `informer.addHandlers({ onAdd, onUpdate, onDelete })`',
};

const after = entryPoints(repoRoot);
const afterNames = new Map<string, Set<string>>(); // specifier -> names
for (const e of after)
  afterNames.set(
    e.packageName + e.subpath.slice(1),
    new Set(exportedNames(readFileSync(join(repoRoot, e.report), 'utf8')).map((n) => n.name)),
  );
const specifiersOf = (pkg: string) =>
  [...afterNames.keys()].filter((s) => s === pkg || s.startsWith(`${pkg}/`));

/** The entry points that export name after the change, concept subpaths before the root. */
function whereNow(pkg: string, name: string): string[] {
  return specifiersOf(pkg)
    .filter((s) => afterNames.get(s)!.has(name))
    .sort((a, b) => (a === pkg ? 1 : b === pkg ? -1 : a.localeCompare(b)));
}

const packages = [...new Set(after.map((e) => e.packageName))];
const sections: string[] = [];
const bumped = new Set<string>();
for (const pkg of packages) {
  const subpaths = [
    '.',
    ...after.filter((e) => e.packageName === pkg && e.subpath !== '.').map((e) => e.subpath),
  ];
  for (const sub of subpaths) {
    let text: string;
    try {
      text = execFileSync('git', ['show', `${before}:${reportPathOf(pkg, sub)}`], {
        cwd: repoRoot,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      });
    } catch {
      continue; // a new entry point: nothing moved out of it
    }
    const from = pkg + sub.slice(1);
    const rows: string[] = [];
    for (const { name } of exportedNames(text)) {
      if (afterNames.get(from)?.has(name)) continue;
      const renamed = renames[pkg]?.[name];
      const now = whereNow(pkg, renamed ?? name);
      if (now.length > 0) {
        const target = now[0]!;
        const newName = renamed ?? name;
        rows.push(
          `| \`${name}\` | \`import { ${name} } from '${from}'\` -> \`import { ${newName} } from '${target}'\`${renamed ? ' (renamed)' : ''} |`,
        );
      } else {
        const why = removedBecause[name];
        if (!why)
          throw new Error(`${from}: ${name} is exported nowhere any more, and no reason is given`);
        rows.push(`| \`${name}\` | removed: ${why} |`);
      }
    }
    if (rows.length === 0) continue;
    bumped.add(pkg);
    sections.push(
      `### From \`${from}\` (${rows.length})\n\n| Export | Migration |\n| --- | --- |\n${rows.join('\n')}`,
    );
  }
}

const renameLines = Object.entries(renames).flatMap(([pkg, m]) =>
  Object.entries(m).map(([a, b]) => `- \`${a}\` (${pkg}) -> \`${b}\``),
);
const out = `---
${[...bumped].map((p) => `'${p}': minor`).join('\n')}
---

One entry point per concept (issue 25). \`@noderepair/core\` exports a small root (a client, the
\`Manager\`, the repair policy, the auto-repair controller) and one subpath per concept:
\`/runtime\`, \`/kube\`, \`/codec\`, \`/kfc\`, \`/health\`, \`/mhc\`, \`/drain\`, \`/provider\`,
\`/autorepair\`, \`/testing\`. \`@noderepair/capo-remediation\` exports a small root and \`/api\`,
\`/openstack\`, \`/controller\`, \`/testing\`; its flag parser and usage text are no longer
exported. \`Informer.events$()\` (an rxjs Observable only a test used) is gone: handlers are the
one event API. Names that meant different things in two packages were renamed on the
capo-remediation, openstack, envtest and overlayfs-gen side:

${renameLines.join('\n')}

\`scripts/migrate-entry-points.ts <files>\` rewrites a consumer's imports. Every moved or renamed
export (generated by \`scripts/changeset-entry-points.ts\` from the API reports):

${sections.join('\n\n')}
`;
writeFileSync(join(repoRoot, '.changeset', 'entry-points.md'), out);
console.log(`wrote .changeset/entry-points.md: ${sections.length} tables`);
