// What a reconcile writes when the cloud stops or starts answering (the decisions, backoff and
// fence verdicts, are cloud.ts's). An outage is waiting, never a failed attempt.
import { findMetaCondition, type ReconcileResult } from '@noderepair/core/runtime';
import {
  CONDITION_CLOUD_REACHABLE,
  REASON_CLOUD_ANSWERED,
  REASON_CLOUD_UNAVAILABLE,
  cloudBackoffMs,
} from './cloud.js';
import { truncate, type Osr, type RemediationIO } from './status.js';

/**
 * The cloud did not answer: CloudReachable=False (a Warning event when it turns False),
 * a metric, and a requeue with backoff. Nothing else changes: the intent stays open, so no
 * attempt is used and the step's timeout (counted from Nova's acceptance) has not started.
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
  if (prev?.status !== 'False') {
    await io.writeStatus(osr, (s) => ({
      ...s,
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
  }
  const since = prev?.status === 'False' ? Date.parse(prev.lastTransitionTime) : io.now();
  return { requeueAfter: cloudBackoffMs(since, io.now(), hintMs) };
}

/** Nova answered: CloudReachable=True again (only written when it was False). */
export async function cloudAnswered(io: RemediationIO, osr: Osr): Promise<Osr> {
  const prev = findMetaCondition(osr.status?.conditions, CONDITION_CLOUD_REACHABLE);
  if (prev?.status !== 'False') return osr;
  const out = await io.writeStatus(osr, (s) => ({
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
