// Cluster API v1beta1 conditions (sigs.k8s.io/cluster-api/util/conditions): a list where
// False carries a severity, Ready sorts first and the rest alphabetically, and
// lastTransitionTime moves only when the condition actually changes.

export type CapiSeverity = 'Error' | 'Warning' | 'Info' | '';

export interface CapiCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  severity?: CapiSeverity;
  lastTransitionTime: string;
  reason?: string;
  message?: string;
}

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

export function markCapiTrue(
  list: readonly CapiCondition[] | undefined,
  type: string,
  now: string,
): CapiCondition[] {
  return setCapiCondition(list, { type, status: 'True' }, now);
}

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

export function markCapiUnknown(
  list: readonly CapiCondition[] | undefined,
  type: string,
  reason: string,
  message: string,
  now: string,
): CapiCondition[] {
  return setCapiCondition(list, { type, status: 'Unknown', reason, message }, now);
}

export function getCapiCondition(
  list: readonly CapiCondition[] | undefined,
  type: string,
): CapiCondition | undefined {
  return (list ?? []).find((c) => c.type === type);
}

export const isCapiTrue = (list: readonly CapiCondition[] | undefined, type: string): boolean =>
  getCapiCondition(list, type)?.status === 'True';
export const isCapiFalse = (list: readonly CapiCondition[] | undefined, type: string): boolean =>
  getCapiCondition(list, type)?.status === 'False';

export function deleteCapiCondition(
  list: readonly CapiCondition[] | undefined,
  type: string,
): CapiCondition[] {
  return (list ?? []).filter((c) => c.type !== type);
}
