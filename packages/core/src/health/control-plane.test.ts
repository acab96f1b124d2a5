// Control-plane nodes (issue 42): left alone by default; with controlPlane.repair one at a
// time, never while another control-plane node is not Ready, never Replace. Through the fleet
// pass (decideFleet) and the virtual-time loop, which decide as the controller does.
import { describe, expect, it } from 'vitest';
import { either } from 'fp-ts';
import { TestScheduler } from 'rxjs/testing';
import { buildNode, type ReadyText } from './builders.js';
import { LabelNodeRoleControlPlane, LabelNodeRoleMaster } from './control-plane.js';
import { recordOutcome, type RepairDecision } from './decide.js';
import { decideFleet, type FleetMember } from './fleet.js';
import { resolveRepairPolicy, type RepairPolicy } from './policy.js';
import { runRepairLoop, type TimedObservation } from './runner.js';
import type { RepairState } from './state.js';

const S = 1000;
const MIN = 60 * S;
const H = 60 * MIN;
const T0 = Date.parse('2026-01-01T00:00:00Z');
const NOW = T0 + H;

function policy(input: object = {}): RepairPolicy {
  const p = resolveRepairPolicy({
    unhealthyConditions: [
      { type: 'Ready', status: 'False', timeout: '10s' },
      { type: 'Ready', status: 'Unknown', timeout: '10s' },
      { type: 'KernelDeadlock', status: 'True', timeout: '10s' },
    ],
    stormGuard: { maxUnhealthy: '100%', maxInFlight: 5 },
    ...input,
  });
  if (either.isLeft(p)) throw new Error(p.left);
  return p.right;
}
const optedIn = (input: object = {}) => policy({ controlPlane: { repair: true }, ...input });

const cp = { [LabelNodeRoleControlPlane]: '' };

function member(
  name: string,
  ready: ReadyText,
  opts: { labels?: Record<string, string>; state?: RepairState; deadlock?: boolean } = {},
): FleetMember {
  return {
    obs: {
      nodeName: name,
      node: buildNode({
        name,
        ready,
        since: T0,
        heartbeat: ready === 'ready' ? NOW - S : T0,
        ...(opts.labels !== undefined ? { labels: opts.labels } : {}),
        ...(opts.deadlock === true
          ? {
              extraConditions: [
                {
                  type: 'KernelDeadlock',
                  status: 'True',
                  lastTransitionTime: new Date(T0).toISOString(),
                },
              ],
            }
          : {}),
      }),
    },
    state: opts.state,
  };
}

const starts = (d: RepairDecision) => d.actions.some((a) => a.type === 'Remediate');
const touches = (d: RepairDecision) => d.actions.length > 0;

/** A state with a repair in flight (what the reconciler persisted when it started). */
function inRepair(name: string, p: RepairPolicy): RepairState {
  const d = decideFleet([member(name, 'unknown', { labels: cp })], p, NOW - 5 * MIN).decisions[0]!;
  expect(d.phase).toBe('Remediating');
  return d.nextState!;
}

describe('control-plane nodes, by default', () => {
  it('a NotReady control-plane node past its timeout is held, named, and never touched', () => {
    const f = decideFleet(
      [member('cp-1', 'unknown', { labels: cp }), member('w-1', 'ready')],
      policy(),
      NOW,
    );
    const d = f.decisions[0]!;
    expect(d.phase).toBe('Unhealthy');
    expect(d.actions).toEqual([]); // no Cordon, no Drain, no Remediate
    expect(d.held).toMatchObject({
      scope: 'actor',
      hold: { kind: 'actor', actor: 'ControlPlane' },
    });
    expect(d.reason).toContain(
      `control plane: a control-plane node (label ${LabelNodeRoleControlPlane})`,
    );
    expect(d.reason).toContain("the policy's controlPlane.repair is false");
    // Not a storm: nothing to cool down from.
    expect(d.nextState?.heldByStormSince).toBeUndefined();
  });

  it('the legacy master label counts too, whatever its value', () => {
    const d = decideFleet(
      [member('m-1', 'unknown', { labels: { [LabelNodeRoleMaster]: 'true' } })],
      policy(),
      NOW,
    ).decisions[0]!;
    expect(touches(d)).toBe(false);
    expect(d.reason).toContain(`label ${LabelNodeRoleMaster}`);
  });

  it('a worker beside it is repaired as before', () => {
    const f = decideFleet(
      [member('cp-1', 'unknown', { labels: cp }), member('w-1', 'unknown')],
      policy(),
      NOW,
    );
    expect(starts(f.decisions[1]!)).toBe(true);
  });

  it('the repair-now annotation does not start a repair of a control-plane node either', () => {
    const trigger = buildNode({
      name: 'cp-1',
      ready: 'ready',
      since: T0,
      heartbeat: NOW - S,
      labels: cp,
      annotations: { 'noderepair.io/repair-now': 'please' },
    });
    const d = decideFleet(
      [{ obs: { nodeName: 'cp-1', node: trigger }, state: undefined }],
      policy(),
      NOW,
    ).decisions[0]!;
    expect(touches(d)).toBe(false);
    expect(d.held?.hold).toMatchObject({ actor: 'ControlPlane' });
  });
});

describe('control-plane nodes, opted in (controlPlane.repair: true)', () => {
  it('a control-plane node with the rest of the control plane Ready is repaired', () => {
    const f = decideFleet(
      [
        member('cp-1', 'unknown', { labels: cp }),
        member('cp-2', 'ready', { labels: cp }),
        member('cp-3', 'ready', { labels: cp }),
      ],
      optedIn(),
      NOW,
    );
    expect(starts(f.decisions[0]!)).toBe(true);
  });

  it('a second control-plane node does not start while one is in repair', () => {
    const p = optedIn();
    const f = decideFleet(
      [
        member('cp-1', 'ready', { labels: cp, state: inRepair('cp-1', p), deadlock: true }),
        member('cp-2', 'ready', { labels: cp, deadlock: true }),
        member('cp-3', 'ready', { labels: cp }),
      ],
      p,
      NOW,
    );
    const d = f.decisions[1]!;
    expect(touches(d)).toBe(false);
    expect(d.held?.hold).toMatchObject({ kind: 'actor', actor: 'ControlPlane' });
    expect(d.reason).toContain(
      'control-plane node cp-1 is in repair: one control-plane node at a time',
    );
  });

  it('two control-plane nodes wanting a repair in the same pass: only the first starts', () => {
    const f = decideFleet(
      [
        member('cp-1', 'ready', { labels: cp, deadlock: true }),
        member('cp-2', 'ready', { labels: cp, deadlock: true }),
        member('cp-3', 'ready', { labels: cp }),
        member('w-1', 'ready', { deadlock: true }),
      ],
      optedIn(),
      NOW,
    );
    expect(f.decisions.map(starts)).toEqual([true, false, false, true]);
    expect(f.decisions[1]!.reason).toContain('control-plane node cp-1 is in repair');
  });

  it('no control-plane repair starts while another control-plane node is not Ready (quorum)', () => {
    const f = decideFleet(
      [
        member('cp-1', 'ready', { labels: cp, deadlock: true }),
        // NotReady but inside its timeout: not a repair of ours, still a missing member.
        {
          ...member('cp-2', 'unknown', { labels: cp }),
          obs: {
            nodeName: 'cp-2',
            node: buildNode({ name: 'cp-2', ready: 'unknown', since: NOW - 2 * S, labels: cp }),
          },
        },
        member('cp-3', 'ready', { labels: cp }),
      ],
      optedIn(),
      NOW,
    );
    const d = f.decisions[0]!;
    expect(touches(d)).toBe(false);
    expect(d.reason).toContain('control-plane node cp-2 is not Ready');
  });

  it('two control-plane nodes down: neither is repaired (a person decides)', () => {
    const f = decideFleet(
      [
        member('cp-1', 'unknown', { labels: cp }),
        member('cp-2', 'unknown', { labels: cp }),
        member('cp-3', 'ready', { labels: cp }),
      ],
      optedIn(),
      NOW,
    );
    expect(f.decisions.map(touches)).toEqual([false, false, false]);
  });

  it('a control-plane node under another actor counts as in repair', () => {
    const kured = { actor: 'Kured' as const, detail: 'kured reboots it', disrupting: true };
    const busy = member('cp-2', 'ready', { labels: cp });
    const f = decideFleet(
      [
        member('cp-1', 'ready', { labels: cp, deadlock: true }),
        { ...busy, obs: { ...busy.obs, actorHolds: [kured] } },
      ],
      optedIn(),
      NOW,
    );
    expect(f.decisions[0]!.reason).toContain('control-plane node cp-2 is in repair');
  });
});

describe('Replace is never used on a control-plane node', () => {
  /** Every decision that acted, as "<node> <action>" (virtual time, every action accepted). */
  function acted(p: RepairPolicy, labels: Record<string, string>): string[] {
    const scheduler = new TestScheduler((a, b) => expect(a).toEqual(b));
    scheduler.maxFrames = Number.POSITIVE_INFINITY;
    const obs: TimedObservation[] = [
      {
        at: T0,
        obs: { nodeName: 'a', node: buildNode({ name: 'a', ready: 'unknown', since: T0, labels }) },
      },
    ];
    const out: string[] = [];
    runRepairLoop({
      policy: p,
      scheduler,
      observations: obs,
      epochMs: T0,
      horizonMs: 3 * H,
    }).subscribe((d) => {
      for (const a of d.actions)
        if (a.type === 'Remediate') out.push(`${a.action}#${a.attempt}`);
        else if (a.type === 'GiveUp') out.push('GiveUp');
    });
    scheduler.flush();
    return out;
  }
  const ladder = [
    { action: 'HardReboot', timeout: '10m', attempts: 1 },
    { action: 'Replace', timeout: '15m', attempts: 1 },
  ];

  it('a worker climbs to Replace; a control-plane node gives up after the step before it', () => {
    expect(acted(optedIn({ ladder }), {})).toContain('Replace#1');
    const onCp = acted(optedIn({ ladder }), cp);
    expect(onCp).toEqual(['HardReboot#1', 'GiveUp']);
  });

  it('a policy that opts in with a ladder of Replace only is refused, naming the field', () => {
    const r = resolveRepairPolicy({
      controlPlane: { repair: true },
      ladder: [{ action: 'Replace' }],
    });
    expect(either.isLeft(r) && r.left).toContain(
      'controlPlane.repair: the ladder has no step but Replace, which is never used on a control-plane node',
    );
  });

  it("a condition rule's ladder of Replace only is refused too, naming the rule's field", () => {
    const rules = [
      { type: 'Ready', status: 'False', timeout: '10s' },
      { type: 'KernelDeadlock', status: 'True', timeout: '5m', ladder: [{ action: 'HardReboot' }] },
      {
        type: 'ReadonlyFilesystem',
        status: 'True',
        timeout: '5m',
        ladder: [{ action: 'Replace' }],
      },
    ];
    const r = resolveRepairPolicy({ controlPlane: { repair: true }, unhealthyConditions: rules });
    expect(either.isLeft(r) && r.left).toContain(
      'unhealthyConditions[2].ladder: has no step but Replace, which is never used on a control-plane node',
    );
    // Only that rule: the others and the top-level ladder are fine.
    expect(either.isLeft(r) && r.left).not.toContain('unhealthyConditions[1]');
    expect(either.isLeft(r) && r.left).not.toContain('controlPlane.repair: the ladder');
    // Without controlPlane.repair a control-plane node is left alone: nothing to refuse.
    expect(either.isRight(resolveRepairPolicy({ unhealthyConditions: rules }))).toBe(true);
    // A step before Replace is something a control-plane node may get.
    const withStep = rules.map((c, i) =>
      i === 2 ? { ...c, ladder: [{ action: 'HardReboot' }, { action: 'Replace' }] } : c,
    );
    const ok = resolveRepairPolicy({
      controlPlane: { repair: true },
      unhealthyConditions: withStep,
    });
    expect(either.isRight(ok)).toBe(true);
  });
});

describe('the controlPlane policy section', () => {
  it('defaults to repair: false; repair: true resolves', () => {
    expect(policy().controlPlane).toEqual({ repair: false });
    expect(optedIn().controlPlane).toEqual({ repair: true });
  });

  it('an unknown field or a wrong type is an error naming it', () => {
    const unknown = resolveRepairPolicy({ controlPlane: { repiar: true } });
    expect(either.isLeft(unknown) && unknown.left).toMatch(/controlPlane\.repiar/);
    const wrongType = resolveRepairPolicy({ controlPlane: { repair: 'yes' } });
    expect(either.isLeft(wrongType) && wrongType.left).toMatch(/controlPlane\.repair/);
    const notObject = resolveRepairPolicy({ controlPlane: true });
    expect(either.isLeft(notObject) && notObject.left).toMatch(/controlPlane/);
  });
});

describe('a Replace already under way on a control-plane node', () => {
  // A repair started before this rule (an older version, or before the node got its label)
  // may be at its Replace step: it is followed to its end, never dropped half-way.
  it('is followed to its DeleteNode step, not given up', () => {
    const p = policy({ ladder: [{ action: 'Replace', timeout: '15m' }] });
    const node = (labels: Record<string, string>) => {
      const n = buildNode({ name: 'n1', ready: 'unknown', since: T0, labels, bootID: 'boot-1' });
      return { ...n, spec: { taints: [], providerID: 'test:///n1' } };
    };
    const start = decideFleet(
      [{ obs: { nodeName: 'n1', node: node({}) }, state: undefined }],
      p,
      T0 + MIN,
    ).decisions[0]!;
    const rem = start.actions.find((a) => a.type === 'Remediate');
    if (rem?.type !== 'Remediate' || start.nextState === undefined) throw new Error('no start');
    expect(rem.action).toBe('Replace');
    const accepted = recordOutcome(start.nextState, {
      actionId: rem.actionId,
      result: 'Succeeded',
      at: T0 + MIN + S,
    });
    const d = decideFleet(
      [{ obs: { nodeName: 'n1', node: node(cp) }, state: accepted }],
      p,
      T0 + 2 * MIN,
    ).decisions[0]!;
    expect(d.phase).toBe('Verifying');
    expect(d.actions.map((a) => a.type)).toContain('DeleteNode');
  });
});
