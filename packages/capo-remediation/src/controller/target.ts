// Owner Machine -> infrastructureRef OpenStackMachine (or Machine.spec.providerID when there
// is none) -> server uuid -> identityRef Secret (clouds.yaml, cloudName, cacert). Every
// failure is a message naming the object and field; no secret value ever enters one.
import { NotFoundError, type KubeClient, type KubeObject } from '@noderepair/core/kube';
import * as E from 'fp-ts/lib/Either.js';
import {
  cloudFromIdentitySecret,
  readMachine,
  readOpenStackMachine,
  resolveServer,
  type IdentityRef,
  type MachineView,
  type OpenStackMachineView,
  type ServerRef,
} from '../capi/index.js';
import type { CloudConfig } from '@noderepair/openstack';
import { RecentSecrets } from './recent-secrets.js';
import {
  getOrUndefined,
  machineResource,
  openStackMachineResource,
  VersionOrder,
} from './resources.js';

/** The Machine that owns a remediation, from its ownerReferences. */
export interface OwnerRef {
  /** The Machine's apiVersion, e.g. `cluster.x-k8s.io/v1beta2`; its version selects the API read. */
  readonly apiVersion: string;
  /** The Machine's name (same namespace as the remediation). */
  readonly name: string;
  /** The Machine's uid when recorded: a Machine with another uid was recreated and is not the target. */
  readonly uid: string | undefined;
}

/** Everything needed to act on a remediation's server, resolved from its Machine. */
export interface Target {
  /** The Machine as read from the API (raw, for the give-up patch). */
  readonly machineObject: KubeObject;
  /** The owning Machine, parsed. */
  readonly machine: MachineView;
  /** The Machine's OpenStackMachine, when it has one and it exists. */
  readonly openStackMachine: OpenStackMachineView | undefined;
  /** The Nova server the Machine runs on. */
  readonly server: ServerRef;
  /** The identity Secret used: the OpenStackMachine's identityRef, else the configured default. */
  readonly identity: IdentityRef;
  /** Keystone credentials and endpoint from that Secret, with the server's region when known. */
  readonly cloud: CloudConfig;
  /** Identifies the Secret's content, to reuse an OpenStack client until it changes. */
  readonly cloudKey: string;
}

/** Used when there is no OpenStackMachine (or it has no identityRef): from --default-identity-secret. */
export interface DefaultIdentity {
  /** Name of the Secret holding clouds.yaml, in the remediation's namespace. */
  readonly secretName: string;
  /** The cloud's key in that clouds.yaml. */
  readonly cloudName: string;
}

/** The owning Machine from the ownerReferences Cluster API's MHC sets (exactly one, kind Machine). */
export function machineOwner(obj: KubeObject): E.Either<string, OwnerRef> {
  const owners = (obj.metadata?.ownerReferences ?? []).filter(
    (o) => o.kind === 'Machine' && o.apiVersion.startsWith('cluster.x-k8s.io/'),
  );
  const o = owners[0];
  if (o === undefined)
    return E.left(
      'metadata.ownerReferences: no cluster.x-k8s.io Machine owner (Cluster API sets it when it creates the remediation)',
    );
  return E.right({ apiVersion: o.apiVersion, name: o.name, uid: o.uid });
}

export async function readMachineObject(
  client: KubeClient,
  namespace: string,
  owner: OwnerRef,
): Promise<E.Either<string, { raw: KubeObject; view: MachineView }>> {
  const version = owner.apiVersion.split('/')[1] ?? 'v1beta2';
  const raw = await getOrUndefined(
    client.get<KubeObject>(machineResource(version), owner.name, { namespace }),
  );
  if (raw === undefined) return E.left(`Machine ${namespace}/${owner.name} not found`);
  if (owner.uid !== undefined && raw.metadata?.uid !== undefined && raw.metadata.uid !== owner.uid)
    return E.left(
      `Machine ${namespace}/${owner.name} has uid ${raw.metadata.uid}, not the owner's ${owner.uid} (it was recreated)`,
    );
  const view = readMachine(raw);
  return E.isLeft(view) ? view : E.right({ raw, view: view.right });
}

async function readOpenStackMachineObject(
  client: KubeClient,
  m: MachineView,
  order: VersionOrder,
): Promise<E.Either<string, OpenStackMachineView | undefined>> {
  const ref = m.infrastructureRef;
  if (ref === undefined || ref.kind !== 'OpenStackMachine') return E.right(undefined);
  const given = ref.apiVersion?.split('/')[1];
  const versions = given !== undefined ? [given] : order.order;
  for (const v of versions) {
    try {
      const raw = await client.get<KubeObject>(openStackMachineResource(v), ref.name, {
        namespace: ref.namespace,
      });
      if (given === undefined) order.answered(v);
      return readOpenStackMachine(raw);
    } catch (e) {
      // 404 is both "no such object" and "this version is not served": try the next one.
      if (!(e instanceof NotFoundError)) throw e;
    }
  }
  return E.right(undefined);
}

/** What {@link resolveTarget} remembers between calls; each part is optional (default: nothing). */
export interface TargetReads {
  /** The OpenStackMachine version to read first (the one that answered last). */
  readonly versions?: VersionOrder;
  /** Identity Secrets read recently (default: read on every call). */
  readonly secrets?: RecentSecrets;
}

/**
 * Reads the owning Machine, its OpenStackMachine and identity Secret into a {@link Target}.
 * Left is a message saying what is missing or inconsistent (the remediation cannot proceed
 * yet); API errors other than not-found are thrown.
 */
export async function resolveTarget(
  client: KubeClient,
  namespace: string,
  owner: OwnerRef,
  defaults: DefaultIdentity | undefined,
  reads: TargetReads = {},
): Promise<E.Either<string, Target>> {
  const versions = reads.versions ?? new VersionOrder();
  const secrets = reads.secrets ?? new RecentSecrets(client, { maxAgeMs: 0 });
  const machine = await readMachineObject(client, namespace, owner);
  if (E.isLeft(machine)) return machine;
  const m = machine.right.view;
  const osm = await readOpenStackMachineObject(client, m, versions);
  if (E.isLeft(osm)) return osm;
  const server = resolveServer(m, osm.right);
  if (E.isLeft(server)) return server;
  const identity: IdentityRef | undefined =
    osm.right?.identityRef ??
    (defaults
      ? {
          type: 'Secret',
          name: defaults.secretName,
          cloudName: defaults.cloudName,
          region: server.right.region,
        }
      : undefined);
  if (identity === undefined)
    return E.left(
      `Machine ${namespace}/${m.name}: no OpenStackMachine identityRef and no default identity Secret configured`,
    );
  const secret = await secrets.get(namespace, identity.name);
  if (secret === undefined)
    return E.left(`identityRef Secret ${namespace}/${identity.name} not found`);
  const cloud = cloudFromIdentitySecret(secret, identity);
  if (E.isLeft(cloud)) {
    secrets.forget(namespace, identity.name);
    return cloud;
  }
  const region = server.right.region ?? cloud.right.region;
  return E.right({
    machineObject: machine.right.raw,
    machine: m,
    openStackMachine: osm.right,
    server: server.right,
    identity,
    cloud: region !== undefined ? { ...cloud.right, region } : cloud.right,
    cloudKey: `${namespace}/${identity.name}@${secret.metadata?.resourceVersion ?? ''}/${identity.cloudName}/${region ?? ''}`,
  });
}
