// What Cluster API's MHC writes on an unhealthy Machine when remediation is allowed
// (patchUnhealthyTargets): with a remediation template, ExternallyRemediated=False after it
// created the request; without one, OwnerRemediated=False so the MachineSet or
// KubeadmControlPlane replaces the Machine, but only when the condition is absent or True
// (a remediation in progress belongs to the owner). Same in v1.10 - v1.13.
import type { V1Beta1ConditionText } from './messages.js';
import type { MhcPolicy } from './spec.js';
import { AnnotationPaused, type MhcCluster, type MhcCondition, type MhcMachine } from './target.js';
import { toMillis } from '../health/time.js';

/** A metav1 condition Cluster API sets False on an unhealthy Machine. */
export interface MetaConditionText {
  /** ExternallyRemediated or OwnerRemediated. */
  type: string;
  /** Always False. */
  status: 'False';
  /** WaitingForRemediation. */
  reason: string;
  /** Human-readable detail. */
  message?: string;
}

/**
 * What Cluster API writes on an unhealthy Machine: ExternallyRemediated (a template is set),
 * OwnerRemediated (its owner replaces it), or nothing (paused, or deleting).
 */
export type CapiRemediationMark =
  | { kind: 'external'; externallyRemediated: MetaConditionText }
  | {
      kind: 'owner';
      /** v1beta2 condition to set; absent when Cluster API leaves the present one alone. */
      ownerRemediated?: MetaConditionText;
      /** v1beta1 condition to set; absent when Cluster API leaves the present one alone. */
      ownerRemediatedV1Beta1?: V1Beta1ConditionText & { type: 'OwnerRemediated' };
    }
  | { kind: 'none'; why: 'paused' | 'deleting' };

/** The OwnerRemediated=False message. */
export const OwnerRemediatedMessage = 'Waiting for remediation';

/** The two condition lists of a Machine: v1beta2 (metav1) and the deprecated v1beta1 one. */
function conditionLists(m: MhcMachine): { v1beta2?: MhcCondition[]; v1beta1?: MhcCondition[] } {
  // A Machine read through v1beta1 carries its metav1 conditions in status.v1beta2.
  if (m.status?.v1beta2 !== undefined)
    return { v1beta2: m.status.v1beta2.conditions, v1beta1: m.status.conditions };
  return { v1beta2: m.status?.conditions, v1beta1: m.status?.deprecated?.v1beta1?.conditions };
}

const absentOrTrue = (list: MhcCondition[] | undefined, type: string): boolean => {
  const c = list?.find((x) => x.type === type);
  return c === undefined || c.status === 'True';
};

/** The mark Cluster API puts on one unhealthy target of an MHC whose remediation is allowed. */
export function capiRemediationMark(
  machine: MhcMachine,
  policy: MhcPolicy,
  cluster: MhcCluster,
): CapiRemediationMark {
  if (cluster.paused === true || machine.metadata.annotations?.[AnnotationPaused] !== undefined)
    return { kind: 'none', why: 'paused' };
  if (policy.remediationTemplate !== undefined)
    return {
      kind: 'external',
      externallyRemediated: {
        type: 'ExternallyRemediated',
        status: 'False',
        reason: 'WaitingForRemediation',
      },
    };
  if (toMillis(machine.metadata.deletionTimestamp) !== undefined)
    return { kind: 'none', why: 'deleting' };
  const lists = conditionLists(machine);
  return {
    kind: 'owner',
    ...(absentOrTrue(lists.v1beta2, 'OwnerRemediated')
      ? {
          ownerRemediated: {
            type: 'OwnerRemediated',
            status: 'False',
            reason: 'WaitingForRemediation',
            message: OwnerRemediatedMessage,
          },
        }
      : {}),
    ...(absentOrTrue(lists.v1beta1, 'OwnerRemediated')
      ? {
          ownerRemediatedV1Beta1: {
            type: 'OwnerRemediated',
            reason: 'WaitingForRemediation',
            severity: 'Warning',
            message: '',
          },
        }
      : {}),
  };
}
