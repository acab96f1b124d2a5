// Reconcile helpers against a real kube-apiserver: finalizers under optimistic locking,
// SSA conflicts as typed errors, events.k8s.io/v1 series.
import { describe, expect, it } from 'vitest';
import { useControlPlane } from '@noderepair/envtest/vitest';
import { createKubeClient } from '../../kube/client-node/index.js';
import { ConflictError } from '../../kube/errors.js';
import type { KubeObject } from '../../kube/object.js';
import { ConfigMapResource, EventResource } from '../../kube/resource.js';
import type { KubeEvent } from '../../kube/types.js';
import { EventRecorder } from './event-recorder.js';
import { addFinalizer, hasFinalizer, removeFinalizer } from './finalizers.js';
import { ownerReferenceFor, withOwnerReference } from './owner-references.js';
import { ServerSideApplier } from './server-side-apply.js';

const env = useControlPlane();
interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

describe('helpers on a real apiserver', () => {
  it('adds and removes finalizers; a stale copy fails with ConflictError', async () => {
    const c = createKubeClient(env.kubeConfig);
    const ns = await env.namespace('helpers');
    const cm = await c.create<ConfigMap>(ConfigMapResource, {
      metadata: { name: 'f', namespace: ns, finalizers: ['other.io/keep'] },
    });
    const withF = await addFinalizer(c, ConfigMapResource, cm, 'noderepair.dev/cleanup');
    expect(withF.metadata?.finalizers).toEqual(['other.io/keep', 'noderepair.dev/cleanup']);
    expect(await addFinalizer(c, ConfigMapResource, withF, 'noderepair.dev/cleanup')).toBe(withF); // no-op
    await expect(
      removeFinalizer(
        c,
        ConfigMapResource,
        { ...cm, metadata: { ...cm.metadata, finalizers: ['noderepair.dev/cleanup'] } },
        'noderepair.dev/cleanup',
      ),
    ).rejects.toBeInstanceOf(ConflictError);
    const without = await removeFinalizer(c, ConfigMapResource, withF, 'noderepair.dev/cleanup');
    expect(without.metadata?.finalizers).toEqual(['other.io/keep']);
    expect(hasFinalizer(without, 'noderepair.dev/cleanup')).toBe(false);
    await removeFinalizer(c, ConfigMapResource, without, 'other.io/keep');
  });

  it('SSA helper: owner reference applied; unforced conflict is typed; status split', async () => {
    const c = createKubeClient(env.kubeConfig);
    const ns = await env.namespace('helpers');
    const owner = await c.create<ConfigMap>(ConfigMapResource, {
      metadata: { name: 'owner', namespace: ns },
    });
    const mine = new ServerSideApplier(c, { fieldManager: 'noderepair-test' });
    const theirs = new ServerSideApplier(c, { fieldManager: 'someone-else', force: false });
    const desired = withOwnerReference<ConfigMap>(
      {
        metadata: { name: 'child', namespace: ns, uid: 'ignored', resourceVersion: '1' },
        data: { k: 'mine' },
      },
      ownerReferenceFor(owner, { controller: true }),
    );
    const applied = await mine.apply(ConfigMapResource, desired);
    expect(applied.metadata?.ownerReferences?.[0]?.uid).toBe(owner.metadata?.uid);
    const err = await theirs
      .apply(ConfigMapResource, {
        metadata: { name: 'child', namespace: ns },
        data: { k: 'theirs' },
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect((err as ConflictError).message).toContain('noderepair-test');
  });

  it('records an events.k8s.io/v1 Event and counts repeats in its series', async () => {
    const c = createKubeClient(env.kubeConfig);
    const ns = await env.namespace('helpers');
    const cm = await c.create<ConfigMap>(ConfigMapResource, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'subject', namespace: ns },
    });
    const rec = new EventRecorder(c, {
      reportingController: 'noderepair.dev/test',
      reportingInstance: 'test-1',
    });
    for (let i = 0; i < 3; i++)
      await rec.record(
        { apiVersion: 'v1', kind: 'ConfigMap', ...cm },
        { type: 'Warning', reason: 'TestReason', action: 'Testing', note: 'same thing again' },
      );
    const list = await c.list<KubeEvent>(EventResource, { namespace: ns });
    const mine = list.items.filter((e) => e.reason === 'TestReason');
    expect(mine).toHaveLength(1);
    expect(mine[0]!.series?.count).toBe(3);
    expect(mine[0]!.regarding?.uid).toBe(cm.metadata?.uid);
  });
});
