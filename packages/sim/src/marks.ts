// The marks on a Node's spec that belong to whoever put them there: the cordon
// (spec.unschedulable) and each taint, by key. Pure: the world diffs a Node before and after
// each write and records who added or removed which mark (invariant f judges the removals).
import type { KubeNode } from '@noderepair/core/kube';

/** `cordon` when the Node is unschedulable, and the key of every taint. */
export function marksOf(n: KubeNode | undefined): Set<string> {
  const out = new Set<string>();
  if (n?.spec?.unschedulable === true) out.add('cordon');
  for (const t of n?.spec?.taints ?? []) out.add(t.key);
  return out;
}

/** What a write added and removed, in a stable order. */
export function diffMarks(
  before: ReadonlySet<string>,
  after: ReadonlySet<string>,
): { mark: string; change: 'added' | 'removed' }[] {
  return [
    ...[...before]
      .filter((m) => !after.has(m))
      .map((mark) => ({ mark, change: 'removed' as const })),
    ...[...after].filter((m) => !before.has(m)).map((mark) => ({ mark, change: 'added' as const })),
  ];
}
