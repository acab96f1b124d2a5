// Other actors' marks on Nodes, drawn from the seed on a stream of their own (so the faults
// drawSchedule drew before they existed stay exactly as they were): a person cordoning a
// node (often one about to misbehave: someone noticed it first), sometimes uncordoning it
// later; an operator putting a taint of their own on a node they watch; and the
// non-graceful-shutdown procedure, an operator marking a machine a person stopped with
// node.kubernetes.io/out-of-service (removed once it runs again). The controller must leave
// every one of these marks alone (invariant f) and start no repair under a person's cordon (g).
import { Prng } from './prng.js';
import type { Fault, ScheduleShape } from './schedule.js';

const MIN = 60_000;
export const OutOfService = 'node.kubernetes.io/out-of-service';
/** The taint an operator puts on a node they are looking into (not an actor core knows). */
export const InvestigatingTaint = 'example.com/investigating';

/** The other actors' faults of a run (unsorted), given the ones drawSchedule drew. */
export function drawOthers(seed: number, shape: ScheduleShape, drawn: readonly Fault[]): Fault[] {
  const r = new Prng(seed ^ 0x2c1b3c6d);
  const T = shape.minutes * MIN;
  const hung = drawn.filter((f) => f.kind === 'kubelet-hang');
  const out: Fault[] = [];
  for (let i = r.int(0, 2); i > 0; i--) {
    const soon = hung.length > 0 && r.chance(0.5) ? r.pick(hung) : undefined;
    const node = soon?.node ?? r.pick(shape.nodes);
    // A node about to hang is cordoned up to 2 min before, or within a minute after (before
    // the 2 min unhealthy timeout ends).
    const at =
      soon !== undefined
        ? Math.max(0, soon.at + r.int(-2 * MIN, MIN))
        : r.int(0, Math.floor(T * 0.7));
    out.push({
      at,
      kind: 'person-cordon',
      node,
      ...(r.chance(0.5) ? { uncordonAt: at + r.int(10 * MIN, 40 * MIN) } : {}),
    });
  }
  if (hung.length > 0 && r.chance(0.5)) {
    const h = r.pick(hung);
    const at = Math.max(0, h.at + r.int(-MIN, MIN));
    out.push({
      at,
      kind: 'operator-taint',
      node: h.node,
      key: InvestigatingTaint,
      effect: 'NoSchedule',
      ...(r.chance(0.5) ? { removeAt: at + r.int(20 * MIN, 60 * MIN) } : {}),
    });
  }
  for (const s of drawn) {
    if (s.kind !== 'person-stop' || !r.chance(0.5)) continue;
    out.push({
      at: s.at + r.int(MIN, 5 * MIN),
      kind: 'operator-taint',
      node: s.node,
      key: OutOfService,
      effect: 'NoExecute',
      ...(s.startAt !== undefined ? { removeAt: s.startAt + r.int(MIN, 5 * MIN) } : {}),
    });
  }
  return out;
}
