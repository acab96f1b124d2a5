// Event filters (controller-runtime predicates). Each hook returning false drops the event;
// a missing hook lets it through.
import type { KubeObject } from '../../kube/object.js';

/**
 * Filters a controller's events (controller-runtime predicates): a hook returning false drops the
 * event, a missing hook lets it through.
 */
export interface Predicate<U = KubeObject> {
  /** Whether an object's creation (or its first sight in a list) is passed on. */
  create?(obj: U): boolean;
  /** Whether a change from old to cur is passed on. */
  update?(old: U, cur: U): boolean;
  /** Whether a deletion is passed on. */
  delete?(obj: U): boolean;
}

const meta = (o: unknown) => (o as KubeObject).metadata ?? {};

/** Passes updates only when metadata.generation changed (spec edits, not status). */
export const generationChanged: Predicate<unknown> = {
  update: (a, b) => meta(a).generation !== meta(b).generation,
};

/** Passes updates only when labels changed. */
export const labelsChanged: Predicate<unknown> = {
  update: (a, b) => !sameRecord(meta(a).labels, meta(b).labels),
};

/** Passes updates only when annotations changed. */
export const annotationsChanged: Predicate<unknown> = {
  update: (a, b) => !sameRecord(meta(a).annotations, meta(b).annotations),
};

/** Drops updates whose resourceVersion did not move (periodic resync duplicates). */
export const resourceVersionChanged: Predicate<unknown> = {
  update: (a, b) => meta(a).resourceVersion !== meta(b).resourceVersion,
};

/** Passes objects whose labels contain all the given pairs (on update: either side). */
export function hasLabels(match: Record<string, string>): Predicate<unknown> {
  const ok = (o: unknown) => Object.entries(match).every(([k, v]) => meta(o).labels?.[k] === v);
  return { create: ok, delete: ok, update: (a, b) => ok(a) || ok(b) };
}

/** Passes when any of the predicates passes. */
export function anyOf<U>(...ps: Predicate<U>[]): Predicate<U> {
  return {
    create: (o) => ps.some((p) => p.create?.(o) ?? true),
    update: (a, b) => ps.some((p) => p.update?.(a, b) ?? true),
    delete: (o) => ps.some((p) => p.delete?.(o) ?? true),
  };
}

/** True when every predicate lets the event through (a missing hook passes). */
export function passes<U>(
  ps: readonly Predicate<U>[],
  ev: { type: 'create'; obj: U } | { type: 'update'; old: U; obj: U } | { type: 'delete'; obj: U },
): boolean {
  return ps.every((p) => {
    if (ev.type === 'create') return p.create?.(ev.obj) ?? true;
    if (ev.type === 'update') return p.update?.(ev.old, ev.obj) ?? true;
    return p.delete?.(ev.obj) ?? true;
  });
}

function sameRecord(
  a: Record<string, string> | undefined,
  b: Record<string, string> | undefined,
): boolean {
  const ka = Object.keys(a ?? {});
  if (ka.length !== Object.keys(b ?? {}).length) return false;
  return ka.every((k) => a?.[k] === b?.[k]);
}
