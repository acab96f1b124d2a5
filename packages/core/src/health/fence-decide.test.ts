// The fencing contract in the pure state machine: the drain carries no taint, a Fence check
// is asked for only after an accepted action that can fence (never a SoftReboot), the bootID
// at intent time is persisted for it, and the repair removes only a taint it added.
import { describe, expect, it } from 'vitest';
import { either } from 'fp-ts';
import { buildNode, type ReadyText } from './builders.js';
import { decideRepair, recordFence, recordOutcome, type RepairAction } from './decide.js';
import { resolveRepairPolicy, type RepairPolicy } from './policy.js';
import type { RepairState } from './state.js';

const MIN = 60_000;
const T0 = Date.parse('2026-01-01T00:00:00Z');

function policy(action: 'SoftReboot' | 'HardReboot', extra: object = {}): RepairPolicy {
  const p = resolveRepairPolicy({
    ladder: [{ action, timeout: '15m', attempts: 1 }],
    minHealthyPeriod: '1m',
    ...extra,
  });
  if (either.isLeft(p)) throw new Error(p.left);
  return p.right;
}

const obs = (ready: ReadyText, since: number, bootID: string, unschedulable = false) => ({
  nodeName: 'n1',
  node: {
    ...buildNode({ name: 'n1', ready, since, bootID, unschedulable }),
    spec: { unschedulable, taints: [], providerID: 'openstack:///abc' },
  },
});

/** Starts a repair of a node Unknown since T0 and records the provider's acceptance. */
function accepted(
  p: RepairPolicy,
  unschedulable = false,
): { state: RepairState; start: RepairAction[] } {
  const t = T0 + 11 * MIN;
  const d = decideRepair(obs('unknown', T0, 'boot-1', unschedulable), undefined, p, t);
  const rem = d.actions.find((a) => a.type === 'Remediate');
  if (rem?.type !== 'Remediate' || d.nextState === undefined) throw new Error('no repair started');
  return {
    state: recordOutcome(d.nextState, {
      actionId: rem.actionId,
      result: 'Succeeded',
      at: t + 1000,
    }),
    start: d.actions,
  };
}

describe('fencing in decideRepair', () => {
  it('the intent keeps the bootID; the drain adds no taint; a Fence check follows an accepted HardReboot while not Ready', () => {
    const p = policy('HardReboot');
    const { state, start } = accepted(p);
    expect(state.remediation?.intent?.bootId).toBe('boot-1');
    expect(state.remediation?.intent?.providerID).toBe('openstack:///abc');
    expect(start.map((a) => a.type)).toEqual(['Cordon', 'Drain', 'Remediate']);
    expect(start[1]?.reason).toContain('no out-of-service taint before the machine is fenced');
    const d = decideRepair(obs('unknown', T0, 'boot-1'), state, p, T0 + 12 * MIN);
    expect(d.phase).toBe('Verifying');
    expect(d.actions).toEqual([
      expect.objectContaining({
        type: 'Fence',
        action: 'HardReboot',
        actionId: state.remediation?.intent?.actionId,
        bootIdBefore: 'boot-1',
        providerID: 'openstack:///abc',
      }),
    ]);
    // Asked again at the recheck pace, not only at the step's deadline.
    expect(d.requeueAfterMs).toBe(p.stormGuard.recheckIntervalMs);
  });

  it('never a Fence check after a SoftReboot', () => {
    const p = policy('SoftReboot');
    const { state } = accepted(p);
    const d = decideRepair(obs('unknown', T0, 'boot-2'), state, p, T0 + 12 * MIN);
    expect(d.phase).toBe('Verifying');
    expect(d.actions).toEqual([]);
  });

  it('once fenced, no more checks; success removes the out-of-service taint only when we added it', () => {
    const p = policy('HardReboot');
    for (const taintAdded of [true, false]) {
      const { state } = accepted(p);
      const actionId = state.remediation?.intent?.actionId ?? '';
      const fenced = recordFence(state, {
        at: T0 + 12 * MIN,
        actionId,
        how: 'ResetObserved',
        evidence: 'bootID changed',
        taintAdded,
      });
      expect(recordFence(fenced, { ...fenced.remediation!.fenced!, actionId: 'other' })).toBe(
        fenced,
      );
      const waiting = decideRepair(obs('unknown', T0, 'boot-2'), fenced, p, T0 + 13 * MIN);
      expect(waiting.actions).toEqual([]);
      const back = T0 + 14 * MIN;
      const v = decideRepair(obs('ready', back, 'boot-2', true), waiting.nextState, p, back);
      const done = decideRepair(obs('ready', back, 'boot-2', true), v.nextState, p, back + 2 * MIN);
      expect(done.phase).toBe('Healthy');
      expect(done.actions).toEqual([
        expect.objectContaining({ type: 'Uncordon', removeOutOfServiceTaint: taintAdded }),
      ]);
    }
  });

  it('a node someone else cordoned keeps its cordon; our taint still goes', () => {
    const p = policy('HardReboot');
    const { state } = accepted(p, true);
    expect(state.remediation?.cordoned).toBe(false);
    const fenced = recordFence(state, {
      at: T0 + 12 * MIN,
      actionId: state.remediation?.intent?.actionId ?? '',
      how: 'PoweredOff',
      evidence: 'SHUTOFF',
      taintAdded: true,
    });
    const back = T0 + 14 * MIN;
    const v = decideRepair(obs('ready', back, 'boot-2', true), fenced, p, back);
    const done = decideRepair(obs('ready', back, 'boot-2', true), v.nextState, p, back + 2 * MIN);
    expect(done.actions).toEqual([
      expect.objectContaining({
        type: 'Uncordon',
        removeOutOfServiceTaint: true,
        keepCordon: true,
      }),
    ]);
  });
});
