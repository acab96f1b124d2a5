import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { FAKE_DEFAULTS, FakeOpenStack } from '@noderepair/openstack/testing';
import {
  cloudFromIdentitySecret,
  ownerRemediatedPatch,
  readMachine,
  readOpenStackMachine,
  resolveServer,
  type MachineView,
} from './index.js';

const uuid = '6a5e1c1e-8a4e-4b8e-9a43-0e5d2b3a9c11';

const machineV1beta2 = {
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Machine',
  metadata: {
    name: 'md-0-abc',
    namespace: 'capi',
    uid: 'u1',
    resourceVersion: '42',
    generation: 3,
  },
  spec: {
    clusterName: 'c1',
    providerID: `openstack:///${uuid}`,
    infrastructureRef: {
      apiGroup: 'infrastructure.cluster.x-k8s.io',
      kind: 'OpenStackMachine',
      name: 'md-0-abc-osm',
    },
  },
  status: {
    nodeRef: { name: 'node-a' },
    conditions: [
      {
        type: 'Ready',
        status: 'False',
        reason: 'NotReady',
        message: '',
        lastTransitionTime: '2026-12-02T11:00:00Z',
      },
    ],
    deprecated: {
      v1beta1: {
        conditions: [
          {
            type: 'Ready',
            status: 'False',
            severity: 'Warning',
            lastTransitionTime: '2026-12-02T11:00:00Z',
          },
        ],
      },
    },
  },
};

const machineV1beta1 = {
  apiVersion: 'cluster.x-k8s.io/v1beta1',
  kind: 'Machine',
  metadata: { name: 'md-0-def', namespace: 'capi', resourceVersion: '7' },
  spec: {
    clusterName: 'c1',
    infrastructureRef: {
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
      kind: 'OpenStackMachine',
      name: 'md-0-def-osm',
    },
  },
  status: {
    nodeRef: { kind: 'Node', name: 'node-b' },
    conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-12-02T10:00:00Z' }],
  },
};

const osm = (spec: object, status?: object) => ({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
  kind: 'OpenStackMachine',
  metadata: { name: 'md-0-abc-osm', namespace: 'capi' },
  spec,
  ...(status ? { status } : {}),
});

function right<A>(e: E.Either<string, A>): A {
  if (E.isLeft(e)) throw new Error(e.left);
  return e.right;
}

describe('readMachine', () => {
  it('reads a v1beta2 Machine', () => {
    expect(right(readMachine(machineV1beta2))).toEqual({
      version: 'v1beta2',
      name: 'md-0-abc',
      namespace: 'capi',
      uid: 'u1',
      clusterName: 'c1',
      providerID: `openstack:///${uuid}`,
      infrastructureRef: {
        group: 'infrastructure.cluster.x-k8s.io',
        apiVersion: undefined,
        kind: 'OpenStackMachine',
        name: 'md-0-abc-osm',
        namespace: 'capi',
      },
      nodeName: 'node-a',
    });
  });

  it('reads a v1beta1 Machine', () => {
    const m = right(readMachine(machineV1beta1));
    expect(m.version).toBe('v1beta1');
    expect(m.infrastructureRef).toMatchObject({
      group: 'infrastructure.cluster.x-k8s.io',
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
    });
    expect(m.nodeName).toBe('node-b');
    expect(m.providerID).toBeUndefined();
  });

  it('names what is wrong', () => {
    expect(readMachine({ ...machineV1beta2, apiVersion: 'cluster.x-k8s.io/v1alpha4' })).toEqual(
      E.left(expect.stringContaining('is not cluster.x-k8s.io/v1beta1 or v1beta2')),
    );
    expect(readMachine({ ...machineV1beta2, spec: {} })).toEqual(
      E.left(expect.stringContaining('machine.spec.clusterName: is required')),
    );
    expect(
      readMachine({
        ...machineV1beta2,
        spec: { clusterName: 'c', infrastructureRef: { kind: 'K', name: 'n' } },
      }),
    ).toEqual(E.left(expect.stringContaining('neither apiGroup nor apiVersion')));
  });
});

describe('resolveServer', () => {
  const m = right(readMachine(machineV1beta2));
  const bare: MachineView = { ...m, providerID: undefined };

  it('prefers the OpenStackMachine providerID, with its region', () => {
    const o = right(readOpenStackMachine(osm({ providerID: `openstack://RegionTwo/${uuid}` })));
    expect(resolveServer(m, o)).toEqual(
      E.right({ serverId: uuid, region: 'RegionTwo', source: 'OpenStackMachine.spec.providerID' }),
    );
  });

  it('falls back to status.instanceID with the identityRef region', () => {
    const o = right(
      readOpenStackMachine(
        osm(
          { identityRef: { name: 's', cloudName: 'openstack', region: 'R1' } },
          { instanceID: uuid.toUpperCase() },
        ),
      ),
    );
    expect(resolveServer(bare, o)).toEqual(
      E.right({ serverId: uuid, region: 'R1', source: 'OpenStackMachine.status.instanceID' }),
    );
  });

  it('falls back to the Machine providerID', () => {
    expect(resolveServer(m, undefined)).toEqual(
      E.right({ serverId: uuid, region: undefined, source: 'Machine.spec.providerID' }),
    );
  });

  it('explains when there is no server yet or the id is malformed', () => {
    expect(resolveServer(bare, undefined)).toEqual(
      E.left(expect.stringContaining('no server yet')),
    );
    const o = right(readOpenStackMachine(osm({ providerID: 'aws:///i-1' })));
    expect(resolveServer(m, o)).toEqual(
      E.left(
        expect.stringContaining('OpenStackMachine capi/md-0-abc-osm: providerID "aws:///i-1"'),
      ),
    );
    const bad = right(readOpenStackMachine(osm({}, { instanceID: 'nope' })));
    expect(resolveServer(bare, bad)).toEqual(
      E.left(expect.stringContaining('status.instanceID "nope" is not a UUID')),
    );
  });
});

describe('cloudFromIdentitySecret', () => {
  const fake = new FakeOpenStack();
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const secret = {
    metadata: { name: 'cloud-config', namespace: 'capi' },
    data: {
      'clouds.yaml': b64(fake.cloudsYaml({ region: 'RegionOne' })),
      cacert: b64('-----BEGIN CERTIFICATE-----\n'),
    },
  };

  it('decodes clouds.yaml and cacert; identityRef.region overrides clouds.yaml', () => {
    const c = right(
      cloudFromIdentitySecret(secret, {
        type: 'Secret',
        name: 'cloud-config',
        cloudName: 'openstack',
        region: 'RegionTwo',
      }),
    );
    expect(c.region).toBe('RegionTwo');
    expect(c.caCert).toContain('BEGIN CERTIFICATE');
    expect(c.auth.type).toBe('password');
  });

  it('explains a missing key, a missing cloud and an unsupported identity type, without secrets', () => {
    const ref = { type: 'Secret', name: 'cloud-config', cloudName: 'openstack', region: undefined };
    expect(cloudFromIdentitySecret({ ...secret, data: {} }, ref)).toEqual(
      E.left('Secret capi/cloud-config: key clouds.yaml is missing'),
    );
    const missing = cloudFromIdentitySecret(secret, { ...ref, cloudName: 'other' });
    expect(missing).toEqual(E.left(expect.stringContaining('cloud "other" not found')));
    expect(JSON.stringify(missing)).not.toContain(FAKE_DEFAULTS.user.password);
    expect(cloudFromIdentitySecret(secret, { ...ref, type: 'ClusterIdentity' })).toEqual(
      E.left(expect.stringContaining('ClusterIdentity is not supported')),
    );
  });
});

describe('ownerRemediatedPatch', () => {
  const now = new Date('2026-12-02T12:00:00.123Z');

  it('v1beta2 Machine: metav1 list in status.conditions and the CAPI list in status.deprecated.v1beta1', () => {
    const p = ownerRemediatedPatch(machineV1beta2, 'ladder exhausted', now);
    expect(p.metadata).toEqual({ resourceVersion: '42' });
    const s = p.status as {
      conditions: unknown[];
      deprecated: { v1beta1: { conditions: unknown[] } };
    };
    expect(s.conditions).toContainEqual({
      type: 'OwnerRemediated',
      status: 'False',
      observedGeneration: 3,
      reason: 'WaitingForRemediation',
      message: 'ladder exhausted',
      lastTransitionTime: '2026-12-02T12:00:00Z',
    });
    expect(s.conditions).toContainEqual(machineV1beta2.status.conditions[0]);
    expect(s.deprecated.v1beta1.conditions).toContainEqual({
      type: 'OwnerRemediated',
      status: 'False',
      severity: 'Warning',
      reason: 'WaitingForRemediation',
      message: 'ladder exhausted',
      lastTransitionTime: '2026-12-02T12:00:00Z',
    });
  });

  it('v1beta1 Machine: the CAPI list in status.conditions and metav1 in status.v1beta2', () => {
    const p = ownerRemediatedPatch(machineV1beta1, 'gone', now);
    const s = p.status as {
      conditions: Array<{ type: string; severity?: string }>;
      v1beta2: { conditions: Array<{ type: string; reason: string }> };
    };
    expect(s.conditions.map((c) => c.type)).toEqual(['Ready', 'OwnerRemediated']);
    expect(s.conditions[1]?.severity).toBe('Warning');
    expect(s.v1beta2.conditions).toEqual([
      expect.objectContaining({ type: 'OwnerRemediated', reason: 'WaitingForRemediation' }),
    ]);
  });

  it('is idempotent: the transition time stays when applied again', () => {
    const first = ownerRemediatedPatch(machineV1beta2, 'ladder exhausted', now);
    const again = ownerRemediatedPatch(
      { ...machineV1beta2, status: first.status },
      'ladder exhausted',
      new Date('2026-12-02T13:00:00Z'),
    );
    expect(again.status).toEqual(first.status);
  });
});
