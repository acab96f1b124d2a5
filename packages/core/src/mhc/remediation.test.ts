// What Cluster API's MHC writes on an unhealthy Machine once remediation is allowed
// (patchUnhealthyTargets), and the MachineMarkedUnhealthy event text.
import { describe, expect, it } from 'vitest';
import { either } from 'fp-ts';
import { machineMarkedUnhealthyEvent } from './messages.js';
import { capiRemediationMark } from './remediation.js';
import { decodeMachineHealthCheck, type MhcPolicy } from './spec.js';
import type { MhcCluster, MhcMachine } from './target.js';

const decode = (obj: unknown): MhcPolicy => {
  const p = decodeMachineHealthCheck(obj);
  if (either.isLeft(p)) throw new Error(p.left);
  return p.right;
};
const base = { clusterName: 'c', selector: { matchLabels: { pool: 'w' } } };
const owner = decode({ apiVersion: 'cluster.x-k8s.io/v1beta2', spec: base });
const external = decode({
  apiVersion: 'cluster.x-k8s.io/v1beta1',
  spec: {
    ...base,
    remediationTemplate: { apiVersion: 'x.io/v1', kind: 'XRemediationTemplate', name: 'r' },
  },
});
const cluster: MhcCluster = { conditions: [] };
const m = (
  status: MhcMachine['status'] = {},
  meta: Partial<MhcMachine['metadata']> = {},
): MhcMachine => ({
  metadata: { name: 'm', namespace: 'ns', ...meta },
  status,
});

describe('capiRemediationMark', () => {
  it('without a template: OwnerRemediated=False "Waiting for remediation" (v1beta2) and an empty v1beta1 message', () => {
    expect(capiRemediationMark(m(), owner, cluster)).toEqual({
      kind: 'owner',
      ownerRemediated: {
        type: 'OwnerRemediated',
        status: 'False',
        reason: 'WaitingForRemediation',
        message: 'Waiting for remediation',
      },
      ownerRemediatedV1Beta1: {
        type: 'OwnerRemediated',
        reason: 'WaitingForRemediation',
        severity: 'Warning',
        message: '',
      },
    });
  });

  it('a remediation in progress (OwnerRemediated present and not True) is left to the owner, per list', () => {
    const inProgress = { type: 'OwnerRemediated', status: 'False', reason: 'MachineDeleting' };
    expect(
      capiRemediationMark(
        m({ conditions: [inProgress], deprecated: { v1beta1: { conditions: [] } } }),
        owner,
        cluster,
      ),
    ).toEqual({
      kind: 'owner',
      ownerRemediatedV1Beta1: {
        type: 'OwnerRemediated',
        reason: 'WaitingForRemediation',
        severity: 'Warning',
        message: '',
      },
    });
    // A Machine read through v1beta1: status.conditions is the v1beta1 list, status.v1beta2 the metav1 one.
    expect(
      capiRemediationMark(
        m({ conditions: [inProgress], v1beta2: { conditions: [] } }),
        owner,
        cluster,
      ),
    ).toEqual({
      kind: 'owner',
      ownerRemediated: {
        type: 'OwnerRemediated',
        status: 'False',
        reason: 'WaitingForRemediation',
        message: 'Waiting for remediation',
      },
    });
    const done = { type: 'OwnerRemediated', status: 'True' };
    expect(capiRemediationMark(m({ conditions: [done] }), owner, cluster)).toMatchObject({
      kind: 'owner',
      ownerRemediated: { status: 'False' },
    });
  });

  it('with a template: ExternallyRemediated=False/WaitingForRemediation (no message), even for a deleting Machine', () => {
    const want = {
      kind: 'external',
      externallyRemediated: {
        type: 'ExternallyRemediated',
        status: 'False',
        reason: 'WaitingForRemediation',
      },
    };
    expect(capiRemediationMark(m(), external, cluster)).toEqual(want);
    expect(
      capiRemediationMark(m({}, { deletionTimestamp: '2026-01-01T00:00:00Z' }), external, cluster),
    ).toEqual(want);
  });

  it('nothing for a deleting Machine without a template, or when the Cluster or Machine is paused', () => {
    expect(
      capiRemediationMark(m({}, { deletionTimestamp: '2026-01-01T00:00:00Z' }), owner, cluster),
    ).toEqual({ kind: 'none', why: 'deleting' });
    expect(capiRemediationMark(m(), owner, { conditions: [], paused: true })).toEqual({
      kind: 'none',
      why: 'paused',
    });
    expect(
      capiRemediationMark(
        m({}, { annotations: { 'cluster.x-k8s.io/paused': '' } }),
        external,
        cluster,
      ),
    ).toEqual({ kind: 'none', why: 'paused' });
  });
});

describe('machineMarkedUnhealthyEvent', () => {
  it('names both objects as namespace/name (klog.KObj)', () => {
    expect(
      machineMarkedUnhealthyEvent(
        { name: 'm', namespace: 'ns' },
        { name: 'workers', namespace: 'ns' },
      ),
    ).toEqual({
      type: 'Normal',
      reason: 'MachineMarkedUnhealthy',
      message: 'Machine ns/m has been marked as unhealthy by ns/workers',
    });
    expect(machineMarkedUnhealthyEvent({ name: 'm' }, { name: 'w' }).message).toBe(
      'Machine m has been marked as unhealthy by w',
    );
  });
});
