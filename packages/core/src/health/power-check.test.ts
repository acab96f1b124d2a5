// A machine someone stopped without the kubelet announcing it (`openstack server stop`, a
// hypervisor maintenance, an operator's power-off) leaves its Node simply Ready=Unknown.
// Before the first action of a repair the provider's power state is asked (needsPowerState),
// and the decision takes the answer: Off by request is a shutdown (the shutdown policy
// decides, nothing is sent), Off without a recorded request (a crash) is repaired, an outage
// holds the repair. The cloud provider's shutdown taint is a shutdown without asking.
import { either } from 'fp-ts';
import { describe, expect, it } from 'vitest';
import type { PowerState } from '../provider/port.js';
import { buildNode } from './builders.js';
import { decideRepair, recordOutcome, type RepairDecision } from './decide.js';
import { decideFleet } from './fleet.js';
import { TaintCloudShutdown, type TaintSnapshot } from './node.js';
import { needsPowerState } from './power-check.js';
import { resolveRepairPolicy, type RepairPolicy } from './policy.js';
import type { RepairState } from './state.js';

const MIN = 60_000;
const T0 = Date.parse('2026-01-01T00:00:00Z');

function policy(input: unknown = {}): RepairPolicy {
  const p = resolveRepairPolicy(input);
  if (either.isLeft(p)) throw new Error(p.left);
  return p.right;
}
const failAfter2h = () => policy({ shutdown: { poweredOff: 'FailAfter', failAfter: '2h' } });

const stoppedByOperator: PowerState = {
  kind: 'Off',
  since: T0 + 19 * MIN,
  byRequest: true,
  evidence: 'Nova: server s-1 is SHUTOFF since 00:19 (stop req-1 requested through the API)',
};
const crashed: PowerState = {
  kind: 'Off',
  since: T0 + 19 * MIN,
  byRequest: false,
  evidence: "Nova: server s-1 is SHUTOFF (stop req-2 recorded by Nova's power-state sync)",
};
const cloudDown: PowerState = { kind: 'Unavailable', reason: 'Nova: 503 Service Unavailable' };
const shutdownTaint: TaintSnapshot = { key: TaintCloudShutdown, effect: 'NoSchedule' };

interface Look {
  /** Minutes after T0. */
  at: number;
  /** The provider's answer, when the controller asks (needsPowerState) at this look. */
  power?: PowerState;
  taints?: TaintSnapshot[];
}

/**
 * A node Ready until minute 20, then Ready=Unknown (its kubelet announced nothing), looked
 * at as the controller does: the power state is passed in only when needsPowerState says
 * the controller asks. Each accepted action is recorded as it would be.
 */
function follow(p: RepairPolicy, looks: Look[]) {
  let state: RepairState | undefined;
  const asked: boolean[] = [];
  const ds: RepairDecision[] = looks.map((l) => {
    const at = T0 + l.at * MIN;
    const node = buildNode({
      name: 'a',
      ready: l.at < 20 ? 'ready' : 'unknown',
      since: l.at < 20 ? T0 : T0 + 20 * MIN,
      heartbeat: l.at < 20 ? at : T0 + 20 * MIN,
      created: T0 - 24 * 60 * MIN,
      ...(l.taints !== undefined ? { taints: l.taints } : {}),
    });
    const ask = needsPowerState({ nodeName: 'a', node }, state, p, at);
    asked.push(ask);
    const d = decideRepair(
      { nodeName: 'a', node, ...(ask && l.power !== undefined ? { power: l.power } : {}) },
      state,
      p,
      at,
    );
    state = d.nextState;
    for (const a of d.actions)
      if (a.type === 'Remediate' && state !== undefined)
        state = recordOutcome(state, { actionId: a.actionId, result: 'Succeeded', at });
    return d;
  });
  return { ds, asked, actions: ds.flatMap((d) => d.actions) };
}

describe('before the first action of a repair, the provider is asked whether someone stopped the machine', () => {
  it('is asked only once the node would start a repair: not while healthy or inside its timeout', () => {
    const { asked } = follow(policy(), [
      { at: 10 },
      { at: 25, power: stoppedByOperator },
      { at: 31, power: stoppedByOperator },
    ]);
    expect(asked).toEqual([false, false, true]);
  });

  it('Off by request, policy Wait: a shutdown; no cordon, no action, for days, and not asked again', () => {
    const { ds, asked, actions } = follow(policy(), [
      { at: 10 },
      { at: 31, power: stoppedByOperator },
      { at: 60, power: stoppedByOperator },
      { at: 3000, power: stoppedByOperator },
    ]);
    expect(actions).toEqual([]);
    expect(ds.slice(1).map((d) => d.phase)).toEqual(['Waiting', 'Waiting', 'Waiting']);
    expect(ds[1]!.reason).toMatch(
      /shut down on purpose \(its machine was stopped on request \(Nova: .*requested through the API\)\).*never powering it on \(policy shutdown\.poweredOff: Wait\)/,
    );
    // The period is remembered as a shutdown: no provider traffic under Wait from then on.
    expect(ds[1]!.nextState?.notReady).toEqual({ since: T0 + 20 * MIN, uncounted: 'Shutdown' });
    expect(asked).toEqual([false, true, false, false]);
    // And it is no flap episode.
    expect(ds[3]!.nextState?.episodes).toEqual([]);
  });

  it('Off by request, policy FailAfter: waited for until failAfter after the stop, then repaired from HardReboot', () => {
    const { ds, asked, actions } = follow(failAfter2h(), [
      { at: 10 },
      { at: 31, power: stoppedByOperator },
      { at: 120, power: stoppedByOperator },
      // 20 + 120 min: still inside (the clock runs from the period's start, 00:20).
      { at: 140, power: stoppedByOperator },
      { at: 141, power: stoppedByOperator },
    ]);
    expect(ds.slice(1, 4).map((d) => d.phase)).toEqual(['Waiting', 'Waiting', 'Waiting']);
    expect(ds[1]!.reason).toMatch(
      /treated as failed \(policy shutdown\.poweredOff: FailAfter 2h\)/,
    );
    expect(actions.filter((a) => a.type === 'Remediate')).toHaveLength(1);
    expect(asked).toEqual([false, true, false, false, true]);
    const failed = ds[4]!;
    expect(failed.cause.kind).toBe('ShutDownTooLong');
    expect(failed.phase).toBe('Remediating');
    expect(failed.actions.find((a) => a.type === 'Remediate')).toMatchObject({
      action: 'HardReboot',
    });
  });

  it('Off without a recorded request (a crash): the repair goes on, past SoftReboot', () => {
    const { ds, actions } = follow(policy(), [{ at: 10 }, { at: 31, power: crashed }]);
    expect(ds[1]!.phase).toBe('Remediating');
    expect(ds[1]!.reason).toMatch(/off without a recorded stop request, as after a crash/);
    expect(actions.find((a) => a.type === 'Remediate')).toMatchObject({ action: 'HardReboot' });
  });

  it('On: the repair goes on as without the check', () => {
    const { actions } = follow(policy(), [{ at: 10 }, { at: 31, power: { kind: 'On' } }]);
    expect(actions.find((a) => a.type === 'Remediate')).toMatchObject({ action: 'SoftReboot' });
  });

  it('the provider cannot be asked: no action while it cannot tell (an outage is never a verdict), asked again', () => {
    const { ds, asked, actions } = follow(policy(), [
      { at: 10 },
      { at: 31, power: cloudDown },
      { at: 90, power: cloudDown },
      { at: 95, power: stoppedByOperator },
    ]);
    expect(actions).toEqual([]);
    expect(ds[1]!.phase).toBe('Unhealthy');
    expect(ds[1]!.reason).toMatch(/could not ask the provider .*Nova: 503/);
    expect(ds[1]!.requeueAfterMs).toBe(30_000);
    expect(asked).toEqual([false, true, true, true]);
    // Once it answers "stopped", the shutdown rule.
    expect(ds[3]!.phase).toBe('Waiting');
  });

  it('a provider that cannot tell (no answer passed): the repair starts as before', () => {
    const { actions } = follow(policy(), [{ at: 10 }, { at: 31 }]);
    expect(actions.find((a) => a.type === 'Remediate')).toMatchObject({ action: 'SoftReboot' });
  });

  it('the cloud provider shutdown taint: a shutdown without asking', () => {
    const { ds, asked, actions } = follow(policy(), [
      { at: 10 },
      { at: 25, taints: [shutdownTaint] },
      { at: 31, taints: [shutdownTaint], power: { kind: 'On' } },
      { at: 600, power: { kind: 'On' } },
    ]);
    expect(actions).toEqual([]);
    expect(asked).toEqual([false, false, false, false]);
    expect(ds[2]!.phase).toBe('Waiting');
    expect(ds[2]!.reason).toMatch(
      /cloud provider marks its instance shut down \(taint node\.cloudprovider\.kubernetes\.io\/shutdown\)/,
    );
  });

  it('the shutdown taint under FailAfter: failed after failAfter like an announced shutdown', () => {
    const { ds } = follow(failAfter2h(), [
      { at: 10 },
      { at: 25, taints: [shutdownTaint] },
      { at: 141, taints: [shutdownTaint], power: stoppedByOperator },
    ]);
    expect(ds[1]!.phase).toBe('Waiting');
    expect(ds[2]!.cause.kind).toBe('ShutDownTooLong');
    expect(ds[2]!.actions.find((a) => a.type === 'Remediate')).toMatchObject({
      action: 'HardReboot',
    });
  });

  it('a manual trigger is a person asking for the repair: not asked, not held', () => {
    const p = policy();
    const node = buildNode({
      name: 'a',
      ready: 'unknown',
      since: T0,
      heartbeat: T0,
      created: T0 - 24 * 60 * MIN,
      annotations: { [p.annotations.trigger]: 'please' },
    });
    expect(needsPowerState({ nodeName: 'a', node }, undefined, p, T0 + MIN)).toBe(false);
  });

  it('the storm guard does not start a node whose provider cannot tell', () => {
    const node = buildNode({
      name: 'a',
      ready: 'unknown',
      since: T0,
      heartbeat: T0,
      created: T0 - 24 * 60 * MIN,
    });
    const { decisions } = decideFleet(
      [{ obs: { nodeName: 'a', node, power: cloudDown }, state: undefined }],
      policy(),
      T0 + 11 * MIN,
    );
    expect(decisions[0]!.actions).toEqual([]);
    expect(decisions[0]!.phase).toBe('Unhealthy');
  });
});
