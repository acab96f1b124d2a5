// A trace whose nodes are already in the middle of something when it starts (held for a storm
// by an earlier controller, in repair, cooling down): the simulator must go on from the state
// each node carries, as `noderepair run` reads it from the node's state annotation. It used to
// start every node fresh and printed a reboot at the first line that the controller, waiting
// out the storm cooldown, would not do.
import { either } from 'fp-ts';
import { describe, expect, it } from 'vitest';
import { newFleetDecider, stateAtStart } from '../health/fleet-decider.js';
import { resolveRepairPolicy, type RepairPolicy } from '../health/policy.js';
import { serializeRepairState, type RepairState } from '../health/state.js';
import { simulate } from './simulate.js';
import { parseTrace, type ParsedTrace } from './trace.js';

const T0 = Date.parse('2026-01-01T01:00:00Z');
const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

function policy(extra: Record<string, unknown> = {}): RepairPolicy {
  const p = resolveRepairPolicy({
    unhealthyConditions: [{ type: 'Ready', status: 'Unknown', timeout: '10m' }],
    stormGuard: {
      maxUnhealthy: 1,
      minUnhealthyAllowed: 0,
      recheckInterval: '10s',
      cooldown: '60s',
    },
    drain: { enabled: false },
    ...extra,
  });
  if (either.isLeft(p)) throw new Error(p.left);
  return p.right;
}

/** What an earlier controller left on w1: held for a storm (since lifted) 5 minutes ago. */
const held: RepairState = {
  v: 1,
  phase: 'Unhealthy',
  since: T0 - 5 * MIN,
  episodes: [],
  heldByStormSince: T0 - 5 * MIN,
};

function trace(): ParsedTrace {
  const line = (node: string, status: string, annotations?: Record<string, string>) =>
    JSON.stringify({
      time: iso(T0),
      node,
      createdAt: iso(T0 - 60 * MIN),
      conditions: [{ type: 'Ready', status, lastTransitionTime: iso(T0 - 30 * MIN) }],
      ...(annotations !== undefined ? { annotations } : {}),
    });
  const text = [
    line('w1', 'Unknown', { 'noderepair.io/repair-state': serializeRepairState(held) }),
    line('w2', 'True'),
  ].join('\n');
  const r = parseTrace(text);
  if (either.isLeft(r)) throw new Error(r.left);
  return r.right;
}

describe('noderepair simulate: nodes that carry a repair state at the start', () => {
  it("a node an earlier controller held for a storm waits the cooldown, as the controller's decider says", () => {
    const p = policy();
    const t = trace();
    const lines = simulate(p, t, { horizonMs: 10 * MIN }).filter((d) => d.node === 'w1');

    // The controller's first decision for w1, through the shared start: its decider and the
    // state it reads from the annotation.
    const obs = (name: string) => t.observations.find((o) => o.obs.nodeName === name)!.obs;
    const decider = newFleetDecider(p, T0);
    const first = decider.decide(
      { obs: obs('w1'), state: stateAtStart(p, obs('w1').node) },
      () => [{ obs: obs('w2'), state: undefined }],
      T0,
    ).decision;
    expect(first.actions).toEqual([]);
    expect(first.reason).toMatch(
      /held before this controller started at .*; the nodes held then wait the 60s cooldown/,
    );

    // Held, nothing done, the phase unchanged: the simulator prints nothing for w1 until the
    // cooldown (from the start) is over, then the repair starts.
    expect(first.phase).toBe(held.phase);
    expect(lines[0]).toMatchObject({ time: iso(T0 + MIN), phase: 'Remediating', action: 'Cordon' });
    expect(lines.find((d) => d.action === 'SoftReboot')?.time).toBe(iso(T0 + MIN));
  });

  it('in dry-run the state annotation is not read (the controller keeps state in memory): w1 is decided fresh', () => {
    const p = policy({ dryRun: true });
    expect(stateAtStart(p, trace().observations[0]!.obs.node)).toBeUndefined();
    const lines = simulate(p, trace(), { horizonMs: 10 * MIN }).filter((d) => d.node === 'w1');
    expect(lines.find((d) => d.action === 'SoftReboot')).toMatchObject({
      time: iso(T0),
      dryRun: true,
    });
  });
});

describe('noderepair simulate: a ladder that ends in Replace', () => {
  it('a trace cannot say fenced: the DeleteNode step asks once past its timeout and the repair gives up, as the controller would', () => {
    const p = policy({ ladder: [{ action: 'Replace', timeout: '5m' }] });
    const text = JSON.stringify({
      time: iso(T0),
      node: 'w3',
      createdAt: iso(T0 - 60 * MIN),
      conditions: [{ type: 'Ready', status: 'Unknown', lastTransitionTime: iso(T0) }],
    });
    const t = parseTrace(text);
    if (either.isLeft(t)) throw new Error(t.left);
    const lines = simulate(p, t.right, { horizonMs: 60 * MIN });
    const last = lines[lines.length - 1];
    expect(last).toMatchObject({ node: 'w3', phase: 'Failed', action: 'GiveUp' });
    expect(lines.some((d) => d.action === 'DeleteNode')).toBe(true);
  });
});
