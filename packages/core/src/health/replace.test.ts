// What follows an accepted Replace in the pure state machine: a DeleteNode step (never a
// success on Ready, never an Uncordon), the fence persisted before the delete lifts the step's
// timeout, an unreachable provider holds the timeout, and a Replace never fenced ends Failed.
import { describe, expect, it } from 'vitest';
import { either } from 'fp-ts';
import { buildNode, type ReadyText } from './builders.js';
import { decideRepair, recordOutcome, type RepairAction } from './decide.js';
import { resolveRepairPolicy, type RepairPolicy } from './policy.js';
import { recordReplace, ReplaceFencePollMs } from './replace.js';
import { parseRepairState, serializeRepairState, type RepairState } from './state.js';

const MIN = 60_000;
const T0 = Date.parse('2026-01-01T00:00:00Z');
const PID = 'openstack:///abc';

function policy(extra: object = {}): RepairPolicy {
  const p = resolveRepairPolicy({
    ladder: [{ action: 'Replace', timeout: '15m', attempts: 1 }],
    minHealthyPeriod: '1m',
    ...extra,
  });
  if (either.isLeft(p)) throw new Error(p.left);
  return p.right;
}

const obs = (ready: ReadyText, since: number, providerID = PID) => ({
  nodeName: 'n1',
  node: {
    ...buildNode({ name: 'n1', ready, since, bootID: 'boot-1' }),
    spec: { taints: [], providerID },
  },
});

/** A repair of a node Unknown since T0 whose Replace the provider accepted at `acceptedAt`. */
function accepted(p: RepairPolicy, result: 'Succeeded' | 'Failed' = 'Succeeded') {
  const t = T0 + 11 * MIN;
  const d = decideRepair(obs('unknown', T0), undefined, p, t);
  const rem = d.actions.find((a) => a.type === 'Remediate');
  if (rem?.type !== 'Remediate' || d.nextState === undefined) throw new Error('no repair started');
  expect(rem.action).toBe('Replace');
  const acceptedAt = t + 1000;
  return {
    state: recordOutcome(d.nextState, { actionId: rem.actionId, result, at: acceptedAt }),
    actionId: rem.actionId,
    acceptedAt,
  };
}

const deleteNodes = (as: RepairAction[]) => as.filter((a) => a.type === 'DeleteNode');

describe('after an accepted Replace', () => {
  it('asks for the DeleteNode step (identity and fence), not a Fence taint, every few seconds', () => {
    const p = policy();
    const { state, actionId } = accepted(p);
    const d = decideRepair(obs('unknown', T0), state, p, T0 + 12 * MIN);
    expect(d.phase).toBe('Verifying');
    expect(d.actions).toEqual([
      expect.objectContaining({
        type: 'DeleteNode',
        action: 'Replace',
        actionId,
        providerID: PID,
        cause: 'KubeletUnreachable',
        dryRun: false,
      }),
    ]);
    expect(d.actions[0]).not.toHaveProperty('fenced');
    // A deletion takes seconds: the next look is the fence poll, not the 30 s storm recheck
    // (with which a 45 s Replace timeout would give up after one look).
    expect(p.stormGuard.recheckIntervalMs).toBe(30_000);
    expect(d.requeueAfterMs).toBe(ReplaceFencePollMs);
  });

  it('a Ready node is no success: no Uncordon, the DeleteNode step goes on', () => {
    const p = policy();
    const { state, acceptedAt } = accepted(p);
    let s: RepairState | undefined = state;
    for (const at of [acceptedAt + MIN, acceptedAt + 3 * MIN, acceptedAt + 6 * MIN]) {
      const d = decideRepair(obs('ready', acceptedAt + 30_000), s, p, at);
      expect(d.phase).toBe('Verifying');
      expect(d.actions.map((a) => a.type)).toEqual(['DeleteNode']);
      expect(d.nextState?.healthySince).toBeUndefined();
      s = d.nextState;
    }
  });

  it('not fenced by the step timeout: asked once more, then Failed, the node stays cordoned, no DeleteNode', () => {
    const p = policy();
    const { state, actionId, acceptedAt } = accepted(p);
    // At the deadline, no answer asked since it: one more ask (DeleteNode), not a failure yet.
    const ask = decideRepair(obs('unknown', T0), state, p, acceptedAt + 15 * MIN);
    expect(ask.phase).toBe('Verifying');
    expect(deleteNodes(ask.actions)).toEqual([
      expect.objectContaining({ actionId, deadline: acceptedAt + 15 * MIN }),
    ]);
    expect(ask.reason).toMatch(/timeout passed at .*; the provider is asked once more/);
    const late = recordReplace(state, {
      actionId,
      unavailable: false,
      notFencedAt: acceptedAt + 15 * MIN,
    });
    const d = decideRepair(obs('unknown', T0), late, p, acceptedAt + 15 * MIN + 1);
    expect(d.phase).toBe('Failed');
    expect(d.actions.map((a) => a.type)).toEqual(['GiveUp']);
    expect(d.actions[0]?.reason).toMatch(/not known fenced 15m after Replace.*not deleted/);
    expect(d.nextState?.remediation?.cordoned).toBe(true);
    expect(d.nextState?.lastRemediation?.result).toBe('Failed');
  });

  it('fenced (persisted): DeleteNode without asking again, past the timeout, and it survives a restart', () => {
    const p = policy();
    const { state, actionId, acceptedAt } = accepted(p);
    const fenced = recordReplace(state, {
      actionId,
      fenced: { at: acceptedAt + MIN, how: 'Deleted', evidence: 'the server is gone' },
    });
    expect(fenced).not.toBe(state);
    // Round trip through the annotation: a restarted controller continues with the delete.
    const parsed = parseRepairState(serializeRepairState(fenced));
    if (either.isLeft(parsed) || parsed.right === undefined) throw new Error('round trip');
    for (const at of [acceptedAt + 2 * MIN, acceptedAt + 16 * MIN, acceptedAt + 60 * MIN]) {
      const d = decideRepair(obs('unknown', T0), parsed.right, p, at);
      expect(d.phase).toBe('Verifying');
      expect(deleteNodes(d.actions)).toEqual([
        expect.objectContaining({
          actionId,
          providerID: PID,
          fenced: { how: 'Deleted', evidence: 'the server is gone' },
        }),
      ]);
      expect(d.actions.some((a) => a.type === 'Remediate' || a.type === 'GiveUp')).toBe(false);
    }
    // Recorded once: a second fence report, or an availability report, changes nothing.
    expect(
      recordReplace(fenced, {
        actionId,
        fenced: { at: acceptedAt + 2 * MIN, how: 'PoweredOff', evidence: 'x' },
      }),
    ).toBe(fenced);
    expect(recordReplace(fenced, { actionId, unavailable: { at: acceptedAt } })).toBe(fenced);
  });

  it('an unreachable provider holds the timeout (outage is not failure); its next answer releases it', () => {
    const p = policy();
    const { state, actionId, acceptedAt } = accepted(p);
    const down = recordReplace(state, { actionId, unavailable: { at: acceptedAt + 14 * MIN } });
    expect(down.remediation?.replace).toEqual({
      actionId,
      unavailableSince: acceptedAt + 14 * MIN,
    });
    expect(recordReplace(down, { actionId, unavailable: { at: acceptedAt + 15 * MIN } })).toBe(
      down,
    );
    const held = decideRepair(obs('unknown', T0), down, p, acceptedAt + 40 * MIN);
    expect(held.phase).toBe('Verifying');
    expect(held.actions.map((a) => a.type)).toEqual(['DeleteNode']);
    expect(held.reason).toMatch(/could not be asked.*an outage is not a failure/);
    const answered = recordReplace(down, {
      actionId,
      unavailable: false,
      notFencedAt: acceptedAt + 41 * MIN,
    });
    expect(answered.remediation?.replace).toEqual({ actionId, notFencedAt: acceptedAt + 41 * MIN });
    // The first late answer is kept: a later one writes nothing.
    expect(
      recordReplace(answered, { actionId, unavailable: false, notFencedAt: acceptedAt + 42 * MIN }),
    ).toBe(answered);
    const gaveUp = decideRepair(obs('unknown', T0), answered, p, acceptedAt + 41 * MIN);
    expect(gaveUp.phase).toBe('Failed');
  });

  it('a dry run (its DeleteNode step is never run, so nothing asks) times out at the deadline, as a preview should', () => {
    const p = policy({ dryRun: true });
    const { state, acceptedAt } = accepted(p);
    const d = decideRepair(obs('unknown', T0), state, p, acceptedAt + 15 * MIN);
    expect(d.phase).toBe('Failed');
  });

  // Found by the simulator (POLICY=replace, seeds 29, 52, 87): the provider said "not fenced"
  // while Nova was still deleting the server, then an apiserver outage kept every reconcile away
  // past the step's deadline; the first reconcile after it failed the step on that old answer,
  // though the server had been gone for minutes. An outage is never a failed attempt.
  it('an apiserver outage over the deadline: the last answer before it does not fail the step; a fresh ask decides', () => {
    const p = policy();
    const { state, actionId, acceptedAt } = accepted(p);
    // Asked at 14 min: not fenced yet (answered, so nothing unavailable is recorded).
    const before = recordReplace(state, { actionId, unavailable: false });
    expect(before).toBe(state);
    // The outage ends at 21 min: the first reconcile asks again instead of giving up.
    const after = decideRepair(obs('unknown', T0), before, p, acceptedAt + 21 * MIN);
    expect(after.phase).toBe('Verifying');
    expect(after.actions.some((a) => a.type === 'GiveUp')).toBe(false);
    expect(deleteNodes(after.actions)).toHaveLength(1);
    // That ask finds the machine deleted: fenced, and the Node is deleted.
    const fenced = recordReplace(before, {
      actionId,
      fenced: { at: acceptedAt + 21 * MIN, how: 'Deleted', evidence: 'the server is gone' },
    });
    const del = decideRepair(obs('unknown', T0), fenced, p, acceptedAt + 21 * MIN);
    expect(deleteNodes(del.actions)).toEqual([
      expect.objectContaining({ fenced: { how: 'Deleted', evidence: 'the server is gone' } }),
    ]);
  });

  it('a report about another action id, or a Replace not accepted, is ignored', () => {
    const p = policy();
    const { state, acceptedAt } = accepted(p);
    const r = { at: acceptedAt, how: 'Deleted', evidence: 'x' };
    expect(recordReplace(state, { actionId: 'other', fenced: r })).toBe(state);
    const rejected = accepted(p, 'Failed');
    expect(recordReplace(rejected.state, { actionId: rejected.actionId, fenced: r })).toBe(
      rejected.state,
    );
    // A rejected Replace is a failed attempt as before: no DeleteNode.
    const d = decideRepair(obs('unknown', T0), rejected.state, p, acceptedAt + 30_000);
    expect(deleteNodes(d.actions)).toEqual([]);
  });

  it('a shutting-down node keeps the DeleteNode step but never times out into a next action', () => {
    const p = policy({ ladder: [{ action: 'Replace', timeout: '15m', attempts: 2 }] });
    const { state, acceptedAt } = accepted(p);
    const shuttingDown = {
      nodeName: 'n1',
      node: {
        ...buildNode({ name: 'n1', ready: 'shuttingDown', since: acceptedAt }),
        spec: { taints: [], providerID: PID },
      },
    };
    const before = decideRepair(shuttingDown, state, p, acceptedAt + MIN);
    expect(before.actions.map((a) => a.type)).toEqual(['DeleteNode']);
    const after = decideRepair(shuttingDown, state, p, acceptedAt + 20 * MIN);
    expect(after.actions.filter((a) => a.type === 'Remediate')).toEqual([]);
  });

  it('dry-run: the DeleteNode step is marked dry-run (the shell deletes nothing)', () => {
    const p = policy({ dryRun: true });
    const { state } = accepted(p);
    const d = decideRepair(obs('unknown', T0), state, p, T0 + 12 * MIN);
    expect(deleteNodes(d.actions)).toEqual([expect.objectContaining({ dryRun: true })]);
  });
});
