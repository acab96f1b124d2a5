// The simulator's trace format: JSON Lines, one observation of one node per line
// (documented in packages/core/docs/simulate.md). Operators export their own history into it.
// Lines are decoded strictly: a misspelt field (`conditons`) is an error naming it, never a
// node observed without conditions (which the simulator would cordon and reboot).
import * as t from 'io-ts';
import * as either from 'fp-ts/lib/Either.js';
import { IsoTime } from '../health/time.js';
import { formatValidationErrors } from '../health/errors.js';
import type { NodeConditionSnapshot, NodeSnapshot } from '../health/node.js';
import type { TimedObservation } from '../health/runner.js';
import { RemediationStepKind } from '../health/policy.js';
import { strict } from '../codec/strict.js';

const TraceCondition = t.intersection([
  t.type({ type: t.string, status: t.keyof({ True: null, False: null, Unknown: null }) }),
  t.partial({
    reason: t.string,
    message: t.string,
    lastTransitionTime: IsoTime,
    lastHeartbeatTime: IsoTime,
  }),
]);

const ActionResultInput = t.keyof({ Succeeded: null, Failed: null, Crash: null }, 'ActionResult');
export type TraceActionResult = t.TypeOf<typeof ActionResultInput>;

/** One optional result per ladder action, derived from the action kinds so none is missed. */
const ActionResults = t.partial(
  Object.fromEntries(
    Object.keys(RemediationStepKind.keys).map((k) => [k, ActionResultInput]),
  ) as Record<RemediationStepKind, typeof ActionResultInput>,
  'ActionResults',
);

export const TraceLine = t.intersection(
  [
    t.type({ time: IsoTime, node: t.string }),
    t.partial({
      conditions: t.array(TraceCondition),
      labels: t.record(t.string, t.string),
      annotations: t.record(t.string, t.string),
      taints: t.array(
        t.intersection([
          t.type({ key: t.string, effect: t.string }),
          // timeAdded: as `kubectl get node -o json` shows NoExecute taints (not used).
          t.partial({ value: t.string, timeAdded: IsoTime }),
        ]),
      ),
      unschedulable: t.boolean,
      createdAt: IsoTime,
      deleted: t.boolean,
      leaseRenewTime: IsoTime,
      /** Outcome of repair actions issued from this line on, per action; sticky until changed. */
      results: ActionResults,
    }),
  ],
  'TraceLine',
);
export type TraceLine = t.TypeOf<typeof TraceLine>;
const StrictTraceLine = strict(TraceLine);

export interface ParsedTrace {
  observations: TimedObservation[];
  /** Per node, time-ordered: the action results in force from each time on. */
  results: Map<
    string,
    Array<{ at: number; results: Partial<Record<RemediationStepKind, TraceActionResult>> }>
  >;
}

/**
 * Parses a JSONL trace. Blank lines and lines starting with '#' are skipped. A condition
 * without lastTransitionTime gets one inferred: the line's time when its status differs from
 * the node's previous line, else the previous lastTransitionTime.
 */
export function parseTrace(text: string): either.Either<string, ParsedTrace> {
  const lines: Array<{ n: number; line: TraceLine }> = [];
  const problems: string[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const s = raw.trim();
    if (s === '' || s.startsWith('#')) return;
    let json: unknown;
    try {
      json = JSON.parse(s);
    } catch {
      problems.push(`line ${i + 1}: not valid JSON`);
      return;
    }
    const d = StrictTraceLine.decode(json);
    if (either.isLeft(d)) problems.push(`line ${i + 1}: ${formatValidationErrors(d.left)}`);
    else lines.push({ n: i + 1, line: d.right });
  });
  if (problems.length > 0)
    return either.left(
      `invalid trace: ${problems.slice(0, 10).join('; ')}${problems.length > 10 ? ` (and ${problems.length - 10} more)` : ''}`,
    );
  if (lines.length === 0)
    return either.left('invalid trace: no observations (one JSON object per line expected)');

  lines.sort((a, b) => a.line.time - b.line.time || a.n - b.n);
  const previous = new Map<string, Map<string, { status: string; ltt: number }>>();
  const created = new Map<string, number>();
  const observations: TimedObservation[] = [];
  const results: ParsedTrace['results'] = new Map();
  for (const { line } of lines) {
    const at = line.time;
    if (line.results !== undefined)
      results.set(line.node, [...(results.get(line.node) ?? []), { at, results: line.results }]);
    if (line.deleted === true) {
      observations.push({ at, obs: { nodeName: line.node, node: undefined } });
      previous.delete(line.node);
      created.delete(line.node);
      continue;
    }
    if (!created.has(line.node)) created.set(line.node, line.createdAt ?? at);
    const prev = previous.get(line.node) ?? new Map<string, { status: string; ltt: number }>();
    const conditions: NodeConditionSnapshot[] = (line.conditions ?? []).map((c) => {
      const before = prev.get(c.type);
      const ltt =
        c.lastTransitionTime ??
        (before !== undefined && before.status === c.status ? before.ltt : at);
      prev.set(c.type, { status: c.status, ltt });
      return {
        type: c.type,
        status: c.status,
        ...(c.reason !== undefined ? { reason: c.reason } : {}),
        ...(c.message !== undefined ? { message: c.message } : {}),
        lastTransitionTime: ltt,
        lastHeartbeatTime: c.lastHeartbeatTime ?? at,
      };
    });
    previous.set(line.node, prev);
    const node: NodeSnapshot = {
      metadata: {
        name: line.node,
        creationTimestamp: line.createdAt ?? created.get(line.node) ?? at,
        labels: line.labels ?? {},
        annotations: line.annotations ?? {},
      },
      spec: { unschedulable: line.unschedulable ?? false, taints: line.taints ?? [] },
      status: { conditions },
    };
    observations.push({
      at,
      obs: {
        nodeName: line.node,
        node,
        ...(line.leaseRenewTime !== undefined ? { leaseRenewTime: line.leaseRenewTime } : {}),
      },
    });
  }
  return either.right({ observations, results });
}

/** The result the trace says an action issued at `at` has (default Succeeded). */
export function resultAt(
  trace: ParsedTrace,
  node: string,
  action: RemediationStepKind,
  at: number,
): TraceActionResult {
  let r: TraceActionResult = 'Succeeded';
  for (const entry of trace.results.get(node) ?? []) {
    if (entry.at > at) break;
    const v = entry.results[action];
    if (v !== undefined) r = v;
  }
  return r;
}
