// An attempt escalates at its timeout only on fresh evidence (fresh-evidence.ts): the node
// reported after the action (heartbeat, Lease renewal, a new bootID), or the provider, asked
// after the deadline, says the machine runs (or is off without a request, or gone). A node
// silent since the action whose provider cannot say is held: no next attempt, no give-up,
// nothing used, asked again after 5 s doubling to 5 min.
import { describe, expect, it } from 'vitest';
import { either } from 'fp-ts';
import { buildNode, type ReadyText } from './builders.js';
import { decideRepair, recordOutcome, type RepairDecision } from './decide.js';
import { needsPowerState } from './power-check.js';
import type { HealthObservation } from './node.js';
import type { PowerState } from '../provider/port.js';
import { resolveRepairPolicy, type RepairPolicy } from './policy.js';
import type { RepairState } from './state.js';
import { iso } from './time.js';

const S = 1000;
const MIN = 60 * S;
const T0 = Date.parse('2026-01-01T00:00:00Z');

function resolve(input: Record<string, unknown> = {}): RepairPolicy {
  const p = resolveRepairPolicy({ drain: { enabled: false }, ...input });
  if (either.isLeft(p)) throw new Error(p.left);
  return p.right;
}
const policy = resolve();
// The default ladder: SoftReboot 10m x1, HardReboot 15m x2.
const LATE = T0 + policy.ladder[0]!.timeoutMs + S;

interface Seen {
  ready?: ReadyText;
  heartbeat?: number;
  lease?: number;
  bootID?: string;
  power?: PowerState;
  canAskPower?: boolean;
}

/** The node as the shell sees it; by default silent since before the action (Unknown at T0 - 20m). */
function seen(o: Seen = {}): HealthObservation {
  return {
    nodeName: 'n',
    node: {
      ...buildNode({
        name: 'n',
        ready: o.ready ?? 'unknown',
        since: T0 - 20 * MIN,
        heartbeat: o.heartbeat ?? T0 - 21 * MIN,
        bootID: o.bootID ?? 'boot-1',
      }),
      spec: { providerID: 'test:///n' },
    },
    ...(o.lease !== undefined ? { leaseRenewTime: iso(o.lease) } : {}),
    ...(o.power !== undefined ? { power: o.power } : {}),
    ...('canAskPower' in o
      ? o.canAskPower !== undefined
        ? { canAskPower: o.canAskPower }
        : {}
      : { canAskPower: true }),
  };
}

/** A repair whose first action (SoftReboot) was accepted at T0: Verifying. */
function inRepair(p: RepairPolicy = policy): RepairState {
  // Before the first action the provider says On (not stopped): the repair starts.
  const d = decideRepair(seen({ power: { kind: 'On' } }), undefined, p, T0 - S);
  const remediate = d.actions.find((a) => a.type === 'Remediate');
  if (remediate?.type !== 'Remediate') throw new Error(`no repair started: ${d.reason}`);
  return recordOutcome(d.nextState!, { actionId: remediate.actionId, result: 'Succeeded', at: T0 });
}

const actions = (d: RepairDecision) => d.actions.filter((a) => a.type === 'Remediate');
const unavailable: PowerState = { kind: 'Unavailable', reason: 'the cloud is down' };

describe('escalating at a timeout only on fresh evidence', () => {
  it('the node reported (Ready heartbeat) after the action and is not Ready: escalates', () => {
    const d = decideRepair(
      // The power state asked in this reconcile (power-before-action.ts: before a HardReboot).
      seen({ ready: 'runtimeDown', heartbeat: T0 + 5 * MIN, power: { kind: 'On' } }),
      inRepair(),
      policy,
      LATE,
    );
    expect(actions(d)).toMatchObject([{ action: 'HardReboot' }]);
    expect(d.reason).toMatch(/escalating to HardReboot/);
  });

  it('the Lease was renewed after the action: escalates, asking the provider only whether it was stopped', () => {
    const st = inRepair();
    const obs = seen({ lease: T0 + 30 * S });
    // Fresh evidence needs no power state; the HardReboot it escalates to does (power-before-action.ts).
    expect(needsPowerState(obs, st, policy, LATE)).toBe(true);
    const d = decideRepair({ ...obs, power: { kind: 'On' } }, st, policy, LATE);
    expect(actions(d)).toMatchObject([{ action: 'HardReboot' }]);
    expect(d.actions[0]).toMatchObject({
      reason: expect.stringMatching(/it reported at .* after the action completed/),
    });
  });

  it('a changed bootID is fresh evidence', () => {
    const d = decideRepair(
      seen({ bootID: 'boot-2', power: { kind: 'On' } }),
      inRepair(),
      policy,
      LATE,
    );
    expect(actions(d)).toMatchObject([{ action: 'HardReboot' }]);
    expect(d.actions[0]).toMatchObject({
      reason: expect.stringMatching(/bootID changed since the action \(boot-1 -> boot-2\)/),
    });
  });

  it('silent since the action: the shell is told to ask the provider, only past the deadline', () => {
    const st = inRepair();
    expect(needsPowerState(seen(), st, policy, T0 + 5 * MIN)).toBe(false);
    expect(needsPowerState(seen(), st, policy, LATE)).toBe(true);
  });

  it('silent and the provider is Unavailable: held, no next attempt, no attempt used, backoff 5 s doubling', () => {
    const st = inRepair();
    const d = decideRepair(seen({ power: unavailable }), st, policy, LATE);
    expect(actions(d)).toEqual([]);
    expect(d.phase).toBe('Verifying');
    expect(d.requeueAfterMs).toBe(5 * S);
    expect(d.reason).toMatch(
      /^not Ready 10m after SoftReboot attempt 1, the node has not reported since SoftReboot completed .* and the provider cannot say \(the cloud is down\): waiting/,
    );
    const held = d.nextState!;
    expect(held.remediation).toMatchObject({ step: 0, attempt: 1 });
    expect(held.remediation?.intent).toMatchObject({ silentAsks: 1, silentAskedAt: LATE });

    // Woken early (our own write, a watch event): not asked, still held until the backoff is due.
    expect(needsPowerState(seen(), held, policy, LATE + 2 * S)).toBe(false);
    const early = decideRepair(seen(), held, policy, LATE + 2 * S);
    expect(actions(early)).toEqual([]);
    expect(early.requeueAfterMs).toBe(3 * S);

    // Due: asked again, still Unavailable: 10 s next.
    expect(needsPowerState(seen(), held, policy, LATE + 5 * S)).toBe(true);
    const again = decideRepair(seen({ power: unavailable }), held, policy, LATE + 5 * S);
    expect(actions(again)).toEqual([]);
    expect(again.requeueAfterMs).toBe(10 * S);
    expect(again.nextState?.remediation?.intent?.silentAsks).toBe(2);

    // The provider answers On: the machine runs, its node does not report: escalates.
    const on = decideRepair(seen({ power: { kind: 'On' } }), again.nextState!, policy, LATE + MIN);
    expect(actions(on)).toMatchObject([{ action: 'HardReboot' }]);
    expect(on.actions[0]).toMatchObject({
      reason: expect.stringMatching(/its machine is powered on .*running, not reporting/),
    });
  });

  it('silent and the provider says On at once: escalates on that evidence', () => {
    const d = decideRepair(seen({ power: { kind: 'On' } }), inRepair(), policy, LATE);
    expect(actions(d)).toMatchObject([{ action: 'HardReboot' }]);
    expect(d.actions[0]).toMatchObject({
      reason: expect.stringMatching(/has not reported since .* its machine is powered on/),
    });
  });

  it('silent and stopped on request after the action: the shutdown rule, never powered on (Wait)', () => {
    const power: PowerState = { kind: 'Off', byRequest: true, evidence: 'stopped by an operator' };
    const d = decideRepair(seen({ power }), inRepair(), policy, LATE);
    expect(actions(d)).toEqual([]);
    expect(d.phase).toBe('Verifying');
    expect(d.reason).toMatch(/stopped on request after SoftReboot .*never powering it on/);
    // Still stopped an hour later: still no action.
    const later = decideRepair(seen({ power }), d.nextState!, policy, LATE + 60 * MIN);
    expect(actions(later)).toEqual([]);
  });

  it('stopped on request under FailAfter: held until failAfter, then escalates', () => {
    const p = resolve({ shutdown: { poweredOff: 'FailAfter', failAfter: '30m' } });
    const power: PowerState = { kind: 'Off', byRequest: true, evidence: 'stopped by an operator' };
    const d = decideRepair(seen({ power }), inRepair(p), p, LATE);
    expect(actions(d)).toEqual([]);
    const past = decideRepair(seen({ power }), d.nextState!, p, T0 + 31 * MIN);
    expect(actions(past)).toMatchObject([{ action: 'HardReboot' }]);
  });

  it('silent and off without a recorded request (a crash), or gone: escalates', () => {
    const off: PowerState = { kind: 'Off', byRequest: false, evidence: 'off, no stop recorded' };
    const d = decideRepair(seen({ power: off }), inRepair(), policy, LATE);
    expect(actions(d)).toMatchObject([{ action: 'HardReboot' }]);
    expect(d.actions[0]).toMatchObject({ reason: expect.stringMatching(/as after a crash/) });
    const gone = decideRepair(
      seen({ power: { kind: 'Gone', evidence: 'no such server' } }),
      inRepair(),
      policy,
      LATE,
    );
    expect(actions(gone)).toMatchObject([{ action: 'HardReboot' }]);
    expect(gone.actions[0]).toMatchObject({ reason: expect.stringMatching(/machine is gone/) });
  });

  it('off or gone: a next SoftReboot (which asks the guest) is skipped, as before a first action', () => {
    const p = resolve({
      ladder: [
        { action: 'SoftReboot', timeout: '10m', attempts: 2 },
        { action: 'HardReboot', timeout: '15m', attempts: 1 },
      ],
    });
    const off: PowerState = { kind: 'Off', byRequest: false, evidence: 'off, no stop recorded' };
    const d = decideRepair(seen({ power: off }), inRepair(p), p, LATE);
    expect(actions(d)).toMatchObject([{ action: 'HardReboot', step: 1, attempt: 1 }]);
    expect(d.actions[0]).toMatchObject({
      reason: expect.stringMatching(/SoftReboot .* is skipped/),
    });
    // Powered on and silent: the second SoftReboot is tried.
    const on = decideRepair(seen({ power: { kind: 'On' } }), inRepair(p), p, LATE);
    expect(actions(on)).toMatchObject([{ action: 'SoftReboot', step: 0, attempt: 2 }]);
  });

  it('a provider that cannot be asked (no powerState): escalates on the timeout, as before, and says so', () => {
    const st = inRepair();
    const d = decideRepair(seen({ canAskPower: false }), st, policy, LATE);
    expect(actions(d)).toMatchObject([{ action: 'HardReboot' }]);
    expect(d.actions[0]).toMatchObject({
      reason: expect.stringMatching(/cannot be asked for its power state/),
    });
  });

  it('a caller that does not say whether it can ask (noderepair status) shows a persisted wait as the wait', () => {
    const held = decideRepair(seen({ power: unavailable }), inRepair(), policy, LATE).nextState!;
    const shown = decideRepair(seen({ canAskPower: undefined }), held, policy, LATE + 2 * S);
    expect(shown.actions).toEqual([]);
    expect(shown.reason).toMatch(
      /the provider could not say \(asked 1 time\(s\)\): waiting, asking again at/,
    );
    // Without a persisted wait such a caller sees the timeout decide, as before.
    const fresh = decideRepair(seen({ canAskPower: undefined }), inRepair(), policy, LATE);
    expect(actions(fresh)).toMatchObject([{ action: 'HardReboot' }]);
  });

  it('the last attempt of the last step: an outage does not give up either', () => {
    const p = resolve({ ladder: [{ action: 'HardReboot', timeout: '10m', attempts: 1 }] });
    const d = decideRepair(seen({ power: unavailable }), inRepair(p), p, LATE);
    expect(d.actions).toEqual([]);
    expect(d.phase).toBe('Verifying');
    const on = decideRepair(seen({ power: { kind: 'On' } }), d.nextState!, p, LATE + 10 * S);
    expect(on.actions.map((a) => a.type)).toContain('GiveUp');
    expect(on.phase).toBe('Failed');
  });
});
