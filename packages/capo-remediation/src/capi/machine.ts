// Cluster API Machines, v1beta1 and v1beta2, read into one view. Only the fields remediation
// needs are decoded; the rest of the object is left alone.
//   v1beta1: spec.infrastructureRef {apiVersion, kind, name, namespace}; status.nodeRef
//            {kind, name}; status.conditions = CAPI conditions; status.v1beta2.conditions
//   v1beta2: spec.infrastructureRef {apiGroup, kind, name}; status.nodeRef {name};
//            status.conditions = metav1.Condition; status.deprecated.v1beta1.conditions
import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { formatErrors } from '@noderepair/core/codec';

/** Cluster API's API group (Machines, Clusters, MachineHealthChecks). */
export const CAPI_GROUP = 'cluster.x-k8s.io';

const Ref = t.partial({
  apiVersion: t.string,
  apiGroup: t.string,
  kind: t.string,
  name: t.string,
  namespace: t.string,
});

const MachineCodec = t.type({
  apiVersion: t.string,
  kind: t.literal('Machine'),
  metadata: t.intersection([
    t.type({ name: t.string }),
    t.partial({
      namespace: t.string,
      uid: t.string,
      resourceVersion: t.string,
      annotations: t.record(t.string, t.string),
      labels: t.record(t.string, t.string),
    }),
  ]),
  spec: t.intersection([
    t.type({ clusterName: t.string }),
    t.partial({ providerID: t.string, infrastructureRef: Ref }),
  ]),
});

/** The Cluster API versions of Machine that {@link readMachine} reads. */
export type MachineVersion = 'v1beta1' | 'v1beta2';

/** A Machine's spec.infrastructureRef (e.g. its OpenStackMachine), in one shape for both versions. */
export interface InfrastructureRef {
  /** API group (v1beta2 carries only the group; the version is found by contract). */
  readonly group: string;
  /** Full apiVersion when the Machine gave one (v1beta1). */
  readonly apiVersion: string | undefined;
  /** The object's kind, e.g. `OpenStackMachine`. */
  readonly kind: string;
  /** The object's name. */
  readonly name: string;
  /** The object's namespace; the Machine's own when the reference names none. */
  readonly namespace: string;
}

/** The parts of a Cluster API Machine (v1beta1 or v1beta2) that remediation reads. */
export interface MachineView {
  /** The Machine's API version, which decides where its conditions are written. */
  readonly version: MachineVersion;
  /** The Machine's name. */
  readonly name: string;
  /** The Machine's namespace (`default` when the object has none). */
  readonly namespace: string;
  /** metadata.uid, when present. */
  readonly uid: string | undefined;
  /** spec.clusterName: names the Cluster, and so its kubeconfig Secret. */
  readonly clusterName: string;
  /** spec.providerID, e.g. `openstack:///<server uuid>`, once the infrastructure set it. */
  readonly providerID: string | undefined;
  /** spec.infrastructureRef, when it names a kind and a name. */
  readonly infrastructureRef: InfrastructureRef | undefined;
  /** status.nodeRef.name: the Node this Machine became, once known. */
  readonly nodeName: string | undefined;
}

function nodeNameOf(u: unknown): string | undefined {
  const name = (u as { status?: { nodeRef?: { name?: unknown } } } | null)?.status?.nodeRef?.name;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/**
 * Reads a Cluster API Machine (v1beta1 or v1beta2) into a {@link MachineView}. Left is a message
 * naming the field that is missing or wrong, or the unsupported apiVersion.
 */
export function readMachine(u: unknown): E.Either<string, MachineView> {
  const r = MachineCodec.decode(u);
  if (E.isLeft(r)) return E.left(`Machine: ${formatErrors(r.left, 'machine').join('; ')}`);
  const m = r.right;
  const [group, version] = m.apiVersion.split('/');
  if (group !== CAPI_GROUP || (version !== 'v1beta1' && version !== 'v1beta2')) {
    return E.left(
      `Machine ${m.metadata.name}: apiVersion ${m.apiVersion} is not ${CAPI_GROUP}/v1beta1 or v1beta2`,
    );
  }
  const namespace = m.metadata.namespace ?? 'default';
  const ref = m.spec.infrastructureRef;
  let infra: InfrastructureRef | undefined;
  if (ref?.kind && ref.name) {
    const refGroup = ref.apiGroup ?? ref.apiVersion?.split('/')[0];
    if (!refGroup)
      return E.left(
        `Machine ${namespace}/${m.metadata.name}: spec.infrastructureRef has neither apiGroup nor apiVersion`,
      );
    infra = {
      group: refGroup,
      apiVersion: ref.apiVersion,
      kind: ref.kind,
      name: ref.name,
      namespace: ref.namespace ?? namespace,
    };
  }
  return E.right({
    version,
    name: m.metadata.name,
    namespace,
    uid: m.metadata.uid,
    clusterName: m.spec.clusterName,
    providerID: m.spec.providerID,
    infrastructureRef: infra,
    nodeName: nodeNameOf(u),
  });
}
