// Runs a decision's actions, in the order the state machine gave them, through ports:
// the DrainPort (cordon, drain, uncordon), the RebootProvider, the event sink. The intent
// has already been persisted by the caller; the outcome of a Remediate action is handed
// back through `recordOutcome` before anything else happens, so a crash leaves either an
// intent without completion (re-issued with the same id) or a recorded outcome.
import { cordonNode, drainNode, uncordonNode } from '../drain/executor.js';
import type { DrainOptions } from '../drain/plan.js';
import { drainSystemClock, type DrainClock, type DrainPort } from '../drain/port.js';
import type { ActionOutcome, RepairAction } from '../health/decide.js';
import type { RebootProvider, RebootResult } from '../health/provider.js';
import type { EventInput } from '../runtime/helpers/event-recorder.js';
import { errorFields, type RuntimeLogger } from '../runtime/logger.js';
import { drainEvent, EventReasons, remediationEvent } from './events.js';
import type { AutoRepairMetrics } from './metrics.js';

/** Tuning of the drain that the policy does not cover (deployment-level knobs). */
export interface DrainTuning {
  gracePeriodSeconds?: number;
  pollIntervalMs?: number;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  disableEviction?: boolean;
  options?: Partial<DrainOptions>;
}

export interface ExecutorDeps {
  drainPort: DrainPort;
  provider: RebootProvider;
  metrics: AutoRepairMetrics;
  event: (ev: EventInput) => Promise<void>;
  log: RuntimeLogger;
  now: () => number;
  drain?: DrainTuning;
  drainClock?: DrainClock;
}

export interface ExecuteTarget {
  node: string;
  providerID?: string;
  /** Persists the outcome of a Remediate action (recordOutcome + write). */
  recordOutcome: (outcome: ActionOutcome) => Promise<void>;
  signal: AbortSignal;
}

export interface ExecuteSummary {
  /** A Remediate action ran (the node should be looked at again soon). */
  remediated: boolean;
  /** The signal aborted before every action ran. */
  aborted: boolean;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export async function executeActions(
  actions: readonly RepairAction[],
  target: ExecuteTarget,
  deps: ExecutorDeps,
): Promise<ExecuteSummary> {
  let remediated = false;
  const log = deps.log.child({ node: target.node });
  for (const action of actions) {
    // Stopping (shutdown or lost leadership): leave the rest to the next leader, which
    // re-issues an unfinished Remediate with the same id from the persisted intent.
    if (target.signal.aborted) return { remediated, aborted: true };
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
          const r = await cordonNode(deps.drainPort, target.node);
          deps.metrics.actions.inc({ action: 'Cordon', result: 'Succeeded' });
          if (r === 'Cordoned')
            await deps.event({
              type: 'Normal',
              reason: EventReasons.Cordoned,
              action: 'Cordon',
              note: action.reason,
            });
        } catch (e) {
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
        const t = deps.drain ?? {};
        try {
          const r = await drainNode(
            deps.drainPort,
            {
              node: target.node,
              timeoutMs: action.timeoutMs,
              unreachable: action.unreachable,
              outOfServiceAfterMs: action.outOfServiceAfterMs,
              signal: target.signal,
              ...(t.gracePeriodSeconds !== undefined
                ? { gracePeriodSeconds: t.gracePeriodSeconds }
                : {}),
              ...(t.pollIntervalMs !== undefined ? { pollIntervalMs: t.pollIntervalMs } : {}),
              ...(t.initialBackoffMs !== undefined ? { initialBackoffMs: t.initialBackoffMs } : {}),
              ...(t.maxBackoffMs !== undefined ? { maxBackoffMs: t.maxBackoffMs } : {}),
              ...(t.disableEviction !== undefined ? { disableEviction: t.disableEviction } : {}),
              ...(t.options !== undefined ? { options: t.options } : {}),
            },
            deps.drainClock ?? drainSystemClock,
          );
          if (r.outcome === 'Aborted') return { remediated, aborted: true };
          deps.metrics.actions.inc({
            action: 'Drain',
            result: r.outcome === 'Drained' ? 'Succeeded' : r.outcome,
          });
          log.info(
            { outcome: r.outcome, evicted: r.evicted.length, pdbRefusals: r.pdbRefusals },
            'drain finished',
          );
          await deps.event(drainEvent(r));
        } catch (e) {
          // A broken node is repaired even if it cannot be drained cleanly (the pods on it
          // are not running anyway); the event says so.
          deps.metrics.actions.inc({ action: 'Drain', result: 'Failed' });
          log.warn(errorFields(e), 'drain failed');
          await deps.event({
            type: 'Warning',
            reason: EventReasons.DrainIncomplete,
            action: 'Drain',
            note: `drain failed: ${message(e)}`,
          });
        }
        break;
      }
      case 'Remediate': {
        let result: RebootResult;
        try {
          result = await deps.provider.execute(
            {
              node: target.node,
              ...(target.providerID !== undefined ? { providerID: target.providerID } : {}),
              action: action.action,
              ...(action.image !== undefined ? { image: action.image } : {}),
              actionId: action.actionId,
              replay: action.replay,
            },
            target.signal,
          );
        } catch (e) {
          result = { result: 'Failed', message: message(e) };
        }
        // A controller stopped mid-call must not record an outcome it may not have seen
        // completely; the next leader re-issues the same id and the provider deduplicates.
        if (target.signal.aborted) return { remediated, aborted: true };
        await target.recordOutcome({
          actionId: action.actionId,
          result: result.result,
          at: deps.now(),
          ...(result.message !== undefined ? { message: result.message } : {}),
        });
        remediated = true;
        deps.metrics.actions.inc({ action: action.action, result: result.result });
        log.info(
          {
            action: action.action,
            actionId: action.actionId,
            replay: action.replay,
            result: result.result,
          },
          'remediation action finished',
        );
        await deps.event(
          remediationEvent(
            action.action,
            action.actionId,
            action.replay,
            deps.provider.name,
            result,
          ),
        );
        break;
      }
      case 'Uncordon': {
        try {
          await uncordonNode(deps.drainPort, target.node, {
            removeOutOfServiceTaint: action.removeOutOfServiceTaint,
          });
          deps.metrics.actions.inc({ action: 'Uncordon', result: 'Succeeded' });
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
  return { remediated, aborted: false };
}
