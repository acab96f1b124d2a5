// Our kinds next to Cluster API's real CRDs (pinned module, see tools/capi-crds): the
// example MachineHealthChecks are valid Cluster API objects, an OpenStackRemediation built
// exactly as the MHC builds it from our template is accepted with its Machine as owner, and
// the give-up patch (OwnerRemediated=False in both condition lists) passes the real Machine
// status schema for v1beta2 and v1beta1.
import {
  ApiException,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { installCRDs } from '@noderepair/envtest';
import { useControlPlane } from '@noderepair/envtest/vitest';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { GROUP, VERSION } from '../src/api/index.js';
import { ownerRemediatedPatch } from '../src/capi/index.js';
import { remediationFromTemplate } from '../src/testing/index.js';
import { capiCrdPaths } from './support/capi-crds.js';

const env = useControlPlane();
const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');
const examples = join(pkg, '..', '..', 'examples', 'capi-openstack');
const load = (f: string) => parse(readFileSync(join(examples, f), 'utf8')) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function machine(version: 'v1beta1' | 'v1beta2', name: string, namespace: string) {
  const infrastructureRef =
    version === 'v1beta2'
      ? {
          apiGroup: 'infrastructure.cluster.x-k8s.io',
          kind: 'OpenStackMachine',
          name: `${name}-osm`,
        }
      : {
          apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
          kind: 'OpenStackMachine',
          name: `${name}-osm`,
          namespace,
        };
  const bootstrap =
    version === 'v1beta2'
      ? {
          configRef: {
            apiGroup: 'bootstrap.cluster.x-k8s.io',
            kind: 'KubeadmConfig',
            name: `${name}-boot`,
          },
        }
      : {
          configRef: {
            apiVersion: 'bootstrap.cluster.x-k8s.io/v1beta1',
            kind: 'KubeadmConfig',
            name: `${name}-boot`,
            namespace,
          },
        };
  return {
    apiVersion: `cluster.x-k8s.io/${version}`,
    kind: 'Machine',
    metadata: { name, namespace, labels: { 'cluster.x-k8s.io/cluster-name': 'my-cluster' } },
    spec: {
      clusterName: 'my-cluster',
      bootstrap,
      infrastructureRef,
      providerID: 'openstack:///6a5e1c1e-8a4e-4b8e-9a43-0e5d2b3a9c11',
    },
  };
}

describe('Cluster API contract, on a real kube-apiserver with Cluster API CRDs', () => {
  let api: CustomObjectsApi;
  let ns: string;

  beforeAll(async () => {
    const capi = await capiCrdPaths(['machines', 'machinehealthchecks']);
    const ours = ['openstackremediationtemplates', 'openstackremediations'].map((p) =>
      join(pkg, 'config', 'crd', `${GROUP}_${p}.yaml`),
    );
    await installCRDs(env.kubeConfig, [...capi, ...ours]);
    api = env.kubeConfig.makeApiClient(CustomObjectsApi);
    ns = await env.namespace('mhc');
  });

  const create = async (
    group: string,
    version: string,
    plural: string,
    body: Record<string, any>, // eslint-disable-line @typescript-eslint/no-explicit-any
  ) =>
    (await api.createNamespacedCustomObject({
      group,
      version,
      namespace: ns,
      plural,
      body: { ...body, metadata: { ...body.metadata, namespace: ns } },
    })) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

  it('accepts the example MachineHealthChecks (v1beta2 and v1beta1) referencing our template', async () => {
    const v2 = load('machinehealthcheck-v1beta2.yaml');
    const created = await create('cluster.x-k8s.io', 'v1beta2', 'machinehealthchecks', v2);
    expect(created.spec.remediation.templateRef).toEqual({
      apiVersion: `${GROUP}/${VERSION}`,
      kind: 'OpenStackRemediationTemplate',
      name: 'openstack-reboot',
    });
    // v1beta1 is validated against the v1beta1 schema on create. Without Cluster API's
    // conversion webhook the stored object is then pruned by the v1beta2 storage schema, so
    // only acceptance (not the read-back) says something here.
    const v1 = load('machinehealthcheck-v1beta1.yaml');
    const created1 = await create('cluster.x-k8s.io', 'v1beta1', 'machinehealthchecks', {
      ...v1,
      metadata: { ...v1.metadata, name: 'v1beta1-mhc' },
    });
    expect(created1.metadata.uid).toBeTruthy();
    const bad = structuredClone(v1);
    bad.metadata.name = 'v1beta1-bad';
    bad.spec.clusterName = '';
    const err = await create('cluster.x-k8s.io', 'v1beta1', 'machinehealthchecks', bad).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err instanceof ApiException && err.code).toBe(422);
  });

  for (const version of ['v1beta2', 'v1beta1'] as const) {
    it(`accepts an OpenStackRemediation cloned from the template for a ${version} Machine, owned by it`, async () => {
      const template = await create(GROUP, VERSION, 'openstackremediationtemplates', {
        ...load('openstackremediationtemplate.yaml'),
        metadata: { name: `tpl-${version}` },
      });
      const m = await create(
        'cluster.x-k8s.io',
        version,
        'machines',
        machine(version, `worker-${version}`, ns),
      );
      const osr = await create(
        GROUP,
        VERSION,
        'openstackremediations',
        remediationFromTemplate(template as never, m as never),
      );
      expect(osr.metadata.name).toBe(`worker-${version}`);
      expect(osr.metadata.ownerReferences).toEqual([
        {
          apiVersion: `cluster.x-k8s.io/${version}`,
          kind: 'Machine',
          name: `worker-${version}`,
          uid: m.metadata.uid,
        },
      ]);
      expect(osr.metadata.labels['cluster.x-k8s.io/cluster-name']).toBe('my-cluster');
      expect(osr.metadata.annotations['cluster.x-k8s.io/cloned-from-name']).toBe(`tpl-${version}`);
      expect(osr.spec).toEqual(template.spec.template.spec);
    });

    it(`the give-up patch sets OwnerRemediated=False in both condition lists of a ${version} Machine`, async () => {
      const name = `giveup-${version}`;
      const m = await create('cluster.x-k8s.io', version, 'machines', machine(version, name, ns));
      const patch = ownerRemediatedPatch(
        m,
        'remediation ladder exhausted: SoftReboot, HardReboot x2',
        new Date(),
      );
      let updated: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
      try {
        updated = (await api.patchNamespacedCustomObjectStatus(
          {
            group: 'cluster.x-k8s.io',
            version,
            namespace: ns,
            plural: 'machines',
            name,
            body: patch,
          },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        )) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
      } catch (e) {
        throw new Error(
          e instanceof ApiException
            ? `${e.code}: ${typeof e.body === 'string' ? e.body : JSON.stringify(e.body)}`
            : String(e),
        );
      }
      expect(updated.metadata.resourceVersion).not.toBe(m.metadata.resourceVersion);
      // A v1beta1 patch is validated against the v1beta1 status schema; reading it back
      // needs Cluster API's conversion webhook (absent here), so the lists are checked on v1beta2.
      if (version === 'v1beta1') return;
      const v2list = updated.status.conditions;
      const v1list = updated.status.deprecated.v1beta1.conditions;
      expect(v2list).toContainEqual(
        expect.objectContaining({
          type: 'OwnerRemediated',
          status: 'False',
          reason: 'WaitingForRemediation',
        }),
      );
      expect(v1list).toContainEqual(
        expect.objectContaining({
          type: 'OwnerRemediated',
          status: 'False',
          severity: 'Warning',
          reason: 'WaitingForRemediation',
        }),
      );
    });
  }

  it('the give-up patch fails on a stale resourceVersion instead of overwriting', async () => {
    const m = await create(
      'cluster.x-k8s.io',
      'v1beta2',
      'machines',
      machine('v1beta2', 'stale', ns),
    );
    const patch = ownerRemediatedPatch(
      { ...m, metadata: { ...m.metadata, resourceVersion: '1' } },
      'x',
      new Date(),
    );
    const err = await api
      .patchNamespacedCustomObjectStatus(
        {
          group: 'cluster.x-k8s.io',
          version: 'v1beta2',
          namespace: ns,
          plural: 'machines',
          name: 'stale',
          body: patch,
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      )
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err instanceof ApiException && err.code).toBe(409);
  });
});
