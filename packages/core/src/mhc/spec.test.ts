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

describe('MachineHealthCheck specs', () => {
  const v1beta1 = {
    apiVersion: 'cluster.x-k8s.io/v1beta1',
    kind: 'MachineHealthCheck',
    spec: {
      clusterName: 'prod',
      selector: { matchLabels: { pool: 'workers' } },
      unhealthyConditions: [
        { type: 'Ready', status: 'Unknown', timeout: '300s' },
        { type: 'Ready', status: 'False', timeout: '5m0s' },
      ],
      maxUnhealthy: '40%',
      nodeStartupTimeout: '20m',
      remediationTemplate: {
        apiVersion: 'infrastructure.noderepair.io/v1alpha1',
        kind: 'OpenStackRemediationTemplate',
        name: 'reboot',
      },
    },
  };
  const v1beta2 = {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'MachineHealthCheck',
    spec: {
      clusterName: 'prod',
      selector: { matchLabels: { pool: 'workers' } },
      checks: {
        nodeStartupTimeoutSeconds: 1200,
        unhealthyNodeConditions: [
          { type: 'Ready', status: 'Unknown', timeoutSeconds: 300 },
          { type: 'Ready', status: 'False', timeoutSeconds: 300 },
        ],
      },
      remediation: {
        triggerIf: { unhealthyLessThanOrEqualTo: '40%' },
        templateRef: {
          apiVersion: 'infrastructure.noderepair.io/v1alpha1',
          kind: 'OpenStackRemediationTemplate',
          name: 'reboot',
        },
      },
    },
  };

  it('v1beta1 and v1beta2 normalise to the same policy', () => {
    const a = ok(v1beta1);
    const b = ok(v1beta2);
    expect({ ...a, sourceVersion: 'x' }).toEqual({ ...b, sourceVersion: 'x' });
    expect(a.trigger).toEqual({ kind: 'maxUnhealthy', value: { percent: 40 }, text: '40%' });
    expect(a.nodeStartupTimeoutMs).toBe(1_200_000);
    expect(a.unhealthyNodeConditions[1]).toEqual({
      type: 'Ready',
      status: 'False',
      timeoutMs: 300_000,
    });
  });

  it('defaults: maxUnhealthy 100%, nodeStartupTimeout 10 minutes, no conditions', () => {
    const p = ok({
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      spec: { clusterName: 'c', selector: {} },
    });
    expect(p).toMatchObject({
      nodeStartupTimeoutMs: 600_000,
      trigger: { kind: 'maxUnhealthy', value: { percent: 100 } },
      unhealthyNodeConditions: [],
    });
    expect(
      ok({ apiVersion: 'cluster.x-k8s.io/v1beta1', spec: { clusterName: 'c', selector: {} } })
        .nodeStartupTimeoutMs,
    ).toBe(600_000);
  });

  it('an unhealthyRange wins over maxUnhealthy', () => {
    expect(ok({ ...v1beta1, spec: { ...v1beta1.spec, unhealthyRange: '[3-5]' } }).trigger).toEqual({
      kind: 'unhealthyRange',
      min: 3,
      max: 5,
      text: '[3-5]',
    });
  });

  it('clear errors naming the field', () => {
    expect(err({ apiVersion: 'cluster.x-k8s.io/v1alpha3', spec: {} })).toMatch(
      /expected apiVersion cluster.x-k8s.io\/v1beta1 or cluster.x-k8s.io\/v1beta2, got "cluster.x-k8s.io\/v1alpha3"/,
    );
    expect(err({ ...v1beta1, spec: { ...v1beta1.spec, unhealthyRange: '3-5' } })).toMatch(
      /spec.unhealthyRange: expected "\[min-max\]"/,
    );
    expect(err({ ...v1beta1, spec: { ...v1beta1.spec, unhealthyRange: '[5-3]' } })).toMatch(
      /max value 3 cannot be less than min value 5/,
    );
    expect(err({ ...v1beta1, spec: { ...v1beta1.spec, nodeStartupTimeout: '10s' } })).toMatch(
      /nodeStartupTimeout: must be 0 \(disabled\) or at least 30s/,
    );
    expect(
      err({
        ...v1beta2,
        spec: {
          ...v1beta2.spec,
          checks: {
            unhealthyMachineConditions: [{ type: 'Ready', status: 'False', timeoutSeconds: 1 }],
          },
        },
      }),
    ).toMatch(/type Ready is not allowed/);
    expect(
      err({
        ...v1beta2,
        spec: {
          ...v1beta2.spec,
          remediation: { triggerIf: { unhealthyLessThanOrEqualTo: 'lots' } },
        },
      }),
    ).toMatch(
      /spec.remediation.triggerIf.unhealthyLessThanOrEqualTo: expected a non-negative integer or "N%"/,
    );
    expect(
      err({
        ...v1beta1,
        spec: {
          ...v1beta1.spec,
          unhealthyConditions: [{ type: 'Ready', status: 'Maybe', timeout: '1m' }],
        },
      }),
    ).toMatch(/spec.unhealthyConditions\[0\].status: expected ConditionStatus, got "Maybe"/);
    expect(err({ apiVersion: 'cluster.x-k8s.io/v1beta2', spec: { selector: {} } })).toMatch(
      /spec.clusterName: expected string, got nothing/,
    );
  });
});
