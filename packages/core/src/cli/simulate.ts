// `noderepair simulate`: replays a trace through the repair state machine in virtual time
// (rxjs VirtualTimeScheduler) and reports every decision that did something or changed phase.
// runRepairLoop decides through newFleetDecider, the controller's own decider (storm memory
// started as the controller starts it, the same alone/fleet split), so what this prints is
// what `noderepair run` would do.
import { VirtualTimeScheduler } from 'rxjs';
import type { RepairDecision } from '../health/decide.js';
import type { RepairPolicy } from '../health/policy.js';
import { runRepairLoop } from '../health/runner.js';
import { formatDuration, iso } from '../health/time.js';
import { resultAt, type ParsedTrace } from './trace.js';

export interface SimulatedDecision {
  time: string;
  node: string;
  cause: string;
  phase: string;
  /** Action type ("Cordon", "Drain", "SoftReboot", ...) or "-" for a phase change alone. */
  action: string;
  reason: string;
  actionId?: string;
  result?: string;
  dryRun?: boolean;
  requeueAfter?: string;
}

export interface SimulateOptions {
  /** How long to keep following timers after the last trace line (default 24 h). */
  horizonMs?: number;
}

export function simulate(
  policy: RepairPolicy,
  trace: ParsedTrace,
  opts: SimulateOptions = {},
): SimulatedDecision[] {
  const scheduler = new VirtualTimeScheduler();
  const results = new Map<string, string>();
  const out: SimulatedDecision[] = [];
  // A trace cannot say whether a machine is fenced, and the controller repeats the fence
  // check at the recheck pace while the node is down: print the first check per action only.
  // The same goes for the DeleteNode step after an accepted Replace (it asks the fence too).
  const fenceChecked = new Set<string>();
  const checks = (a: RepairDecision['actions'][number]) =>
    a.type === 'Fence' || a.type === 'DeleteNode' ? `${a.type}:${a.actionId}` : undefined;
  const record = (full: RepairDecision) => {
    const d: RepairDecision = {
      ...full,
      actions: full.actions.filter((a) => {
        const k = checks(a);
        return k === undefined || !fenceChecked.has(k);
      }),
    };
    for (const a of d.actions) {
      const k = checks(a);
      if (k !== undefined) fenceChecked.add(k);
    }
    if (d.actions.length === 0 && d.phase === d.previousPhase) return;
    const common = { time: iso(d.at), node: d.node, cause: d.cause.kind, phase: d.phase };
    const requeue =
      d.requeueAfterMs !== undefined ? { requeueAfter: formatDuration(d.requeueAfterMs) } : {};
    if (d.actions.length === 0) {
      out.push({ ...common, action: '-', reason: d.reason, ...requeue });
      return;
    }
    for (const a of d.actions) {
      const line: SimulatedDecision = {
        ...common,
        action: a.type === 'Remediate' ? a.action : a.type,
        reason: a.reason,
        ...(a.dryRun ? { dryRun: true } : {}),
      };
      if (a.type === 'Remediate') {
        line.actionId = a.actionId;
        const r = results.get(a.actionId);
        if (r !== undefined) line.result = r;
      }
      out.push(line);
    }
  };
  runRepairLoop({
    policy,
    scheduler,
    observations: trace.observations,
    horizonMs: opts.horizonMs ?? 24 * 3_600_000,
    execute: (action, node, now) => {
      const r = resultAt(trace, node, action.action, now);
      results.set(action.actionId, r);
      if (r === 'Crash') return undefined;
      return r === 'Failed'
        ? { result: 'Failed', message: 'the trace says this action fails' }
        : { result: 'Succeeded' };
    },
  }).subscribe(record);
  scheduler.flush();
  return out;
}

export function formatDecisionText(d: SimulatedDecision): string {
  const action =
    d.action +
    (d.dryRun ? ' (dry-run)' : '') +
    (d.result !== undefined && d.result !== 'Succeeded' ? ` [${d.result}]` : '');
  return `${d.time}  ${d.node}  ${d.cause}  ${d.phase}  ${action}  ${d.reason}`;
}
