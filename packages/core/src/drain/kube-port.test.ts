import { describe, expect, it } from 'vitest';
import {
  ConflictError,
  InternalError,
  NotFoundError,
  TooManyRequestsError,
} from '../kube/errors.js';
import { evictionResultFromError, nodePatchBody } from './kube-port.js';
import { OutOfServiceTaint } from './executor.js';

describe('nodePatchBody', () => {
  const node = {
    spec: {
      taints: [
        { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' },
        { key: 'dedicated', value: 'db', effect: 'NoSchedule' },
      ],
    },
  };

  it('cordons with true and uncordons by removing the field', () => {
    expect(nodePatchBody(node, { unschedulable: true })).toEqual({ spec: { unschedulable: true } });
    expect(nodePatchBody(node, { unschedulable: false })).toEqual({
      spec: { unschedulable: null },
    });
  });

  it('adds a taint once, keeping the others (a merge patch replaces the whole list)', () => {
    const once = nodePatchBody(node, { addTaints: [OutOfServiceTaint] }).spec['taints'];
    expect(once).toEqual([...node.spec.taints, OutOfServiceTaint]);
    const withIt = { spec: { taints: [...node.spec.taints, OutOfServiceTaint] } };
    expect(nodePatchBody(withIt, { addTaints: [OutOfServiceTaint] }).spec['taints']).toEqual([
      ...node.spec.taints,
      OutOfServiceTaint,
    ]);
  });

  it('removes taints by key, and sends null for an empty list', () => {
    expect(
      nodePatchBody(node, { removeTaintKeys: ['node.kubernetes.io/unreachable'] }).spec['taints'],
    ).toEqual([{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }]);
    expect(
      nodePatchBody(node, { removeTaintKeys: ['node.kubernetes.io/unreachable', 'dedicated'] })
        .spec['taints'],
    ).toBeNull();
    expect(nodePatchBody({}, { unschedulable: true }).spec).not.toHaveProperty('taints');
  });
});

describe('evictionResultFromError', () => {
  it('maps a PodDisruptionBudget refusal, a missing pod and other API errors', () => {
    expect(
      evictionResultFromError(
        new TooManyRequestsError({
          kind: 'Status',
          code: 429,
          reason: 'TooManyRequests',
          message: "Cannot evict pod as it would violate the pod's disruption budget.",
        }),
      ),
    ).toEqual({
      kind: 'TooManyRequests',
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
    });
    expect(
      evictionResultFromError(new NotFoundError({ kind: 'Status', code: 404, reason: 'NotFound' })),
    ).toEqual({ kind: 'NotFound' });
    expect(
      evictionResultFromError(
        new InternalError({
          kind: 'Status',
          code: 500,
          reason: 'InternalError',
          message: 'etcd timeout',
        }),
      ),
    ).toEqual({
      kind: 'Error',
      status: 500,
      message: 'etcd timeout',
    });
    expect(
      evictionResultFromError(new ConflictError({ kind: 'Status', code: 409, reason: 'Conflict' })),
    ).toMatchObject({ kind: 'Error', status: 409 });
    expect(evictionResultFromError(new Error('socket hang up'))).toEqual({
      kind: 'Error',
      message: 'socket hang up',
    });
  });
});
