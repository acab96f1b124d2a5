// The resource types the controller reads and writes.
import {
  customResource,
  NotFoundError,
  type KubeObject,
  type ResourceType,
} from '@noderepair/core/kube';
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

/**
 * The order to try OpenStackMachine versions in when the ref names none: newest first until one
 * answers, then the one that answered last. A version the apiserver does not serve answers 404
 * like a missing object, so without it every read on a v1beta1-only install costs two GETs.
 * Only the order changes: on 404 the other versions are still tried.
 */
export class VersionOrder {
  #last: string | undefined;

  constructor(private readonly all: readonly string[] = CAPO_VERSIONS) {}

  /** The versions to try, in order. */
  get order(): string[] {
    const last = this.#last;
    return last === undefined ? [...this.all] : [last, ...this.all.filter((v) => v !== last)];
  }

  /** `version` found the object: try it first next time. */
  answered(version: string): void {
    this.#last = version;
  }
}

/** The object a GET returns, or undefined on 404; every other error is thrown. */
export async function getOrUndefined<T extends KubeObject>(p: Promise<T>): Promise<T | undefined> {
  try {
    return await p;
  } catch (e) {
    if (e instanceof NotFoundError) return undefined;
    throw e;
  }
}
