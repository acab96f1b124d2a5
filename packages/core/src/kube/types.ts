// Minimal JSON shapes of the built-in kinds noderepair touches. Only the fields we read or
// write are typed; everything else is preserved because objects are plain JSON.
import type { KubeObject } from './object.js';

/**
 * One entry of a Node's `status.conditions`, as the kubelet or node-problem-detector reports it.
 */
export interface KubeNodeCondition {
  /** Condition name, e.g. `Ready`, `MemoryPressure` or a node-problem-detector type. */
  type: string;
  /**
   * `Unknown` means the reporter stopped reporting (the node controller sets it when the kubelet
   * goes quiet).
   */
  status: 'True' | 'False' | 'Unknown';
  /** Machine-readable CamelCase cause of the last transition. */
  reason?: string;
  /** Human-readable detail of the last transition. */
  message?: string;
  /** RFC 3339 time the reporter last confirmed this condition. */
  lastHeartbeatTime?: string;
  /** RFC 3339 time `status` last changed; the basis for how long a node has been unhealthy. */
  lastTransitionTime?: string;
}

/** A Node taint (`spec.taints[]`). */
export interface KubeTaint {
  /** Taint key, e.g. `node.kubernetes.io/out-of-service`. */
  key: string;
  /** Optional taint value; matched by tolerations with operator `Equal`. */
  value?: string;
  /** What the scheduler and kubelet do with pods that do not tolerate the taint. */
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  /** RFC 3339 time the taint was added; only written for `NoExecute` taints. */
  timeAdded?: string;
}

/**
 * A core/v1 Node with the fields noderepair reads or writes typed; the rest passes through as JSON.
 */
export interface KubeNode extends KubeObject {
  /** `providerID` identifies the machine in the cloud; `unschedulable` is the cordon flag. */
  spec?: { providerID?: string; unschedulable?: boolean; taints?: KubeTaint[]; podCIDR?: string };
  /** Conditions, addresses and inventory as last reported by the kubelet. */
  status?: {
    conditions?: KubeNodeCondition[];
    addresses?: { type: string; address: string }[];
    capacity?: Record<string, string>;
    allocatable?: Record<string, string>;
    images?: { names?: string[]; sizeBytes?: number }[];
    nodeInfo?: Record<string, string>;
    daemonEndpoints?: unknown;
  };
}

/** A core/v1 Pod with only the fields drain and health checks read typed; others pass through. */
export interface KubePod extends KubeObject {
  /** `nodeName` binds the pod to a node; other spec fields are kept as opaque JSON. */
  spec?: {
    nodeName?: string;
    containers?: unknown[];
    tolerations?: unknown[];
    [k: string]: unknown;
  };
  /** Pod phase and conditions as reported by the kubelet; other status fields are opaque JSON. */
  status?: {
    phase?: string;
    conditions?: { type: string; status: string }[];
    [k: string]: unknown;
  };
}

/** A coordination.k8s.io/v1 Lease, used for leader election and node heartbeats. */
export interface KubeLease extends KubeObject {
  /**
   * Holder and timing of the lease; times are RFC 3339 with microseconds, durations in seconds.
   * `null` fields are cleared ones.
   */
  spec?: {
    holderIdentity?: string | null;
    leaseDurationSeconds?: number | null;
    acquireTime?: string | null;
    renewTime?: string | null;
    leaseTransitions?: number | null;
  };
}

/** A core/v1 ObjectReference: points at another object, e.g. the subject of an Event. */
export interface KubeObjectReference {
  /** API group/version of the referent, e.g. `v1`. */
  apiVersion?: string;
  /** Kind of the referent, e.g. `Node`. */
  kind?: string;
  /** Name of the referent. */
  name?: string;
  /** Namespace of the referent; absent for cluster-scoped objects. */
  namespace?: string;
  /** UID of the referent, pinning one incarnation of a name. */
  uid?: string;
  /** Version of the referent the reference was taken from. */
  resourceVersion?: string;
  /**
   * Path of a field inside the referent (e.g. a container) when the reference is narrower than the
   * object.
   */
  fieldPath?: string;
}

/** events.k8s.io/v1 Event. */
export interface KubeEvent extends KubeObject {
  /** RFC 3339 time with microseconds at which the event first happened. */
  eventTime: string;
  /** Controller that emitted the event, e.g. `noderepair.io/autorepair`. */
  reportingController: string;
  /** Emitting instance (usually the pod name), so events of replicas can be told apart. */
  reportingInstance: string;
  /** What the controller did or failed to do, e.g. `Fence`. */
  action: string;
  /** Machine-readable CamelCase cause of the event. */
  reason: string;
  /** `Warning` events point at something a person should look at. */
  type: 'Normal' | 'Warning';
  /** Human-readable description, at most 1 kB on the apiserver. */
  note?: string;
  /** The object the event is about, e.g. the Node being repaired. */
  regarding?: KubeObjectReference;
  /** A second object involved, e.g. the remediation object that acted on the Node. */
  related?: KubeObjectReference;
  /** Set when the event repeats: how many times, and when it was last seen. */
  series?: { count: number; lastObservedTime: string };
}
