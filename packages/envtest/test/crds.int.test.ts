import { CustomObjectsApi, ApiextensionsV1Api, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { useControlPlane } from '../src/vitest/index.js';

const env = useControlPlane();

function widgetCRD(group: string): V1CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { spec: { type: 'object', properties: { size: { type: 'integer', minimum: 1 } } } },
            },
          },
        },
      ],
    },
  };
}

describe('installCRDs', () => {
  it('returns only once the CRD is Established, so custom resources can be created at once', async () => {
    const group = `${env.unique('t')}.envtest.noderepair.dev`;
    const ns = await env.namespace();
    const { installCRDs } = await import('../src/index.js');
    const names = await installCRDs(env.kubeConfig, [widgetCRD(group)]);
    expect(names).toEqual([`widgets.${group}`]);
    const crd = await env.kubeConfig
      .makeApiClient(ApiextensionsV1Api)
      .readCustomResourceDefinition({ name: `widgets.${group}` });
    expect(crd.status?.conditions?.find((c) => c.type === 'Established')?.status).toBe('True');
    const custom = env.kubeConfig.makeApiClient(CustomObjectsApi);
    const created = (await custom.createNamespacedCustomObject({
      group,
      version: 'v1',
      namespace: ns,
      plural: 'widgets',
      body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w' }, spec: { size: 2 } },
    })) as { spec: { size: number } };
    expect(created.spec.size).toBe(2);
    // The schema is enforced by the real API server.
    await expect(
      custom.createNamespacedCustomObject({
        group,
        version: 'v1',
        namespace: ns,
        plural: 'widgets',
        body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'bad' }, spec: { size: 0 } },
      }),
    ).rejects.toMatchObject({ code: 422 });
  });

  it('installing the same CRD twice updates it instead of failing', async () => {
    const group = `${env.unique('t')}.envtest.noderepair.dev`;
    const { installCRDs } = await import('../src/index.js');
    await installCRDs(env.kubeConfig, [widgetCRD(group)]);
    await expect(installCRDs(env.kubeConfig, [widgetCRD(group)])).resolves.toHaveLength(1);
  });
});
