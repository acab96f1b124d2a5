import { describe, expect, it } from 'vitest';
import {
  customResource,
  EventResource,
  LeaseResource,
  NodeResource,
  PodResource,
  resourcePath,
} from './resource.js';
import { objectKeyOf, parseObjectKey } from './object.js';

describe('resourcePath', () => {
  it('builds core, grouped, namespaced and subresource paths', () => {
    expect(resourcePath(NodeResource)).toBe('/api/v1/nodes');
    expect(resourcePath(NodeResource, { name: 'n1', subresource: 'status' })).toBe(
      '/api/v1/nodes/n1/status',
    );
    expect(resourcePath(PodResource)).toBe('/api/v1/pods');
    expect(resourcePath(PodResource, { namespace: 'kube-system', name: 'p' })).toBe(
      '/api/v1/namespaces/kube-system/pods/p',
    );
    expect(resourcePath(LeaseResource, { namespace: 'x' })).toBe(
      '/apis/coordination.k8s.io/v1/namespaces/x/leases',
    );
    expect(resourcePath(EventResource, { namespace: 'x', name: 'e.1' })).toBe(
      '/apis/events.k8s.io/v1/namespaces/x/events/e.1',
    );
    const cr = customResource({
      group: 'infra.noderepair.dev',
      version: 'v1alpha1',
      kind: 'Widget',
      namespaced: true,
    });
    expect(resourcePath(cr, { namespace: 'a' })).toBe(
      '/apis/infra.noderepair.dev/v1alpha1/namespaces/a/widgets',
    );
  });

  it('rejects names that would change the URL and scope mistakes', () => {
    expect(() => resourcePath(NodeResource, { name: '../secrets' })).toThrow(/DNS-1123/);
    expect(() => resourcePath(NodeResource, { namespace: 'a' })).toThrow(/cluster-scoped/);
    expect(() => resourcePath(PodResource, { name: 'p' })).toThrow(/namespace is required/);
  });
});

describe('object keys', () => {
  it('round-trips namespace/name', () => {
    expect(objectKeyOf({ metadata: { name: 'a', namespace: 'ns' } })).toBe('ns/a');
    expect(objectKeyOf({ metadata: { name: 'n1' } })).toBe('n1');
    expect(parseObjectKey('ns/a')).toEqual({ namespace: 'ns', name: 'a' });
    expect(parseObjectKey('n1')).toEqual({ name: 'n1' });
    expect(() => objectKeyOf({ kind: 'Pod', metadata: {} })).toThrow(/Pod has no metadata.name/);
  });
});
