// The final summary, computed from the record: repairs per kind, time to repair per node,
// what the storm guard prevented, what was waited for, and each scenario's verdict. Pure.
import {
  actionsOf,
  everSeen,
  firstTime,
  novaReboots,
  type DemoRecord,
} from '../record/timeline.js';
import type { Verdict } from '../scenarios/scenario.js';
import { successorOf } from '../scenarios/checks.js';

export interface RepairTime {
  node: string;
  /** The ladder steps it took, in order (SoftReboot, HardReboot, Replace). */
  steps: string[];
  /** From Ready leaving True to the repair's end (RepairSucceeded, or the replacement Ready). */
  ms: number | undefined;
  outcome: string;
}

export interface ScenarioResult {
  id: string;
  title: string;
  expectation: string;
  verdict: Verdict;
}

export interface Summary {
  nodes: number;
  /** Which Nova served which nodes (one line per cloud), when the demo says. */
  openstack: string[];
  durationMs: number;
  repairsByKind: Record<string, number>;
  repairs: RepairTime[];
  guardHeld: { node: string; note: string; rebooted: boolean }[];
  waitedFor: string[];
  scenarios: ScenarioResult[];
  ok: boolean;
}

export function summarize(
  rec: DemoRecord,
  scenarios: readonly ScenarioResult[],
  openstack: readonly string[] = [],
): Summary {
  const repairsByKind: Record<string, number> = { SoftReboot: 0, HardReboot: 0, Replace: 0 };
  const repairs: RepairTime[] = [];
  const guardHeld: Summary['guardHeld'] = [];
  const waitedFor: string[] = [];
  for (const tl of [...rec.nodes.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const reboots = novaReboots(rec, tl.name).map((a) => a.kind);
    const replaced = actionsOf(rec, tl.name, 'Replaced', 'machine')[0];
    for (const k of reboots) repairsByKind[k] = (repairsByKind[k] ?? 0) + 1;
    if (replaced) repairsByKind['Replace'] = (repairsByKind['Replace'] ?? 0) + 1;
    const held = actionsOf(rec, tl.name, 'StormGuardHeld', 'noderepair')[0];
    if (held) guardHeld.push({ node: tl.name, note: held.note, rebooted: reboots.length > 0 });
    if (everSeen(rec, tl.name, (s) => s.phase === 'Waiting')) waitedFor.push(tl.name);
    if (reboots.length === 0 && !replaced) continue;
    const down = firstTime(rec, tl.name, (s) => s.ready !== 'True' && s.ready !== 'None');
    const steps = replaced ? [...reboots, 'Replace'] : reboots;
    if (replaced) {
      const next = successorOf(rec, tl.name);
      const up = next ? firstTime(rec, next, (s) => s.ready === 'True') : undefined;
      repairs.push({
        node: tl.name,
        steps,
        ms: down !== undefined && up !== undefined ? up - down : undefined,
        outcome: next ? `replaced by ${next}` : 'replacement pending',
      });
      continue;
    }
    const ok = actionsOf(rec, tl.name, 'RepairSucceeded', 'noderepair')[0];
    repairs.push({
      node: tl.name,
      steps,
      ms: down !== undefined && ok !== undefined ? ok.t - down : undefined,
      outcome: ok ? 'repaired' : 'not repaired',
    });
  }
  return {
    nodes: [...rec.nodes.values()].filter((tl) => !successorOfAny(rec, tl.name)).length,
    durationMs: rec.now,
    repairsByKind,
    repairs,
    guardHeld,
    waitedFor,
    openstack: [...openstack],
    scenarios: [...scenarios],
    ok: scenarios.every((s) => s.verdict.ok),
  };
}

/** Replacement nodes are not counted in the fleet size the demo started with. */
function successorOfAny(rec: DemoRecord, name: string): boolean {
  const m = /^(.*)-r\d+$/.exec(name);
  return m !== null && m[1] !== undefined && rec.nodes.has(m[1]);
}
