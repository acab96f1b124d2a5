// The Cluster API objects of the bench's workers, as plain manifests (pure): per worker a
// stand-alone Machine and its OpenStackMachine (already carrying the server's providerID),
// a MachineHealthCheck over all of them, and the external remediation template it names.
import type { KubernetesObject } from '@kubernetes/client-node';
import {
  CAPI_API_VERSION,
  CAPI_GROUP,
  CLUSTER_NAME_LABEL,
  INFRA_API_VERSION,
  INFRA_GROUP,
  bootstrapSecretName,
} from '@noderepair/capi-e2e';
import { POOL_LABEL, workerName, workerProviderID } from './node-writer.js';

export { CAPI_GROUP, INFRA_GROUP };
export const REMEDIATION_GROUP = 'remediation.noderepair.dev';
export const REMEDIATION_VERSION = 'v1alpha1';
export const REMEDIATION_TEMPLATE = 'bench-reboot';
export const MHC_NAME = 'bench-workers';

/** Same fixed image and identity as the capi-e2e harness: nothing looks them up. */
const openStackMachineSpec = {
  image: { id: '7a2c8e1e-51b4-4f3c-9a7c-3f1f4c6f1d2e' },
  flavor: 'm1.small',
  identityRef: { cloudName: 'openstack', name: 'cloud-config' },
};

export function workerOpenStackMachine(ns: string, cluster: string, i: number): KubernetesObject {
  return {
    apiVersion: INFRA_API_VERSION,
    kind: 'OpenStackMachine',
    metadata: { name: workerName(i), namespace: ns, labels: { [CLUSTER_NAME_LABEL]: cluster } },
    spec: { ...openStackMachineSpec, providerID: workerProviderID(i) },
  } as KubernetesObject;
}

/** What CAPO would report once the server is ACTIVE (the v1beta1 provider contract). */
export function workerOpenStackMachineStatus(i: number): Record<string, unknown> {
  return {
    status: {
      ready: true,
      instanceID: workerProviderID(i).replace('openstack:///', ''),
      instanceState: 'ACTIVE',
    },
  };
}

export function workerMachine(ns: string, cluster: string, i: number): KubernetesObject {
  const name = workerName(i);
  return {
    apiVersion: CAPI_API_VERSION,
    kind: 'Machine',
    metadata: {
      name,
      namespace: ns,
      labels: { [CLUSTER_NAME_LABEL]: cluster, [POOL_LABEL]: 'workers' },
    },
    spec: {
      clusterName: cluster,
      bootstrap: { dataSecretName: bootstrapSecretName(cluster) },
      infrastructureRef: { apiGroup: INFRA_GROUP, kind: 'OpenStackMachine', name },
    },
  } as KubernetesObject;
}

/** A remediation step of the template: the scale bench soft-reboots, the capo bench hard-reboots. */
export interface TemplateStep {
  readonly type: 'SoftReboot' | 'HardReboot';
  readonly timeoutSeconds: number;
}

/** The OpenStackRemediationTemplate Cluster API clones into each OpenStackRemediation (pure). */
export function remediationTemplate(
  ns: string,
  name = REMEDIATION_TEMPLATE,
  step: TemplateStep = { type: 'SoftReboot', timeoutSeconds: 300 },
): KubernetesObject {
  return {
    apiVersion: `${REMEDIATION_GROUP}/${REMEDIATION_VERSION}`,
    kind: 'OpenStackRemediationTemplate',
    metadata: { name, namespace: ns },
    spec: { template: { spec: { steps: [step], drain: { enabled: false } } } },
  } as KubernetesObject;
}

/** How machineHealthCheck names itself and its template, and how many may be remediated at once. */
export interface MachineHealthCheckShape {
  readonly name?: string;
  readonly template?: string;
  /** remediation.triggerIf.unhealthyLessThanOrEqualTo; Cluster API's default when unset. */
  readonly unhealthyLessThanOrEqualTo?: string;
}

/** Ready=False or Unknown for `timeoutSeconds` -> an OpenStackRemediation (the same rule as ours). */
export function machineHealthCheck(
  ns: string,
  cluster: string,
  timeoutSeconds: number,
  shape: MachineHealthCheckShape = {},
): KubernetesObject {
  return {
    apiVersion: `${CAPI_GROUP}/v1beta2`,
    kind: 'MachineHealthCheck',
    metadata: { name: shape.name ?? MHC_NAME, namespace: ns },
    spec: {
      clusterName: cluster,
      selector: { matchLabels: { [POOL_LABEL]: 'workers' } },
      checks: {
        nodeStartupTimeoutSeconds: 600,
        unhealthyNodeConditions: [
          { type: 'Ready', status: 'Unknown', timeoutSeconds },
          { type: 'Ready', status: 'False', timeoutSeconds },
        ],
      },
      remediation: {
        ...(shape.unhealthyLessThanOrEqualTo !== undefined
          ? { triggerIf: { unhealthyLessThanOrEqualTo: shape.unhealthyLessThanOrEqualTo } }
          : {}),
        templateRef: {
          apiVersion: `${REMEDIATION_GROUP}/${REMEDIATION_VERSION}`,
          kind: 'OpenStackRemediationTemplate',
          name: shape.template ?? REMEDIATION_TEMPLATE,
        },
      },
    },
  } as KubernetesObject;
}
