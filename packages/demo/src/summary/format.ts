// The summary as text: what the demo prints last. Pure.
import type { StatusRun } from '../record/timeline.js';
import type { Summary } from './summarize.js';

function s(ms: number | undefined): string {
  return ms === undefined ? '—' : `${(ms / 1000).toFixed(1)}s`;
}

/** A kept `noderepair status` run: when, the command, its table as printed (indented). */
export function formatStatusRun(r: StatusRun): string[] {
  return [
    `noderepair status at ${s(r.t)} (${r.scenario}${r.code === 0 ? '' : `, exit ${r.code ?? 'none'}`}):`,
    `  $ ${r.command}`,
    ...r.lines.map((l) => `    ${l}`),
    ...(r.stderr ? r.stderr.split('\n').map((l) => `    ${l}`) : []),
  ];
}

export function formatSummary(sum: Summary): string[] {
  const out: string[] = [];
  out.push(`== noderepair demo summary (${sum.nodes} nodes, ${s(sum.durationMs)}) ==`);
  for (const l of sum.openstack) out.push(`openstack: ${l}`);
  out.push('');
  const kinds = Object.entries(sum.repairsByKind)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  out.push(`repairs per kind: ${kinds}`);
  out.push('time to repair (Ready lost -> repair succeeded):');
  if (sum.repairs.length === 0) out.push('  (no repairs)');
  for (const r of sum.repairs)
    out.push(
      `  ${r.node.padEnd(15)} ${s(r.ms).padStart(7)}  ${r.steps.join(' -> ')}  ${r.outcome}`,
    );
  const rebootedDespite = sum.guardHeld.filter((g) => g.rebooted);
  out.push(
    `storm guard: held ${sum.guardHeld.length} node(s), ${sum.guardHeld.length - rebootedDespite.length} reboot(s) prevented` +
      (sum.guardHeld[0] ? ` (${sum.guardHeld[0].note.replace(/^.*?storm guard: /, '')})` : ''),
  );
  if (sum.guardHeld.length) out.push(`  held: ${sum.guardHeld.map((g) => g.node).join(', ')}`);
  out.push(`waited for, not rebooted (shutting down): ${sum.waitedFor.join(', ') || 'none'}`);
  out.push('');
  out.push('scenarios:');
  for (const sc of sum.scenarios) {
    out.push(`  ${sc.verdict.ok ? 'PASS' : 'FAIL'}  ${sc.title} — ${sc.expectation}`);
    for (const l of sc.verdict.lines) out.push(`          ${l}`);
  }
  out.push('');
  const failed = sum.scenarios.filter((x) => !x.verdict.ok).length;
  out.push(
    sum.ok
      ? `all ${sum.scenarios.length} scenarios behaved as expected`
      : `${failed} of ${sum.scenarios.length} scenarios did NOT behave as expected`,
  );
  return out;
}
