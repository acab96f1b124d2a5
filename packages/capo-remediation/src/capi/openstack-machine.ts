// CAPO OpenStackMachine (infrastructure.cluster.x-k8s.io v1beta1 and v1beta2): the server
// uuid (spec.providerID or status.instanceID) and the identityRef that says which Secret
// holds clouds.yaml.
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { formatErrors } from '@noderepair/core/codec';

/** The API group of Cluster API Provider OpenStack (OpenStackMachine, OpenStackCluster). */
export const CAPO_GROUP = 'infrastructure.cluster.x-k8s.io';

const IdentityRef = t.intersection([
  t.type({ name: t.string, cloudName: t.string }),
  t.partial({ type: t.string, region: t.string }),
]);

const OpenStackMachineCodec = t.type({
  apiVersion: t.string,
  kind: t.literal('OpenStackMachine'),
  metadata: t.intersection([t.type({ name: t.string }), t.partial({ namespace: t.string })]),
  spec: t.partial({ providerID: t.string, identityRef: IdentityRef }),
  status: t.union([
    t.undefined,
    t.partial({
      instanceID: t.union([t.string, t.null]),
      instanceState: t.union([t.string, t.null]),
    }),
  ]),
});

/** An OpenStackMachine's spec.identityRef: where the cloud credentials (clouds.yaml) are. */
export interface IdentityRef {
  /** Secret (the default) or ClusterIdentity (CAPO v1beta2). */
  readonly type: string;
  /** Name of the Secret (or ClusterIdentity), in the Machine's namespace. */
  readonly name: string;
  /** The cloud's key in clouds.yaml. */
  readonly cloudName: string;
  /** Region that overrides the one in clouds.yaml, when set. */
  readonly region: string | undefined;
}

/** The parts of a CAPO OpenStackMachine (v1beta1 or v1beta2) that remediation reads. */
export interface OpenStackMachineView {
  /** The OpenStackMachine's name. */
  readonly name: string;
  /** Its namespace (`default` when the object has none). */
  readonly namespace: string;
  /** spec.providerID, `openstack://[region]/<server uuid>`; undefined when empty. */
  readonly providerID: string | undefined;
  /** status.instanceID: the Nova server uuid; undefined when empty. */
  readonly instanceID: string | undefined;
  /** BUILD, ACTIVE, ERROR, STOPPED, SHUTOFF, DELETED, SOFT_DELETED */
  readonly instanceState: string | undefined;
  /** spec.identityRef; undefined when the object names none (the default identity then applies). */
  readonly identityRef: IdentityRef | undefined;
}

/**
 * Reads a CAPO OpenStackMachine into an {@link OpenStackMachineView}. Left is a message naming
 * the wrong field, or an apiVersion outside {@link CAPO_GROUP}.
 */
export function readOpenStackMachine(u: unknown): E.Either<string, OpenStackMachineView> {
  const r = OpenStackMachineCodec.decode(u);
  if (E.isLeft(r))
    return E.left(`OpenStackMachine: ${formatErrors(r.left, 'openStackMachine').join('; ')}`);
  const o = r.right;
  if (o.apiVersion.split('/')[0] !== CAPO_GROUP)
    return E.left(
      `OpenStackMachine ${o.metadata.name}: apiVersion ${o.apiVersion} is not in ${CAPO_GROUP}`,
    );
  const id = o.spec.identityRef;
  return E.right({
    name: o.metadata.name,
    namespace: o.metadata.namespace ?? 'default',
    providerID: o.spec.providerID || undefined,
    instanceID: o.status?.instanceID || undefined,
    instanceState: o.status?.instanceState || undefined,
    identityRef: id
      ? {
          type: id.type ?? 'Secret',
          name: id.name,
          cloudName: id.cloudName,
          region: id.region || undefined,
        }
      : undefined,
  });
}
