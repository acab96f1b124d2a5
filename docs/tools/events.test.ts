// The README's Events table names every event reason the controllers record, and only those.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './markdown.js';

const read = (p: string) => readFileSync(join(repoRoot, p), 'utf8');

/** The capo controller's sources (one file per reconcile step), tests left out. */
function capoControllerSource(): string {
  const dir = 'packages/capo-remediation/src/controller';
  return readdirSync(join(repoRoot, dir))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => read(`${dir}/${f}`))
    .join('\n');
}

/** Reasons in the README's Events table, by the controller named in its first column. */
function documented(): Map<string, Set<string>> {
  const readme = read('README.md');
  const start = readme.indexOf('### Events');
  expect(start, 'README.md has an "### Events" section').toBeGreaterThan(-1);
  const rest = readme.slice(start);
  const section = rest.slice(0, rest.indexOf('\n## '));
  const out = new Map<string, Set<string>>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 4 || !cells[2]?.includes('`')) continue;
    const who = cells[1]!;
    const reasons = [...cells[2].matchAll(/`([A-Z][A-Za-z]+)`/g)].map((m) => m[1]!);
    out.set(who, new Set([...(out.get(who) ?? []), ...reasons]));
  }
  return out;
}

describe('README events table', () => {
  const table = documented();
  const standalone = table.get('`noderepair run`') ?? new Set<string>();
  const capo = table.get('capo-remediation') ?? new Set<string>();

  it("lists exactly the auto-repair controller's EventReasons", () => {
    const src = read('packages/core/src/autorepair/events.ts');
    const block = /EventReasons = \{([\s\S]*?)\}/.exec(src)?.[1] ?? '';
    const reasons = [...block.matchAll(/'([A-Za-z]+)'/g)].map((m) => m[1]!);
    expect(reasons.length).toBeGreaterThan(5);
    expect([...standalone].sort()).toEqual([...new Set(reasons)].sort());
  });

  it('lists every reason capo-remediation records, and none it does not have', () => {
    const src = capoControllerSource();
    const recorded = [...src.matchAll(/events\.record\([^;]*?reason:\s*'([A-Za-z]+)'/g)].map(
      (m) => m[1]!,
    );
    expect(recorded.length).toBeGreaterThan(5);
    for (const r of recorded) expect(capo, `README events table lacks ${r}`).toContain(r);
    // Reasons chosen at run time (`const reason = ... ? 'A' : 'B'`) are listed too; each
    // documented reason must still appear in the source as a literal.
    for (const r of capo)
      expect(src, `README lists ${r}, the source has no such reason`).toContain(`'${r}'`);
  });
});
