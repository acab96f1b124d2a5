// The slice of a Node the health code reads. Structural, so a @kubernetes/client-node V1Node,
// a kubernetes-fluent-client object or a parsed JSON trace line all fit without conversion.
import type { ActorHold } from './actor-hold.js';
import type { PowerState } from './machine.js';
import { toMillis, type TimeInput } from './time.js';

/** One entry of a Node's status.conditions, as the health code reads it. */
export interface NodeConditionSnapshot {
  /** The condition type, e.g. `Ready`, `MemoryPressure` or a node-problem-detector type. */
  type: string;
  /** `True`, `False` or `Unknown`, as the API reports it. */
  status: string;
  /** The kubelet's (or node lifecycle controller's) one-word reason, e.g. `KubeletNotReady`. */
  reason?: string;
  /** The human-readable message; classifyNode matches the kubelet's error strings in it. */
  message?: string;
  /** When `status` last changed: where an unhealthy period starts counting. */
  lastTransitionTime?: TimeInput;
  /** When the kubelet last reported this condition; the Ready heartbeat is a sign of life. */
  lastHeartbeatTime?: TimeInput;
}

/** One entry of a Node's spec.taints. */
export interface TaintSnapshot {
  /** The taint's key, e.g. `node.kubernetes.io/unreachable`. */
  key: string;
  /** The taint's value; most well-known taints have none. */
  value?: string;
  /** `NoSchedule`, `PreferNoSchedule` or `NoExecute`. */
  effect: string;
  /** When the taint was added; Kubernetes sets it only for NoExecute taints. */
  timeAdded?: TimeInput;
}

/**
 * The fields of a Node the health code reads; any Node object (client-node, KFC, parsed JSON)
 * fits. Parsed once per decision into a NodeObservation (observation.ts).
 */
export interface NodeSnapshot {
  /**
   * Name, creation time (the start-up timeout counts from it), deletion time (a Node being
   * deleted counts as gone), labels, and the annotations that hold the repair state, manual
   * triggers and the Cluster API opt-outs.
   */
  metadata?: {
    name?: string;
    creationTimestamp?: TimeInput;
    deletionTimestamp?: TimeInput;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  /**
   * Whether the node is cordoned (`unschedulable`: a cordon by someone else is never undone),
   * its taints, and the providerID that names its machine for the provider.
   */
  spec?: { unschedulable?: boolean; taints?: TaintSnapshot[]; providerID?: string };
  /** The conditions the node is judged by, its capacity, and nodeInfo (the bootID). */
  status?: {
    conditions?: NodeConditionSnapshot[];
    capacity?: Record<string, unknown>;
    /** bootID changes when the machine's kernel restarts: proof that a reset happened (fencing). */
    nodeInfo?: { bootID?: string };
  };
}

/** What one reconcile sees about one node. `node` undefined means the Node object is gone. */
export interface HealthObservation {
  /** The Node's name; known even when the Node object is gone. */
  nodeName: string;
  /** The Node object as read; undefined when it no longer exists (the decision forgets it). */
  node: NodeSnapshot | undefined;
  /** renewTime of the node's Lease in kube-node-lease, when the caller reads it. */
  leaseRenewTime?: TimeInput;
  /**
   * The machine's power state from the provider, when the caller asked for it: before the
   * first action of a repair, and for a shut-down node past the policy's shutdown.failAfter
   * (power-check.ts needsPowerState says when).
   */
  power?: PowerState;
  /**
   * Whether the caller can ask the provider for the power state at all (it implements
   * powerState and the Node has a providerID). A repair whose attempt timed out with the node
   * silent since the action waits for the provider's answer only when it can be asked
   * (fresh-evidence.ts). The controller always says; absent (a caller that never asks:
   * `noderepair status`, the simulator) counts as cannot, except that a wait the controller
   * persisted on the intent is shown as the wait it is.
   */
  canAskPower?: boolean;
  /**
   * Other actors' holds on the node (actors.ts actorHolds), when the caller read them: the
   * controller reads them for the fleet pass that may admit a repair.
   */
  actorHolds?: readonly ActorHold[];
}

// Well-known names (Kubernetes and Cluster API).
/** The kubelet's Ready condition type. */
export const NodeReady = 'Ready';
/** Taint the node lifecycle controller sets while Ready is Unknown. */
export const TaintUnreachable = 'node.kubernetes.io/unreachable';
/** Taint the node lifecycle controller sets while Ready is False. */
export const TaintNotReady = 'node.kubernetes.io/not-ready';
/** Taint that lets the pod GC and attach-detach controller free a fenced node's pods. */
export const TaintOutOfService = 'node.kubernetes.io/out-of-service';
/**
 * Taint the cloud-controller-manager's node lifecycle controller sets on a not-Ready node whose
 * instance the cloud reports shut down (cloud-provider's InstanceShutdown): the node is
 * treated as shut down on purpose (shutdown.ts), without asking our provider.
 */
export const TaintCloudShutdown = 'node.cloudprovider.kubernetes.io/shutdown';
/** Taint the node lifecycle controller sets on a cordoned node. */
export const TaintUnschedulable = 'node.kubernetes.io/unschedulable';
/** Cluster API: the node's Machine is paused; the node is not judged. */
export const AnnotationCapiPaused = 'cluster.x-k8s.io/paused';
/** Cluster API: remediation is switched off for the node; it is not judged. */
export const AnnotationCapiSkipRemediation = 'cluster.x-k8s.io/skip-remediation';

/** The node's first condition of `type`; undefined when it has none (or there is no node). */
export function getCondition(
  node: NodeSnapshot | undefined,
  type: string,
): NodeConditionSnapshot | undefined {
  return node?.status?.conditions?.find((c) => c.type === type);
}

/** True when the node has a taint with `key` (and `effect`, when given). */
export function hasTaint(node: NodeSnapshot | undefined, key: string, effect?: string): boolean {
  return (node?.spec?.taints ?? []).some(
    (t) => t.key === key && (effect === undefined || t.effect === effect),
  );
}

/** The value of the node's annotation `key`; undefined when absent. */
export function annotation(node: NodeSnapshot | undefined, key: string): string | undefined {
  return node?.metadata?.annotations?.[key];
}

/** The value of the node's label `key`; undefined when absent. */
export function label(node: NodeSnapshot | undefined, key: string): string | undefined {
  return node?.metadata?.labels?.[key];
}

/** Latest sign of life from the kubelet: the Ready heartbeat or the Lease renewal, whichever is newer. */
export function lastHeartbeat(obs: HealthObservation): number | undefined {
  const ready = toMillis(getCondition(obs.node, NodeReady)?.lastHeartbeatTime);
  const lease = toMillis(obs.leaseRenewTime);
  if (ready === undefined) return lease;
  if (lease === undefined) return ready;
  return Math.max(ready, lease);
}
