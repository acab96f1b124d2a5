import { describe, expect, it } from 'vitest';
import type { KubeNode } from '../kube/types.js';
import { defaultRepairPolicy } from '../health/policy.js';
import { nodeViewChanged, toNodeView, watchedAnnotations } from './node-view.js';

const node = (
  heartbeat: string,
  rv: string,
  extra: Partial<KubeNode['metadata']> = {},
): KubeNode => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: {
    name: 'n1',
    resourceVersion: rv,
    uid: 'u1',
    creationTimestamp: '2026-01-01T00:00:00Z',
    labels: { 'topology.kubernetes.io/zone': 'az1' },
    annotations: {
      'noderepair.io/repair-state': '{"v":1}',
      'kubeadm.alpha.kubernetes.io/cri-socket': 'unix:///run/containerd/containerd.sock',
      'cluster.x-k8s.io/paused': '',
    },
    managedFields: [{ manager: 'kubelet' }],
    ...extra,
  },
  spec: { providerID: 'openstack:///abc', unschedulable: true },
  status: {
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        reason: 'KubeletReady',
        lastHeartbeatTime: heartbeat,
        lastTransitionTime: '2026-01-01T00:00:10Z',
      },
    ],
    images: [{ names: ['registry.k8s.io/pause:3.10'], sizeBytes: 300000 }],
    addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
  },
});

describe('toNodeView', () => {
  const keys = watchedAnnotations(defaultRepairPolicy);

  it('keeps what decisions read and drops the rest (images, addresses, heartbeats, other annotations)', () => {
    const v = toNodeView(node('2026-01-01T00:01:00Z', '5'), keys);
    expect(v).toEqual({
      metadata: {
        name: 'n1',
        resourceVersion: '5',
        uid: 'u1',
        creationTimestamp: '2026-01-01T00:00:00Z',
        labels: { 'topology.kubernetes.io/zone': 'az1' },
        annotations: { 'noderepair.io/repair-state': '{"v":1}', 'cluster.x-k8s.io/paused': '' },
      },
      spec: { providerID: 'openstack:///abc', unschedulable: true },
      status: {
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'KubeletReady',
            lastTransitionTime: '2026-01-01T00:00:10Z',
          },
        ],
      },
    });
  });

  it('a heartbeat-only update is not a change; an annotation or condition change is', () => {
    const a = toNodeView(node('2026-01-01T00:01:00Z', '5'), keys);
    const b = toNodeView(node('2026-01-01T00:01:10Z', '6'), keys);
    expect(nodeViewChanged(a, b)).toBe(false);
    const c = toNodeView(
      node('2026-01-01T00:01:10Z', '7', { annotations: { 'noderepair.io/repair-now': 'x' } }),
      keys,
    );
    expect(nodeViewChanged(a, c)).toBe(true);
    const d = structuredClone(b);
    d.status.conditions![0]!.status = 'Unknown';
    expect(nodeViewChanged(b, d)).toBe(true);
  });

  it('honours custom annotation keys from the policy', () => {
    const keys2 = watchedAnnotations({
      ...defaultRepairPolicy,
      annotations: { state: 'example.com/state', trigger: 'example.com/now' },
    });
    expect(keys2).toContain('example.com/state');
    expect(keys2).toContain('example.com/now');
    const v = toNodeView(node('2026-01-01T00:01:00Z', '5'), keys2);
    expect(v.metadata.annotations).toEqual({ 'cluster.x-k8s.io/paused': '' });
  });
});
