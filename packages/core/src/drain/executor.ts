// Drain executor: cordon, evict through the Eviction API (a 429 from a PodDisruptionBudget
// is retried with backoff until the timeout), wait for pods to go. Uncordon after a
// successful repair.
//
// The drain NEVER adds node.kubernetes.io/out-of-service. On an unreachable node the evicted
// pods stay Terminating (no kubelet confirms they stopped), and that is right: Ready=Unknown
// may be a network partition with containers still running and writing. The taint frees
// their volumes, so it waits until the machine is fenced (provider/fence.ts); the caller adds
// it with addOutOfServiceTaint after judgeFence says so. The drain only stops waiting for
// such pods after `outOfServiceAfterMs`, so the repair action is not held up.
import { hasTaint, TaintOutOfService, type TaintSnapshot } from '../health/node.js';
import { formatDuration } from '../health/time.js';
import { backoffDelay, type BackoffPolicy } from '../runtime/backoff.js';
import { systemClock, type Clock } from '../runtime/clock.js';
import {
  defaultDrainOptions,
  planDrain,
  podsLeft,
  type DrainOptions,
  type DrainPlan,
} from './plan.js';
import { podKey, type PodRef } from './pod.js';
import {
  NodeReplacedError,
  type DeleteResult,
  type NodeWithUid,
  type DrainPort,
  type EvictionResult,
} from './port.js';

function fromDelete(r: DeleteResult): EvictionResult {
  return r.kind === 'Deleted' ? { kind: 'Evicted' } : r;
}

/** What drainNode drains and how: the node, the timeout and the eviction knobs. */
export interface DrainRequest {
  /** The Node's name. */
  node: string;
  /**
   * How long to try, in milliseconds from the call; then the drain ends as TimedOut with pods left.
   */
  timeoutMs: number;
  /** The kubelet is unreachable: evicted pods cannot terminate on their own. */
  unreachable: boolean;
  /**
   * For an unreachable node: stop waiting for evicted pods to terminate after this long
   * (nothing is left to evict, they cannot terminate until the machine is fenced). The name
   * is historical: the drain adds no taint (see the header).
   */
  outOfServiceAfterMs: number;
  /**
   * Overrides of the pod filters (DaemonSets, emptyDir, unmanaged pods...); unset fields keep
   * defaultDrainOptions.
   */
  options?: Partial<DrainOptions>;
  /** First retry delay after a 429 or a transient error; doubles up to maxBackoffMs. */
  initialBackoffMs?: number;
  /** Ceiling of the retry delay, in milliseconds. Default 30 s. */
  maxBackoffMs?: number;
  /** How often to look again while waiting for pods to terminate. */
  pollIntervalMs?: number;
  /** Grace period given to each evicted or deleted pod, in seconds; default the pod's own. */
  gracePeriodSeconds?: number;
  /** Delete pods instead of evicting them, bypassing PodDisruptionBudgets (kubectl drain --disable-eviction). Default false. */
  disableEviction?: boolean;
  /** Aborts the drain: it ends as Aborted, whatever call was in flight. */
  signal?: AbortSignal;
}

/** One line of what a drain did (cordoned, evicted, a refusal, timed out), for events and logs. */
export interface DrainStep {
  /** When, in the drain clock's epoch milliseconds. */
  at: number;
  /** What happened, in words. */
  message: string;
}

/** How a drain ended and what it did. */
export interface DrainResult {
  /**
   * Drained: no evictable pod left. TimedOut: pods left at the timeout (or an unreachable node's
   * evicted pods left waiting). NodeGone: the Node does not exist. Aborted: the signal fired.
   */
  outcome: 'Drained' | 'TimedOut' | 'NodeGone' | 'Aborted';
  /** Pods evicted (or deleted) by this drain, as namespace/name, sorted. */
  evicted: string[];
  /** Pods left in place because the options forbid evicting them. */
  blocked: DrainPlan['blocked'];
  /** Eviction attempts a PodDisruptionBudget refused (429). */
  pdbRefusals: number;
  /** Always false: the drain never adds the out-of-service taint (kept for callers that log it). */
  outOfServiceTainted: boolean;
  /** Pods still present (and not skipped) when the drain ended. */
  remaining: string[];
  /** From the drain's start to its end, in milliseconds. */
  durationMs: number;
  /** What the drain did, in order. */
  steps: DrainStep[];
}

/**
 * node.kubernetes.io/out-of-service=nodeshutdown:NoExecute, the taint addOutOfServiceTaint adds
 * once the machine is fenced.
 */
export const OutOfServiceTaint: TaintSnapshot = {
  key: TaintOutOfService,
  value: 'nodeshutdown',
  effect: 'NoExecute',
};

/**
 * The uid a write must carry: the caller's (the Node it judged), checked against what we read
 * now, else the uid of this read, so the port's own read before its patch is held to it too.
 * A Node re-created under the same name (a replaced machine) is NodeReplacedError: a write by
 * name alone would hand the old node's cordon or taint to the new one.
 */
function uidToWrite(
  name: string,
  n: NodeWithUid,
  expected: string | undefined,
): string | undefined {
  const uid = n.metadata?.uid;
  if (expected !== undefined && uid !== expected) throw new NodeReplacedError(name, expected, uid);
  return uid;
}

/**
 * Adds node.kubernetes.io/out-of-service=nodeshutdown:NoExecute. Call ONLY after judgeFence
 * (provider/fence.ts) said the machine is fenced, with `uid` the uid of the Node that judgement
 * was made on: a Node of that name with another uid throws NodeReplacedError and is not
 * tainted. 'AlreadyTainted': someone else added it (then it is not ours to remove).
 */
export async function addOutOfServiceTaint(
  port: DrainPort,
  node: string,
  signal?: AbortSignal,
  uid?: string,
): Promise<'Tainted' | 'AlreadyTainted' | 'NodeGone'> {
  const n = await port.getNode(node, signal);
  if (n === undefined) return 'NodeGone';
  const writeUid = uidToWrite(node, n, uid);
  if (hasTaint(n, TaintOutOfService)) return 'AlreadyTainted';
  await port.patchNode(
    node,
    { addTaints: [OutOfServiceTaint], ...(writeUid !== undefined ? { uid: writeUid } : {}) },
    signal,
  );
  return 'Tainted';
}

/**
 * Marks the Node unschedulable. 'AlreadyCordoned' leaves it as it was (maybe someone else's
 * cordon); apiserver errors propagate. The patch carries the uid of the Node read here (or
 * `uid`, when the caller has the one it judged): NodeReplacedError for another object.
 */
export async function cordonNode(
  port: DrainPort,
  node: string,
  signal?: AbortSignal,
  uid?: string,
): Promise<'Cordoned' | 'AlreadyCordoned' | 'NodeGone'> {
  const n = await port.getNode(node, signal);
  if (n === undefined) return 'NodeGone';
  const writeUid = uidToWrite(node, n, uid);
  if (n.spec?.unschedulable === true) return 'AlreadyCordoned';
  await port.patchNode(
    node,
    { unschedulable: true, ...(writeUid !== undefined ? { uid: writeUid } : {}) },
    signal,
  );
  return 'Cordoned';
}

/**
 * Makes the Node schedulable again (unless `keepCordon`: a cordon not ours) and, when
 * `removeOutOfServiceTaint`, removes that taint. Patches only what is set; apiserver errors
 * propagate.
 */
export async function uncordonNode(
  port: DrainPort,
  node: string,
  opts: { removeOutOfServiceTaint: boolean; keepCordon?: boolean; signal?: AbortSignal },
): Promise<'Uncordoned' | 'NodeGone'> {
  const n = await port.getNode(node, opts.signal);
  if (n === undefined) return 'NodeGone';
  const removeTaint = opts.removeOutOfServiceTaint && hasTaint(n, TaintOutOfService);
  const uncordon = opts.keepCordon !== true && n.spec?.unschedulable === true;
  if (uncordon || removeTaint) {
    const uid = n.metadata?.uid;
    await port.patchNode(
      node,
      {
        // Undo on the object we just judged, not on one re-created since under its name.
        ...(uid !== undefined ? { uid } : {}),
        ...(uncordon ? { unschedulable: false } : {}),
        ...(removeTaint ? { removeTaintKeys: [TaintOutOfService] } : {}),
      },
      opts.signal,
    );
  }
  return 'Uncordoned';
}

/**
 * Cordons and drains a node in one call, waiting (on `clock`) for pods to go until the timeout;
 * PodDisruptionBudget refusals are retried with backoff. Never adds the out-of-service taint.
 * Apiserver errors propagate unless the signal aborted.
 */
export async function drainNode(
  port: DrainPort,
  req: DrainRequest,
  clock: Clock = systemClock,
): Promise<DrainResult> {
  // Every port call carries req.signal; a call it cut short ends the drain as Aborted.
  try {
    return await drainLoop(port, req, clock);
  } catch (e) {
    if (req.signal?.aborted) return abortedResult;
    throw e;
  }
}

const abortedResult: DrainResult = {
  outcome: 'Aborted',
  evicted: [],
  blocked: [],
  pdbRefusals: 0,
  outOfServiceTainted: false,
  remaining: [],
  durationMs: 0,
  steps: [],
};

async function drainLoop(port: DrainPort, req: DrainRequest, clock: Clock): Promise<DrainResult> {
  const opts: DrainOptions = { ...defaultDrainOptions, ...req.options };
  const start = clock.now();
  const deadline = start + req.timeoutMs;
  // Per pod: initialBackoffMs (1 s) doubling up to maxBackoffMs (30 s), no jitter.
  const evictionBackoff: BackoffPolicy = {
    initialMs: req.initialBackoffMs ?? 1000,
    maxMs: req.maxBackoffMs ?? 30_000,
    factor: 2,
    jitter: 0,
  };
  const poll = req.pollIntervalMs ?? 2000;
  const steps: DrainStep[] = [];
  const log = (message: string) => steps.push({ at: clock.now(), message });
  const evicted = new Set<string>();
  const nextTry = new Map<string, { at: number; failures: number }>();
  let pdbRefusals = 0;
  const outOfServiceTainted = false;
  // When this drain last had an eviction accepted: an unreachable node's pods get
  // `outOfServiceAfterMs` from then to go (should the kubelet come back), not from each new
  // drain: a replayed action re-drains, and must not wait again for pods already left behind.
  let lastEvictedAt: number | undefined;
  let blocked: DrainPlan['blocked'] = [];
  let remaining: string[] = [];

  const finish = (outcome: DrainResult['outcome']): DrainResult => ({
    outcome,
    evicted: [...evicted].sort(),
    blocked,
    pdbRefusals,
    outOfServiceTainted,
    remaining,
    durationMs: clock.now() - start,
    steps,
  });

  const signal = req.signal;
  const cordon = await cordonNode(port, req.node, signal);
  if (cordon === 'NodeGone') return finish('NodeGone');
  log(cordon === 'Cordoned' ? 'cordoned' : 'already cordoned');

  for (;;) {
    if (req.signal?.aborted) return finish('Aborted');
    const now = clock.now();
    const pods = await port.listPodsOnNode(req.node, signal);
    const plan = planDrain(pods, opts);
    blocked = plan.blocked;
    remaining = podsLeft(plan);
    if (remaining.length === 0) {
      log(
        `drained${plan.blocked.length > 0 ? ` (left ${plan.blocked.length} pod(s) the options forbid evicting)` : ''}`,
      );
      return finish('Drained');
    }
    if (
      req.unreachable &&
      plan.evict.length === 0 &&
      nextTry.size === 0 &&
      (lastEvictedAt === undefined || now - lastEvictedAt >= req.outOfServiceAfterMs)
    ) {
      // Everything is evicted; what is left cannot terminate without a kubelet. Waiting longer
      // only delays the repair; the pods are freed once the machine is fenced.
      log(
        `node unreachable: ${remaining.length} evicted pod(s) cannot terminate until the machine is fenced; going on after ${formatDuration(now - start)} without the out-of-service taint`,
      );
      return finish('TimedOut');
    }
    if (now >= deadline) {
      log(
        `timed out after ${formatDuration(now - start)} with ${remaining.length} pod(s) left: ${remaining.join(', ')}`,
      );
      return finish('TimedOut');
    }
    for (const pod of plan.evict) {
      const key = podKey(pod);
      const retry = nextTry.get(key);
      if (retry !== undefined && retry.at > now) continue;
      const grace =
        req.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: req.gracePeriodSeconds } : {};
      const r: EvictionResult =
        req.disableEviction === true
          ? fromDelete(await port.deletePod(pod, grace, signal))
          : await port.evictPod(pod, grace, signal);
      if (signal?.aborted) return finish('Aborted');
      if (r.kind === 'Evicted' || r.kind === 'NotFound') {
        evicted.add(key);
        nextTry.delete(key);
        if (r.kind === 'Evicted') lastEvictedAt = now;
        if (r.kind === 'Evicted')
          log(`${req.disableEviction === true ? 'deleted' : 'evicted'} ${key}`);
        continue;
      }
      const failures = retry === undefined ? 0 : retry.failures + 1;
      const backoff = backoffDelay(evictionBackoff, failures);
      nextTry.set(key, { at: now + backoff, failures });
      if (r.kind === 'TooManyRequests') {
        pdbRefusals += 1;
        log(
          `eviction of ${key} refused by a PodDisruptionBudget (429); retry in ${formatDuration(backoff)}`,
        );
      } else {
        log(
          `eviction of ${key} failed (${r.status ?? 'no status'}: ${r.message}); retry in ${formatDuration(backoff)}`,
        );
      }
    }
    const soonestRetry = Math.min(
      ...[...nextTry.values()].map((v) => v.at),
      Number.POSITIVE_INFINITY,
    );
    let wake = Math.min(now + poll, soonestRetry, deadline);
    if (
      req.unreachable &&
      lastEvictedAt !== undefined &&
      lastEvictedAt + req.outOfServiceAfterMs > now
    )
      wake = Math.min(wake, lastEvictedAt + req.outOfServiceAfterMs);
    try {
      await clock.sleep(Math.max(1, wake - now), req.signal);
    } catch {
      return finish('Aborted');
    }
  }
}

export type { PodRef };
