// Runs a decision's actions, in the order the state machine gave them, through ports:
// the DrainPort (cordon, drain, uncordon), the MachineProvider, the event sink. The intent
// has already been persisted by the caller; the outcome of a Remediate action is handed
// back through `recordOutcome` before anything else happens, so a crash leaves either an
// intent without completion (re-issued with the same id) or a recorded outcome.
//
// Provider outcomes: Accepted -> completed (verify next); Rejected -> a failed attempt (the
// ladder goes on); Unavailable -> no outcome is recorded (only the provider's Retry-After, when
// given, on the open intent): the intent stays without completion, so no attempt is used and
// the step's deadline has not started; the caller requeues after `retryAfterMs` or the backoff,
// and the next decision, once that time has passed (health's replayDueAt), re-issues the same
// id with replay=true, which makes the provider ask the infrastructure before sending anything.
//
// DeleteNode (after an accepted Replace) runs replace-step.ts: identity, fence, the fence
// persisted, then the Node deleted with a uid precondition; `replaced` in the summary says the
// Node is gone and the remediation with it.
import { cordonNode, uncordonNode } from '../drain/executor.js';
import { drainPass } from '../drain/pass.js';
import type { DrainOptions } from '../drain/plan.js';
import { NodeReplacedError, type DrainPort } from '../drain/port.js';
import type { ActionOutcome, DrainReport, RepairAction } from '../health/decide.js';
import type { FenceRecord } from '../health/state.js';
import { ProviderUnavailableBackoffMs } from '../health/drain-phase.js';
import type { MachineProvider, ProviderOutcome } from '../provider/port.js';
import { backoffDelay, type BackoffPolicy } from '../runtime/backoff.js';
import { systemClock, type Clock } from '../runtime/clock.js';
import type { EventInput } from '../runtime/helpers/event-recorder.js';
import { errorFields, type RuntimeLogger } from '../runtime/logger.js';
import { drainEvent, drainingEvent, EventReasons, remediationEvent } from './events.js';
import { runFenceStep } from './fence-step.js';
import { needsPowerAfterDrain, powerAllowsAfterDrain } from './power-after-drain.js';
import { runReplaceStep, type NodeDeletePort } from './replace-step.js';
import type { ReplaceReport } from '../health/replace.js';
import type { AutoRepairMetrics } from './metrics.js';

/** Tuning of the drain that the policy does not cover (deployment-level knobs). */
export interface DrainTuning {
  /** Grace period given to each evicted or deleted pod, in seconds; default the pod's own. */
  gracePeriodSeconds?: number;
  /** How soon the next drain pass runs while pods are left. Default 5 s. */
  pollIntervalMs?: number;
  /** Unused since draining is a phase (a refused eviction is retried by the next pass). */
  initialBackoffMs?: number;
  /** Unused since draining is a phase (kept so existing configurations still type-check). */
  maxBackoffMs?: number;
  /**
   * Delete pods instead of evicting them, bypassing PodDisruptionBudgets (kubectl drain
   * --disable-eviction). Default false.
   */
  disableEviction?: boolean;
  /**
   * Overrides of the drain's pod filters (DaemonSets, emptyDir, unmanaged pods...); unset fields
   * keep the defaults.
   */
  options?: Partial<DrainOptions>;
}

/** The ports and knobs executeActions works through. */
export interface ExecutorDeps {
  /** Cordon, drain, uncordon and the out-of-service taint go through it. */
  drainPort: DrainPort;
  /** Receives the Remediate actions and answers whether a machine is fenced. */
  provider: MachineProvider;
  /** Counts each action's result. */
  metrics: AutoRepairMetrics;
  /** Records an Event on the Node. */
  event: (ev: EventInput) => Promise<void>;
  /** Logger; the executor adds the node to its fields. */
  log: RuntimeLogger;
  /** Clock of the persisted times (outcomes, fences, drain ends), in epoch milliseconds. */
  now: () => number;
  /** Drain knobs the policy does not cover; defaults in DrainTuning. */
  drain?: DrainTuning;
  /** Time for the drain's passes and deadline, and the node reconciler's waits; default systemClock. */
  clock?: Clock;
  /**
   * Reads and deletes Nodes for the DeleteNode step after an accepted Replace. Without it no
   * Node is ever deleted (the step reports it and the Replace step times out).
   */
  nodes?: NodeDeletePort;
}

/** The node the actions are for, and how to persist what they learn. */
export interface ExecuteTarget {
  /** The Node's name. */
  node: string;
  /**
   * The uid of the Node the decision was made on. Cordon, the drain's own cordon and the
   * out-of-service taint are written only to that Node: a re-created Node of the same name is
   * refused (NodeReplacedError), and then no further action of the decision runs.
   */
  uid?: string;
  /** The Node's spec.providerID, sent with Remediate actions (empty when unset). */
  providerID?: string;
  /** Persists the outcome of a Remediate action (recordOutcome + write). */
  recordOutcome: (outcome: ActionOutcome) => Promise<void>;
  /** Persists that the machine was found fenced (recordFence + write). */
  recordFence?: (fence: FenceRecord) => Promise<void>;
  /**
   * Persists a drain pass's progress or the drain's end (recordDrain + write). The end is
   * written BEFORE the action after the drain runs: a drain without an end means the action
   * was never sent.
   */
  recordDrain?: (report: DrainReport) => Promise<void>;
  /**
   * Persists a provider's Retry-After on the open intent (recordUnavailable + write), so the
   * next re-issue waits for it across early wake-ups and restarts. Called only when the
   * provider gave one.
   */
  recordUnavailable?: (report: {
    /** The Remediate action's id. */
    actionId: string;
    /** When the provider may be asked again (epoch ms). */
    retryAt: number;
  }) => Promise<void>;
  /** Persists what the DeleteNode step learnt (recordReplace + write): the fence before the delete. */
  recordReplace?: (report: ReplaceReport) => Promise<void>;
  /** Aborts on shutdown or lost leadership: the remaining actions are left to the next leader. */
  signal: AbortSignal;
}

/** What executeActions did, so the caller knows when to look at the node again. */
export interface ExecuteSummary {
  /** A Remediate action ran (the node should be looked at again soon). */
  remediated: boolean;
  /** The signal aborted before every action ran. */
  aborted: boolean;
  /** Look again after this long: the provider could not be asked, or the fence is unconfirmed. */
  retryAfterMs?: number;
  /** The Node is gone after an accepted Replace: the remediation ended as Replaced. */
  replaced?: boolean;
}

/** Default pause between drain passes while pods are left. */
export const DrainPassIntervalMs = 5000;

/**
 * How long to wait before re-issuing a Remediate action the provider could not be asked about
 * (an outage: nothing recorded, the same actionId next time), by the number of re-issues so far:
 * 5 s doubling to 5 min, no jitter. A Retry-After from the provider is used instead when given.
 * The decision holds the same wait from the persisted intent (health's replayDueAt), so a
 * reconcile woken before it does not ask the provider again.
 */
export const ProviderUnavailableBackoff: BackoffPolicy = {
  ...ProviderUnavailableBackoffMs,
  factor: 2,
  jitter: 0,
};

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Runs a decision's actions in order and returns when they ran, one waits (a drain with pods left,
 * an unavailable provider) or the signal aborts. A Remediate outcome is persisted through
 * `target.recordOutcome` before the next action; an unavailable provider records nothing, so no
 * attempt is used. Throws when an uncordon or a persist fails (the decision is retried); a
 * persist that finds the Node gone or re-created since the decision stops the decision instead.
 */
export async function executeActions(
  actions: readonly RepairAction[],
  target: ExecuteTarget,
  deps: ExecutorDeps,
): Promise<ExecuteSummary> {
  const progress: Progress = { remediated: false };
  try {
    return await runActions(actions, target, deps, progress);
  } catch (e) {
    // A step's record (target.record*) found the Node gone or re-created since the decision
    // (a rebuild keeps the providerID): what comes after was decided about another machine,
    // so none of it runs. The next reconcile judges the Node that is there now.
    if (!(e instanceof NodeReplacedError) || progress.current === undefined) throw e;
    const log = deps.log.child({ node: target.node });
    // Simply gone (a cloud-controller-manager deletes the Nodes of deleted servers, as after
    // a Replace): nothing failed; stop quietly. The next reconcile finds it gone.
    if (e.actualUid === undefined) {
      log.info(errorFields(e), 'the Node is gone: nothing more of this decision runs');
      return { remediated: progress.remediated, aborted: false };
    }
    return nodeReplaced(e, progress.current, deps, log, progress.remediated);
  }
}

/** How far runActions got: what nodeReplaced reports when a record stops it. */
interface Progress {
  /** The action running (its metrics label: a Remediate's own action, e.g. Replace). */
  current?: string;
  remediated: boolean;
}

async function runActions(
  actions: readonly RepairAction[],
  target: ExecuteTarget,
  deps: ExecutorDeps,
  progress: Progress,
): Promise<ExecuteSummary> {
  let remediated = false;
  let retryAfterMs: number | undefined;
  let replaced = false;
  const log = deps.log.child({ node: target.node });
  for (const [i, action] of actions.entries()) {
    progress.current = action.type === 'Remediate' ? action.action : action.type;
    progress.remediated = remediated;
    // Stopping (shutdown or lost leadership): leave the rest to the next leader, which
    // re-issues an unfinished Remediate with the same id from the persisted intent.
    if (target.signal.aborted) return { remediated, aborted: true };
    // A dry run fences nothing, so it never deletes a Node either.
    if (action.dryRun && (action.type === 'Fence' || action.type === 'DeleteNode')) continue;
    if (action.dryRun && action.type !== 'Remediate') {
      if (action.type === 'Cordon' || action.type === 'Drain' || action.type === 'Uncordon')
        await deps.event({
          type: 'Normal',
          reason: EventReasons.DryRun,
          action: action.type,
          note: `dry-run: would ${action.type.toLowerCase()}: ${action.reason}`,
        });
      continue;
    }
    switch (action.type) {
      case 'Cordon': {
        try {
          const r = await cordonNode(deps.drainPort, target.node, target.signal, target.uid);
          deps.metrics.actions.inc({ action: 'Cordon', result: 'Succeeded' });
          if (r === 'Cordoned') log.info({ reason: action.reason }, 'cordoned');
          else log.debug({ result: r }, 'cordon: nothing to do');
          if (r === 'Cordoned')
            await deps.event({
              type: 'Normal',
              reason: EventReasons.Cordoned,
              action: 'Cordon',
              note: action.reason,
            });
        } catch (e) {
          // The Node was deleted and re-created under its name: the actions after the cordon
          // (drain, power action) were decided about the old one, so none of them runs.
          if (e instanceof NodeReplacedError)
            return nodeReplaced(e, 'Cordon', deps, log, remediated);
          // The drain cordons too (and retries); a failed cordon alone does not stop the repair.
          deps.metrics.actions.inc({ action: 'Cordon', result: 'Failed' });
          log.warn(errorFields(e), 'cordon failed');
          await deps.event({
            type: 'Warning',
            reason: EventReasons.ActionFailed,
            action: 'Cordon',
            note: `cordon failed: ${message(e)}`,
          });
        }
        break;
      }
      case 'Drain': {
        const r = await runDrainPass(action, target, deps, log);
        if (r.kind === 'aborted') return { remediated, aborted: true };
        if (r.kind === 'replaced') return nodeReplaced(r.error, 'Drain', deps, log, remediated);
        if (r.kind === 'again') {
          // Pods are left: the actions after the drain wait for a later pass.
          retryAfterMs = Math.min(retryAfterMs ?? r.afterMs, r.afterMs);
          return { remediated, aborted: false, retryAfterMs };
        }
        // Drained after several passes: is the machine still on (power-after-drain.ts)?
        const next = actions[i + 1];
        if (
          needsPowerAfterDrain(action, next, deps.provider, target.providerID) &&
          !(await powerAllowsAfterDrain(
            next,
            { node: target.node, providerID: target.providerID ?? '' },
            deps,
            target.signal,
            log,
          ))
        ) {
          if (target.signal.aborted) return { remediated, aborted: true };
          const wait = backoffDelay(ProviderUnavailableBackoff, next.replays ?? 0, 0);
          return { remediated, aborted: false, retryAfterMs: wait };
        }
        break;
      }
      case 'Remediate': {
        let result: ProviderOutcome;
        log.info(
          {
            action: action.action,
            actionId: action.actionId,
            replay: action.replay,
            provider: deps.provider.name,
            reason: action.reason,
          },
          action.replay ? 'action re-sent with the same id' : 'action sent',
        );
        try {
          result = await deps.provider.execute(
            {
              node: target.node,
              providerID: target.providerID ?? '',
              action: action.action,
              ...(action.image !== undefined ? { image: action.image } : {}),
              actionId: action.actionId,
              issuedAt: action.issuedAt,
              replay: action.replay,
            },
            { signal: target.signal },
          );
        } catch (e) {
          // A throw is not an answer about the action (promise 2): wait, and ask first next time.
          result = { kind: 'Unavailable', message: message(e), maybeSent: true };
        }
        // A controller stopped mid-call must not record an outcome it may not have seen
        // completely; the next leader re-issues the same id and the provider deduplicates.
        if (target.signal.aborted) return { remediated, aborted: true };
        const label =
          result.kind === 'Accepted'
            ? 'Succeeded'
            : result.kind === 'Rejected'
              ? 'Failed'
              : 'Unavailable';
        deps.metrics.actions.inc({ action: action.action, result: label });
        const answer = {
          action: action.action,
          actionId: action.actionId,
          replay: action.replay,
          result: result.kind,
          ...(result.message !== '' ? { message: result.message } : {}),
        };
        if (result.kind === 'Accepted')
          log.info(
            {
              ...answer,
              next:
                action.action === 'Replace'
                  ? 'waiting for the machine to be fenced, then deleting the Node'
                  : 'waiting for the node to become Ready',
            },
            'action accepted',
          );
        else if (result.kind === 'Rejected') log.warn(answer, 'action rejected');
        else
          log.warn(
            {
              ...answer,
              ...(result.retryAfterMs !== undefined ? { retryAfterMs: result.retryAfterMs } : {}),
            },
            'provider unavailable: waiting, no attempt used',
          );
        // Unavailable: nothing is recorded, so the intent stays open, no attempt is used and no
        // deadline runs.
        if (result.kind !== 'Unavailable') {
          progress.remediated = true; // sent, even if its record stops here
          await target.recordOutcome({
            actionId: action.actionId,
            result: result.kind === 'Accepted' ? 'Succeeded' : 'Failed',
            at: deps.now(),
            ...(result.message !== '' ? { message: result.message } : {}),
          });
          remediated = true;
        }
        await deps.event(
          remediationEvent(
            action.action,
            action.actionId,
            action.replay,
            deps.provider.name,
            result,
          ),
        );
        if (result.kind === 'Unavailable') {
          deps.metrics.providerUnavailable.inc({ action: action.action });
          if (result.retryAfterMs !== undefined)
            await target.recordUnavailable?.({
              actionId: action.actionId,
              retryAt: deps.now() + result.retryAfterMs,
            });
          const wait =
            result.retryAfterMs ?? backoffDelay(ProviderUnavailableBackoff, action.replays ?? 0, 0);
          retryAfterMs = Math.min(retryAfterMs ?? wait, wait);
          // The actions after this one assume it ran.
          return { remediated, aborted: false, retryAfterMs };
        }
        break;
      }
      case 'Fence': {
        try {
          const r = await runFenceStep(action, target, { ...deps });
          if (r.kind === 'Fenced') {
            log.info(
              {
                actionId: action.actionId,
                how: r.record.how,
                evidence: r.record.evidence,
                taintAdded: r.record.taintAdded,
              },
              'fenced',
            );
            deps.metrics.fenced.inc({ how: r.record.how });
            await target.recordFence?.(r.record);
          } else if (r.kind === 'NotFenced') {
            log.debug({ actionId: action.actionId, reason: r.reason }, 'not known fenced yet');
            if (r.retryAfterMs !== undefined)
              retryAfterMs = Math.min(retryAfterMs ?? r.retryAfterMs, r.retryAfterMs);
          }
        } catch (e) {
          // A record that found the Node gone or re-created: stop (executeActions says so).
          if (e instanceof NodeReplacedError) throw e;
          // Not fenced as far as we know: the taint stays off; the decision asks again.
          log.warn(errorFields(e), 'fence check failed');
        }
        break;
      }
      case 'DeleteNode': {
        if (deps.nodes === undefined) {
          log.warn({ actionId: action.actionId }, 'no Node port wired: the Node is not deleted');
          // Nothing can ever be deleted: past the deadline this is the step's late "not
          // fenced" answer, so it times out (replace.ts) instead of asking for ever.
          const at = deps.now();
          if (action.deadline !== undefined && at >= action.deadline)
            await target.recordReplace?.({
              actionId: action.actionId,
              unavailable: false,
              notFencedAt: at,
            });
          break;
        }
        try {
          const r = await runReplaceStep(action, target, { ...deps, nodes: deps.nodes, log });
          if (r.kind === 'Replaced') replaced = true;
          else if (r.retryAfterMs !== undefined)
            retryAfterMs = Math.min(retryAfterMs ?? r.retryAfterMs, r.retryAfterMs);
        } catch (e) {
          if (e instanceof NodeReplacedError) throw e;
          // An apiserver error: nothing was deleted, or the delete's answer was lost and the
          // next step finds the Node gone. Either way the decision asks again.
          deps.metrics.actions.inc({ action: 'DeleteNode', result: 'Failed' });
          log.warn(errorFields(e), 'node deletion step failed; trying again');
        }
        break;
      }
      case 'Uncordon': {
        try {
          await uncordonNode(deps.drainPort, target.node, {
            removeOutOfServiceTaint: action.removeOutOfServiceTaint,
            ...(action.keepCordon === true ? { keepCordon: true } : {}),
            signal: target.signal,
          });
          deps.metrics.actions.inc({ action: 'Uncordon', result: 'Succeeded' });
          log.info(
            {
              reason: action.reason,
              ...(action.keepCordon === true ? { keptCordon: true } : {}),
              ...(action.removeOutOfServiceTaint ? { removedOutOfServiceTaint: true } : {}),
            },
            'uncordoned',
          );
          await deps.event({
            type: 'Normal',
            reason: EventReasons.Uncordoned,
            action: 'Uncordon',
            note: action.reason,
          });
        } catch (e) {
          // Uncordon runs before the Healthy state is persisted (it is idempotent), so a
          // failure is thrown and the whole decision is retried with backoff.
          deps.metrics.actions.inc({ action: 'Uncordon', result: 'Failed' });
          log.warn(errorFields(e), 'uncordon failed');
          await deps.event({
            type: 'Warning',
            reason: EventReasons.ActionFailed,
            action: 'Uncordon',
            note: `uncordon failed (will retry): ${message(e)}`,
          });
          throw e;
        }
        break;
      }
      case 'GiveUp':
      case 'Forget':
        // GiveUp is announced as a transition event; Forget is handled by the reconciler.
        break;
    }
  }
  return {
    remediated,
    aborted: false,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    ...(replaced ? { replaced } : {}),
  };
}

type DrainStep =
  | { kind: 'done' }
  | { kind: 'again'; afterMs: number }
  | { kind: 'aborted' }
  /** The Node is another object now (NodeReplacedError): the drain stops, nothing else runs. */
  | { kind: 'replaced'; error: NodeReplacedError };

/**
 * The Node the decision was made on was deleted and re-created under its name: whatever comes
 * next (a drain, a power action) was decided about a machine that is not this Node, so the
 * rest of the decision's actions does not run. The next reconcile judges the new Node (its
 * repair state is its own annotation). A Warning says so.
 */
async function nodeReplaced(
  e: NodeReplacedError,
  action: string,
  deps: ExecutorDeps,
  log: RuntimeLogger,
  remediated: boolean,
): Promise<ExecuteSummary> {
  deps.metrics.actions.inc({ action, result: 'Failed' });
  log.warn(errorFields(e), `${action.toLowerCase()} refused: the Node was replaced`);
  await deps.event({
    type: 'Warning',
    reason: EventReasons.ActionFailed,
    action,
    note: `${action.toLowerCase()} stopped, and no further action of this repair runs: ${e.message}`,
  });
  return { remediated, aborted: false };
}

/**
 * One drain pass (drain/pass.ts) and its report: progress is persisted and the caller looks
 * again after a short pause; at the end (drained, timed out, node gone, or a pass failing
 * after the timeout) the end is persisted and the next action may run, as after a drain today.
 */
async function runDrainPass(
  action: Extract<RepairAction, { type: 'Drain' }>,
  target: ExecuteTarget,
  deps: ExecutorDeps,
  log: RuntimeLogger,
): Promise<DrainStep> {
  const t = deps.drain ?? {};
  const clock = deps.clock ?? systemClock;
  const interval = t.pollIntervalMs ?? DrainPassIntervalMs;
  const report = (r: Omit<DrainReport, 'remediationId'>) =>
    target.recordDrain?.({ remediationId: action.remediationId, ...r }) ?? Promise.resolve();
  let r;
  try {
    r = await drainPass(
      deps.drainPort,
      {
        node: target.node,
        startedAt: action.startedAt,
        ...(action.lastEvictedAt !== undefined ? { lastEvictedAt: action.lastEvictedAt } : {}),
        timeoutMs: action.timeoutMs,
        unreachable: action.unreachable,
        outOfServiceAfterMs: action.outOfServiceAfterMs,
        signal: target.signal,
        // The cordon of the pass is held to the Node the decision was made on.
        ...(target.uid !== undefined ? { uid: target.uid } : {}),
        ...(t.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: t.gracePeriodSeconds } : {}),
        ...(t.disableEviction !== undefined ? { disableEviction: t.disableEviction } : {}),
        ...(t.options !== undefined ? { options: t.options } : {}),
      },
      clock,
    );
  } catch (e) {
    if (target.signal.aborted) return { kind: 'aborted' };
    if (e instanceof NodeReplacedError) return { kind: 'replaced', error: e };
    log.warn(errorFields(e), 'drain pass failed');
    const timedOut = clock.now() >= action.startedAt + action.timeoutMs;
    // A broken node is repaired even if it cannot be drained cleanly (the pods on it are
    // not running anyway), but only once the drain's time is up: a passing apiserver error
    // is waited out like a PodDisruptionBudget.
    await deps.event({
      type: 'Warning',
      reason: EventReasons.DrainIncomplete,
      action: 'Drain',
      note: `drain pass failed${timedOut ? ' after the drain timeout; going on' : '; trying again'}: ${message(e)}`,
    });
    if (!timedOut) return { kind: 'again', afterMs: interval };
    deps.metrics.actions.inc({ action: 'Drain', result: 'Failed' });
    await report({ ended: { at: deps.now(), outcome: 'Failed' } });
    return { kind: 'done' };
  }
  if (r.outcome === 'Aborted') return { kind: 'aborted' };
  if (r.outcome === 'Draining') {
    if (r.lastEvictedAt !== undefined && r.lastEvictedAt !== action.lastEvictedAt)
      await report({ lastEvictedAt: r.lastEvictedAt });
    if (r.evicted.length > 0 || r.pdbRefusals > 0) await deps.event(drainingEvent(r));
    log.debug(
      { evicted: r.evicted.length, pdbRefusals: r.pdbRefusals, remaining: r.remaining.length },
      'drain pass',
    );
    const afterMs = Math.max(1, Math.min(interval, r.deadline - clock.now()));
    return { kind: 'again', afterMs };
  }
  deps.metrics.actions.inc({
    action: 'Drain',
    result: r.outcome === 'Drained' ? 'Succeeded' : r.outcome,
  });
  log[r.outcome === 'Drained' ? 'info' : 'warn'](
    {
      remediationId: action.remediationId,
      outcome: r.outcome,
      evicted: r.evicted.length,
      pdbRefusals: r.pdbRefusals,
      ...(r.remaining.length > 0 ? { remaining: r.remaining } : {}),
    },
    'drain finished',
  );
  await deps.event(drainEvent({ ...r, outcome: r.outcome }));
  await report({
    ...(r.lastEvictedAt !== undefined ? { lastEvictedAt: r.lastEvictedAt } : {}),
    ended: { at: deps.now(), outcome: r.outcome },
  });
  return { kind: 'done' };
}
