// Decoding both API versions into the policy Cluster API v1.13 stores: what the v1beta1 ->
// v1beta2 conversion keeps (machine conditions, timeouts truncated to seconds) and what its
// webhook and CRD schema accept or refuse.
import { describe, expect, it } from 'vitest';
import { either } from 'fp-ts';
import { decodeMachineHealthCheck } from './spec.js';

const ok = (obj: unknown) => {
  const r = decodeMachineHealthCheck(obj);
  if (either.isLeft(r)) throw new Error(r.left);
  return r.right;
};
const err = (obj: unknown) => {
  const r = decodeMachineHealthCheck(obj);
  if (either.isRight(r)) throw new Error('expected an error');
  return r.left;
};
const selector = { matchLabels: { pool: 'workers' } };
const v1 = (spec: Record<string, unknown>) => ({
  apiVersion: 'cluster.x-k8s.io/v1beta1',
  kind: 'MachineHealthCheck',
  spec: { clusterName: 'prod', selector, ...spec },
});
const v2 = (spec: Record<string, unknown>) => ({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'MachineHealthCheck',
  spec: { clusterName: 'prod', selector, ...spec },
});
const sameExceptVersion = (a: object, b: object) =>
  expect({ ...a, sourceVersion: 'x' }).toEqual({ ...b, sourceVersion: 'x' });

describe('MachineHealthCheck specs', () => {
  const template = {
    apiVersion: 'infrastructure.noderepair.io/v1alpha1',
    kind: 'OpenStackRemediationTemplate',
    name: 'reboot',
  };
  const v1beta1 = v1({
    unhealthyConditions: [
      { type: 'Ready', status: 'Unknown', timeout: '300s' },
      { type: 'Ready', status: 'False', timeout: '5m0s' },
    ],
    unhealthyMachineConditions: [
      { type: 'example.com/AppHealthy', status: 'False', timeout: '2m' },
    ],
    maxUnhealthy: '40%',
    nodeStartupTimeout: '20m',
    remediationTemplate: template,
  });
  const v1beta2 = v2({
    checks: {
      nodeStartupTimeoutSeconds: 1200,
      unhealthyNodeConditions: [
        { type: 'Ready', status: 'Unknown', timeoutSeconds: 300 },
        { type: 'Ready', status: 'False', timeoutSeconds: 300 },
      ],
      unhealthyMachineConditions: [
        { type: 'example.com/AppHealthy', status: 'False', timeoutSeconds: 120 },
      ],
    },
    remediation: { triggerIf: { unhealthyLessThanOrEqualTo: '40%' }, templateRef: template },
  });

  it('v1beta1 and v1beta2 normalise to the same policy, machine conditions included', () => {
    const a = ok(v1beta1);
    const b = ok(v1beta2);
    sameExceptVersion(a, b);
    expect(a.trigger).toEqual({ kind: 'maxUnhealthy', value: { percent: 40 }, text: '40%' });
    expect(a.nodeStartupTimeoutMs).toBe(1_200_000);
    expect(a.unhealthyMachineConditions).toEqual([
      { type: 'example.com/AppHealthy', status: 'False', timeoutMs: 120_000 },
    ]);
  });

  it('v1beta1 timeouts are truncated to whole seconds, as the conversion does', () => {
    const p = ok(
      v1({
        unhealthyConditions: [
          { type: 'Ready', status: 'Unknown', timeout: '5.9s' },
          { type: 'Ready', status: 'False', timeout: '1m30.999s' },
          { type: 'DiskPressure', status: 'True', timeout: '999ms' },
        ],
        unhealthyMachineConditions: [{ type: 'A', status: 'False', timeout: '1.5h' }],
        nodeStartupTimeout: '30.9s',
      }),
    );
    expect(p.unhealthyNodeConditions.map((c) => c.timeoutMs)).toEqual([5_000, 90_000, 0]);
    expect(p.unhealthyMachineConditions[0]?.timeoutMs).toBe(5_400_000);
    expect(p.nodeStartupTimeoutMs).toBe(30_000);
    // "500ms" truncates to 0 s, which the webhook reads as "disabled", so it is accepted.
    expect(ok(v1({ nodeStartupTimeout: '500ms' })).nodeStartupTimeoutMs).toBe(0);
    // "29.9s" truncates to 29 s: refused like any other value under 30 s.
    expect(err(v1({ nodeStartupTimeout: '29.9s' }))).toMatch(
      /spec.nodeStartupTimeout: must be 0 \(disabled\) or at least 30s/,
    );
  });

  it('v1beta1 durations are Go durations: a bare number or unknown unit is refused', () => {
    expect(
      err(v1({ unhealthyConditions: [{ type: 'Ready', status: 'Unknown', timeout: '300' }] })),
    ).toMatch(/spec.unhealthyConditions\[0\].timeout: expected a Go duration such as "5m0s"/);
    expect(
      err(v1({ unhealthyConditions: [{ type: 'Ready', status: 'Unknown', timeout: 300 }] })),
    ).toMatch(/expected a Go duration string/);
    expect(err(v1({ nodeStartupTimeout: '1d' }))).toMatch(/expected a Go duration/);
    expect(
      err(v1({ unhealthyMachineConditions: [{ type: 'A', status: 'False', timeout: '-5s' }] })),
    ).toMatch(/spec.unhealthyMachineConditions\[0\].timeout: a timeout must not be negative/);
  });

  it('defaults: maxUnhealthy 100%, nodeStartupTimeout 10 minutes, no conditions', () => {
    for (const obj of [v2({}), v1({})]) {
      expect(ok(obj)).toMatchObject({
        nodeStartupTimeoutMs: 600_000,
        trigger: { kind: 'maxUnhealthy', value: { percent: 100 }, text: '100%' },
        unhealthyNodeConditions: [],
        unhealthyMachineConditions: [],
      });
    }
  });

  it('maxUnhealthy: an int or a percentage as intstr reads it; "5" is refused, "150%" accepted', () => {
    const max = (v: unknown) => [
      decodeMachineHealthCheck(v1({ maxUnhealthy: v })),
      decodeMachineHealthCheck(
        v2({ remediation: { triggerIf: { unhealthyLessThanOrEqualTo: v } } }),
      ),
    ];
    for (const r of max('5')) {
      expect(either.isLeft(r)).toBe(true);
      expect(either.isLeft(r) && r.left).toMatch(
        /must be either an int or a percentage: invalid value for IntOrString: invalid type: string is not a percentage, got "5"/,
      );
    }
    for (const r of max('150%'))
      expect(either.isRight(r) && r.right.trigger).toEqual({
        kind: 'maxUnhealthy',
        value: { percent: 150 },
        text: '150%',
      });
    for (const r of max(5))
      expect(either.isRight(r) && r.right.trigger).toMatchObject({
        value: { count: 5 },
        text: '5',
      });
    // Accepted by the webhook although no count can ever be under them.
    for (const r of max(-1))
      expect(either.isRight(r) && r.right.trigger).toMatchObject({ value: { count: -1 } });
    for (const r of max('-5%'))
      expect(either.isRight(r) && r.right.trigger).toMatchObject({ value: { percent: -5 } });
    for (const bad of ['lots', '%', '4.5%', ' 5%'])
      for (const r of max(bad)) expect(either.isLeft(r)).toBe(true);
    expect(either.isLeft(max(1.5)[0] as either.Either<string, unknown>)).toBe(true);
    expect(err(v1({ maxUnhealthy: '5' }))).toMatch(
      /^invalid MachineHealthCheck \(v1beta1\): spec.maxUnhealthy: /,
    );
    expect(err(v2({ remediation: { triggerIf: { unhealthyLessThanOrEqualTo: '5' } } }))).toMatch(
      /spec.remediation.triggerIf.unhealthyLessThanOrEqualTo: must be either an int/,
    );
  });

  it('an unhealthyRange wins over maxUnhealthy; a reversed or oversized range is refused', () => {
    expect(ok(v1({ maxUnhealthy: '40%', unhealthyRange: '[3-5]' })).trigger).toEqual({
      kind: 'unhealthyRange',
      min: 3,
      max: 5,
      text: '[3-5]',
    });
    expect(
      ok(
        v2({
          remediation: { triggerIf: { unhealthyInRange: '[0-0]', unhealthyLessThanOrEqualTo: 1 } },
        }),
      ).trigger,
    ).toMatchObject({ kind: 'unhealthyRange', min: 0, max: 0 });
    expect(err(v1({ unhealthyRange: '3-5' }))).toMatch(
      /spec.unhealthyRange: expected "\[min-max\]"/,
    );
    expect(err(v1({ unhealthyRange: '[5-3]' }))).toMatch(
      /spec.unhealthyRange: max value 3 cannot be less than min value 5 for unhealthyRange/,
    );
    expect(err(v2({ remediation: { triggerIf: { unhealthyInRange: '[1-4294967296]' } } }))).toMatch(
      /spec.remediation.triggerIf.unhealthyInRange: values must fit in 32 bits/,
    );
  });

  it('the selector must not be empty, must parse and may only name its own cluster (webhook)', () => {
    for (const make of [v1, v2]) {
      expect(err(make({ selector: {} }))).toMatch(/spec.selector: selector must not be empty/);
      expect(
        err(make({ selector: { matchLabels: { 'cluster.x-k8s.io/cluster-name': 'other' } } })),
      ).toMatch(/cannot specify a cluster selector other than the one specified by ClusterName/);
      expect(
        ok(make({ selector: { matchLabels: { 'cluster.x-k8s.io/cluster-name': 'prod' } } }))
          .selector,
      ).toEqual({ matchLabels: { 'cluster.x-k8s.io/cluster-name': 'prod' } });
      expect(
        err(
          make({
            selector: { matchExpressions: [{ key: 'pool', operator: 'Equals', values: ['a'] }] },
          }),
        ),
      ).toMatch(
        /spec.selector.matchExpressions\[0\].operator: "Equals" is not a valid label selector operator/,
      );
      expect(
        err(make({ selector: { matchExpressions: [{ key: 'pool', operator: 'In' }] } })),
      ).toMatch(/values: must be specified when operator is In/);
      expect(
        ok(make({ selector: { matchExpressions: [{ key: 'pool', operator: 'Exists' }] } }))
          .selector,
      ).toEqual({ matchExpressions: [{ key: 'pool', operator: 'Exists' }] });
    }
  });

  it('machine-condition checks on conditions the MHC machinery owns are refused, in both versions', () => {
    for (const type of [
      'Ready',
      'Available',
      'HealthCheckSucceeded',
      'OwnerRemediated',
      'ExternallyRemediated',
    ]) {
      expect(
        err(v1({ unhealthyMachineConditions: [{ type, status: 'False', timeout: '1m' }] })),
      ).toMatch(
        new RegExp(
          `spec.unhealthyMachineConditions\\[0\\].type: type must not be one of: .*\\(type ${type} is not allowed\\)`,
        ),
      );
      expect(
        err(
          v2({
            checks: { unhealthyMachineConditions: [{ type, status: 'False', timeoutSeconds: 60 }] },
          }),
        ),
      ).toMatch(/spec.checks.unhealthyMachineConditions\[0\].type: type must not be one of/);
    }
  });

  it('at most 100 checks per list', () => {
    const many = Array.from({ length: 101 }, (_, i) => ({
      type: `C${i}`,
      status: 'True',
      timeout: '1m',
    }));
    expect(err(v1({ unhealthyConditions: many }))).toMatch(
      /spec.unhealthyConditions: at most 100 items allowed, got 101/,
    );
    expect(err(v1({ unhealthyMachineConditions: many }))).toMatch(
      /spec.unhealthyMachineConditions: at most 100 items allowed, got 101/,
    );
  });

  it('v1beta2 checks need timeoutSeconds (schema: required, whole seconds >= 0)', () => {
    expect(
      err(v2({ checks: { unhealthyNodeConditions: [{ type: 'Ready', status: 'Unknown' }] } })),
    ).toMatch(
      /spec.checks.unhealthyNodeConditions\[0\].timeoutSeconds: expected a whole number of seconds >= 0/,
    );
    expect(
      err(
        v2({
          checks: {
            unhealthyMachineConditions: [{ type: 'A', status: 'False', timeoutSeconds: 1.5 }],
          },
        }),
      ),
    ).toMatch(/timeoutSeconds: expected a whole number of seconds >= 0/);
    expect(err(v2({ checks: { nodeStartupTimeoutSeconds: -1 } }))).toMatch(
      /nodeStartupTimeoutSeconds: expected a whole number of seconds >= 0/,
    );
    expect(err(v2({ checks: { nodeStartupTimeoutSeconds: 29 } }))).toMatch(
      /spec.checks.nodeStartupTimeoutSeconds: must be 0 \(disabled\) or at least 30s/,
    );
  });

  it('clear errors naming the field', () => {
    expect(err({ apiVersion: 'cluster.x-k8s.io/v1alpha3', spec: {} })).toMatch(
      /expected apiVersion cluster.x-k8s.io\/v1beta1 or cluster.x-k8s.io\/v1beta2, got "cluster.x-k8s.io\/v1alpha3"/,
    );
    expect(
      err(v1({ unhealthyConditions: [{ type: 'Ready', status: 'Maybe', timeout: '1m' }] })),
    ).toMatch(
      /spec.unhealthyConditions\[0\].status: expected one of True, False, Unknown, got "Maybe"/,
    );
    expect(err({ apiVersion: 'cluster.x-k8s.io/v1beta2', spec: { selector } })).toMatch(
      /spec.clusterName: expected string, got nothing/,
    );
    // Several problems are reported together.
    expect(err(v2({ selector: {}, checks: { nodeStartupTimeoutSeconds: 10 } }))).toMatch(
      /selector must not be empty; spec.checks.nodeStartupTimeoutSeconds: must be 0/,
    );
  });
});
