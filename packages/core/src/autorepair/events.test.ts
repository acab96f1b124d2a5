import { describe, expect, it } from 'vitest';
import { buildNode } from '../health/builders.js';
import { decideRepair, recordOutcome } from '../health/decide.js';
import { defaultRepairPolicy } from '../health/policy.js';
import { describeDrain, endsInSuccess, startsRemediation, transitionEvents } from './events.js';

const MIN = 60_000;
const t0 = Date.parse('2026-01-01T00:00:00Z');
const policy = defaultRepairPolicy;
const obs = (ready: 'ready' | 'unknown', since: number) => ({
  nodeName: 'n1',
  node: buildNode({ name: 'n1', ready, since }),
});

describe('transitionEvents', () => {
  it('announces a storm-guard hold, a start and a success, each once at its transition', () => {
    const held = decideRepair(obs('unknown', t0), undefined, policy, t0 + 11 * MIN, {
      storm: {
        admitted: false,
        scope: 'in-flight',
        reason: 'storm guard: 2 repairs in flight (maxInFlight 1)',
      },
    });
    expect(transitionEvents(held, undefined).map((e) => [e.reason, e.type])).toEqual([
      ['StormGuardHeld', 'Warning'],
    ]);
    expect(transitionEvents(held, undefined)[0]?.note).toMatch(/maxInFlight 1/);

    const start = decideRepair(obs('unknown', t0), held.nextState, policy, t0 + 12 * MIN);
    expect(startsRemediation(start, held.nextState)).toBe(true);
    expect(transitionEvents(start, held.nextState).map((e) => e.reason)).toEqual(['RepairStarted']);

    const done = recordOutcome(start.nextState!, {
      actionId: start.nextState!.remediation!.intent!.actionId,
      result: 'Succeeded',
      at: t0 + 12 * MIN + 5000,
    });
    const verifying = decideRepair(obs('ready', t0 + 13 * MIN), done, policy, t0 + 14 * MIN);
    expect(transitionEvents(verifying, done)).toEqual([]);
    expect(startsRemediation(verifying, done)).toBe(false);
    const healed = decideRepair(
      obs('ready', t0 + 13 * MIN),
      verifying.nextState,
      policy,
      t0 + 19 * MIN,
    );
    expect(endsInSuccess(healed, verifying.nextState)).toBe(true);
    expect(transitionEvents(healed, verifying.nextState).map((e) => [e.reason, e.type])).toEqual([
      ['RepairSucceeded', 'Normal'],
    ]);
    // The next look at a healthy node says nothing.
    const quiet = decideRepair(
      obs('ready', t0 + 13 * MIN),
      healed.nextState,
      policy,
      t0 + 20 * MIN,
    );
    expect(transitionEvents(quiet, healed.nextState)).toEqual([]);
  });

  it('announces a node shutting down once, and keeps waiting after it is powered off', () => {
    const node = (ready: 'ready' | 'shuttingDown' | 'unknown', since: number) => ({
      nodeName: 'n1',
      node: buildNode({ name: 'n1', ready, since }),
    });
    const up = decideRepair(node('ready', t0), undefined, policy, t0 + MIN);
    const down = decideRepair(
      node('shuttingDown', t0 + 2 * MIN),
      up.nextState,
      policy,
      t0 + 2 * MIN,
    );
    expect(transitionEvents(down, up.nextState).map((e) => e.reason)).toEqual(['NodeShutDown']);
    const off = decideRepair(node('unknown', t0 + 3 * MIN), down.nextState, policy, t0 + 90 * MIN);
    expect(off.phase).toBe('Waiting');
    expect(transitionEvents(off, down.nextState)).toEqual([]);
  });

  it('announces giving up as a Warning', () => {
    const oneStep = {
      ...policy,
      ladder: [{ action: 'SoftReboot' as const, timeoutMs: MIN, attempts: 1 }],
    };
    const start = decideRepair(obs('unknown', t0), undefined, oneStep, t0 + 11 * MIN);
    const done = recordOutcome(start.nextState!, {
      actionId: start.nextState!.remediation!.intent!.actionId,
      result: 'Succeeded',
      at: t0 + 11 * MIN,
    });
    const gaveUp = decideRepair(obs('unknown', t0), done, oneStep, t0 + 13 * MIN);
    const evs = transitionEvents(gaveUp, done);
    expect(evs.map((e) => [e.reason, e.type])).toEqual([['RepairFailed', 'Warning']]);
    expect(evs[0]?.note).toMatch(/ladder is used up/);
  });
});

describe('describeDrain', () => {
  it('summarises what the drain did', () => {
    expect(
      describeDrain({
        outcome: 'Drained',
        evicted: ['ns/a', 'ns/b'],
        blocked: [],
        pdbRefusals: 3,
        outOfServiceTainted: true,
        remaining: [],
        durationMs: 4210,
        steps: [],
      }),
    ).toBe(
      'Drained in 4.2s: 2 pod(s) evicted; 3 eviction(s) refused by a PodDisruptionBudget; out-of-service taint added',
    );
  });
});
