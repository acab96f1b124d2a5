// The `coordination` section of the repair policy: which other actors' disruptions make
// noderepair wait (actors.ts decides from what the controller sees), and where those actors
// keep their marks. Kept apart from policy.ts so the actor list can grow without touching it.
import * as t from 'io-ts';

/**
 * The actors noderepair can recognise. Kured: kured's reboot lock on its DaemonSet.
 * NodeMaintenance: a medik8s NodeMaintenance object for the node. Medik8sLease: the medik8s
 * node lease held by someone else (NodeHealthCheck, NodeMaintenance, ...). ClusterAPIRollout:
 * the node of an outdated MachineSet during a MachineDeployment rollout. ManualCordon: a node
 * cordoned by someone else before noderepair touched it. SystemUpgrade: an unfinished
 * system-upgrade-controller Job for the node (an OS or Kubernetes upgrade). Karpenter: the
 * node carries karpenter.sh/disrupted (Karpenter is draining it to remove or replace it).
 */
export const ActorKind = t.keyof(
  {
    Kured: null,
    NodeMaintenance: null,
    Medik8sLease: null,
    ClusterAPIRollout: null,
    ManualCordon: null,
    SystemUpgrade: null,
    Karpenter: null,
  },
  'ActorKind',
);
/** One of the actors noderepair can recognise (see the ActorKind codec). */
export type ActorKind = t.TypeOf<typeof ActorKind>;

/** io-ts codec of the policy's `coordination` section as written; every field is optional. */
export const CoordinationInput = t.partial({
  actors: t.array(ActorKind),
  kured: t.partial({ daemonSet: t.string, lockAnnotation: t.string }),
  medik8sLease: t.partial({ namespace: t.string }),
  systemUpgrade: t.partial({ namespace: t.string }),
});
/**
 * The `coordination` section as written in the policy; resolveCoordination fills in the defaults.
 */
export type CoordinationInput = t.TypeOf<typeof CoordinationInput>;

/**
 * The resolved `coordination` section: which other actors hold a repair and where their marks are.
 */
export interface CoordinationPolicy {
  /** The actors whose disruption holds a repair, in the order their holds are reported. */
  actors: ActorKind[];
  /** Where kured keeps its lock: `namespace/name` of its DaemonSet, and the annotation key. */
  kured: { daemonSet: string; lockAnnotation: string };
  /** The namespace of medik8s node leases (`node-<node>`), read and (later) written by us. */
  medik8sLease: { namespace: string };
  /** Where system-upgrade-controller runs its upgrade Jobs (its SYSTEM_UPGRADE_CONTROLLER_NAMESPACE). */
  systemUpgrade: { namespace: string };
}

// ManualCordon is on by default (issue 42): a node someone else cordoned before noderepair
// touched it is someone's work in progress (a person debugging it, a tool we do not know),
// and rebooting it under them is the harm an SRE would not forgive. A person who cordoned a
// broken node to have it repaired says so with the repair-now annotation, which a cordon does
// not hold (fleet.ts). Noderepair never uncordons such a node either way
// (Remediation.cordoned). SystemUpgrade is opt-in: it needs `list jobs` in the upgrade
// namespace, more than a repair tool should ask by default.
/**
 * What an empty `coordination` section means: Kured, NodeMaintenance, Medik8sLease,
 * ClusterAPIRollout, Karpenter and ManualCordon, at their usual places. SystemUpgrade is
 * opt-in.
 */
export const defaultCoordinationPolicy: CoordinationPolicy = {
  actors: [
    'Kured',
    'NodeMaintenance',
    'Medik8sLease',
    'ClusterAPIRollout',
    'Karpenter',
    'ManualCordon',
  ],
  // kured's own flags default to --ds-namespace=kube-system --ds-name=kured; its Helm chart
  // uses the release's namespace and name, so a chart install must say where it is.
  kured: { daemonSet: 'kube-system/kured', lockAnnotation: 'weave.works/kured-node-lock' },
  // NMO and NHC deploy with no LEASE_NAMESPACE override, so this is where they look.
  medik8sLease: { namespace: 'medik8s-leases' },
  // The namespace of system-upgrade-controller's own manifests.
  systemUpgrade: { namespace: 'system-upgrade' },
};

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
// A qualified annotation key: an optional DNS-subdomain prefix and a name of at most 63 chars.
const ANNOTATION_KEY =
  /^([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

/** The resolved section, pushing what is wrong onto `problems` (each naming its field). */
export function resolveCoordination(
  p: CoordinationInput | undefined,
  problems: string[],
): CoordinationPolicy {
  const d = defaultCoordinationPolicy;
  const actors = p?.actors ?? d.actors;
  actors.forEach((a, i) => {
    const first = actors.indexOf(a);
    if (first !== i)
      problems.push(`coordination.actors[${i}]: ${a} is already listed at [${first}]`);
  });
  const daemonSet = p?.kured?.daemonSet ?? d.kured.daemonSet;
  const lockAnnotation = p?.kured?.lockAnnotation ?? d.kured.lockAnnotation;
  const [ns, name, ...rest] = daemonSet.split('/');
  if (
    ns === undefined ||
    name === undefined ||
    rest.length > 0 ||
    !DNS_LABEL.test(ns) ||
    !DNS_SUBDOMAIN.test(name)
  )
    problems.push(
      `coordination.kured.daemonSet: expected "namespace/name" of kured's DaemonSet, got "${daemonSet}"`,
    );
  if (!ANNOTATION_KEY.test(lockAnnotation))
    problems.push(
      `coordination.kured.lockAnnotation: expected an annotation key such as weave.works/kured-node-lock, got "${lockAnnotation}"`,
    );
  // Settings for an actor that is not listed would be silently ignored: a typo nobody sees.
  if (p?.kured !== undefined && !actors.includes('Kured'))
    problems.push('coordination.kured: only used when coordination.actors lists Kured');
  const namespace = p?.medik8sLease?.namespace ?? d.medik8sLease.namespace;
  if (!DNS_LABEL.test(namespace))
    problems.push(
      `coordination.medik8sLease.namespace: expected a namespace name, got "${namespace}"`,
    );
  const upgradeNs = p?.systemUpgrade?.namespace ?? d.systemUpgrade.namespace;
  if (!DNS_LABEL.test(upgradeNs))
    problems.push(
      `coordination.systemUpgrade.namespace: expected a namespace name, got "${upgradeNs}"`,
    );
  if (p?.systemUpgrade !== undefined && !actors.includes('SystemUpgrade'))
    problems.push(
      'coordination.systemUpgrade: only used when coordination.actors lists SystemUpgrade',
    );
  return {
    actors: [...actors],
    kured: { daemonSet, lockAnnotation },
    medik8sLease: { namespace },
    systemUpgrade: { namespace: upgradeNs },
  };
}

/** `namespace/name` of a resolved kured DaemonSet reference. */
export function kuredDaemonSetRef(c: CoordinationPolicy): { namespace: string; name: string } {
  const [namespace = '', name = ''] = c.kured.daemonSet.split('/');
  return { namespace, name };
}
