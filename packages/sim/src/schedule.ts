// The fault schedule of a run, drawn from its seed: pure (a Prng in, a sorted list of timed
// faults out), so the same seed always gives the same faults and a run's faults print before
// its history. What is drawn: kubelets that hang (cured by a power cycle, or recovering by
// themselves: a flap), whole-apiserver outages, apiserver timeouts and injected conflicts,
// cloud outages, lost replies, 5xx-after-forward and failed-reboot windows, a person stopping a machine
// (and sometimes starting it again), the controller process crashing and restarting, watch events reaching the informer late;
// then other actors' cordons and taints (others.ts), drawn on a stream of their own.
import { drawOthers } from './others.js';
import { drawReplacements } from './replacements.js';
import { drawWatchExpiries } from './watch-gone.js';
import { Prng } from './prng.js';

/** One scheduled fault. Times are virtual ms since the start of the run. */
export type Fault =
  | {
      at: number;
      kind: 'kubelet-hang';
      node: string;
      cure: 'power-cycle' | 'self';
      recoverAt?: number;
    }
  | { at: number; kind: 'kube-outage'; until: number }
  | { at: number; kind: 'kube-timeouts'; until: number; rate: number }
  | { at: number; kind: 'kube-conflicts'; until: number; rate: number }
  | { at: number; kind: 'cloud-outage'; until: number }
  | { at: number; kind: 'lost-replies'; until: number; rate: number }
  | { at: number; kind: 'cloud-5xx'; until: number; rate: number }
  | { at: number; kind: 'nova-action-errors'; until: number; rate: number }
  /** Watch events reach the informer up to `maxMs` late (an overloaded apiserver). */
  | { at: number; kind: 'watch-lag'; until: number; maxMs: number }
  | { at: number; kind: 'person-stop'; node: string; startAt?: number }
  /** A person cordons the node (`kubectl cordon`), and maybe uncordons it later (others.ts). */
  | { at: number; kind: 'person-cordon'; node: string; uncordonAt?: number }
  /** An operator puts a taint on the node, and maybe removes it later (others.ts). */
  | {
      at: number;
      kind: 'operator-taint';
      node: string;
      key: string;
      effect: 'NoSchedule' | 'NoExecute';
      removeAt?: number;
    }
  /**
   * Someone replaces the machine behind the Node during its repair (replacements.ts): the
   * Node is deleted and re-registered under its name with a new uid (and, for `new-machine`,
   * a new providerID). `on`: at once, or just before the controller's next write to that Node
   * (`any-write`), or its next write that is not only the state annotation (`spec-write`: a
   * cordon, a taint), so it lands between the controller's read and its write.
   */
  | {
      at: number;
      kind: 'node-replaced';
      node: string;
      variant: 'new-machine' | 'rebuild';
      on: 'now' | 'any-write' | 'spec-write';
    }
  /**
   * The informer's watch expires (410 Gone): it relists after `listMs` (watch-gone.ts), as
   * the runtime's Reflector does; deliveries in flight are lost.
   */
  | { at: number; kind: 'watch-expired'; listMs: number }
  /**
   * The controller process dies and a new one starts with no memory: at once (`idle`), or at
   * its next provider call after `at`, just before the request leaves or just after Nova
   * acted (the reply dies with the process).
   */
  | { at: number; kind: 'controller-crash'; point: 'idle' | 'before-send' | 'after-send' };

/** What a schedule is drawn over. */
export interface ScheduleShape {
  nodes: readonly string[];
  minutes: number;
}

const MIN = 60_000;

/** The faults of one run, sorted by time (ties in drawing order). */
export function drawSchedule(seed: number, shape: ScheduleShape): Fault[] {
  const r = new Prng(seed);
  const T = shape.minutes * MIN;
  const faults: Fault[] = [];
  const window = (minLen: number, maxLen: number) => {
    const at = r.int(0, Math.floor(T * 0.8));
    return { at, until: Math.min(T, at + r.int(minLen, maxLen)) };
  };
  for (const node of shape.nodes) {
    if (!r.chance(0.3)) continue;
    const at = r.int(0, Math.floor(T * 0.7));
    if (r.chance(0.7)) faults.push({ at, kind: 'kubelet-hang', node, cure: 'power-cycle' });
    else
      faults.push({
        at,
        kind: 'kubelet-hang',
        node,
        cure: 'self',
        recoverAt: at + r.int(MIN, 20 * MIN),
      });
  }
  for (let i = r.int(0, 2); i > 0; i--)
    faults.push({ kind: 'kube-outage', ...window(30_000, 8 * MIN) });
  for (let i = r.int(0, 2); i > 0; i--)
    faults.push({ kind: 'cloud-outage', ...window(MIN, 15 * MIN) });
  if (r.chance(0.5))
    faults.push({ kind: 'kube-timeouts', rate: 0.05, ...window(5 * MIN, 30 * MIN) });
  if (r.chance(0.7))
    faults.push({ kind: 'kube-conflicts', rate: 0.15, ...window(10 * MIN, 60 * MIN) });
  if (r.chance(0.6))
    faults.push({ kind: 'lost-replies', rate: 0.3, ...window(10 * MIN, 60 * MIN) });
  if (r.chance(0.5)) faults.push({ kind: 'cloud-5xx', rate: 0.2, ...window(10 * MIN, 60 * MIN) });
  if (r.chance(0.6))
    faults.push({ kind: 'nova-action-errors', rate: 0.5, ...window(20 * MIN, 80 * MIN) });
  for (let i = r.int(0, 2); i > 0; i--) {
    const node = r.pick(shape.nodes);
    const at = r.int(0, Math.floor(T * 0.7));
    faults.push({
      at,
      kind: 'person-stop',
      node,
      ...(r.chance(0.5) ? { startAt: at + r.int(10 * MIN, 40 * MIN) } : {}),
    });
  }
  if (r.chance(0.6))
    faults.push({
      kind: 'watch-lag',
      maxMs: r.pick([2000, 15_000, 60_000]),
      ...window(10 * MIN, 60 * MIN),
    });
  for (let i = r.int(0, 3); i > 0; i--)
    faults.push({
      at: r.int(0, Math.floor(T * 0.9)),
      kind: 'controller-crash',
      point: r.pick(['idle', 'before-send', 'after-send'] as const),
    });
  faults.push(...drawOthers(seed, shape, faults));
  faults.push(...drawReplacements(seed, faults));
  faults.push(...drawWatchExpiries(seed, shape, faults));
  return faults
    .map((f, i) => ({ f, i }))
    .sort((a, b) => a.f.at - b.f.at || a.i - b.i)
    .map((x) => x.f);
}
