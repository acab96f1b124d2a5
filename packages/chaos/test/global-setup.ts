// Gives every chaos file a directory for its ledger and logs, and at the end prints the fault
// table (and writes it to reports/chaos-table.json for the closing note).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { formatTable, readLedger, summarise } from '../src/ledger.js';
import { repoRoot } from '../src/controller-process.js';

declare module 'vitest' {
  export interface ProvidedContext {
    chaosDir: string;
  }
}

export default function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'noderepair-chaos-'));
  project.provide('chaosDir', dir);
  return () => {
    const { rows, total } = summarise(readLedger(join(dir, 'ledger')));
    const table = formatTable(rows, total);
    console.log(`\n==> chaos: faults injected and survived\n${table}\n`);
    const reports = join(repoRoot, 'reports');
    mkdirSync(reports, { recursive: true });
    writeFileSync(
      join(reports, 'chaos-table.json'),
      `${JSON.stringify({ generatedAt: new Date().toISOString(), rows, total }, null, 2)}\n`,
    );
    // CHAOS_KEEP=1 keeps the controllers' logs (one file per control plane) for a look.
    if (process.env['CHAOS_KEEP'] === '1') console.log(`chaos logs kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  };
}
