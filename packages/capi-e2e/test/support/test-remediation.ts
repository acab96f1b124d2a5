// A tiny remediation kind for tests that need Cluster API's MachineHealthCheck to create and
// delete external remediation objects without any noderepair controller acting on them:
// TestRemediationTemplate / TestRemediation, and the aggregate-to-manager ClusterRole a
// provider ships so that the Cluster API manager may manage them.
import type { KubernetesObject, V1CustomResourceDefinition } from '@kubernetes/client-node';

export const GROUP = 'test.remediation.noderepair.dev';
export const VERSION = 'v1alpha1';

export function kindCRD(kind: string, plural: string, template: boolean): V1CustomResourceDefinition {
  const spec = template
    ? {
        type: 'object',
        properties: {
          template: {
            type: 'object',
            properties: {
              metadata: { type: 'object', x_kubernetes_preserve_unknown_fields: true },
              spec: { type: 'object', properties: { strategy: { type: 'string' }, timeoutSeconds: { type: 'integer' } } },
            },
          },
        },
      }
    : { type: 'object', properties: { strategy: { type: 'string' }, timeoutSeconds: { type: 'integer' } } };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { spec: spec as never, status: { type: 'object', x_kubernetes_preserve_unknown_fields: true } },
            },
          },
        },
      ],
    },
  };
}

// What a remediation provider ships so that the Cluster API manager may create and delete its
// kind (the manager aggregates every ClusterRole with this label into its own).
export const aggregateRole: KubernetesObject = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: {
    name: 'test-remediation-capi-manager',
    labels: { 'cluster.x-k8s.io/aggregate-to-manager': 'true' },
  },
  rules: [
    {
      apiGroups: [GROUP],
      resources: ['testremediations', 'testremediationtemplates'],
      verbs: ['get', 'list', 'watch', 'create', 'delete', 'patch', 'update'],
    },
  ],
} as KubernetesObject;

/** The CRDs of both kinds, for startCapiEnvironment({ extraCRDs }). */
export const testRemediationCRDs = (): V1CustomResourceDefinition[] => [
  kindCRD('TestRemediationTemplate', 'testremediationtemplates', true),
  kindCRD('TestRemediation', 'testremediations', false),
];
