// One client identity per party, so the kube-apiserver's own metrics can tell their requests
// apart. kube-apiserver's apiserver_request_total has no user or user-agent label; API
// Priority and Fairness does: every request is classified by a FlowSchema, and
// apiserver_flowcontrol_dispatched_requests_total{flow_schema} counts them. So each party
// gets a ServiceAccount (a TokenRequest token, bound to cluster-admin) and a FlowSchema
// matching only that ServiceAccount. The bench itself stays envtest's admin (exempt).
import { join } from 'node:path';
import {
  CoreV1Api,
  KubernetesObjectApi,
  type KubeConfig,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { kubeConfigFor, waitFor, writeKubeconfig, type ControlPlane } from '@noderepair/envtest';
import { dispatchedByFlowSchema } from '../metrics/apiserver.js';

export const BENCH_NAMESPACE = 'noderepair-bench';
export const PRIORITY_LEVEL = 'noderepair-bench';

/** Who talks to the kube-apiserver during the bench. */
export type Party = 'noderepair' | 'capi' | 'writer';
export const PARTIES: readonly Party[] = ['noderepair', 'capi', 'writer'];

export const flowSchemaOf = (p: Party): string => `bench-${p}`;

export interface Identity {
  party: Party;
  token: string;
  kubeConfig: KubeConfig;
  kubeconfigPath: string;
}

/** The ServiceAccount, its cluster-admin binding and its FlowSchema (pure). */
export function identityObjects(p: Party): KubernetesObject[] {
  const sa = `bench-${p}`;
  return [
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: sa, namespace: BENCH_NAMESPACE },
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `bench-${p}-admin` },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'cluster-admin',
      },
      subjects: [{ kind: 'ServiceAccount', name: sa, namespace: BENCH_NAMESPACE }],
    } as KubernetesObject,
    {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
      kind: 'FlowSchema',
      metadata: { name: flowSchemaOf(p) },
      spec: {
        priorityLevelConfiguration: { name: PRIORITY_LEVEL },
        // Before every default schema but exempt (1): service-accounts (9000) would
        // otherwise lump all three parties together.
        matchingPrecedence: 50,
        distinguisherMethod: { type: 'ByUser' },
        rules: [
          {
            subjects: [
              { kind: 'ServiceAccount', serviceAccount: { name: sa, namespace: BENCH_NAMESPACE } },
            ],
            resourceRules: [
              {
                verbs: ['*'],
                apiGroups: ['*'],
                resources: ['*'],
                clusterScope: true,
                namespaces: ['*'],
              },
            ],
            nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
          },
        ],
      },
    } as KubernetesObject,
  ];
}

/**
 * A priority level wide enough never to queue the bench's parties (so APF only counts, it
 * does not shape): its share of the server's 600 seats is about as large as all the
 * default levels together.
 */
export function priorityLevelObject(): KubernetesObject {
  return {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'PriorityLevelConfiguration',
    metadata: { name: PRIORITY_LEVEL },
    spec: {
      type: 'Limited',
      limited: {
        nominalConcurrencyShares: 250,
        lendablePercent: 0,
        limitResponse: {
          type: 'Queue',
          queuing: { queues: 64, handSize: 6, queueLengthLimit: 1000 },
        },
      },
    },
  } as KubernetesObject;
}

export async function createIdentities(
  cp: ControlPlane,
  dir: string,
): Promise<Record<Party, Identity>> {
  const kc = cp.kubeConfig;
  const objects = KubernetesObjectApi.makeApiClient(kc);
  const core = kc.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: BENCH_NAMESPACE } } });
  await objects.create(priorityLevelObject());
  for (const p of PARTIES) for (const o of identityObjects(p)) await objects.create(o);
  const out = {} as Record<Party, Identity>;
  for (const p of PARTIES) {
    const tr = await core.createNamespacedServiceAccountToken({
      name: `bench-${p}`,
      namespace: BENCH_NAMESPACE,
      // No audiences: the token is for the API server itself (its default audience).
      body: { spec: { audiences: [], expirationSeconds: 24 * 3600 } },
    });
    const token = tr.status?.token;
    if (!token)
      throw new Error(`TokenRequest for ServiceAccount bench-${p} returned no status.token`);
    const path = join(dir, `kubeconfig-${p}`);
    const params = { server: cp.server, caPem: cp.caPem, token, user: `bench-${p}` };
    writeKubeconfig(path, params);
    out[p] = { party: p, token, kubeConfig: kubeConfigFor(params), kubeconfigPath: path };
  }
  // APF's configuration controller picks new FlowSchemas up within seconds; wait until a
  // request of each party is counted under its own schema, or every figure would be 0.
  const core2 = Object.fromEntries(
    PARTIES.map((p) => [p, out[p].kubeConfig.makeApiClient(CoreV1Api)]),
  );
  await waitFor(
    'FlowSchemas counting each party',
    async () => {
      for (const p of PARTIES) await core2[p]!.listNamespace({ limit: 1 });
      const by = await dispatchedByFlowSchema(cp);
      return PARTIES.every((p) => (by.get(flowSchemaOf(p)) ?? 0) > 0) ? true : undefined;
    },
    60_000,
    500,
  );
  return out;
}
