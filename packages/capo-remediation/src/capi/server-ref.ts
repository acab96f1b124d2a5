// Which Nova server a Machine is: the OpenStackMachine's providerID, else its
// status.instanceID, else the Machine's providerID. The region comes from the providerID
// (openstack://<region>/<uuid>) or the identityRef.
import * as E from 'fp-ts/lib/Either.js';
import { parseProviderID } from '@noderepair/openstack';
import type { MachineView } from './machine.js';
import type { OpenStackMachineView } from './openstack-machine.js';

/** The Nova server a Machine runs on. */
export interface ServerRef {
  /** The server uuid. */
  readonly serverId: string;
  /** The region from the providerID or the identityRef; undefined means the cloud's default. */
  readonly region: string | undefined;
  /** Where the id came from, for events and status messages. */
  readonly source:
    | 'OpenStackMachine.spec.providerID'
    | 'OpenStackMachine.status.instanceID'
    | 'Machine.spec.providerID';
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Finds a Machine's server: the OpenStackMachine's providerID, else its status.instanceID, else
 * the Machine's providerID. Left says which is malformed, or that there is no server yet.
 */
export function resolveServer(
  machine: MachineView,
  osm: OpenStackMachineView | undefined,
): E.Either<string, ServerRef> {
  const identityRegion = osm?.identityRef?.region;
  if (osm?.providerID) {
    const p = parseProviderID(osm.providerID);
    if (E.isLeft(p)) return E.left(`OpenStackMachine ${osm.namespace}/${osm.name}: ${p.left}`);
    return E.right({
      serverId: p.right.serverId,
      region: p.right.region ?? identityRegion,
      source: 'OpenStackMachine.spec.providerID',
    });
  }
  if (osm?.instanceID) {
    if (!UUID.test(osm.instanceID))
      return E.left(
        `OpenStackMachine ${osm.namespace}/${osm.name}: status.instanceID ${JSON.stringify(osm.instanceID)} is not a UUID`,
      );
    return E.right({
      serverId: osm.instanceID.toLowerCase(),
      region: identityRegion,
      source: 'OpenStackMachine.status.instanceID',
    });
  }
  if (machine.providerID) {
    const p = parseProviderID(machine.providerID);
    if (E.isLeft(p)) return E.left(`Machine ${machine.namespace}/${machine.name}: ${p.left}`);
    return E.right({
      serverId: p.right.serverId,
      region: p.right.region ?? identityRegion,
      source: 'Machine.spec.providerID',
    });
  }
  return E.left(
    `Machine ${machine.namespace}/${machine.name}: no server yet (no providerID on the Machine or OpenStackMachine, no status.instanceID)`,
  );
}
