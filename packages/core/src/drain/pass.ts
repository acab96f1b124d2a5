// One drain pass: cordon, list the node's pods, evict the evictable ones, note the 429s a
// PodDisruptionBudget answers, and say whether the drain is over. It never waits: the
// controller persists when the drain started (and when an eviction was last accepted) and
// runs the next pass on a later reconcile, as Cluster API's Machine controller does, so a
// PodDisruptionBudget that never allows an eviction holds one node's repair, not a worker.
//
// Like drainNode (executor.ts) it NEVER adds node.kubernetes.io/out-of-service: on an
// unreachable node it stops waiting for evicted pods `outOfServiceAfterMs` after the last
// accepted eviction; the taint waits for the fence.
import { formatDuration } from '../health/time.js';
import { cordonNode, type DrainResult, type DrainStep } from './executor.js';
import { defaultDrainOptions, planDrain, podsLeft, type DrainOptions } from './plan.js';
import { podKey } from './pod.js';
import { systemClock, type Clock } from '../runtime/clock.js';
import { type DrainPort, type EvictionResult } from './port.js';

/**
 * What one drain pass works on; the start and last eviction come from the persisted state, so the
 * timeout spans passes and restarts.
 */
export interface DrainPassRequest {
  /** The Node's name. */
  node: string;
  /** When the drain began (persisted): the timeout counts from here, across passes and restarts. */
  startedAt: number;
  /**
   * How long the drain may take from `startedAt`, in milliseconds; then it ends as TimedOut with
   * pods left.
   */
  timeoutMs: number;
  /** The kubelet is unreachable: evicted pods cannot terminate on their own. */
  unreachable: boolean;
  /** Unreachable node: go on this long after the last accepted eviction (see the header). */
  outOfServiceAfterMs: number;
  /** When an earlier pass last had an eviction accepted (persisted). */
  lastEvictedAt?: number;
  /**
   * Overrides of the pod filters (DaemonSets, emptyDir, unmanaged pods...); unset fields keep
   * defaultDrainOptions.
   */
  options?: Partial<DrainOptions>;
  /** Grace period given to each evicted or deleted pod, in seconds; default the pod's own. */
  gracePeriodSeconds?: number;
  /** Delete pods instead of evicting them, bypassing PodDisruptionBudgets. Default false. */
  disableEviction?: boolean;
  /** Aborts the pass: it ends as Aborted. */
  signal?: AbortSignal;
  /**
   * The uid of the Node the caller judged. Set, the pass's cordon applies to that object only:
   * a Node re-created under the same name since throws NodeReplacedError (nothing cordoned,
   * nothing listed or evicted), so a replaced machine's successor is not drained.
   */
  uid?: string;
}

/** 'Draining': pods are left and the timeout has not passed; run another pass later. */
export type DrainPassOutcome = DrainResult['outcome'] | 'Draining';

/** What one drain pass did and whether the drain goes on. */
export interface DrainPassResult extends Omit<DrainResult, 'outcome'> {
  /**
   * Draining: pods are left, run another pass later; otherwise the drain has ended (see
   * DrainResult).
   */
  outcome: DrainPassOutcome;
  /** The last accepted eviction, this pass's or the one given (to persist). */
  lastEvictedAt?: number;
  /** When the drain stops waiting if nothing changes (timeout, or the unreachable grace). */
  deadline: number;
}

/**
 * One drain pass: cordon, list the node's pods, evict (or delete) the evictable ones once and
 * return without waiting. The caller persists `lastEvictedAt` and runs the next pass until the
 * outcome is not Draining. Apiserver errors propagate unless the signal aborted.
 */
export async function drainPass(
  port: DrainPort,
  req: DrainPassRequest,
  clock: Clock = systemClock,
): Promise<DrainPassResult> {
  const opts: DrainOptions = { ...defaultDrainOptions, ...req.options };
  const signal = req.signal;
  const steps: DrainStep[] = [];
  const log = (message: string) => steps.push({ at: clock.now(), message });
  const evicted: string[] = [];
  let pdbRefusals = 0;
  let lastEvictedAt = req.lastEvictedAt;
  let blocked: DrainResult['blocked'] = [];
  let remaining: string[] = [];
  const timeoutAt = req.startedAt + req.timeoutMs;
  const finish = (outcome: DrainPassOutcome): DrainPassResult => {
    const graceAt =
      req.unreachable && lastEvictedAt !== undefined
        ? lastEvictedAt + req.outOfServiceAfterMs
        : Number.POSITIVE_INFINITY;
    return {
      outcome,
      evicted: evicted.sort(),
      blocked,
      pdbRefusals,
      outOfServiceTainted: false,
      remaining,
      durationMs: clock.now() - req.startedAt,
      steps,
      ...(lastEvictedAt !== undefined ? { lastEvictedAt } : {}),
      deadline: Math.min(timeoutAt, graceAt),
    };
  };
  try {
    if (signal?.aborted) return finish('Aborted');
    const cordon = await cordonNode(port, req.node, signal, req.uid);
    if (cordon === 'NodeGone') return finish('NodeGone');
    if (cordon === 'Cordoned') log('cordoned');
    const now = clock.now();
    const plan = planDrain(await port.listPodsOnNode(req.node, signal), opts);
    blocked = plan.blocked;
    remaining = podsLeft(plan);
    if (remaining.length === 0) {
      log(
        `drained${blocked.length > 0 ? ` (left ${blocked.length} pod(s) the options forbid evicting)` : ''}`,
      );
      return finish('Drained');
    }
    if (
      req.unreachable &&
      plan.evict.length === 0 &&
      (lastEvictedAt === undefined || now - lastEvictedAt >= req.outOfServiceAfterMs)
    ) {
      // Everything is evicted; what is left cannot terminate without a kubelet. Waiting longer
      // only delays the repair; the pods are freed once the machine is fenced.
      log(
        `node unreachable: ${remaining.length} evicted pod(s) cannot terminate until the machine is fenced; going on after ${formatDuration(now - req.startedAt)} without the out-of-service taint`,
      );
      return finish('TimedOut');
    }
    if (now >= timeoutAt) {
      log(
        `timed out after ${formatDuration(now - req.startedAt)} with ${remaining.length} pod(s) left: ${remaining.join(', ')}`,
      );
      return finish('TimedOut');
    }
    const grace =
      req.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: req.gracePeriodSeconds } : {};
    for (const pod of plan.evict) {
      const key = podKey(pod);
      let r: EvictionResult;
      if (req.disableEviction === true) {
        const d = await port.deletePod(pod, grace, signal);
        r = d.kind === 'Deleted' ? { kind: 'Evicted' } : d;
      } else r = await port.evictPod(pod, grace, signal);
      if (signal?.aborted) return finish('Aborted');
      if (r.kind === 'Evicted') {
        evicted.push(key);
        lastEvictedAt = now;
        log(`${req.disableEviction === true ? 'deleted' : 'evicted'} ${key}`);
      } else if (r.kind === 'TooManyRequests') {
        pdbRefusals += 1;
        log(`eviction of ${key} refused by a PodDisruptionBudget (429); next pass tries again`);
      } else if (r.kind === 'Error') {
        log(
          `eviction of ${key} failed (${r.status ?? 'no status'}: ${r.message}); next pass tries again`,
        );
      }
    }
    return finish('Draining');
  } catch (e) {
    // A call the signal cut short ends the pass as Aborted; anything else is the caller's.
    if (signal?.aborted) return finish('Aborted');
    throw e;
  }
}
