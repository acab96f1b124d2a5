import { describe, expect, it } from 'vitest';
import { classifyNode } from './cause.js';
import { buildNode, readyTexts, type ReadyText } from './builders.js';

const MIN = 60_000;
const now = 100 * MIN;
const opts = { staleHeartbeatTimeoutMs: 0 };

describe('classifyNode', () => {
  const table: Array<[ReadyText | undefined, string]> = [
    ['ready', 'Healthy'],
    ['runtimeDown', 'ContainerRuntimeDown'],
    ['networkNotReady', 'RuntimeNetworkNotReady'],
    ['plegUnhealthy', 'PLEGUnhealthy'],
    ['shuttingDown', 'ShuttingDown'],
    ['capacityMissing', 'CapacityMissing'],
    ['unknown', 'KubeletUnreachable'],
    ['neverUpdated', 'NotStarted'],
    [undefined, 'NotStarted'],
  ];
  for (const [ready, kind] of table) {
    it(`Ready ${ready ?? '(absent)'} -> ${kind}`, () => {
      const cause = classifyNode(
        { nodeName: 'n', node: buildNode({ name: 'n', ready }) },
        now,
        opts,
      );
      expect(cause.kind).toBe(kind);
      if (ready !== undefined && ready !== 'ready')
        expect(cause.message).toBe(readyTexts[ready].message);
    });
  }

  it('shutdown wins when the kubelet aggregates several errors', () => {
    const node = buildNode({ name: 'n', ready: 'runtimeDown' });
    node.status!.conditions![0]!.message = '[container runtime is down, node is shutting down]';
    expect(classifyNode({ nodeName: 'n', node }, now, opts).kind).toBe('ShuttingDown');
  });

  it('older kubelets capitalise Missing node capacity', () => {
    const node = buildNode({ name: 'n', ready: 'capacityMissing' });
    node.status!.conditions![0]!.message = 'Missing node capacity for resources: pods';
    expect(classifyNode({ nodeName: 'n', node }, now, opts).kind).toBe('CapacityMissing');
  });

  it('an unrecognised Ready=False message is Other, keeping the message', () => {
    const node = buildNode({ name: 'n', ready: 'runtimeDown' });
    node.status!.conditions![0]!.message = 'something new';
    expect(classifyNode({ nodeName: 'n', node }, now, opts)).toEqual({
      kind: 'Other',
      message: 'something new',
    });
  });

  it('a missing or terminating Node is NodeDeleted', () => {
    expect(classifyNode({ nodeName: 'gone', node: undefined }, now, opts)).toEqual({
      kind: 'NodeDeleted',
      message: 'Node gone has been deleted',
    });
    const node = buildNode({ name: 'n', ready: 'ready' });
    node.metadata!.deletionTimestamp = new Date(now);
    expect(classifyNode({ nodeName: 'n', node }, now, opts).kind).toBe('NodeDeleted');
  });

  it('stale heartbeat only when enabled, using the newer of condition heartbeat and Lease', () => {
    const node = buildNode({ name: 'n', ready: 'ready', since: 0, heartbeat: now - 30 * MIN });
    expect(classifyNode({ nodeName: 'n', node }, now, opts).kind).toBe('Healthy');
    expect(
      classifyNode({ nodeName: 'n', node }, now, { staleHeartbeatTimeoutMs: 20 * MIN }).kind,
    ).toBe('StaleHeartbeat');
    expect(
      classifyNode({ nodeName: 'n', node, leaseRenewTime: new Date(now - MIN) }, now, {
        staleHeartbeatTimeoutMs: 20 * MIN,
      }).kind,
    ).toBe('Healthy');
  });
});
