// The resource types the controller reads and writes.
import { customResource, type ResourceType } from '@noderepair/core/kube';
import { GROUP, REMEDIATION_KIND, VERSION } from '../api/index.js';
import { CAPI_GROUP, CAPO_GROUP } from '../capi/index.js';

/** The openstackremediations resource (namespaced), for informers and the client. */
export const OpenStackRemediationResource: ResourceType = customResource({
  group: GROUP,
  version: VERSION,
  kind: REMEDIATION_KIND,
  plural: 'openstackremediations',
  namespaced: true,
});

export const SecretResource: ResourceType = customResource({
  group: '',
  version: 'v1',
  kind: 'Secret',
  plural: 'secrets',
  namespaced: true,
});

export function machineResource(version: string): ResourceType {
  return customResource({
    group: CAPI_GROUP,
    version,
    kind: 'Machine',
    plural: 'machines',
    namespaced: true,
  });
}

export function openStackMachineResource(version: string): ResourceType {
  return customResource({
    group: CAPO_GROUP,
    version,
    kind: 'OpenStackMachine',
    plural: 'openstackmachines',
    namespaced: true,
  });
}

/** CAPO served versions, newest first: a v1beta2 Machine's infrastructureRef names only the group. */
export const CAPO_VERSIONS = ['v1beta2', 'v1beta1'] as const;
