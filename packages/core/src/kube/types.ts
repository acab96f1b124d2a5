// Minimal JSON shapes of the built-in kinds noderepair touches. Only the fields we read or
// write are typed; everything else is preserved because objects are plain JSON.
import type { KubeObject } from './object.js';

export interface KubeNodeCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
}

export interface KubeTaint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  timeAdded?: string;
}

export interface KubeNode extends KubeObject {
  spec?: { providerID?: string; unschedulable?: boolean; taints?: KubeTaint[]; podCIDR?: string };
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

export interface KubePod extends KubeObject {
  spec?: {
    nodeName?: string;
    containers?: unknown[];
    tolerations?: unknown[];
    [k: string]: unknown;
  };
  status?: {
    phase?: string;
    conditions?: { type: string; status: string }[];
    [k: string]: unknown;
  };
}

export interface KubeLease extends KubeObject {
  spec?: {
    holderIdentity?: string | null;
    leaseDurationSeconds?: number | null;
    acquireTime?: string | null;
    renewTime?: string | null;
    leaseTransitions?: number | null;
  };
}

export interface KubeObjectReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

/** events.k8s.io/v1 Event. */
export interface KubeEvent extends KubeObject {
  eventTime: string;
  reportingController: string;
  reportingInstance: string;
  action: string;
  reason: string;
  type: 'Normal' | 'Warning';
  note?: string;
  regarding?: KubeObjectReference;
  related?: KubeObjectReference;
  series?: { count: number; lastObservedTime: string };
}
