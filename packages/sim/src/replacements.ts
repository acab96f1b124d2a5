// A machine replaced by someone else during its repair (the rule 4), drawn from the
// seed on a stream of its own, so the faults drawn before it existed stay exactly as they were:
// in half of the runs, one node whose kubelet hangs (one a power cycle cures, so a repair is
// under way) has its machine replaced: a new server (a new providerID) or the same one
// rebuilt, and the Node deleted and re-registered under its name with a new uid. A third of
// the time it lands at once (2-12 min after the hang), a third just before the controller's
// next write to the Node after that, a third just before its next cordon or taint write
// (armed 0-2 min after the hang: the repair's own cordon): between its read and its write.
import { Prng } from './prng.js';
import type { Fault } from './schedule.js';

const MIN = 60_000;

/** The replacements of a run (unsorted), given the faults drawn before. */
export function drawReplacements(seed: number, drawn: readonly Fault[]): Fault[] {
  const r = new Prng(seed ^ 0x1d872b41);
  const hung = drawn.filter(
    (f): f is Extract<Fault, { kind: 'kubelet-hang' }> =>
      f.kind === 'kubelet-hang' && f.cure === 'power-cycle',
  );
  if (hung.length === 0 || !r.chance(0.5)) return [];
  const h = r.pick(hung);
  const on = r.pick(['now', 'any-write', 'spec-write'] as const);
  const variant = r.pick(['new-machine', 'rebuild'] as const);
  // Armed for the next cordon or taint: before the repair's first cordon (the node is
  // unhealthy 2 min after it hangs), else at any time of the repair.
  const at = h.at + (on === 'spec-write' ? r.int(0, 2 * MIN) : r.int(2 * MIN, 12 * MIN));
  return [{ at, kind: 'node-replaced', node: h.node, variant, on }];
}
