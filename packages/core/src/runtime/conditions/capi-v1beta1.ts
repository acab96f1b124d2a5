// Cluster API v1beta1 conditions (sigs.k8s.io/cluster-api/util/conditions): a list where
// False carries a severity, Ready sorts first and the rest alphabetically, and
// lastTransitionTime moves only when the condition actually changes.

/** How bad a False CAPI condition is; empty for True and Unknown conditions. */
export type CapiSeverity = 'Error' | 'Warning' | 'Info' | '';

/** One Cluster API v1beta1 condition, as on Machine and MachineHealthCheck status. */
export interface CapiCondition {
  /** Condition type, e.g. `Ready`. */
  type: string;
  /** `Unknown` means the state could not be determined (yet). */
  status: 'True' | 'False' | 'Unknown';
  /** Set only on False conditions: how bad the problem is. */
  severity?: CapiSeverity;
  /** RFC 3339 time of the last change of status, severity, reason or message. */
  lastTransitionTime: string;
  /** CamelCase cause, set on False and Unknown conditions. */
  reason?: string;
  /** Human-readable detail. */
  message?: string;
}

/** Type of the summary condition, sorted first in every CAPI condition list. */
export const CAPI_READY = 'Ready';

function sortCapi(list: CapiCondition[]): CapiCondition[] {
  return list.sort((a, b) =>
    a.type === CAPI_READY ? -1 : b.type === CAPI_READY ? 1 : a.type.localeCompare(b.type),
  );
}

function same(a: CapiCondition, b: Omit<CapiCondition, 'lastTransitionTime'>): boolean {
  return (
    a.status === b.status &&
    (a.severity ?? '') === (b.severity ?? '') &&
    (a.reason ?? '') === (b.reason ?? '') &&
    (a.message ?? '') === (b.message ?? '')
  );
}

/** Sets a condition; keeps lastTransitionTime when nothing about it changed (CAPI Set). */
export function setCapiCondition(
  list: readonly CapiCondition[] | undefined,
  c: Omit<CapiCondition, 'lastTransitionTime'>,
  now: string,
): CapiCondition[] {
  const current = [...(list ?? [])];
  const prev = current.find((x) => x.type === c.type);
  const next: CapiCondition = {
    ...c,
    lastTransitionTime: prev && same(prev, c) ? prev.lastTransitionTime : now,
  };
  if (next.severity === undefined || next.severity === '') delete next.severity;
  if (!next.reason) delete next.reason;
  if (!next.message) delete next.message;
  const rest = current.filter((x) => x.type !== c.type);
  return sortCapi([...rest, next]);
}

/** Sets the condition True (no reason, severity or message); returns a new sorted list. */
export function markCapiTrue(
  list: readonly CapiCondition[] | undefined,
  type: string,
  now: string,
): CapiCondition[] {
  return setCapiCondition(list, { type, status: 'True' }, now);
}

/** Sets the condition False with a reason, severity and message; returns a new sorted list. */
export function markCapiFalse(
  list: readonly CapiCondition[] | undefined,
  type: string,
  reason: string,
  severity: Exclude<CapiSeverity, ''>,
  message: string,
  now: string,
): CapiCondition[] {
  return setCapiCondition(list, { type, status: 'False', reason, severity, message }, now);
}

/** Sets the condition Unknown with a reason and message; returns a new sorted list. */
export function markCapiUnknown(
  list: readonly CapiCondition[] | undefined,
  type: string,
  reason: string,
  message: string,
  now: string,
): CapiCondition[] {
  return setCapiCondition(list, { type, status: 'Unknown', reason, message }, now);
}

/** The condition of the given type, or undefined when the list has none. */
export function getCapiCondition(
  list: readonly CapiCondition[] | undefined,
  type: string,
): CapiCondition | undefined {
  return (list ?? []).find((c) => c.type === type);
}

/** True when the condition exists and is True. */
export const isCapiTrue = (list: readonly CapiCondition[] | undefined, type: string): boolean =>
  getCapiCondition(list, type)?.status === 'True';
/** True when the condition exists and is False (absent or Unknown is not False). */
export const isCapiFalse = (list: readonly CapiCondition[] | undefined, type: string): boolean =>
  getCapiCondition(list, type)?.status === 'False';

/** Returns a new list without the condition of the given type. */
export function deleteCapiCondition(
  list: readonly CapiCondition[] | undefined,
  type: string,
): CapiCondition[] {
  return (list ?? []).filter((c) => c.type !== type);
}
