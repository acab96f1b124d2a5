// Giving up: OwnerRemediated=False, reason WaitingForRemediation, on the Machine, so its
// MachineSet or KubeadmControlPlane replaces it. From Cluster API v1.11 the owners read the
// v1beta2 list (metav1.Condition); older ones read the v1beta1 list. We write both:
//   v1beta2 Machine: status.conditions (metav1) and status.deprecated.v1beta1.conditions
//   v1beta1 Machine: status.conditions (CAPI v1beta1) and status.v1beta2.conditions (metav1)
// The result is a JSON merge patch of status carrying the Machine's resourceVersion, so a
// concurrent writer makes it fail with 409 instead of losing its conditions.
import {
  markCapiFalse,
  setMetaCondition,
  type CapiCondition,
  type MetaCondition,
} from '@noderepair/core/runtime';

/** Machine condition that hands the Machine to its owner (MachineSet, KubeadmControlPlane) to replace. */
export const OWNER_REMEDIATED = 'OwnerRemediated';
/** The OwnerRemediated=False reason Cluster API's owners act on. */
export const WAITING_FOR_REMEDIATION = 'WaitingForRemediation';

interface MachineStatusShape {
  metadata?: { resourceVersion?: string; generation?: number };
  apiVersion?: string;
  status?: {
    conditions?: unknown[];
    v1beta2?: { conditions?: MetaCondition[] };
    deprecated?: { v1beta1?: { conditions?: CapiCondition[] } };
  };
}

/** A JSON merge patch of a Machine's status subresource. */
export interface StatusPatch {
  /** The Machine's resourceVersion when known: a concurrent writer makes the patch fail with 409. */
  metadata: { resourceVersion?: string };
  /** The new status fields (both condition lists). */
  status: Record<string, unknown>;
}

/**
 * Builds the patch that sets OwnerRemediated=False (WaitingForRemediation) on a Machine, in both
 * the v1beta1 and v1beta2 condition lists so every Cluster API version sees it. Pure: `now`
 * is the condition's time.
 */
export function ownerRemediatedPatch(machine: unknown, message: string, now: Date): StatusPatch {
  const m = machine as MachineStatusShape;
  const ts = now.toISOString().replace(/\.\d+Z$/, 'Z');
  const generation = m.metadata?.generation;
  const meta = (list: MetaCondition[] | undefined) =>
    setMetaCondition(
      list,
      {
        type: OWNER_REMEDIATED,
        status: 'False',
        reason: WAITING_FOR_REMEDIATION,
        message,
        ...(generation !== undefined ? { observedGeneration: generation } : {}),
      },
      ts,
    );
  const capi = (list: CapiCondition[] | undefined) =>
    markCapiFalse(list, OWNER_REMEDIATED, WAITING_FOR_REMEDIATION, 'Warning', message, ts);
  const isV1beta2 = m.apiVersion?.endsWith('/v1beta2') ?? false;
  const status = isV1beta2
    ? {
        conditions: meta(m.status?.conditions as MetaCondition[] | undefined),
        deprecated: { v1beta1: { conditions: capi(m.status?.deprecated?.v1beta1?.conditions) } },
      }
    : {
        conditions: capi(m.status?.conditions as CapiCondition[] | undefined),
        v1beta2: { conditions: meta(m.status?.v1beta2?.conditions) },
      };
  return {
    metadata: m.metadata?.resourceVersion ? { resourceVersion: m.metadata.resourceVersion } : {},
    status,
  };
}
