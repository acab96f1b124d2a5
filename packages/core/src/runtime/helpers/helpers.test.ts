import { describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import type { KubeObject } from '../../kube/object.js';
import { NodeResource } from '../../kube/resource.js';
import { RestKubeClient, type HttpRequest, type HttpResponse } from '../../kube/rest-client.js';
import { EventRecorder, microTime } from './event-recorder.js';
import {
  controllerReferenceOf,
  isControlledBy,
  ownerReferenceFor,
  withOwnerReference,
} from './owner-references.js';
import { toApplyConfiguration } from './server-side-apply.js';
import { hasFinalizer, isBeingDeleted } from './finalizers.js';

const owner = {
  apiVersion: 'cluster.x-k8s.io/v1beta1',
  kind: 'Machine',
  metadata: { name: 'm1', namespace: 'ns', uid: 'u1' },
};

describe('owner references', () => {
  it('builds, adds and recognises a controller reference', () => {
    const ref = ownerReferenceFor(owner, { controller: true, blockOwnerDeletion: true });
    expect(ref).toEqual({
      apiVersion: 'cluster.x-k8s.io/v1beta1',
      kind: 'Machine',
      name: 'm1',
      uid: 'u1',
      controller: true,
      blockOwnerDeletion: true,
    });
    const child = withOwnerReference<KubeObject>({ metadata: { name: 'c' } }, ref);
    expect(isControlledBy(child, owner)).toBe(true);
    expect(controllerReferenceOf(withOwnerReference(child, ref))).toEqual(ref); // idempotent
    expect(child.metadata?.ownerReferences).toHaveLength(1);
    const other = ownerReferenceFor(
      { ...owner, metadata: { ...owner.metadata, uid: 'u2' } },
      { controller: true },
    );
    expect(() => withOwnerReference(child, other)).toThrow(/already controlled by Machine m1/);
    expect(() => ownerReferenceFor({ kind: 'X', metadata: { name: 'x' } })).toThrow(/uid=missing/);
  });
});

describe('finalizers (pure parts)', () => {
  it('detects finalizers and deletion', () => {
    const o = {
      metadata: { name: 'a', finalizers: ['x/y'], deletionTimestamp: '2026-01-01T00:00:00Z' },
    };
    expect(hasFinalizer(o, 'x/y')).toBe(true);
    expect(hasFinalizer(o, 'z')).toBe(false);
    expect(isBeingDeleted(o)).toBe(true);
  });
});

describe('toApplyConfiguration', () => {
  it('strips server-owned fields and splits status', () => {
    const node = {
      metadata: {
        name: 'n',
        uid: 'u',
        resourceVersion: '5',
        managedFields: [{}],
        labels: { a: 'b' },
        creationTimestamp: 't',
      },
      spec: { unschedulable: true },
      status: { conditions: [] },
    };
    expect(toApplyConfiguration(NodeResource, node)).toEqual({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n', labels: { a: 'b' } },
      spec: { unschedulable: true },
    });
    expect(toApplyConfiguration(NodeResource, node, 'status')).toEqual({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n' },
      status: { conditions: [] },
    });
  });
});

describe('EventRecorder', () => {
  it('creates one events.k8s.io/v1 Event and turns repeats into a series', async () => {
    const seen: HttpRequest[] = [];
    const client = new RestKubeClient({
      request: async (r: HttpRequest): Promise<HttpResponse> => {
        seen.push(r);
        return { status: 201, body: r.body ?? '{}' };
      },
      stream: async () => {
        throw new Error('no watches here');
      },
    });
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const rec = new EventRecorder(client, {
      reportingController: 'noderepair.dev/test',
      reportingInstance: 'pod-1',
      clock,
    });
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', uid: 'nu' } };
    await rec.record(node, {
      type: 'Warning',
      reason: 'NodeNotReady',
      action: 'Reboot',
      note: 'kubelet down',
    });
    clock.advance(1000);
    await rec.record(node, {
      type: 'Warning',
      reason: 'NodeNotReady',
      action: 'Reboot',
      note: 'kubelet down',
    });
    clock.advance(1000);
    await rec.record(node, {
      type: 'Warning',
      reason: 'NodeNotReady',
      action: 'Reboot',
      note: 'kubelet down',
    });
    await rec.record(node, { type: 'Normal', reason: 'Rebooted', action: 'Reboot' });
    expect(seen.map((r) => r.method)).toEqual(['POST', 'PATCH', 'PATCH', 'POST']);
    const created = JSON.parse(seen[0]!.body!);
    expect(created).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      type: 'Warning',
      reason: 'NodeNotReady',
      action: 'Reboot',
      reportingController: 'noderepair.dev/test',
      regarding: { kind: 'Node', name: 'n1', uid: 'nu' },
      metadata: { namespace: 'default' },
    });
    expect(created.eventTime).toBe('2026-01-01T00:00:00.000000Z');
    expect(seen[2]!.path).toContain(`/namespaces/default/events/${created.metadata.name}`);
    expect(JSON.parse(seen[2]!.body!)).toEqual({
      series: { count: 3, lastObservedTime: microTime(Date.UTC(2026, 0, 1) + 2000) },
    });
  });

  it('never throws when the API refuses', async () => {
    const client = new RestKubeClient({
      request: async () => ({
        status: 403,
        body: JSON.stringify({ kind: 'Status', code: 403, reason: 'Forbidden', message: 'no' }),
      }),
      stream: async () => {
        throw new Error('no');
      },
    });
    const rec = new EventRecorder(client, { reportingController: 'c', reportingInstance: 'i' });
    await expect(
      rec.record(
        { kind: 'Node', metadata: { name: 'n' } },
        { type: 'Normal', reason: 'R', action: 'A' },
      ),
    ).resolves.toBeUndefined();
  });
});
