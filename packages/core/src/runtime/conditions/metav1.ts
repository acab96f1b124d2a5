// metav1.Condition lists (meta.SetStatusCondition semantics): setting a condition replaces
// it by type; lastTransitionTime moves only when status changes; observedGeneration records
// which spec generation the condition describes.

export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface MetaCondition {
  type: string;
  status: ConditionStatus;
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

export type MetaConditionInput = Omit<MetaCondition, 'lastTransitionTime' | 'message'> & {
  message?: string;
  lastTransitionTime?: string;
};

const REASON = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;

/** Returns a new list with the condition set; now is an ISO timestamp (injected). */
export function setMetaCondition(
  list: readonly MetaCondition[] | undefined,
  c: MetaConditionInput,
  now: string,
): MetaCondition[] {
  if (!REASON.test(c.reason))
    throw new TypeError(
      `condition ${c.type}: reason must be CamelCase (got ${JSON.stringify(c.reason)})`,
    );
  const current = list ?? [];
  const prev = current.find((x) => x.type === c.type);
  const next: MetaCondition = {
    type: c.type,
    status: c.status,
    ...(c.observedGeneration !== undefined ? { observedGeneration: c.observedGeneration } : {}),
    lastTransitionTime:
      prev && prev.status === c.status ? prev.lastTransitionTime : (c.lastTransitionTime ?? now),
    reason: c.reason,
    message: c.message ?? '',
  };
  if (!prev) return [...current, next];
  return current.map((x) => (x.type === c.type ? next : x));
}

export function removeMetaCondition(
  list: readonly MetaCondition[] | undefined,
  type: string,
): MetaCondition[] {
  return (list ?? []).filter((c) => c.type !== type);
}

export function findMetaCondition(
  list: readonly MetaCondition[] | undefined,
  type: string,
): MetaCondition | undefined {
  return (list ?? []).find((c) => c.type === type);
}

export function isMetaConditionTrue(
  list: readonly MetaCondition[] | undefined,
  type: string,
): boolean {
  return findMetaCondition(list, type)?.status === 'True';
}

/** True when the condition exists and describes the given generation. */
export function isMetaConditionCurrent(
  list: readonly MetaCondition[] | undefined,
  type: string,
  generation: number | undefined,
): boolean {
  const c = findMetaCondition(list, type);
  return c !== undefined && generation !== undefined && c.observedGeneration === generation;
}
