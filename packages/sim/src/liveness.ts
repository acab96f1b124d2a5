// (h) Liveness: a node that is really broken (a hung kubelet only a power cycle cures, not
// held by a person's cordon, its machine not stopped by a person) is repaired once the faults
// stop: within the bound below it is Ready again, or its repair gave up for a reason the world
// recorded (every attempt refused, or carried out by Nova as failed). Judged only when the
// run went on long enough after the last fault for the bound below; otherwise nothing is
// said (judgeLiveness tells why, so a test can insist the check is not vacuous).
import { isInFlight } from '@noderepair/core/health';
import type { RepairPolicy } from '@noderepair/core/health';
import type { HistoryEntry } from './history.js';
import type { Violation } from './invariants.js';
import { BOOT_MS, RESYNC_MS } from './model.js';

/** Slack for what the terms below do not name (the 100 ms settle steps, a cache wait). */
export const MARGIN_MS = 5 * 60_000;

/** How long after the faults stop a broken node may take, and what it is made of. */
export interface LivenessBound {
  /** Unhealthy timeout, one storm-guard recheck, and the longest backoff the run allows. */
  detectMs: number;
  /** One whole repair: drain timeout, every ladder attempt with its backoff, boot, healthy period. */
  repairMs: number;
  /** Repairs queued at once when the faults stopped, over the free maxInFlight slots. */
  rounds: number;
  totalMs: number;
}

/** The bound for `queued` repairs sharing `slots` in-flight slots (pure). */
export function livenessBound(policy: RepairPolicy, queued: number, slots: number): LivenessBound {
  const detectMs =
    Math.max(...policy.unhealthyConditions.map((c) => c.timeoutMs)) +
    policy.stormGuard.recheckIntervalMs +
    RESYNC_MS;
  // The longest ladder a repair may climb: the policy's, or a condition rule's own.
  const ladderMs = Math.max(
    ...[policy.ladder, ...policy.unhealthyConditions.map((c) => c.ladder ?? [])].map((l) =>
      l.reduce((sum, st) => sum + st.attempts * (st.timeoutMs + policy.retryBackoffMs), 0),
    ),
  );
  const repairMs =
    (policy.drain.enabled ? policy.drain.timeoutMs : 0) +
    ladderMs +
    BOOT_MS +
    policy.minHealthyPeriodMs;
  const rounds = Math.max(1, Math.ceil(queued / Math.max(1, slots)));
  return { detectMs, repairMs, rounds, totalMs: detectMs + rounds * repairMs + MARGIN_MS };
}

/** What the judge saw: when faults stopped, the bound, and the nodes it judged (or why none). */
export interface LivenessJudgement {
  faultsStop: number;
  end: number;
  bound: LivenessBound;
  /** Broken nodes judged, with the time their kubelet hung. */
  judged: { node: string; since: number }[];
  /** Why nothing is judged (the run ended too soon after the faults, no slot free). */
  skipped?: string;
  violations: Violation[];
}

type Of<K extends HistoryEntry['kind']> = Extract<HistoryEntry, { kind: K }>;
const nodeOf = (machine: string) => machine.replace(/^sim:\/\//, '').replace(/~r\d+$/, '');

/** The world's facts about each node, replayed up to a time. */
class Fleet {
  readonly ready = new Map<string, boolean>();
  readonly cordonedByPerson = new Set<string>();
  readonly stoppedByPerson = new Set<string>();
  readonly brokenSince = new Map<string, number>();
  readonly last = new Map<string, Of<'state'>>();
  /** Attempts of each remediation, and the ones the world says failed (refused, or errored). */
  readonly attempts = new Map<string, Set<string>>();
  readonly failedAttempts = new Set<string>();

  apply(e: HistoryEntry): void {
    if (e.kind === 'ready') this.ready.set(e.node, e.ready);
    else if (e.kind === 'mark' && e.mark === 'cordon') {
      if (e.change === 'added' && e.by === 'person') this.cordonedByPerson.add(e.node);
      if (e.change === 'removed') this.cordonedByPerson.delete(e.node);
    } else if (e.kind === 'executed' && e.by === 'person') {
      if (e.action === 'PowerOff') this.stoppedByPerson.add(nodeOf(e.machine));
      else this.stoppedByPerson.delete(nodeOf(e.machine));
    } else if (e.kind === 'executed' && e.failed === true) this.failedAttempts.add(e.actionId);
    else if (e.kind === 'call' && e.answer === 'Rejected') this.failedAttempts.add(e.actionId);
    else if (e.kind === 'fault' && e.fault === 'kubelet hangs' && e.detail === 'cure=power-cycle')
      this.brokenSince.set(e.target ?? '', e.t);
    else if (e.kind === 'node' && e.change === 'deleted') this.last.delete(e.node);
    else if (e.kind === 'state') {
      this.last.set(e.node, e);
      if (e.remediationId !== undefined && e.actionId !== undefined) {
        const s = this.attempts.get(e.remediationId) ?? new Set<string>();
        this.attempts.set(e.remediationId, s.add(e.actionId));
      }
    }
  }

  /** Held by someone else: the controller is right not to repair it. */
  held(node: string): boolean {
    return this.cordonedByPerson.has(node) || this.stoppedByPerson.has(node);
  }

  isReady(node: string): boolean {
    return this.ready.get(node) ?? true;
  }

  /** The repair gave up and the world explains why: every attempt refused or errored. */
  gaveUpExplained(node: string): boolean {
    const st = this.last.get(node);
    if (st?.phase !== 'Failed' || st.remediationId === undefined) return false;
    const ids = [...(this.attempts.get(st.remediationId) ?? [])];
    return ids.length > 0 && ids.every((id) => this.failedAttempts.has(id));
  }
}

/** Judges (h) over a whole history (pure). */
export function judgeLiveness(h: readonly HistoryEntry[], policy: RepairPolicy): LivenessJudgement {
  const faultsStop = h.reduce((t, e) => (e.kind === 'fault' ? Math.max(t, e.t) : t), 0);
  const end = h.at(-1)?.t ?? 0;
  const fleet = new Fleet();
  let i = 0;
  for (; i < h.length && h[i]!.t <= faultsStop; i++) fleet.apply(h[i]!);
  // The queue when the faults stopped: broken or in-flight nodes nobody else holds; the ones
  // someone else holds while in flight keep their slot (a repair paused under a person's stop).
  const nodes = [...new Set([...fleet.ready.keys(), ...fleet.last.keys()])];
  const inFlight = (n: string) => isInFlight(fleet.last.get(n)?.phase as never);
  const queued = nodes.filter(
    (n) =>
      !fleet.held(n) && fleet.last.get(n)?.phase !== 'Failed' && (!fleet.isReady(n) || inFlight(n)),
  ).length;
  const slots =
    policy.stormGuard.maxInFlight - nodes.filter((n) => fleet.held(n) && inFlight(n)).length;
  const bound = livenessBound(policy, queued, slots);
  const base = { faultsStop, end, bound, judged: [], violations: [] };
  if (slots <= 0)
    return {
      ...base,
      skipped: `no in-flight slot free: ${-slots + policy.stormGuard.maxInFlight} held repairs`,
    };
  if (faultsStop + bound.totalMs > end)
    return {
      ...base,
      skipped: `the run ends ${Math.round((end - faultsStop) / 60_000)} min after the faults stop; the bound is ${Math.round(bound.totalMs / 60_000)} min`,
    };
  // Judged at the deadline, not at the end: the bound is the promise.
  const deadline = faultsStop + bound.totalMs;
  for (; i < h.length && h[i]!.t <= deadline; i++) fleet.apply(h[i]!);
  const judged = [...fleet.brokenSince.entries()]
    .filter(([n]) => !fleet.held(n))
    .map(([node, since]) => ({ node, since }));
  const violations = judged
    .filter(({ node }) => !fleet.isReady(node) && !fleet.gaveUpExplained(node))
    .map(({ node, since }) => ({
      invariant: 'h:repaired-in-time',
      t: deadline,
      message: `${node}: kubelet hung at t=${since} (a power cycle cures it), not Ready by the deadline and no repair ended for a reason the world recorded (last phase ${fleet.last.get(node)?.phase ?? 'none'}); faults stopped at t=${faultsStop}, bound ${Math.round(bound.totalMs / 60_000)} min`,
    }));
  return { ...base, judged, violations };
}

/** (h) as an invariant: the violations of judgeLiveness. */
export function repairedInTime(h: readonly HistoryEntry[], policy: RepairPolicy): Violation[] {
  return judgeLiveness(h, policy).violations;
}
