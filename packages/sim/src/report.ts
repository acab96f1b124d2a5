// A run as text: its faults, its history, and the verdict of the invariants. Pure (strings
// out), so the CLI prints it and a failing test shows the same lines.
import { formatEntry } from './history.js';
import type { Violation } from './invariants.js';
import type { RunResult } from './run.js';

/** The whole report of one run; `full` includes every history entry, not only the summary. */
export function report(r: RunResult, violations: readonly Violation[], full: boolean): string {
  const lines: string[] = [
    `seed ${r.seed}: ${r.faults.length} faults scheduled, ${r.reconciles} reconciles`,
  ];
  if (full) for (const e of r.history.entries) lines.push(formatEntry(e));
  const count = (k: string) => r.history.entries.filter((e) => e.kind === k).length;
  lines.push(
    `provider: ${count('call')} calls, ${count('taint')} out-of-service taints, ${count('executed')} actions carried out; ${count('state')} state writes; ${count('error')} reconcile errors; apiserver refused ${JSON.stringify(r.kubeRefused)}`,
  );
  if (violations.length === 0) lines.push('verdict: PASS (10 invariants, 0 violations)');
  else {
    lines.push(`verdict: FAIL (${violations.length} violations)`);
    for (const v of violations)
      lines.push(
        `  ${formatEntry({ t: v.t, kind: 'fault', fault: v.invariant, detail: v.message })}`,
      );
  }
  return lines.join('\n');
}
