// Table tests: one row per Cluster API MachineHealthCheck target rule, each for an MHC written
// in v1beta1 and in v1beta2 (they must judge alike), in the default order (the pinned v1.13)
// and in the older orders where those differ.
import { describe, expect, it } from 'vitest';
import { either } from 'fp-ts';
import { buildNode } from '../health/builders.js';
import { iso } from '../health/time.js';
import { evaluateTarget, nodeStartupComparisonTime } from './judge.js';
import { DefaultCapiRuleOrder } from './order.js';
import { decodeMachineHealthCheck, type MhcPolicy } from './spec.js';
import type { MhcCluster, MhcMachine, MhcTarget } from './target.js';

const S = 1000;
const MIN = 60 * S;
const T0 = Date.parse('2026-02-01T00:00:00Z');

interface Desc {
  node?: Array<[type: string, status: string, seconds: number]>;
  machine?: Array<[type: string, status: string, seconds: number]>;
  startupSeconds?: number;
}
const DEFAULT_NODE: NonNullable<Desc['node']> = [
  ['Ready', 'False', 300],
  ['Ready', 'Unknown', 300],
];

function decode(obj: unknown): MhcPolicy {
  const p = decodeMachineHealthCheck(obj);
  if (either.isLeft(p)) throw new Error(p.left);
  return p.right;
}
/** The same MHC written in both API versions (v1beta1 timeouts in Go duration text). */
function both(d: Desc = {}): Array<[string, MhcPolicy]> {
  const node = d.node ?? DEFAULT_NODE;
  const machine = d.machine ?? [];
  const base = { clusterName: 'c', selector: { matchLabels: { pool: 'w' } } };
  const goText = (s: number) => `${Math.floor(s / 60)}m${s % 60}s`;
  const v1beta1 = decode({
    apiVersion: 'cluster.x-k8s.io/v1beta1',
    spec: {
      ...base,
      unhealthyConditions: node.map(([type, status, s]) => ({ type, status, timeout: goText(s) })),
      ...(machine.length > 0
        ? {
            unhealthyMachineConditions: machine.map(([type, status, s]) => ({
              type,
              status,
              timeout: `${s}s`,
            })),
          }
        : {}),
      ...(d.startupSeconds !== undefined ? { nodeStartupTimeout: `${d.startupSeconds}s` } : {}),
    },
  });
  const v1beta2 = decode({
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    spec: {
      ...base,
      checks: {
        unhealthyNodeConditions: node.map(([type, status, timeoutSeconds]) => ({
          type,
          status,
          timeoutSeconds,
        })),
        ...(machine.length > 0
          ? {
              unhealthyMachineConditions: machine.map(([type, status, timeoutSeconds]) => ({
                type,
                status,
                timeoutSeconds,
              })),
            }
          : {}),
        ...(d.startupSeconds !== undefined ? { nodeStartupTimeoutSeconds: d.startupSeconds } : {}),
      },
    },
  });
  return [
    ['v1beta1', v1beta1],
    ['v1beta2', v1beta2],
  ];
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
const healthy = (name: string, nextCheckMs = 0) => ({
  machine: name,
  needsRemediation: false,
  nextCheckMs,
});

describe('evaluateTarget: the default order is the pinned release (v1.13)', () => {
  it('DefaultCapiRuleOrder is v1.13 and evaluateTarget uses it', () => {
    expect(DefaultCapiRuleOrder).toBe('v1.13');
    const [[, p]] = both({ machine: [['AppHealthy', 'False', 60]] }) as [[string, MhcPolicy]];
    const m = machine(
      'm',
      {},
      {
        nodeRef: { name: 'm' },
        conditions: [{ type: 'AppHealthy', status: 'False', lastTransitionTime: iso(T0) }],
      },
    );
    const t = target('m', 'ready', T0, m);
    expect(evaluateTarget(t, p, readyCluster, T0 + 10 * MIN)).toEqual(
      evaluateTarget(t, p, readyCluster, T0 + 10 * MIN, 'v1.13'),
    );
    expect(evaluateTarget(t, p, readyCluster, T0 + 10 * MIN)).toMatchObject({
      needsRemediation: true,
      reason: 'UnhealthyMachine',
    });
  });
});

describe.each(both())('evaluateTarget rules, MHC written in %s', (_version, p) => {
  const now = T0 + 60 * MIN;

  it('a healthy node: not unhealthy, nothing to requeue', () => {
    expect(evaluateTarget(target('m', 'ready', T0), p, readyCluster, now)).toEqual(healthy('m'));
  });

  it('remediate-machine annotation: unhealthy at once, even with a Ready node and closed cluster gates', () => {
    const t = target(
      'm',
      'ready',
      T0,
      machine('m', { annotations: { 'cluster.x-k8s.io/remediate-machine': '' } }),
    );
    for (const order of ['v1.10', 'v1.11', 'v1.12', 'v1.13'] as const) {
      for (const cluster of [readyCluster, { conditions: [] }]) {
        expect(evaluateTarget(t, p, cluster, now, order)).toEqual({
          machine: 'm',
          needsRemediation: true,
          reason: 'HasRemediateAnnotation',
          message:
            'Health check failed: marked for remediation via cluster.x-k8s.io/remediate-machine annotation',
          v1beta1Condition: {
            reason: 'HasRemediateMachineAnnotation',
            severity: 'Warning',
            message: 'Marked for remediation via remediate-machine annotation',
          },
          nextCheckMs: 0,
        });
      }
    }
  });

  it('failureReason / failureMessage: no rule since v1.11; v1.10 judges them unhealthy (v1beta1 condition only)', () => {
    const failing = (status: MhcMachine['status']) =>
      target('m', 'ready', T0, machine('m', {}, { nodeRef: { name: 'm' }, ...status }));
    const t = failing({ deprecated: { v1beta1: { failureReason: 'CreateError' } } });
    expect(evaluateTarget(t, p, readyCluster, now)).toEqual(healthy('m'));
    expect(evaluateTarget(t, p, readyCluster, now, 'v1.11')).toEqual(healthy('m'));
    expect(evaluateTarget(t, p, readyCluster, now, 'v1.10')).toEqual({
      machine: 'm',
      needsRemediation: true,
      reason: 'MachineHasFailure',
      message: 'FailureReason: CreateError',
      v1beta1Condition: {
        reason: 'MachineHasFailure',
        severity: 'Warning',
        message: 'FailureReason: CreateError',
      },
      nextCheckMs: 0,
    });
    expect(
      evaluateTarget(failing({ failureMessage: 'boom' }), p, readyCluster, now, 'v1.10'),
    ).toMatchObject({
      reason: 'MachineHasFailure',
      message: 'FailureMessage: boom',
    });
  });

  it('nodeRef set but Node gone: NodeDeleted; before v1.12 even with closed cluster gates, since v1.12 the gates come first', () => {
    const t: MhcTarget = { machine: machine('m'), node: undefined, nodeMissing: true };
    expect(evaluateTarget(t, p, readyCluster, now)).toEqual({
      machine: 'm',
      needsRemediation: true,
      reason: 'NodeDeleted',
      message: 'Health check failed:\n  * Node m has been deleted',
      v1beta1Condition: { reason: 'NodeNotFound', severity: 'Warning', message: '' },
      nextCheckMs: 0,
    });
    expect(evaluateTarget(t, p, { conditions: [] }, now)).toEqual(healthy('m'));
    for (const order of ['v1.10', 'v1.11'] as const) {
      expect(evaluateTarget(t, p, { conditions: [] }, now, order)).toEqual({
        machine: 'm',
        needsRemediation: true,
        reason: 'NodeDeleted',
        message: 'Health check failed: Node m has been deleted',
        v1beta1Condition: { reason: 'NodeNotFound', severity: 'Warning', message: '' },
        nextCheckMs: 0,
      });
    }
  });

  it('ControlPlaneInitialized not True: workers are not judged, control-plane machines are', () => {
    const cluster: MhcCluster = {
      conditions: [
        { type: 'InfrastructureReady', status: 'True', lastTransitionTime: iso(T0) },
        { type: 'ControlPlaneInitialized', status: 'False', lastTransitionTime: iso(T0) },
      ],
    };
    expect(evaluateTarget(target('w', 'unknown', T0), p, cluster, now)).toEqual(healthy('w'));
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
    for (const order of ['v1.10', 'v1.11', 'v1.12', 'v1.13'] as const)
      expect(evaluateTarget(cp, p, cluster, now, order).needsRemediation).toBe(false);
  });

  it('node conditions: unhealthy once lastTransitionTime + timeout is strictly before now, else requeue remaining + 1 s', () => {
    const since = T0 + 10 * MIN;
    expect(evaluateTarget(target('m', 'unknown', since), p, readyCluster, since + 2 * MIN)).toEqual(
      healthy('m', 3 * MIN + S),
    );
    expect(evaluateTarget(target('m', 'unknown', since), p, readyCluster, since + 5 * MIN)).toEqual(
      healthy('m', S),
    );
    expect(
      evaluateTarget(target('m', 'unknown', since), p, readyCluster, since + 5 * MIN + 1),
    ).toEqual({
      machine: 'm',
      needsRemediation: true,
      reason: 'UnhealthyNode',
      message:
        'Health check failed:\n  * Condition Ready on Node is reporting status Unknown with reason NodeStatusUnknown for more than 5m0s',
      v1beta1Condition: {
        reason: 'UnhealthyNode',
        severity: 'Warning',
        message:
          'Condition Ready on Node is reporting status Unknown with reason NodeStatusUnknown for more than 5m0s',
      },
      nextCheckMs: 0,
    });
    for (const order of ['v1.10', 'v1.11'] as const) {
      expect(
        evaluateTarget(target('m', 'unknown', since), p, readyCluster, since + 5 * MIN + 1, order),
      ).toMatchObject({
        reason: 'UnhealthyNode',
        message:
          'Health check failed: Condition Ready on Node is reporting status Unknown for more than 5m0s',
        v1beta1Condition: {
          reason: 'UnhealthyNode',
          message: 'Condition Ready on node is reporting status Unknown for more than 5m0s',
        },
      });
    }
  });

  it('a new lastTransitionTime restarts the clock (no memory of flapping)', () => {
    const first = target('m', 'unknown', T0 + 10 * MIN);
    expect(evaluateTarget(first, p, readyCluster, T0 + 14 * MIN).nextCheckMs).toBe(MIN + S);
    const again = target('m', 'unknown', T0 + 14 * MIN + 30 * S);
    expect(evaluateTarget(again, p, readyCluster, T0 + 16 * MIN)).toEqual(
      healthy('m', 3 * MIN + 30 * S + S),
    );
  });

  describe('no Node yet: nodeStartupTimeout from the latest of four timestamps', () => {
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
        // Default 10 minutes; 3 minutes after the latest: requeue after the remaining 7 min + 1 s.
        expect(evaluateTarget(t, p, cluster, T0 + 7 * MIN)).toEqual(healthy('m', 7 * MIN + S));
        // Exactly at the deadline: not yet (the comparison is strict), look again in 1 s.
        expect(evaluateTarget(t, p, cluster, T0 + 14 * MIN)).toEqual(healthy('m', S));
        expect(evaluateTarget(t, p, cluster, T0 + 14 * MIN + 1)).toEqual({
          machine: 'm',
          needsRemediation: true,
          reason: 'NodeStartupTimeout',
          message: 'Health check failed:\n  * Node failed to report startup in 10m0s',
          v1beta1Condition: {
            reason: 'NodeStartupTimeout',
            severity: 'Warning',
            message: 'Node failed to report startup in 10m0s',
          },
          nextCheckMs: 0,
        });
        expect(evaluateTarget(t, p, cluster, T0 + 14 * MIN + 1, 'v1.11')).toMatchObject({
          message: 'Health check failed: Node failed to report startup in 10m0s',
          v1beta1Condition: { message: 'Node failed to report startup in 10m0s' },
        });
      });
    }

    it('a machine read through v1beta1 is judged by its status.v1beta2 conditions', () => {
      const m = machine(
        'm',
        {},
        {
          conditions: [
            { type: 'InfrastructureReady', status: 'True', lastTransitionTime: iso(T0 + 30 * MIN) },
          ],
          v1beta2: {
            conditions: [
              {
                type: 'InfrastructureReady',
                status: 'True',
                lastTransitionTime: iso(T0 + 5 * MIN),
              },
            ],
          },
        },
      );
      expect(
        nodeStartupComparisonTime(
          { machine: m, node: undefined, nodeMissing: false },
          readyCluster,
        ),
      ).toBe(T0 + 5 * MIN);
    });

    it('ignores a timestamp whose condition is not True', () => {
      const m = machine(
        'm',
        {},
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
  });
});

describe('0 disables the startup check', () => {
  for (const [version, off] of both({ startupSeconds: 0 })) {
    it(`in ${version}`, () => {
      expect(off.nodeStartupTimeoutMs).toBe(0);
      const t: MhcTarget = { machine: machine('m', {}, {}), node: undefined, nodeMissing: false };
      for (const order of ['v1.11', 'v1.13'] as const)
        expect(evaluateTarget(t, off, readyCluster, T0 + 10 * 60 * MIN, order)).toEqual(
          healthy('m'),
        );
    });
  }
});

describe('several node conditions', () => {
  const desc: Desc = {
    node: [
      ['Ready', 'False', 60],
      ['DiskPressure', 'True', 600],
      ['KernelDeadlock', 'True', 120],
    ],
  };
  const node = (at: number) =>
    buildNode({
      name: 'm',
      ready: 'runtimeDown',
      since: T0,
      extraConditions: [
        {
          type: 'DiskPressure',
          status: 'True',
          reason: 'KubeletHasDiskPressure',
          lastTransitionTime: iso(at),
        },
        {
          type: 'KernelDeadlock',
          status: 'True',
          reason: 'DockerHung',
          lastTransitionTime: iso(at),
        },
      ],
    });
  for (const [version, p] of both(desc)) {
    it(`(${version}) a condition with another status is skipped; the shortest remaining time wins`, () => {
      const n = buildNode({
        name: 'm',
        ready: 'ready',
        since: T0,
        extraConditions: [
          { type: 'DiskPressure', status: 'True', lastTransitionTime: iso(T0 + 10 * MIN) },
          { type: 'KernelDeadlock', status: 'True', lastTransitionTime: iso(T0 + 10 * MIN) },
        ],
      });
      expect(
        evaluateTarget(
          { machine: machine('m'), node: n, nodeMissing: false },
          p,
          readyCluster,
          T0 + 11 * MIN,
        ),
      ).toEqual(healthy('m', MIN + S));
    });

    it(`(${version}) v1.13 reports every expired condition in spec order; v1.11 only the first`, () => {
      const t = { machine: machine('m'), node: node(T0), nodeMissing: false };
      const now = T0 + 30 * MIN;
      expect(evaluateTarget(t, p, readyCluster, now)).toMatchObject({
        reason: 'UnhealthyNode',
        message:
          'Health check failed:\n' +
          '  * Condition Ready on Node is reporting status False with reason KubeletNotReady for more than 1m0s\n' +
          '  * Condition DiskPressure on Node is reporting status True with reason KubeletHasDiskPressure for more than 10m0s\n' +
          '  * Condition KernelDeadlock on Node is reporting status True with reason DockerHung for more than 2m0s',
        v1beta1Condition: {
          reason: 'UnhealthyNode',
          message:
            'Condition Ready on Node is reporting status False with reason KubeletNotReady for more than 1m0s; ' +
            'Condition DiskPressure on Node is reporting status True with reason KubeletHasDiskPressure for more than 10m0s; ' +
            'Condition KernelDeadlock on Node is reporting status True with reason DockerHung for more than 2m0s',
        },
      });
      expect(evaluateTarget(t, p, readyCluster, now, 'v1.11').message).toBe(
        'Health check failed: Condition Ready on Node is reporting status False for more than 1m0s',
      );
    });
  }
});

describe('machine conditions (spec unhealthyMachineConditions, judged from v1.12)', () => {
  const desc: Desc = {
    node: [['Ready', 'Unknown', 300]],
    machine: [
      ['BootstrapSucceeded', 'False', 60],
      ['example.com/AppHealthy', 'False', 600],
    ],
  };
  const withConds = (
    conds: NonNullable<MhcMachine['status']>['conditions'],
    status: MhcMachine['status'] = { nodeRef: { name: 'm' } },
  ) => machine('m', {}, { ...status, conditions: conds });
  const bootstrapFalse = {
    type: 'BootstrapSucceeded',
    status: 'False',
    reason: 'BootstrapFailed',
    lastTransitionTime: iso(T0),
  };

  for (const [version, p] of both(desc)) {
    it(`(${version}) an expired machine condition: UnhealthyMachine, machine messages first, nothing dropped`, () => {
      const t: MhcTarget = {
        machine: withConds([bootstrapFalse]),
        node: buildNode({ name: 'm', ready: 'unknown', since: T0 }),
        nodeMissing: false,
      };
      expect(evaluateTarget(t, p, readyCluster, T0 + 10 * MIN)).toEqual({
        machine: 'm',
        needsRemediation: true,
        reason: 'UnhealthyMachine',
        message:
          'Health check failed:\n' +
          '  * Condition BootstrapSucceeded on Machine is reporting status False with reason BootstrapFailed for more than 1m0s\n' +
          '  * Condition Ready on Node is reporting status Unknown with reason NodeStatusUnknown for more than 5m0s',
        v1beta1Condition: {
          reason: 'UnhealthyMachine',
          severity: 'Warning',
          message:
            'Condition BootstrapSucceeded on Machine is reporting status False with reason BootstrapFailed for more than 1m0s; ' +
            'Condition Ready on Node is reporting status Unknown with reason NodeStatusUnknown for more than 5m0s',
        },
        nextCheckMs: 0,
      });
      // v1.11 has no machine conditions: only the node decides.
      expect(evaluateTarget(t, p, readyCluster, T0 + 10 * MIN, 'v1.11')).toMatchObject({
        reason: 'UnhealthyNode',
      });
      const healthyNode: MhcTarget = {
        ...t,
        node: buildNode({ name: 'm', ready: 'ready', since: T0 }),
      };
      expect(evaluateTarget(healthyNode, p, readyCluster, T0 + 10 * MIN, 'v1.11')).toEqual(
        healthy('m'),
      );
      expect(evaluateTarget(healthyNode, p, readyCluster, T0 + 10 * MIN, 'v1.12')).toMatchObject({
        reason: 'UnhealthyMachine',
      });
    });

    it(`(${version}) with a deleted Node: UnhealthyMachine, both reported (v1beta1 keeps the joined text)`, () => {
      const t: MhcTarget = {
        machine: withConds([bootstrapFalse]),
        node: undefined,
        nodeMissing: true,
      };
      expect(evaluateTarget(t, p, readyCluster, T0 + 10 * MIN)).toMatchObject({
        reason: 'UnhealthyMachine',
        message:
          'Health check failed:\n' +
          '  * Condition BootstrapSucceeded on Machine is reporting status False with reason BootstrapFailed for more than 1m0s\n' +
          '  * Node m has been deleted',
        v1beta1Condition: {
          reason: 'UnhealthyMachine',
          message:
            'Condition BootstrapSucceeded on Machine is reporting status False with reason BootstrapFailed for more than 1m0s; Node m has been deleted',
        },
      });
    });

    it(`(${version}) no Node yet: the startup timeout is still reported next to a machine condition`, () => {
      const t: MhcTarget = {
        machine: withConds([bootstrapFalse], {}),
        node: undefined,
        nodeMissing: false,
      };
      expect(evaluateTarget(t, p, readyCluster, T0 + 20 * MIN).message).toBe(
        'Health check failed:\n' +
          '  * Condition BootstrapSucceeded on Machine is reporting status False with reason BootstrapFailed for more than 1m0s\n' +
          '  * Node failed to report startup in 10m0s',
      );
      // Inside the startup window the machine condition alone decides.
      expect(evaluateTarget(t, p, readyCluster, T0 + 2 * MIN).message).toBe(
        'Health check failed:\n  * Condition BootstrapSucceeded on Machine is reporting status False with reason BootstrapFailed for more than 1m0s',
      );
    });

    it(`(${version}) not yet expired: the soonest of machine and node rechecks`, () => {
      const t: MhcTarget = {
        machine: withConds([
          {
            type: 'example.com/AppHealthy',
            status: 'False',
            lastTransitionTime: iso(T0 + 9 * MIN),
          },
        ]),
        node: buildNode({ name: 'm', ready: 'unknown', since: T0 + 8 * MIN }),
        nodeMissing: false,
      };
      // Machine: 10 min from T0+9 -> 9 min left; node: 5 min from T0+8 -> 3 min left.
      expect(evaluateTarget(t, p, readyCluster, T0 + 10 * MIN)).toEqual(healthy('m', 3 * MIN + S));
      // Node-less with the startup check off: the machine condition alone sets the recheck.
      const off = { ...p, nodeStartupTimeoutMs: 0 };
      expect(evaluateTarget({ ...t, node: undefined }, off, readyCluster, T0 + 10 * MIN)).toEqual(
        healthy('m', 9 * MIN + S),
      );
    });

    it(`(${version}) a Machine read through v1beta1: its status.v1beta2 conditions are the ones judged`, () => {
      const m = machine(
        'm',
        {},
        {
          nodeRef: { name: 'm' },
          conditions: [{ type: 'BootstrapSucceeded', status: 'True', lastTransitionTime: iso(T0) }],
          v1beta2: { conditions: [bootstrapFalse] },
        },
      );
      const t: MhcTarget = {
        machine: m,
        node: buildNode({ name: 'm', ready: 'ready', since: T0 }),
        nodeMissing: false,
      };
      expect(evaluateTarget(t, p, readyCluster, T0 + 10 * MIN)).toMatchObject({
        reason: 'UnhealthyMachine',
      });
    });
  }
});
