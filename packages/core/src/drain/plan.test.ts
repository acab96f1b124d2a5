import { describe, expect, it } from 'vitest';
import { planDrain } from './plan.js';
import type { PodSnapshot } from './pod.js';

const pod = (
  name: string,
  extra: {
    owner?: string;
    mirror?: boolean;
    emptyDir?: boolean;
    phase?: string;
    deleting?: boolean;
  } = {},
): PodSnapshot => ({
  metadata: {
    name,
    namespace: 'ns',
    ...(extra.mirror ? { annotations: { 'kubernetes.io/config.mirror': 'abc' } } : {}),
    ...(extra.owner
      ? { ownerReferences: [{ kind: extra.owner, name: `${name}-owner`, controller: true }] }
      : {}),
    ...(extra.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
  },
  spec: { nodeName: 'n', volumes: extra.emptyDir ? [{ name: 'scratch', emptyDir: {} }] : [] },
  status: { phase: extra.phase ?? 'Running' },
});

describe('planDrain', () => {
  const pods = [
    pod('web', { owner: 'ReplicaSet' }),
    pod('ds', { owner: 'DaemonSet' }),
    pod('static', { mirror: true }),
    pod('bare'),
    pod('cache', { owner: 'StatefulSet', emptyDir: true }),
    pod('job-done', { phase: 'Succeeded' }),
    pod('going', { owner: 'ReplicaSet', deleting: true }),
  ];

  it('defaults: skip DaemonSet, mirror and terminating pods; evict managed pods, emptyDir ones and finished pods; block unmanaged pods', () => {
    const p = planDrain(pods);
    expect(p.evict.map((r) => r.name)).toEqual(['web', 'cache', 'job-done']);
    expect(p.skip).toEqual([
      { pod: { namespace: 'ns', name: 'ds' }, reason: 'DaemonSet' },
      { pod: { namespace: 'ns', name: 'static' }, reason: 'MirrorPod' },
      { pod: { namespace: 'ns', name: 'going' }, reason: 'Terminating' },
    ]);
    expect(p.blocked).toEqual([
      {
        pod: { namespace: 'ns', name: 'bare' },
        reason: 'UnmanagedPod',
        message: 'ns/bare has no controller; nothing would recreate it (force is off)',
      },
    ]);
  });

  it('force evicts unmanaged pods; emptyDir pods are blocked unless deleteEmptyDirData', () => {
    const p = planDrain(pods, { ignoreDaemonSets: true, deleteEmptyDirData: false, force: true });
    expect(p.evict.map((r) => r.name)).toEqual(['web', 'bare', 'job-done']);
    expect(p.blocked.map((b) => [b.pod.name, b.reason])).toEqual([['cache', 'LocalStorage']]);
  });

  it('DaemonSet pods block the drain when ignoreDaemonSets is off (as kubectl drain does)', () => {
    const p = planDrain(pods, { ignoreDaemonSets: false, deleteEmptyDirData: true, force: true });
    expect(p.blocked.map((b) => [b.pod.name, b.reason])).toEqual([['ds', 'DaemonSet']]);
  });
});
