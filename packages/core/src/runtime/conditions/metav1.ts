// metav1.Condition lists (meta.SetStatusCondition semantics): setting a condition replaces
// it by type; lastTransitionTime moves only when status changes; observedGeneration records
// which spec generation the condition describes.

/** Status of a metav1.Condition. */
export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** A metav1.Condition, the standard condition of status subresources. */
export interface MetaCondition {
  /** CamelCase condition type, e.g. `Ready`. */
  type: string;
  /** Whether the condition holds; `Unknown` when it cannot be determined. */
  status: ConditionStatus;
  /**
   * The `metadata.generation` the condition was computed from; older than the object's generation
   * means stale.
   */
  observedGeneration?: number;
  /** RFC 3339 time the status last changed (not the reason or message). */
  lastTransitionTime: string;
  /** CamelCase cause of the current status; required by the API. */
  reason: string;
  /** Human-readable detail; may be empty. */
  message: string;
}

/**
 * What setMetaCondition takes: a condition whose message may be omitted (empty) and whose
 * transition time defaults to now.
 */
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

/** Returns a new list without the condition of the given type. */
export function removeMetaCondition(
  list: readonly MetaCondition[] | undefined,
  type: string,
): MetaCondition[] {
  return (list ?? []).filter((c) => c.type !== type);
}

/** The condition of the given type, or undefined when the list has none. */
export function findMetaCondition(
  list: readonly MetaCondition[] | undefined,
  type: string,
): MetaCondition | undefined {
  return (list ?? []).find((c) => c.type === type);
}

/** True when the condition exists and is True. */
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
