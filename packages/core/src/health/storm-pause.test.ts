// A repair in flight does not escalate on a timeout while the storm guard sees a mass loss of
// status (StormPause): a zone cut off from the control plane reports every node Unknown, one
// our reboot brought back too, so its step's timeout is no evidence the reboot failed. It
// waits at the recheck pace and escalates once the storm lifts; a provider's rejection still
// advances it.
import { describe, expect, it } from 'vitest';
import { either } from 'fp-ts';
import { buildNode, type ReadyText } from './builders.js';
import { recordOutcome, type RepairDecision } from './decide.js';
import { newFleetDecider } from './fleet-decider.js';
import { decideAlone, decideFleet, type FleetMember } from './fleet.js';
import { resolveRepairPolicy, type RepairPolicy } from './policy.js';
import type { RepairState } from './state.js';

const S = 1000;
const MIN = 60 * S;
const T0 = Date.parse('2026-01-01T00:00:00Z');

function policy(stormGuard: Record<string, unknown>): RepairPolicy {
  const p = resolveRepairPolicy({
    stormGuard: { minUnhealthyAllowed: 0, recheckInterval: '30s', ...stormGuard },
    drain: { enabled: false },
  });
  if (either.isLeft(p)) throw new Error(p.left);
  return p.right;
}

/** Zone a loses its link: every node in it Unknown; or all back. */
const node = (name: string, zone: string, ready: ReadyText, state?: RepairState): FleetMember => ({
  obs: {
    nodeName: name,
    node: buildNode({ name, ready, since: T0 - 20 * MIN, labels: { zone } }),
  },
  state,
});

/** `r` (zone a) rebooted at T0, accepted: Verifying. */
function inRepair(p: RepairPolicy, result: 'Succeeded' | 'Failed' = 'Succeeded'): RepairState {
  const fleet = [node('r', 'a', 'unknown'), ...healthy()];
  const d = decideFleet(fleet, p, T0).decisions[0]!;
  const remediate = d.actions.find((a) => a.type === 'Remediate');
  if (remediate?.type !== 'Remediate') throw new Error(`no repair started: ${d.reason}`);
  return recordOutcome(d.nextState!, { actionId: remediate.actionId, result, at: T0 });
}

const healthy = () => [
  node('a2', 'a', 'ready'),
  node('a3', 'a', 'ready'),
  node('b1', 'b', 'ready'),
  node('b2', 'b', 'ready'),
  node('b3', 'b', 'ready'),
];
/** Zone a cut off: a2 and a3 Unknown too. */
const zoneALost = () => [
  node('a2', 'a', 'unknown'),
  node('a3', 'a', 'unknown'),
  node('b1', 'b', 'ready'),
  node('b2', 'b', 'ready'),
  node('b3', 'b', 'ready'),
];

const nextAttempt = (d: RepairDecision) => d.actions.filter((a) => a.type === 'Remediate');

describe('storm pause of a repair in flight', () => {
  const perDomain = policy({
    maxUnhealthy: '100%',
    failureDomainLabel: 'zone',
    maxUnhealthyPerDomain: 1,
  });
  const fleetWide = policy({ maxUnhealthy: 2 });
  const late = (p: RepairPolicy) => T0 + p.ladder[0]!.timeoutMs + S;

  it('past its step timeout with no storm: the next attempt', () => {
    const st = inRepair(perDomain);
    expect(st.phase).toBe('Verifying');
    const d = decideFleet([node('r', 'a', 'unknown', st), ...healthy()], perDomain, late(perDomain))
      .decisions[0]!;
    expect(nextAttempt(d)).toHaveLength(1);
    expect(d.phase).toBe('Remediating');
  });

  it('its failure domain over maxUnhealthyPerDomain: waits at the recheck pace, no next attempt, no give-up; and escalates once the storm lifts', () => {
    const p = perDomain;
    const st = inRepair(p);
    const self = node('r', 'a', 'unknown', st);
    const d = decideFleet([self, ...zoneALost()], p, late(p)).decisions[0]!;
    expect(d.actions).toEqual([]);
    expect(d.phase).toBe('Verifying');
    expect(d.nextState?.remediation).toEqual(st.remediation);
    expect(d.requeueAfterMs).toBe(30 * S);
    expect(d.reason).toMatch(
      /storm guard: 3 of 3 nodes unhealthy in zone=a \(limit 1\).*waits \(no next attempt, no give-up\)/,
    );
    // The controller's quiet path cannot decide it alone: the fleet does, and pauses it too.
    expect(decideAlone(self, p, late(p))).toBeUndefined();
    const decider = newFleetDecider(p, T0);
    expect(decider.decide(self, zoneALost, late(p)).decision).toEqual(d);
    // Much later, the zone still cut off: still waiting.
    expect(
      nextAttempt(decideFleet([self, ...zoneALost()], p, late(p) + 60 * MIN).decisions[0]!),
    ).toEqual([]);
    // The link is back and r is still not Ready: now its timeout is evidence.
    const lifted = decideFleet([self, ...healthy()], p, late(p) + 61 * MIN).decisions[0]!;
    expect(nextAttempt(lifted)).toHaveLength(1);
  });

  it('the fleet over maxUnhealthy: waits too', () => {
    const p = fleetWide;
    const st = inRepair(p);
    const d = decideFleet([node('r', 'a', 'unknown', st), ...zoneALost()], p, late(p))
      .decisions[0]!;
    expect(d.actions).toEqual([]);
    expect(d.reason).toMatch(/storm guard: 3 of 6 nodes unhealthy \(limit 2\)/);
    expect(
      nextAttempt(
        decideFleet([node('r', 'a', 'unknown', st), ...healthy()], p, late(p)).decisions[0]!,
      ),
    ).toHaveLength(1);
  });

  it('a provider rejection still advances in a storm (only a timeout on stale status waits)', () => {
    const p = perDomain;
    const st = inRepair(p, 'Failed');
    const d = decideFleet(
      [node('r', 'a', 'unknown', st), ...zoneALost()],
      p,
      T0 + p.retryBackoffMs + S,
    ).decisions[0]!;
    expect(nextAttempt(d)).toHaveLength(1);
  });
});
