// Table tests: one row per Cluster API MachineHealthCheck rule (cluster-api.md, "How a target
// is judged" and "Short-circuit"), plus the v1.12 rule order.
import { describe, expect, it } from 'vitest';
import { either } from 'fp-ts';
import { buildNode } from '../health/builders.js';
import { iso } from '../health/time.js';
import {
  evaluateMachineHealthCheck,
  evaluateTarget,
  nodeStartupComparisonTime,
} from './evaluate.js';
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
        selector: {},
        checks: {
          unhealthyNodeConditions: [
            { type: 'Ready', status: 'False', timeoutSeconds: 300 },
            { type: 'Ready', status: 'Unknown', timeoutSeconds: 300 },
          ],
        },
      }
    : {
        clusterName: 'c',
        selector: {},
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

describe('evaluateTarget: the rules in order', () => {
  const p = policy();
  const now = T0 + 60 * MIN;

  it('a healthy node: not unhealthy, nothing to requeue', () => {
    expect(evaluateTarget(target('m', 'ready', T0), p, readyCluster, now)).toEqual({
      machine: 'm',
      needsRemediation: false,
      nextCheckMs: 0,
    });
  });

  it('remediate-machine annotation: unhealthy at once, even with a Ready node and closed cluster gates', () => {
    const t = target(
      'm',
      'ready',
      T0,
      machine('m', { annotations: { 'cluster.x-k8s.io/remediate-machine': '' } }),
    );
    for (const cluster of [readyCluster, { conditions: [] }]) {
      expect(evaluateTarget(t, p, cluster, now)).toMatchObject({
        needsRemediation: true,
        reason: 'HasRemediateAnnotation',
      });
    }
  });

  it('v1.11: failureReason / failureMessage on the Machine are unhealthy at once', () => {
    const t = target(
      'm',
      'ready',
      T0,
      machine(
        'm',
        {},
        { nodeRef: { name: 'm' }, deprecated: { v1beta1: { failureReason: 'CreateError' } } },
      ),
    );
    expect(evaluateTarget(t, p, readyCluster, now)).toMatchObject({
      needsRemediation: true,
      reason: 'MachineHasFailure',
      message: 'FailureReason: CreateError',
    });
    const t2 = target(
      'm',
      'ready',
      T0,
      machine('m', {}, { nodeRef: { name: 'm' }, failureMessage: 'boom' }),
    );
    expect(evaluateTarget(t2, p, readyCluster, now)).toMatchObject({
      reason: 'MachineHasFailure',
      message: 'FailureMessage: boom',
    });
    expect(evaluateTarget(t, p, readyCluster, now, 'v1.12').needsRemediation).toBe(false);
  });

  it('nodeRef set but Node gone: unhealthy at once (NodeDeleted), before the cluster gates in v1.11', () => {
    const t: MhcTarget = { machine: machine('m'), node: undefined, nodeMissing: true };
    expect(evaluateTarget(t, p, readyCluster, now)).toMatchObject({
      needsRemediation: true,
      reason: 'NodeDeleted',
      message: 'Health check failed: Node m has been deleted',
    });
    expect(evaluateTarget(t, p, { conditions: [] }, now)).toMatchObject({
      needsRemediation: true,
      reason: 'NodeDeleted',
    });
    // v1.12 checks the gates first.
    expect(evaluateTarget(t, p, { conditions: [] }, now, 'v1.12')).toEqual({
      machine: 'm',
      needsRemediation: false,
      nextCheckMs: 0,
    });
  });

  it('ControlPlaneInitialized not True: workers are not judged, control-plane machines are', () => {
    const cluster: MhcCluster = {
      conditions: [
        { type: 'InfrastructureReady', status: 'True', lastTransitionTime: iso(T0) },
        { type: 'ControlPlaneInitialized', status: 'False', lastTransitionTime: iso(T0) },
      ],
    };
    expect(evaluateTarget(target('w', 'unknown', T0), p, cluster, now)).toEqual({
      machine: 'w',
      needsRemediation: false,
      nextCheckMs: 0,
    });
    const cp = target(
      'cp',
      'unknown',
      T0,
      machine('cp', { labels: { 'cluster.x-k8s.io/control-plane': '' } }),
    );
    expect(evaluateTarget(cp, p, cluster, now)).toMatchObject({
      needsRemediation: true,
      reason: 'UnhealthyNode',
    });
  });

  it('InfrastructureReady not True: nobody is judged, control plane included', () => {
    const cluster: MhcCluster = {
      conditions: [
        { type: 'ControlPlaneInitialized', status: 'True', lastTransitionTime: iso(T0) },
      ],
    };
    const cp = target(
      'cp',
      'unknown',
      T0,
      machine('cp', { labels: { 'cluster.x-k8s.io/control-plane': '' } }),
    );
    expect(evaluateTarget(cp, p, cluster, now).needsRemediation).toBe(false);
  });

  describe('no Node yet: nodeStartupTimeout from the latest of four timestamps', () => {
    const pol = policy({ checks: { nodeStartupTimeoutSeconds: 600, unhealthyNodeConditions: [] } });
    const rows: Array<[string, number, number, number, number]> = [
      // [latest is, machine created, cluster InfrastructureReady, ControlPlaneInitialized, machine InfrastructureReady]
      ['machine creation', T0 + 4 * MIN, T0, T0 + MIN, T0 + 2 * MIN],
      ['cluster InfrastructureReady', T0, T0 + 4 * MIN, T0 + MIN, T0 + 2 * MIN],
      ['ControlPlaneInitialized', T0, T0 + MIN, T0 + 4 * MIN, T0 + 2 * MIN],
      ['machine InfrastructureReady', T0, T0 + MIN, T0 + 2 * MIN, T0 + 4 * MIN],
    ];
    for (const [which, created, infra, cpInit, mInfra] of rows) {
      it(`uses ${which}`, () => {
        const cluster: MhcCluster = {
          conditions: [
            { type: 'InfrastructureReady', status: 'True', lastTransitionTime: iso(infra) },
            { type: 'ControlPlaneInitialized', status: 'True', lastTransitionTime: iso(cpInit) },
          ],
        };
        const m = machine(
          'm',
          { creationTimestamp: iso(created) },
          {
            conditions: [
              { type: 'InfrastructureReady', status: 'True', lastTransitionTime: iso(mInfra) },
            ],
          },
        );
        const t: MhcTarget = { machine: m, node: undefined, nodeMissing: false };
        expect(nodeStartupComparisonTime(t, cluster)).toBe(T0 + 4 * MIN);
        // 3 minutes after the latest: requeue after the remaining 7 min + 1 s.
        expect(evaluateTarget(t, pol, cluster, T0 + 7 * MIN)).toEqual({
          machine: 'm',
          needsRemediation: false,
          nextCheckMs: 7 * MIN + S,
        });
        // Exactly at the deadline: not yet (the comparison is strict), look again in 1 s.
        expect(evaluateTarget(t, pol, cluster, T0 + 14 * MIN)).toEqual({
          machine: 'm',
          needsRemediation: false,
          nextCheckMs: S,
        });
        expect(evaluateTarget(t, pol, cluster, T0 + 14 * MIN + 1)).toMatchObject({
          needsRemediation: true,
          reason: 'NodeStartupTimeout',
          message: 'Health check failed: Node failed to report startup in 10m',
        });
      });
    }

    it('ignores a timestamp whose condition is not True', () => {
      const m = machine(
        'm',
        { creationTimestamp: iso(T0) },
        {
          conditions: [
            {
              type: 'InfrastructureReady',
              status: 'False',
              lastTransitionTime: iso(T0 + 30 * MIN),
            },
          ],
        },
      );
      expect(
        nodeStartupComparisonTime(
          { machine: m, node: undefined, nodeMissing: false },
          readyCluster,
        ),
      ).toBe(T0);
    });

    it('0 disables the startup check', () => {
      const off = policy({ checks: { nodeStartupTimeoutSeconds: 0 } });
      expect(
        evaluateTarget(
          { machine: machine('m', {}, {}), node: undefined, nodeMissing: false },
          off,
          readyCluster,
          T0 + 10 * 60 * MIN,
        ),
      ).toEqual({ machine: 'm', needsRemediation: false, nextCheckMs: 0 });
    });
  });

  describe('node conditions', () => {
    it('unhealthy once lastTransitionTime + timeout is strictly before now; otherwise requeue remaining + 1 s', () => {
      const since = T0 + 10 * MIN;
      expect(
        evaluateTarget(target('m', 'unknown', since), p, readyCluster, since + 2 * MIN),
      ).toEqual({ machine: 'm', needsRemediation: false, nextCheckMs: 3 * MIN + S });
      expect(
        evaluateTarget(target('m', 'unknown', since), p, readyCluster, since + 5 * MIN),
      ).toEqual({ machine: 'm', needsRemediation: false, nextCheckMs: S });
      expect(
        evaluateTarget(target('m', 'unknown', since), p, readyCluster, since + 5 * MIN + 1),
      ).toMatchObject({
        needsRemediation: true,
        reason: 'UnhealthyNode',
        message:
          'Health check failed: Condition Ready on Node is reporting status Unknown for more than 5m',
      });
    });

    it('a new lastTransitionTime restarts the clock (no memory of flapping)', () => {
      // Unknown for 4 min, Ready for a moment, Unknown again: the clock starts over.
      const first = target('m', 'unknown', T0 + 10 * MIN);
      expect(evaluateTarget(first, p, readyCluster, T0 + 14 * MIN).nextCheckMs).toBe(MIN + S);
      const again = target('m', 'unknown', T0 + 14 * MIN + 30 * S);
      expect(evaluateTarget(again, p, readyCluster, T0 + 16 * MIN)).toEqual({
        machine: 'm',
        needsRemediation: false,
        nextCheckMs: 3 * MIN + 30 * S + S,
      });
    });

    it('a condition with another status is skipped; the shortest remaining time wins', () => {
      const pol = policy({
        checks: {
          unhealthyNodeConditions: [
            { type: 'Ready', status: 'False', timeoutSeconds: 60 },
            { type: 'DiskPressure', status: 'True', timeoutSeconds: 600 },
            { type: 'KernelDeadlock', status: 'True', timeoutSeconds: 120 },
          ],
        },
      });
      const node = buildNode({
        name: 'm',
        ready: 'ready',
        since: T0,
        extraConditions: [
          { type: 'DiskPressure', status: 'True', lastTransitionTime: iso(T0 + 10 * MIN) },
          { type: 'KernelDeadlock', status: 'True', lastTransitionTime: iso(T0 + 10 * MIN) },
        ],
      });
      const e = evaluateTarget(
        { machine: machine('m'), node, nodeMissing: false },
        pol,
        readyCluster,
        T0 + 11 * MIN,
      );
      expect(e).toEqual({ machine: 'm', needsRemediation: false, nextCheckMs: MIN + S });
    });
  });

  describe('v1.12: machine conditions', () => {
    const pol = policy({
      checks: {
        unhealthyNodeConditions: [{ type: 'Ready', status: 'Unknown', timeoutSeconds: 300 }],
        unhealthyMachineConditions: [
          { type: 'BootstrapSucceeded', status: 'False', timeoutSeconds: 60 },
        ],
      },
    });
    const m = machine(
      'm',
      {},
      {
        nodeRef: { name: 'm' },
        conditions: [{ type: 'BootstrapSucceeded', status: 'False', lastTransitionTime: iso(T0) }],
      },
    );
    it('an expired machine condition makes the target unhealthy with reason UnhealthyMachine, messages merged', () => {
      const t: MhcTarget = {
        machine: m,
        node: buildNode({ name: 'm', ready: 'unknown', since: T0 }),
        nodeMissing: false,
      };
      expect(evaluateTarget(t, pol, readyCluster, T0 + 10 * MIN, 'v1.12')).toEqual({
        machine: 'm',
        needsRemediation: true,
        reason: 'UnhealthyMachine',
        message:
          'Health check failed: Condition Ready on Node is reporting status Unknown for more than 5m; Condition BootstrapSucceeded on Machine is reporting status False for more than 1m',
        nextCheckMs: 0,
      });
    });
    it('with NodeDeleted, the reason becomes UnhealthyMachine', () => {
      expect(
        evaluateTarget(
          { machine: m, node: undefined, nodeMissing: true },
          pol,
          readyCluster,
          T0 + 10 * MIN,
          'v1.12',
        ),
      ).toMatchObject({
        reason: 'UnhealthyMachine',
        message:
          'Health check failed: Node m has been deleted; Condition BootstrapSucceeded on Machine is reporting status False for more than 1m',
      });
    });
  });
});

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
      requeue: true,
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
