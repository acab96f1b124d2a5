// The objects a MachineHealthCheck judges: the Cluster's gating conditions, the Machine and
// its Node. Structural types, so typed clients and plain JSON both fit.
import type { NodeSnapshot } from '../health/node.js';
import type { TimeInput } from '../health/time.js';

export interface MhcCondition {
  type: string;
  status: string;
  lastTransitionTime?: TimeInput;
  reason?: string;
  message?: string;
}

export interface MhcMachine {
  metadata: {
    name: string;
    namespace?: string;
    creationTimestamp?: TimeInput;
    deletionTimestamp?: TimeInput;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  status?: {
    nodeRef?: { name: string };
    /** v1beta2 Machines: metav1.Conditions. v1beta1 Machines: their (CAPI) conditions. */
    conditions?: MhcCondition[];
    /** A Machine read through v1beta1: its metav1 conditions, the ones Cluster API judges. */
    v1beta2?: { conditions?: MhcCondition[] };
    /** v1beta1 Machines. */
    failureReason?: string;
    failureMessage?: string;
    deprecated?: {
      v1beta1?: { failureReason?: string; failureMessage?: string; conditions?: MhcCondition[] };
    };
  };
}

export interface MhcCluster {
  conditions: MhcCondition[];
  paused?: boolean;
}

export interface MhcTarget {
  machine: MhcMachine;
  /** The Node from machine.status.nodeRef; undefined when there is no nodeRef or it is gone. */
  node: NodeSnapshot | undefined;
  /** nodeRef is set but the Node could not be found. */
  nodeMissing: boolean;
}

export const AnnotationPaused = 'cluster.x-k8s.io/paused';
export const AnnotationSkipRemediation = 'cluster.x-k8s.io/skip-remediation';
export const AnnotationRemediateMachine = 'cluster.x-k8s.io/remediate-machine';
export const LabelControlPlane = 'cluster.x-k8s.io/control-plane';
export const ConditionControlPlaneInitialized = 'ControlPlaneInitialized';
export const ConditionInfrastructureReady = 'InfrastructureReady';
