// One server action of the ladder, sent exactly once: the intent (history entry InProgress,
// phase Remediating, a stable action id) is written to status BEFORE Nova is called, and the
// completion (phase Waiting) after. A replay of an open intent asks Nova's records first.
import {
  findMetaCondition,
  removeMetaCondition,
  type MetaCondition,
  type ReconcileContext,
  type ReconcileResult,
} from '@noderepair/core/runtime';
import { MAX_HISTORY, type Attempt, type RemediationStatus } from '../api/index.js';
import { CONDITION_FENCED, cloudWaitMs } from './cloud.js';
import { cloudAnswered, cloudUnavailable } from './cloud-status.js';
import { CONDITION_NODE_RECOVERED, type Action, type EndedAttempt } from './ladder.js';
import type { NodeView } from './node-view.js';
import { executeStep } from './server-action.js';
import {
  CONDITION_REMEDIATED,
  closeLast,
  iso,
  truncate,
  updateLast,
  type Osr,
  type RemediationIO,
} from './status.js';
import type { Target } from './target.js';

/**
 * A fence proven for an earlier attempt says nothing about this one: the machine was reset and
 * may be running again. Fenced=True would also stop this attempt from asking Nova about its own
 * fence (shouldAskFence), so it goes back to False until Nova answers for the new action. The
 * out-of-service taint the earlier fence added stays (removing it is the release's job, and
 * keeping it only keeps pods off).
 */
function staleFence(
  io: RemediationIO,
  osr: Osr,
  s: RemediationStatus,
  attempt: string,
): MetaCondition[] {
  const conditions = s.conditions ?? [];
  if (findMetaCondition(conditions, CONDITION_FENCED)?.status !== 'True') return conditions;
  return io.cond(osr, s, {
    type: CONDITION_FENCED,
    status: 'False',
    reason: 'NewAttempt',
    message: `${attempt} started; the earlier fence no longer holds until Nova reports this one`,
  });
}

/**
 * Persists the intent of `action` (unless `replay`: it is open already), sends it to Nova
 * (idempotent on its action id) and persists the completion; an outage leaves the intent open.
 */
export async function act(
  io: RemediationIO,
  osr: Osr,
  t: Target,
  node: NodeView | undefined,
  action: Action,
  ended: EndedAttempt | undefined,
  replay: boolean,
  ctx: ReconcileContext,
): Promise<ReconcileResult> {
  const { at, step, actionId } = action;
  const now = io.now();
  const verb = `${step.type} of server ${t.server.serverId}`;
  let current = osr;
  if (!replay) {
    // 1. Persist the intent. Nothing has been sent yet; if this write fails, nothing ran.
    current = await io.writeStatus(osr, (s) => {
      const history = closeLast(s.history, ended, now);
      const attempt: Attempt = {
        step: at.step,
        type: step.type,
        attempt: at.attempt,
        startTime: iso(now),
        result: 'InProgress',
        message: verb,
      };
      // The boot ID before the action: a different one later proves the server restarted.
      // Absent when the Node is not readable; then a Ready transition must prove it.
      const { bootID: _previous, ...rest } = s;
      return {
        ...rest,
        ...(node?.bootID !== undefined ? { bootID: node.bootID } : {}),
        phase: 'Remediating',
        currentStep: at.step,
        retryCount: at.attempt - 1,
        lastRemediated: iso(now),
        serverID: t.server.serverId,
        history: [...history, attempt].slice(-MAX_HISTORY),
        conditions: removeMetaCondition(
          staleFence(
            io,
            osr,
            {
              ...s,
              conditions: io.cond(osr, s, {
                type: CONDITION_REMEDIATED,
                status: 'False',
                reason: 'InProgress',
                message: `step ${at.step} (${step.type}) attempt ${at.attempt}`,
              }),
            },
            `step ${at.step} (${step.type}) attempt ${at.attempt}`,
          ),
          CONDITION_NODE_RECOVERED,
        ),
      };
    });
    const why = ended ? `; previous attempt ${ended.result}: ${ended.message}` : '';
    const reason =
      at.step === 0 && at.attempt === 1
        ? 'RemediationStarted'
        : at.attempt > 1
          ? 'Retrying'
          : 'Escalating';
    await io.events.record(osr, {
      type: ended ? 'Warning' : 'Normal',
      reason,
      action: step.type,
      note: `${verb} (step ${at.step}, attempt ${at.attempt})${why}`,
    });
  }
  // 2. Execute, idempotent on actionId (a replay asks Nova's records first), but not sooner
  // than the outage backoff (or Retry-After) the last unanswered call set: whatever woke this
  // reconcile. A new intent held here is replayed once the time comes.
  const wait = cloudWaitMs(current.status, io.now());
  if (wait > 0) return { requeueAfter: wait };
  const issuedAt = replay ? Date.parse(current.status?.history?.at(-1)?.startTime ?? '') : now;
  const r = await executeStep(
    io.provider(t),
    {
      nodeName: t.machine.nodeName ?? t.machine.name,
      serverId: t.server.serverId,
      step,
      actionId,
      issuedAt: Number.isFinite(issuedAt) ? issuedAt : now,
      replay,
    },
    ctx.signal,
  );
  const counted =
    r.kind === 'Accepted' ? 'Succeeded' : r.kind === 'Rejected' ? 'Failed' : 'Unavailable';
  io.metrics.actions.inc({ type: step.type, result: counted });
  ctx.log.info(
    {
      osr: osr.metadata?.name,
      actionId,
      action: step.type,
      server: t.server.serverId,
      replay,
      result: r.kind,
      ...(r.kind === 'Unavailable' ? { maybeSent: r.maybeSent } : {}),
    },
    'server action',
  );
  // 3. Persist the completion; an outage leaves the intent open (nothing used up).
  if (r.kind === 'Unavailable')
    return cloudUnavailable(io, current, 'execute', r.message, r.retryAfterMs);
  current = await cloudAnswered(io, current);
  if (r.kind === 'Accepted') {
    const accepted = io.now();
    await io.writeStatus(current, (s) => ({
      ...s,
      phase: 'Waiting',
      history: updateLast(s.history, (a) => ({
        ...a,
        acceptedTime: iso(accepted),
        message: truncate(`${a.message ?? ''}; ${r.message}`),
      })),
    }));
    return { requeueAfter: Math.min(step.timeoutSeconds * 1000, 5_000) };
  }
  await io.writeStatus(current, (s) => ({
    ...s,
    phase: 'Remediating',
    history: updateLast(s.history, (a) => ({
      ...a,
      result: 'Failed',
      completionTime: iso(io.now()),
      message: truncate(r.message),
    })),
  }));
  await io.events.record(osr, {
    type: 'Warning',
    reason: 'ActionFailed',
    action: step.type,
    note: `${verb}: ${r.message}`,
  });
  return { requeueAfter: 1_000 };
}
