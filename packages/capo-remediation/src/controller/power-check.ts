// Before the first action of a remediation: a server someone stopped stays off. An operator's
// `openstack server stop`, a hypervisor maintenance or a tenant's script leaves the Node
// NotReady, the MachineHealthCheck creates a remediation after its timeout, and a HARD reboot
// would power the server back on, overriding that person's decision. So, before anything is
// cordoned, drained or sent, Nova is asked for the server's power state (core's provider port:
// NovaMachineProvider.powerState reads SHUTOFF and who asked for the stop in
// os-instance-actions). Off by request: the remediation waits, saying so on the object
// (ServerStopped=True) and in one Warning Event, and asks again every few minutes; it acts once
// someone powers the server on and it is still broken, or a person deletes the remediation.
// Off without a request (a crash: Nova's power-state sync), gone or on: it goes on as before.
// Nova not answering: it waits (an outage is never a verdict). The same question is asked
// again before every later attempt or escalation that can power the server on (HardReboot,
// Rebuild), and after the drain when the first action can: someone may stop the server WHILE
// the remediation runs (our own actions never stop a server, and a stop this provider sent
// would not count as by request). It is also asked at a step's timeout when the node has been
// silent since the action (deadline.ts: escalate only on fresh evidence), with the same answers.
import type { PowerState } from '@noderepair/core/provider';
import {
  findMetaCondition,
  type ReconcileContext,
  type ReconcileResult,
} from '@noderepair/core/runtime';
import { formatProviderID } from '@noderepair/openstack';
import { cloudWaitMs } from './cloud.js';
import { cloudAnswered, cloudUnavailable } from './cloud-status.js';
import type { Osr, RemediationIO } from './status.js';
import type { Target } from './target.js';

/** Condition: True while the server is off because someone stopped it; nothing is sent. */
export const CONDITION_SERVER_STOPPED = 'ServerStopped';
export const REASON_STOPPED_BY_REQUEST = 'StoppedByRequest';
export const REASON_NOT_STOPPED = 'NotStoppedByRequest';

/** How often a server someone stopped is asked about again (someone may start it). */
export const STOPPED_RECHECK_MS = 5 * 60_000;

/** What the first action must do about the server's power state. */
export type PowerVerdict =
  | { readonly kind: 'Go' }
  | { readonly kind: 'Stopped'; readonly evidence: string }
  | { readonly kind: 'Unknown'; readonly reason: string };

/** Pure: the verdict on the provider's answer. */
export function powerVerdict(p: PowerState): PowerVerdict {
  if (p.kind === 'Off' && p.byRequest) return { kind: 'Stopped', evidence: p.evidence };
  if (p.kind === 'Unavailable') return { kind: 'Unknown', reason: p.reason };
  return { kind: 'Go' };
}

/**
 * Asks Nova for the server's power state, never before status.cloudRetryTime (the persisted
 * outage backoff): `waitMs` when it is not time yet (nothing asked). Nova's failures come back
 * as `Unavailable` (a bare 404 too: the provider cannot tell it from a running machine).
 */
export async function askPowerState(
  io: RemediationIO,
  osr: Osr,
  t: Target,
  ctx: ReconcileContext,
): Promise<{ readonly waitMs: number } | { readonly answer: PowerState }> {
  const wait = cloudWaitMs(osr.status, io.now());
  if (wait > 0) return { waitMs: wait };
  const node = t.machine.nodeName ?? t.machine.name;
  const providerID = formatProviderID({ serverId: t.server.serverId, region: undefined });
  try {
    return {
      answer: await io.provider(t).powerState({ node, providerID }, { signal: ctx.signal }),
    };
  } catch (e) {
    return {
      answer: { kind: 'Unavailable', reason: e instanceof Error ? e.message : String(e) },
    };
  }
}

/** ServerStopped=False (NotStoppedByRequest) when it was True; else `osr` as it is. */
export async function clearServerStopped(io: RemediationIO, osr: Osr, t: Target): Promise<Osr> {
  const was = findMetaCondition(osr.status?.conditions, CONDITION_SERVER_STOPPED);
  if (was?.status !== 'True') return osr;
  return io.writeStatus(osr, (s) => ({
    ...s,
    conditions: io.cond(osr, s, {
      type: CONDITION_SERVER_STOPPED,
      status: 'False',
      reason: REASON_NOT_STOPPED,
      message: `server ${t.server.serverId} is no longer off by request: the remediation goes on`,
    }),
  }));
}

/**
 * Someone stopped the server: ServerStopped=True (StoppedByRequest) with Nova's evidence and
 * one Warning event when it turns True; the requeue that asks again. `held` says what waits.
 */
export async function holdStoppedByRequest(
  io: RemediationIO,
  osr: Osr,
  t: Target,
  evidence: string,
  held: string,
): Promise<ReconcileResult> {
  const was = findMetaCondition(osr.status?.conditions, CONDITION_SERVER_STOPPED);
  const message = `server ${t.server.serverId} was stopped by someone (${evidence}): ${held}; start the server or delete this remediation`;
  if (was?.status !== 'True') {
    await io.writeStatus(osr, (s) => ({
      ...s,
      conditions: io.cond(osr, s, {
        type: CONDITION_SERVER_STOPPED,
        status: 'True',
        reason: REASON_STOPPED_BY_REQUEST,
        message,
      }),
    }));
    await io.events.record(osr, {
      type: 'Warning',
      reason: 'ServerStoppedByRequest',
      action: 'Wait',
      note: message,
    });
  }
  return { requeueAfter: STOPPED_RECHECK_MS };
}

/**
 * Whether the step can power a stopped server on: Nova's HARD reboot of a SHUTOFF server
 * starts it, and so does a rebuild. A SOFT reboot asks the guest (Nova refuses it on a
 * stopped server).
 */
export function canPowerOn(step: { readonly type: string }): boolean {
  return step.type === 'HardReboot' || step.type === 'Rebuild';
}

/**
 * Asks Nova before the first action. `go`: the remediation as it now is (conditions written
 * here included), to act on; `hold`: what the reconcile returns (it waits, nothing was
 * cordoned, persisted or sent). Also asked before every later attempt or escalation that can
 * power the server on, and again after a drain (which can take minutes) when the first action
 * can: a person may stop the server WHILE the remediation runs, and the answer asked before
 * the first action is stale by then (the harm path core's simulator found; `held` says what is
 * withheld).
 */
export async function checkPowerBeforeFirstAction(
  io: RemediationIO,
  osr: Osr,
  t: Target,
  ctx: ReconcileContext,
  held = 'nothing is cordoned, drained or sent while it is off',
): Promise<{ readonly go: Osr } | { readonly hold: ReconcileResult }> {
  // During an outage, not before the backoff (or Retry-After) the last unanswered call set.
  const asked = await askPowerState(io, osr, t, ctx);
  if ('waitMs' in asked) return { hold: { requeueAfter: asked.waitMs } };
  const v = powerVerdict(asked.answer);
  // Nova not answering: an outage, waited out like any other (CloudReachable=False, the
  // backoff), with nothing cordoned, persisted or sent meanwhile.
  if (v.kind === 'Unknown')
    return { hold: await cloudUnavailable(io, osr, 'power', v.reason, undefined) };
  const answered = await cloudAnswered(io, osr);
  if (v.kind === 'Go') return { go: await clearServerStopped(io, answered, t) };
  return {
    hold: await holdStoppedByRequest(io, answered, t, v.evidence, held),
  };
}
