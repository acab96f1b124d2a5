// The objects a MachineHealthCheck judges: the Cluster's gating conditions, the Machine and
// its Node. Structural types, so typed clients and plain JSON both fit.
import type { NodeSnapshot } from '../health/node.js';
import type { TimeInput } from '../health/time.js';

/** A condition on a Machine or Cluster (metav1.Condition or a CAPI v1beta1 condition). */
export interface MhcCondition {
  /** The condition type. */
  type: string;
  /** True, False or Unknown. */
  status: string;
  /** When the status last changed; a check's timeout counts from here. */
  lastTransitionTime?: TimeInput;
  /** CamelCase reason (quoted in v1.12+ failure messages). */
  reason?: string;
  /** Human-readable detail. */
  message?: string;
}

/** The slice of a Cluster API Machine the MachineHealthCheck reads (v1beta1 or v1beta2). */
export interface MhcMachine {
  /**
   * Name, creation and deletion times, labels (control plane) and annotations (paused,
   * skip-remediation, remediate-machine).
   */
  metadata: {
    name: string;
    namespace?: string;
    creationTimestamp?: TimeInput;
    deletionTimestamp?: TimeInput;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  /** nodeRef, conditions and the v1beta1 failure fields. */
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

/** The slice of the Cluster the MachineHealthCheck reads. */
export interface MhcCluster {
  /** Its conditions: ControlPlaneInitialized and InfrastructureReady gate the checks. */
  conditions: MhcCondition[];
  /** spec.paused: a paused cluster's Machines are not marked. */
  paused?: boolean;
}

/** One Machine the MachineHealthCheck judges, with its Node. */
export interface MhcTarget {
  /** The Machine. */
  machine: MhcMachine;
  /** The Node from machine.status.nodeRef; undefined when there is no nodeRef or it is gone. */
  node: NodeSnapshot | undefined;
  /** nodeRef is set but the Node could not be found. */
  nodeMissing: boolean;
}

/** A Machine with this annotation is paused: neither judged nor counted, nor marked. */
export const AnnotationPaused = 'cluster.x-k8s.io/paused';
/** A Machine with this annotation is neither judged nor counted. */
export const AnnotationSkipRemediation = 'cluster.x-k8s.io/skip-remediation';
/** A Machine with this annotation is unhealthy at once (HasRemediateAnnotation). */
export const AnnotationRemediateMachine = 'cluster.x-k8s.io/remediate-machine';
/** Label of control-plane Machines. */
export const LabelControlPlane = 'cluster.x-k8s.io/control-plane';
export const ConditionControlPlaneInitialized = 'ControlPlaneInitialized';
export const ConditionInfrastructureReady = 'InfrastructureReady';
