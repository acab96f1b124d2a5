// A whole MachineHealthCheck pass: which Machines count, the short-circuit and its texts,
// remediationsAllowed and the requeue, as Cluster API v1.13 does them (older releases where
// they differ). Each MHC is written in v1beta2 here; judge.test.ts covers both versions.
import { describe, expect, it } from 'vitest';
import { either } from 'fp-ts';
import { buildNode } from '../health/builders.js';
import { iso } from '../health/time.js';
import { evaluateMachineHealthCheck } from './evaluate.js';
import { decodeMachineHealthCheck, type MhcPolicy } from './spec.js';
import type { MhcCluster, MhcMachine, MhcTarget } from './target.js';

const S = 1000;
const MIN = 60 * S;
const T0 = Date.parse('2026-02-01T00:00:00Z');

function policy(
  spec: Record<string, unknown> = {},
  apiVersion = 'cluster.x-k8s.io/v1beta2',
): MhcPolicy {
  const base = apiVersion.endsWith('v1beta2')
    ? {
        clusterName: 'c',
        selector: { matchLabels: { pool: 'w' } },
        checks: {
          unhealthyNodeConditions: [
            { type: 'Ready', status: 'False', timeoutSeconds: 300 },
            { type: 'Ready', status: 'Unknown', timeoutSeconds: 300 },
          ],
        },
      }
    : {
        clusterName: 'c',
        selector: { matchLabels: { pool: 'w' } },
        unhealthyConditions: [
          { type: 'Ready', status: 'False', timeout: '300s' },
          { type: 'Ready', status: 'Unknown', timeout: '5m0s' },
        ],
      };
  const p = decodeMachineHealthCheck({
    apiVersion,
    kind: 'MachineHealthCheck',
    spec: { ...base, ...spec },
  });
  if (either.isLeft(p)) throw new Error(p.left);
  return p.right;
}

const readyCluster: MhcCluster = {
  conditions: [
    { type: 'InfrastructureReady', status: 'True', lastTransitionTime: iso(T0) },
    { type: 'ControlPlaneInitialized', status: 'True', lastTransitionTime: iso(T0) },
  ],
};

function machine(
  name: string,
  extra: Partial<MhcMachine['metadata']> = {},
  status: MhcMachine['status'] = { nodeRef: { name } },
): MhcMachine {
  return { metadata: { name, namespace: 'default', creationTimestamp: iso(T0), ...extra }, status };
}

function target(
  name: string,
  ready: Parameters<typeof buildNode>[0]['ready'],
  since: number,
  m: MhcMachine = machine(name),
): MhcTarget {
  return { machine: m, node: buildNode({ name, ready, since }), nodeMissing: false };
}

describe('evaluateMachineHealthCheck: skip, count, short-circuit', () => {
  const now = T0 + 60 * MIN;

  it('paused and skip-remediation Machines are neither judged nor counted', () => {
    const targets = [
      target('a', 'unknown', T0, machine('a', { annotations: { 'cluster.x-k8s.io/paused': '' } })),
      target(
        'b',
        'unknown',
        T0,
        machine('b', { annotations: { 'cluster.x-k8s.io/skip-remediation': '' } }),
      ),
      target('c', 'ready', T0),
    ];
    const e = evaluateMachineHealthCheck(targets, policy(), readyCluster, now);
    expect(e).toMatchObject({
      targets: ['c'],
      expectedMachines: 1,
      currentHealthy: 1,
      unhealthy: [],
    });
  });

  it('percentages round down: 40% of 7 allows 2, so 3 unhealthy trips the short-circuit', () => {
    const pol = policy({ remediation: { triggerIf: { unhealthyLessThanOrEqualTo: '40%' } } });
    const mk = (bad: number) =>
      Array.from({ length: 7 }, (_, i) => target(`m${i}`, i < bad ? 'unknown' : 'ready', T0));
    const two = evaluateMachineHealthCheck(mk(2), pol, readyCluster, now);
    expect(two).toMatchObject({
      remediationAllowed: true,
      remediationsAllowed: 0,
      unhealthyCount: 2,
      condition: { status: 'True', reason: 'RemediationAllowed' },
    });
    const three = evaluateMachineHealthCheck(mk(3), pol, readyCluster, now);
    expect(three).toMatchObject({
      remediationAllowed: false,
      remediationsAllowed: 0,
      requeue: false, // v1.13: no requeue while blocked
      condition: { status: 'False', reason: 'TooManyUnhealthy' },
    });
    expect(three.restrictedEvent).toBe(
      'Remediation is not allowed, the number of not started or unhealthy machines exceeds maxUnhealthy (total: 7, unhealthy: 3, maxUnhealthy: 40%)',
    );
    // 49% of 2 = 0.98 -> 0: a single unhealthy machine of two is already too many.
    const pol49 = policy({ remediation: { triggerIf: { unhealthyLessThanOrEqualTo: '49%' } } });
    expect(
      evaluateMachineHealthCheck(
        [target('a', 'unknown', T0), target('b', 'ready', T0)],
        pol49,
        readyCluster,
        now,
      ).remediationAllowed,
    ).toBe(false);
  });

  it('machines still inside their timeout and machines without a node count as unhealthy', () => {
    const pol = policy({ remediation: { triggerIf: { unhealthyLessThanOrEqualTo: 1 } } });
    const targets = [
      target('pending', 'unknown', now - MIN), // inside the 5 min timeout
      {
        machine: machine('nonode', { creationTimestamp: iso(now - 2 * MIN) }, {}),
        node: undefined,
        nodeMissing: false,
      }, // still starting
      target('ok', 'ready', T0),
    ];
    const e = evaluateMachineHealthCheck(targets, pol, readyCluster, now);
    expect(e).toMatchObject({
      expectedMachines: 3,
      currentHealthy: 1,
      unhealthyCount: 2,
      remediationAllowed: false,
      unhealthy: [],
    });
    // Nobody is unhealthy yet, so no RemediationRestricted event.
    expect(e.restrictedEvent).toBeUndefined();
  });

  it('allowed: remediationsAllowed = limit - unhealthy, requeue after the soonest next check', () => {
    const pol = policy({ remediation: { triggerIf: { unhealthyLessThanOrEqualTo: 3 } } });
    const targets = [
      target('bad', 'unknown', T0),
      target('soon', 'unknown', now - 4 * MIN),
      target('later', 'runtimeDown', now - MIN),
      target('ok', 'ready', T0),
    ];
    const e = evaluateMachineHealthCheck(targets, pol, readyCluster, now);
    expect(e).toMatchObject({
      remediationAllowed: true,
      remediationsAllowed: 0,
      requeueAfterMs: MIN + S,
      requeue: false,
    });
    expect(e.unhealthy.map((u) => u.machine)).toEqual(['bad']);
    expect(e.pending.map((u) => u.machine)).toEqual(['soon', 'later']);
  });

  it('unhealthyRange wins over maxUnhealthy: allowed only inside [min-max]', () => {
    const pol = policy({
      remediation: { triggerIf: { unhealthyInRange: '[2-3]', unhealthyLessThanOrEqualTo: '100%' } },
    });
    const mk = (bad: number) =>
      Array.from({ length: 6 }, (_, i) => target(`m${i}`, i < bad ? 'unknown' : 'ready', T0));
    expect(evaluateMachineHealthCheck(mk(1), pol, readyCluster, now).remediationAllowed).toBe(
      false,
    );
    expect(evaluateMachineHealthCheck(mk(2), pol, readyCluster, now)).toMatchObject({
      remediationAllowed: true,
      remediationsAllowed: 1,
    });
    expect(evaluateMachineHealthCheck(mk(3), pol, readyCluster, now)).toMatchObject({
      remediationAllowed: true,
      remediationsAllowed: 0,
    });
    const four = evaluateMachineHealthCheck(mk(4), pol, readyCluster, now);
    expect(four.remediationAllowed).toBe(false);
    expect(four.condition.message).toBe(
      'Remediation is not allowed, the number of not started or unhealthy machines does not fall within the range (total: 6, unhealthy: 4, unhealthyRange: [2-3])',
    );
  });

  it('a deleting Machine with a healthy node is not counted healthy', () => {
    const t = target('d', 'ready', T0, machine('d', { deletionTimestamp: iso(now) }));
    expect(evaluateMachineHealthCheck([t], policy(), readyCluster, now)).toMatchObject({
      currentHealthy: 0,
      unhealthyCount: 1,
    });
  });
});

describe('evaluateMachineHealthCheck: edge values and the blocked requeue (v1.13)', () => {
  const now = T0 + 60 * MIN;
  const fleet = (bad: number, size: number) =>
    Array.from({ length: size }, (_, i) => target(`m${i}`, i < bad ? 'unknown' : 'ready', T0));

  it('a blocked remediation asks for no requeue in v1.12+ (the default); v1.10 and v1.11 asked for one', () => {
    const pol = policy({ remediation: { triggerIf: { unhealthyLessThanOrEqualTo: 1 } } });
    const e = evaluateMachineHealthCheck(fleet(2, 3), pol, readyCluster, now);
    expect(e).toMatchObject({ remediationAllowed: false, requeue: false });
    expect(e.requeueAfterMs).toBeUndefined();
    expect(evaluateMachineHealthCheck(fleet(2, 3), pol, readyCluster, now, 'v1.12').requeue).toBe(
      false,
    );
    expect(evaluateMachineHealthCheck(fleet(2, 3), pol, readyCluster, now, 'v1.11').requeue).toBe(
      true,
    );
    expect(evaluateMachineHealthCheck(fleet(2, 3), pol, readyCluster, now, 'v1.10').requeue).toBe(
      true,
    );
  });

  it('"150%" is a limit above the fleet size: 4 unhealthy of 4 are remediated, 2 more would be allowed', () => {
    for (const [spec, version] of [
      [
        { remediation: { triggerIf: { unhealthyLessThanOrEqualTo: '150%' } } },
        'cluster.x-k8s.io/v1beta2',
      ],
      [{ maxUnhealthy: '150%' }, 'cluster.x-k8s.io/v1beta1'],
    ] as const) {
      const e = evaluateMachineHealthCheck(fleet(4, 4), policy(spec, version), readyCluster, now);
      expect(e).toMatchObject({
        remediationAllowed: true,
        remediationsAllowed: 2,
        unhealthyCount: 4,
      });
      expect(e.unhealthy).toHaveLength(4);
    }
  });

  it('a negative maxUnhealthy (accepted by the webhook) never allows remediation', () => {
    for (const v of [-1, '-10%']) {
      const e = evaluateMachineHealthCheck(
        fleet(0, 3),
        policy({ remediation: { triggerIf: { unhealthyLessThanOrEqualTo: v } } }),
        readyCluster,
        now,
      );
      expect(e).toMatchObject({
        remediationAllowed: false,
        unhealthyCount: 0,
        condition: { reason: 'TooManyUnhealthy' },
      });
      expect(e.restrictedEvent).toBeUndefined();
    }
  });

  it('an integer maxUnhealthy prints as a number in the message', () => {
    const e = evaluateMachineHealthCheck(
      fleet(2, 3),
      policy({ remediation: { triggerIf: { unhealthyLessThanOrEqualTo: 1 } } }),
      readyCluster,
      now,
    );
    expect(e.condition.message).toBe(
      'Remediation is not allowed, the number of not started or unhealthy machines exceeds maxUnhealthy (total: 3, unhealthy: 2, maxUnhealthy: 1)',
    );
  });

  it('without a trigger the default is 100%', () => {
    const e = evaluateMachineHealthCheck(fleet(3, 3), policy(), readyCluster, now);
    expect(e).toMatchObject({ remediationAllowed: true, remediationsAllowed: 0 });
  });
});
