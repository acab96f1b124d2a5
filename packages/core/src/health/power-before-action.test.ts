// A person may stop the machine WHILE a repair is under way. Before an action that can power
// it on (HardReboot, Rebuild: an escalation, a next attempt, a re-issue) and before moving
// past an attempt the provider refused, the power state is asked in the same reconcile
// (needsPowerState), and the decision takes the answer (power-before-action.ts). These fail
// without it: the repair used to escalate to a HardReboot on the answer asked before its
// first action, and Nova's HARD reboot of a SHUTOFF server powers it on (the simulator's
// seeds 19, 94, 101 and 144).
import { either } from 'fp-ts';
import { describe, expect, it } from 'vitest';
import type { PowerState } from '../provider/port.js';
import { buildNode } from './builders.js';
import { decideRepair, recordOutcome, type RepairDecision } from './decide.js';
import type { HealthObservation } from './node.js';
import { canPowerOn } from './power-before-action.js';
import { needsPowerState } from './power-check.js';
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
const failAfter = resolve({ shutdown: { poweredOff: 'FailAfter', failAfter: '2h' } });
// The default ladder: SoftReboot 10m x1, HardReboot 15m x2.
const LATE = T0 + policy.ladder[0]!.timeoutMs + S;

const on: PowerState = { kind: 'On' };
const stopped: PowerState = {
  kind: 'Off',
  since: T0 + 2 * MIN,
  byRequest: true,
  evidence: 'Nova: server s-1 is SHUTOFF (stop req-9 requested through the API)',
};
const crashed: PowerState = {
  kind: 'Off',
  since: T0 + 2 * MIN,
  byRequest: false,
  evidence: 'Nova: server s-1 is SHUTOFF (power-state sync)',
};
const gone: PowerState = { kind: 'Gone', evidence: 'Nova: 404 server s-1' };
const cloudDown: PowerState = { kind: 'Unavailable', reason: 'Nova: 503' };

/** Not Ready, but it reported after the action (fresh evidence: a heartbeat at T0 + 5m). */
function reported(power?: PowerState, canAskPower = true): HealthObservation {
  return {
    nodeName: 'n',
    node: {
      ...buildNode({
        name: 'n',
        ready: 'runtimeDown',
        since: T0 - 20 * MIN,
        heartbeat: T0 + 5 * MIN,
        bootID: 'boot-1',
      }),
      spec: { providerID: 'test:///n' },
    },
    ...(power !== undefined ? { power } : {}),
    canAskPower,
  };
}

/** Silent since before the action; Unknown. */
function silent(power?: PowerState): HealthObservation {
  return {
    nodeName: 'n',
    node: {
      ...buildNode({
        name: 'n',
        ready: 'unknown',
        since: T0 - 20 * MIN,
        heartbeat: T0 - 21 * MIN,
        bootID: 'boot-1',
      }),
      spec: { providerID: 'test:///n' },
    },
    ...(power !== undefined ? { power } : {}),
    canAskPower: true,
  };
}

/** A repair whose first action (SoftReboot) was answered at T0 with `result`. */
function inRepair(result: 'Succeeded' | 'Failed' = 'Succeeded', p = policy): RepairState {
  const d = decideRepair(silent(on), undefined, p, T0 - S);
  const r = d.actions.find((a) => a.type === 'Remediate');
  if (r?.type !== 'Remediate') throw new Error(`no repair started: ${d.reason}`);
  return recordOutcome(d.nextState!, {
    actionId: r.actionId,
    result,
    at: T0,
    ...(result === 'Failed' ? { message: 'Nova: 409 Conflict (vm_state stopped)' } : {}),
  });
}

const sent = (d: RepairDecision) => d.actions.filter((a) => a.type === 'Remediate');
const attempt = (d: RepairDecision) => d.nextState?.remediation?.intent;

describe('before an action that can power the machine on, the power state is asked again', () => {
  it('HardReboot and Rebuild can power a machine on, Replace deletes it; SoftReboot and site steps are not asked about', () => {
    expect(canPowerOn('HardReboot')).toBe(true);
    expect(canPowerOn('Rebuild')).toBe(true);
    expect(canPowerOn('Replace')).toBe(true);
    for (const a of ['SoftReboot', 'Command', 'Webhook'] as const)
      expect(canPowerOn(a)).toBe(false);
  });

  it('an escalation on fresh evidence asks first (seeds 19, 94, 101), once: not inside the timeout', () => {
    const st = inRepair();
    expect(needsPowerState(reported(), st, policy, T0 + 5 * MIN)).toBe(false);
    expect(needsPowerState(reported(), st, policy, LATE)).toBe(true);
    // Not asked (a caller that could): nothing is sent, look again soon.
    const d = decideRepair(reported(), st, policy, LATE);
    expect(sent(d)).toEqual([]);
    expect(d.reason).toMatch(/asking the provider for the machine's power state before HardReboot/);
    expect(d.requeueAfterMs).toBe(1000);
  });

  it('stopped on request during the repair, policy Wait: no HardReboot, no attempt used, asked again 5 s doubling', () => {
    const st = inRepair();
    const d = decideRepair(reported(stopped), st, policy, LATE);
    expect(sent(d)).toEqual([]);
    expect(d.phase).toBe('Verifying');
    expect(d.reason).toMatch(/never powering it on/);
    expect(d.reason).toMatch(/HardReboot is not sent/);
    expect(attempt(d)).toMatchObject({ action: 'SoftReboot', attempt: 1, silentAsks: 1 });
    expect(d.requeueAfterMs).toBe(5000);
    // Not asked again before the backoff; then asked, and held again (10 s).
    expect(needsPowerState(reported(), d.nextState, policy, LATE + 4 * S)).toBe(false);
    expect(needsPowerState(reported(), d.nextState, policy, LATE + 5 * S)).toBe(true);
    const d2 = decideRepair(reported(stopped), d.nextState, policy, LATE + 5 * S);
    expect(sent(d2)).toEqual([]);
    expect(attempt(d2)).toMatchObject({ silentAsks: 2 });
    expect(d2.requeueAfterMs).toBe(10_000);
  });

  it('stopped on request, policy FailAfter: held until failAfter after the stop, then the HardReboot goes', () => {
    const st = inRepair('Succeeded', failAfter);
    const late = T0 + failAfter.ladder[0]!.timeoutMs + S;
    expect(sent(decideRepair(reported(stopped), st, failAfter, late))).toEqual([]);
    const d = decideRepair(reported(stopped), st, failAfter, T0 + 2 * MIN + 2 * 60 * MIN + S);
    expect(sent(d)).toMatchObject([{ action: 'HardReboot', replay: false }]);
  });

  it('On, Off without a request (a crash), Gone: the HardReboot goes as before', () => {
    for (const p of [on, crashed, gone]) {
      const d = decideRepair(reported(p), inRepair(), policy, LATE);
      expect(sent(d)).toMatchObject([{ action: 'HardReboot' }]);
    }
  });

  it('the provider cannot say (an outage): held with the backoff, no attempt used', () => {
    const d = decideRepair(reported(cloudDown), inRepair(), policy, LATE);
    expect(sent(d)).toEqual([]);
    expect(d.reason).toMatch(
      /cannot say whether the machine was stopped before HardReboot \(Nova: 503\)/,
    );
    expect(attempt(d)).toMatchObject({ action: 'SoftReboot', silentAsks: 1 });
    expect(d.requeueAfterMs).toBe(5000);
  });

  it('a provider that cannot be asked: escalates as before', () => {
    const st = inRepair();
    expect(needsPowerState(reported(undefined, false), st, policy, LATE)).toBe(true);
    const d = decideRepair(reported(undefined, false), st, policy, LATE);
    expect(sent(d)).toMatchObject([{ action: 'HardReboot' }]);
  });

  it('a silent node asks once at its timeout: that answer serves the HardReboot too', () => {
    const st = inRepair();
    expect(needsPowerState(silent(), st, policy, LATE)).toBe(true);
    expect(sent(decideRepair(silent(on), st, policy, LATE))).toMatchObject([
      { action: 'HardReboot' },
    ]);
    expect(sent(decideRepair(silent(stopped), st, policy, LATE))).toEqual([]);
  });

  it('a HardReboot attempt that timed out with fresh evidence: the second HardReboot asks too', () => {
    const first = decideRepair(reported(on), inRepair(), policy, LATE);
    const hr = sent(first)[0]!;
    const st = recordOutcome(first.nextState!, {
      actionId: hr.type === 'Remediate' ? hr.actionId : '',
      result: 'Succeeded',
      at: LATE,
    });
    const later = LATE + policy.ladder[1]!.timeoutMs + S;
    const obs: HealthObservation = {
      ...reported(),
      leaseRenewTime: iso(LATE + 30 * S),
    };
    expect(needsPowerState(obs, st, policy, later)).toBe(true);
    expect(sent(decideRepair({ ...obs, power: stopped }, st, policy, later))).toEqual([]);
    expect(sent(decideRepair({ ...obs, power: on }, st, policy, later))).toMatchObject([
      { action: 'HardReboot', attempt: 2 },
    ]);
  });
});

describe('a Replace (opted in) deletes the machine: asked before it too', () => {
  // SoftReboot x1, HardReboot x1, Replace: the HardReboot's timeout ends on fresh evidence.
  const withReplace = resolve({
    ladder: [
      { action: 'SoftReboot', timeout: '10m', attempts: 1 },
      { action: 'HardReboot', timeout: '15m', attempts: 1 },
      { action: 'Replace', timeout: '30m', attempts: 1 },
    ],
  });

  it('stopped on request after the HardReboot: no Replace under Wait; a running machine is replaced', () => {
    const first = decideRepair(reported(on), inRepair('Succeeded', withReplace), withReplace, LATE);
    const hr = sent(first)[0]!;
    expect(hr).toMatchObject({ action: 'HardReboot' });
    const st = recordOutcome(first.nextState!, {
      actionId: hr.type === 'Remediate' ? hr.actionId : '',
      result: 'Succeeded',
      at: LATE,
    });
    const later = LATE + withReplace.ladder[1]!.timeoutMs + S;
    const obs: HealthObservation = { ...reported(), leaseRenewTime: iso(LATE + 30 * S) };
    expect(needsPowerState(obs, st, withReplace, later)).toBe(true);
    const held = decideRepair({ ...obs, power: stopped }, st, withReplace, later);
    expect(sent(held)).toEqual([]);
    expect(held.reason).toMatch(/Replace is not sent/);
    expect(sent(decideRepair({ ...obs, power: on }, st, withReplace, later))).toMatchObject([
      { action: 'Replace' },
    ]);
  });
});

describe('a refused SoftReboot of a stopped machine is no failed attempt (seed 144)', () => {
  const due = T0 + policy.retryBackoffMs + S;

  it('moving past a refused attempt asks first, after its backoff only', () => {
    const st = inRepair('Failed');
    if (policy.retryBackoffMs > 2 * S)
      expect(needsPowerState(silent(), st, policy, T0 + S)).toBe(false);
    expect(needsPowerState(silent(), st, policy, due)).toBe(true);
    expect(sent(decideRepair(silent(), st, policy, due))).toEqual([]);
  });

  it('stopped on request: the shutdown rule, not the HardReboot; the refused attempt is not used up', () => {
    const d = decideRepair(silent(stopped), inRepair('Failed'), policy, due);
    expect(sent(d)).toEqual([]);
    expect(d.actions.some((a) => a.type === 'GiveUp')).toBe(false);
    expect(d.reason).toMatch(/SoftReboot attempt 1 failed/);
    expect(d.reason).toMatch(/never powering it on/);
    expect(attempt(d)).toMatchObject({ action: 'SoftReboot', result: 'Failed', silentAsks: 1 });
  });

  it('held, then the person starts the machine and the node is back: verified, not rebooted', () => {
    const held = decideRepair(silent(stopped), inRepair('Failed'), policy, due);
    const back: HealthObservation = {
      nodeName: 'n',
      node: {
        ...buildNode({ name: 'n', ready: 'ready', since: due + MIN, heartbeat: due + 2 * MIN }),
        spec: { providerID: 'test:///n' },
      },
      canAskPower: true,
    };
    expect(needsPowerState(back, held.nextState, policy, due + 2 * MIN)).toBe(false);
    const d = decideRepair(back, held.nextState, policy, due + 2 * MIN);
    expect(sent(d)).toEqual([]);
    expect(d.phase).toBe('Verifying');
    const ok = decideRepair(back, d.nextState, policy, due + MIN + policy.minHealthyPeriodMs + S);
    expect(sent(ok)).toEqual([]);
    expect(ok.phase).toBe('Healthy');
  });

  it('On: the refusal was about something else, the ladder goes on as before', () => {
    const d = decideRepair(silent(on), inRepair('Failed'), policy, due);
    expect(sent(d)).toMatchObject([{ action: 'HardReboot' }]);
  });

  it('an outage: held, asked again after the backoff', () => {
    const d = decideRepair(silent(cloudDown), inRepair('Failed'), policy, due);
    expect(sent(d)).toEqual([]);
    expect(d.requeueAfterMs).toBe(5000);
  });
});

describe('re-issuing a HardReboot that has no completion asks first', () => {
  it('a re-issue of a HardReboot the provider could not take: stopped meanwhile, not re-issued', () => {
    const first = decideRepair(reported(on), inRepair(), policy, LATE);
    // The HardReboot intent is persisted; the provider was Unavailable, nothing recorded.
    const st = first.nextState!;
    const later = LATE + 60 * S;
    expect(needsPowerState(reported(), st, policy, later)).toBe(true);
    const held = decideRepair(reported(stopped), st, policy, later);
    expect(sent(held)).toEqual([]);
    expect(held.phase).toBe('Remediating');
    expect(held.reason).toMatch(/not re-issued; .*no attempt used/);
    const go = decideRepair(reported(on), st, policy, later);
    expect(sent(go)).toMatchObject([{ action: 'HardReboot', replay: true }]);
    expect(attempt(go)?.silentAsks).toBeUndefined();
  });
});
