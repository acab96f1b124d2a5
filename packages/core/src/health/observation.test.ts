import { describe, expect, it } from 'vitest';
import { buildNode } from './builders.js';
import { observeNode } from './observation.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');

describe('observeNode', () => {
  it('parses every time once to epoch ms, whatever form the API gave it in', () => {
    const o = observeNode({
      nodeName: 'n1',
      node: {
        metadata: { name: 'n1', creationTimestamp: new Date(T0) },
        spec: {
          unschedulable: true,
          providerID: 'openstack:///abc',
          taints: [{ key: 'k', effect: 'NoSchedule', timeAdded: '2026-01-01T00:01:00Z' }],
        },
        status: {
          nodeInfo: { bootID: 'b1' },
          conditions: [
            {
              type: 'Ready',
              status: 'Unknown',
              lastTransitionTime: T0 + 5000,
              lastHeartbeatTime: 'not a time',
            },
          ],
        },
      },
      leaseRenewTime: '2026-01-01T00:02:00Z',
    });
    expect(o.deleted).toBe(false);
    expect(o.createdAt).toBe(T0);
    expect(o.ready?.transitionAt).toBe(T0 + 5000);
    // An unparseable heartbeat is no heartbeat; the Lease still counts.
    expect(o.ready?.heartbeatAt).toBeUndefined();
    expect(o.lastHeartbeatAt).toBe(T0 + 120_000);
    expect(o.taints).toEqual([
      { key: 'k', value: undefined, effect: 'NoSchedule', addedAt: T0 + 60_000 },
    ]);
    expect(o.cordoned).toBe(true);
    expect(o.bootId).toBe('b1');
    expect(o.providerID).toBe('openstack:///abc');
  });

  it('keeps the first condition of a type, as a lookup by type always did', () => {
    const node = buildNode({ name: 'n1', ready: 'ready', since: T0 });
    node.status?.conditions?.push({ type: 'Ready', status: 'False' });
    expect(observeNode({ nodeName: 'n1', node }).ready?.status).toBe('True');
  });

  it('takes the newer of the Ready heartbeat and the Lease renewal', () => {
    const node = buildNode({ name: 'n1', ready: 'ready', since: T0, heartbeat: T0 + 9000 });
    expect(observeNode({ nodeName: 'n1', node, leaseRenewTime: T0 + 1000 }).lastHeartbeatAt).toBe(
      T0 + 9000,
    );
  });

  it('an empty bootID or providerID is none (no fencing evidence, no identity)', () => {
    const node = buildNode({ name: 'n1', ready: 'ready', since: T0, bootID: '' });
    const o = observeNode({ nodeName: 'n1', node: { ...node, spec: { providerID: '' } } });
    expect(o.bootId).toBeUndefined();
    expect(o.providerID).toBeUndefined();
    expect(o.cordoned).toBe(false);
  });

  it('a Node that is gone or being deleted is deleted', () => {
    expect(observeNode({ nodeName: 'n1', node: undefined }).deleted).toBe(true);
    const node = buildNode({ name: 'n1', ready: 'ready', since: T0 });
    const deleting = { ...node, metadata: { ...node.metadata, deletionTimestamp: T0 } };
    expect(observeNode({ nodeName: 'n1', node: deleting }).deleted).toBe(true);
    expect(observeNode({ nodeName: 'n1', node }).deleted).toBe(false);
  });
});
