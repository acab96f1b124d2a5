import { NotFoundError, type KubeClient, type ResourceType } from '@noderepair/core/kube';
import * as E from 'fp-ts/lib/Either.js';
import { describe, expect, it } from 'vitest';
import { VersionOrder } from './resources.js';
import { resolveTarget } from './target.js';

const uuid = '6a5e1c1e-8a4e-4b8e-9a43-0e5d2b3a9c11';
// A v1beta2 Machine: its infrastructureRef names the group, not the version.
const machine = {
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  kind: 'Machine',
  metadata: { name: 'm1', namespace: 'capi', uid: 'u1' },
  spec: {
    clusterName: 'c1',
    infrastructureRef: {
      apiGroup: 'infrastructure.cluster.x-k8s.io',
      kind: 'OpenStackMachine',
      name: 'm1-osm',
    },
  },
  status: { nodeRef: { name: 'node-a' } },
};
const osm = {
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
  kind: 'OpenStackMachine',
  metadata: { name: 'm1-osm', namespace: 'capi' },
  spec: { providerID: `openstack:///${uuid}`, identityRef: { name: 'creds', cloudName: 'c' } },
};

/**
 * A client of an install that serves OpenStackMachine at v1beta1 only, as the apiserver answers
 * it: 404 for the unserved version, and (here) no identity Secret. Records every GET.
 */
function v1beta1Only(gets: string[]): KubeClient {
  const notFound = (what: string) =>
    new NotFoundError({
      kind: 'Status',
      code: 404,
      reason: 'NotFound',
      message: `${what} not found`,
    });
  return {
    get: async (rt: ResourceType, name: string) => {
      const key = `${rt.plural}.${rt.version}/${name}`;
      gets.push(key);
      if (rt.plural === 'machines') return machine;
      if (rt.plural === 'openstackmachines' && rt.version === 'v1beta1') return osm;
      throw notFound(key);
    },
  } as unknown as KubeClient;
}

describe('resolveTarget: which OpenStackMachine version is read', () => {
  it('tries the newest version first, then the one that answered last (one GET, not two)', async () => {
    const gets: string[] = [];
    const client = v1beta1Only(gets);
    const order = new VersionOrder();
    const owner = { apiVersion: 'cluster.x-k8s.io/v1beta2', name: 'm1', uid: 'u1' };
    const first = await resolveTarget(client, 'capi', owner, undefined, { versions: order });
    // Both OpenStackMachine reads were needed to find the object; then the Secret is missing.
    expect(first).toEqual(E.left('identityRef Secret capi/creds not found'));
    expect(gets.filter((g) => g.startsWith('openstackmachines'))).toEqual([
      'openstackmachines.v1beta2/m1-osm',
      'openstackmachines.v1beta1/m1-osm',
    ]);
    gets.length = 0;
    const again = await resolveTarget(client, 'capi', owner, undefined, { versions: order });
    expect(again).toEqual(first);
    expect(gets.filter((g) => g.startsWith('openstackmachines'))).toEqual([
      'openstackmachines.v1beta1/m1-osm',
    ]);
  });

  it('only reorders: a version the remembered one cannot find is still tried', () => {
    const order = new VersionOrder(['v1beta2', 'v1beta1']);
    expect(order.order).toEqual(['v1beta2', 'v1beta1']);
    order.answered('v1beta1');
    expect(order.order).toEqual(['v1beta1', 'v1beta2']);
    order.answered('v1beta2');
    expect(order.order).toEqual(['v1beta2', 'v1beta1']);
  });
});
