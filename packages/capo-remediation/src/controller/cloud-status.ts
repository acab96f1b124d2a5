// What a reconcile writes when the cloud stops or starts answering (the decisions, backoff and
// fence verdicts, are cloud.ts's). An outage is waiting, never a failed attempt.
import { findMetaCondition, type ReconcileResult } from '@noderepair/core/runtime';
import {
  CONDITION_CLOUD_REACHABLE,
  REASON_CLOUD_ANSWERED,
  REASON_CLOUD_UNAVAILABLE,
  cloudBackoffMs,
} from './cloud.js';
import { iso, truncate, type Osr, type RemediationIO } from './status.js';

/**
 * The cloud did not answer: CloudReachable=False (a Warning event when it turns False),
 * a metric, status.cloudRetryTime (when Nova may be asked again: the backoff or the provider's
 * Retry-After, whichever is later; cloudWaitMs holds every wake-up until then), and a requeue
 * at that time. Nothing else changes: the intent stays open, so no attempt is used and the
 * step's timeout (counted from Nova's acceptance) has not started.
 */
export async function cloudUnavailable(
  io: RemediationIO,
  osr: Osr,
  operation: 'execute' | 'fence' | 'power',
  message: string,
  hintMs: number | undefined,
): Promise<ReconcileResult> {
  io.metrics.cloudUnavailable.inc({ operation: operation });
  const prev = findMetaCondition(osr.status?.conditions, CONDITION_CLOUD_REACHABLE);
  const text = truncate(
    `the cloud did not answer (${operation}): ${message}; waiting, no attempt used`,
  );
  const now = io.now();
  const since = prev?.status === 'False' ? Date.parse(prev.lastTransitionTime) : now;
  const backoff = cloudBackoffMs(Number.isFinite(since) ? since : now, now, hintMs);
  const retryAt = iso(now + backoff);
  if (prev?.status !== 'False') {
    await io.writeStatus(osr, (s) => ({
      ...s,
      cloudRetryTime: retryAt,
      conditions: io.cond(osr, s, {
        type: CONDITION_CLOUD_REACHABLE,
        status: 'False',
        reason: REASON_CLOUD_UNAVAILABLE,
        message: text,
      }),
    }));
    await io.events.record(osr, {
      type: 'Warning',
      reason: 'CloudUnavailable',
      action: operation === 'execute' ? 'Execute' : operation === 'fence' ? 'Fence' : 'PowerState',
      note: text,
    });
  } else if (osr.status?.cloudRetryTime !== retryAt) {
    await io.writeStatus(osr, (s) => ({ ...s, cloudRetryTime: retryAt }));
  }
  return { requeueAfter: backoff };
}

/**
 * Nova answered: CloudReachable=True again and status.cloudRetryTime gone (only written when
 * either was there).
 */
export async function cloudAnswered(io: RemediationIO, osr: Osr): Promise<Osr> {
  const prev = findMetaCondition(osr.status?.conditions, CONDITION_CLOUD_REACHABLE);
  if (prev?.status !== 'False') {
    if (osr.status?.cloudRetryTime === undefined) return osr;
    return io.writeStatus(osr, ({ cloudRetryTime: _answered, ...s }) => s);
  }
  const out = await io.writeStatus(osr, ({ cloudRetryTime: _answered, ...s }) => ({
    ...s,
    conditions: io.cond(osr, s, {
      type: CONDITION_CLOUD_REACHABLE,
      status: 'True',
      reason: REASON_CLOUD_ANSWERED,
      message: 'Nova answered again',
    }),
  }));
  await io.events.record(osr, {
    type: 'Normal',
    reason: 'CloudAnswered',
    action: 'Execute',
    note: 'the cloud answers again; remediation resumes',
  });
  return out;
}
