import type { KubernetesObject } from '@kubernetes/client-node';
import { stringify } from 'yaml';

/**
 * The Cluster API objects of a minimal self-managed cluster, as plain manifests (pure).
 * Infrastructure is CAPO's kinds (v1beta1 contract); bootstrap is a ready-made data Secret
 * named in spec.bootstrap.dataSecretName, which Cluster API accepts without any bootstrap
 * provider. The control plane is one stand-alone Machine: without spec.controlPlaneRef the
 * Cluster controller takes ControlPlaneInitialized from "a control-plane Machine has a
 * nodeRef" (internal/controllers/cluster/cluster_controller_status.go).
 */

export const CAPI_GROUP = 'cluster.x-k8s.io';
export const CAPI_API_VERSION = 'cluster.x-k8s.io/v1beta2';
export const INFRA_GROUP = 'infrastructure.cluster.x-k8s.io';
export const INFRA_API_VERSION = 'infrastructure.cluster.x-k8s.io/v1beta1';

export const CLUSTER_NAME_LABEL = 'cluster.x-k8s.io/cluster-name';
export const DEPLOYMENT_NAME_LABEL = 'cluster.x-k8s.io/deployment-name';
export const CONTROL_PLANE_LABEL = 'cluster.x-k8s.io/control-plane';

export interface WorkloadAccess {
  /** https://127.0.0.1:PORT of the one kube-apiserver (management = workload). */
  server: string;
  caPem: string;
  token: string;
}

export interface ClusterParams {
  namespace: string;
  clusterName: string;
  access: WorkloadAccess;
}

/** A kubeconfig for the workload cluster; it is the management cluster itself. */
export function workloadKubeconfig(clusterName: string, a: WorkloadAccess): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      { name: clusterName, cluster: { server: a.server, 'certificate-authority-data': Buffer.from(a.caPem).toString('base64') } },
    ],
    users: [{ name: `${clusterName}-admin`, user: { token: a.token } }],
    contexts: [{ name: clusterName, context: { cluster: clusterName, user: `${clusterName}-admin` } }],
    'current-context': clusterName,
  });
}

export const bootstrapSecretName = (clusterName: string) => `${clusterName}-bootstrap-data`;
const identityRef = { cloudName: 'openstack', name: 'cloud-config' };
/** A fixed Glance image id; nothing looks it up (CAPO's manager does not run). */
const IMAGE_ID = '7a2c8e1e-51b4-4f3c-9a7c-3f1f4c6f1d2e';

function openStackMachineSpec() {
  return { image: { id: IMAGE_ID }, flavor: 'm1.small', identityRef };
}

export function clusterObjects(p: ClusterParams): KubernetesObject[] {
  const { namespace, clusterName } = p;
  const port = Number(new URL(p.access.server).port);
  const labels = { [CLUSTER_NAME_LABEL]: clusterName };
  return [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `${clusterName}-kubeconfig`, namespace, labels },
      type: 'cluster.x-k8s.io/secret',
      stringData: { value: workloadKubeconfig(clusterName, p.access) },
    } as KubernetesObject,
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: bootstrapSecretName(clusterName), namespace, labels },
      type: 'cluster.x-k8s.io/secret',
      stringData: { value: '#cloud-config\n', format: 'cloud-config' },
    } as KubernetesObject,
    {
      apiVersion: INFRA_API_VERSION,
      kind: 'OpenStackCluster',
      metadata: { name: clusterName, namespace, labels },
      spec: { identityRef, controlPlaneEndpoint: { host: '127.0.0.1', port } },
    } as KubernetesObject,
    {
      apiVersion: CAPI_API_VERSION,
      kind: 'Cluster',
      metadata: { name: clusterName, namespace, labels },
      spec: { infrastructureRef: { apiGroup: INFRA_GROUP, kind: 'OpenStackCluster', name: clusterName } },
    } as KubernetesObject,
  ];
}

/** One stand-alone control-plane Machine with its OpenStackMachine. */
export function controlPlaneMachineObjects(p: { namespace: string; clusterName: string }): KubernetesObject[] {
  const name = `${p.clusterName}-control-plane-0`;
  const labels = { [CLUSTER_NAME_LABEL]: p.clusterName, [CONTROL_PLANE_LABEL]: '' };
  return [
    {
      apiVersion: INFRA_API_VERSION,
      kind: 'OpenStackMachine',
      metadata: { name, namespace: p.namespace, labels },
      spec: openStackMachineSpec(),
    } as KubernetesObject,
    {
      apiVersion: CAPI_API_VERSION,
      kind: 'Machine',
      metadata: { name, namespace: p.namespace, labels },
      spec: {
        clusterName: p.clusterName,
        bootstrap: { dataSecretName: bootstrapSecretName(p.clusterName) },
        infrastructureRef: { apiGroup: INFRA_GROUP, kind: 'OpenStackMachine', name },
      },
    } as KubernetesObject,
  ];
}

export function machineDeploymentObjects(p: {
  namespace: string;
  clusterName: string;
  name: string;
  replicas: number;
}): KubernetesObject[] {
  const selectorLabels = { [CLUSTER_NAME_LABEL]: p.clusterName, [DEPLOYMENT_NAME_LABEL]: p.name };
  return [
    {
      apiVersion: INFRA_API_VERSION,
      kind: 'OpenStackMachineTemplate',
      metadata: { name: p.name, namespace: p.namespace, labels: { [CLUSTER_NAME_LABEL]: p.clusterName } },
      spec: { template: { spec: openStackMachineSpec() } },
    } as KubernetesObject,
    {
      apiVersion: CAPI_API_VERSION,
      kind: 'MachineDeployment',
      metadata: { name: p.name, namespace: p.namespace, labels: { [CLUSTER_NAME_LABEL]: p.clusterName } },
      spec: {
        clusterName: p.clusterName,
        replicas: p.replicas,
        selector: { matchLabels: selectorLabels },
        template: {
          metadata: { labels: selectorLabels },
          spec: {
            clusterName: p.clusterName,
            bootstrap: { dataSecretName: bootstrapSecretName(p.clusterName) },
            infrastructureRef: { apiGroup: INFRA_GROUP, kind: 'OpenStackMachineTemplate', name: p.name },
          },
        },
      },
    } as KubernetesObject,
  ];
}
