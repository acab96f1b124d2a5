// When is a machine fenced? The one judgement every controller makes before it adds
// node.kubernetes.io/out-of-service or deletes a Node. Pure.
//
// Kubernetes allows that taint only on a node that is really shut down: with it, the pod GC
// force-deletes the node's pods and the attach-detach controller force-detaches their
// volumes. Ready=Unknown alone also means a network partition or a hung kubelet whose
// containers still run and write; tainting such a node lets a second copy of a stateful pod
// write to the same volume. So the taint waits for proof that the old workloads cannot run:
// - the provider reports the machine powered off or deleted, or a hard reset it observed
//   (accepted AND done);
// - or, after a reset-like action (HardReboot, Rebuild), the Node reports a new
//   status.nodeInfo.bootID: the kernel restarted, so every old container is gone.
// A soft reboot never fences: the guest may ignore the request. Neither does a site step
// (Command, Webhook): its exit status or HTTP status says the site's automation accepted the
// job, not that the machine is off.
import { canFence } from '../health/machine.js';
import type { FenceHow, FenceQuery, FenceStatus, MachineProvider, ProviderAction } from './port.js';

// Which actions can fence is a rule the judgement applies too: it lives in health/machine.ts.
export { canFence };

/**
 * What judgeFence decides from: the action taken, what the provider said, and the Node's bootID
 * before and now.
 */
export interface FenceEvidence {
  /** The action that was taken on the machine. */
  readonly action: ProviderAction;
  /** What the provider said when asked (undefined when it was not asked). */
  readonly provider?: FenceStatus | undefined;
  /** The Node's status.nodeInfo.bootID when the intent was persisted. */
  readonly bootIdBefore?: string | undefined;
  /** The Node's bootID now. */
  readonly bootIdNow?: string | undefined;
}

/**
 * Whether the machine is proven unable to run its old workloads: how and on what evidence, or why
 * not (yet).
 */
export type FenceVerdict =
  | { readonly fenced: true; readonly how: FenceHow; readonly evidence: string }
  | { readonly fenced: false; readonly reason: string };

/**
 * Decides whether a machine is fenced, so the out-of-service taint may be added or the Node
 * deleted. Only the provider's Fenced answer, or a changed bootID after HardReboot or Rebuild,
 * counts; a soft reboot or site step never does. Pure.
 */
export function judgeFence(e: FenceEvidence): FenceVerdict {
  if (!canFence(e.action))
    return {
      fenced: false,
      reason: `${e.action} does not fence: the guest may ignore a soft reboot`,
    };
  if (e.provider?.kind === 'Fenced')
    return { fenced: true, how: e.provider.how, evidence: e.provider.evidence };
  const resetLike = e.action === 'HardReboot' || e.action === 'Rebuild';
  if (
    resetLike &&
    e.bootIdBefore !== undefined &&
    e.bootIdBefore !== '' &&
    e.bootIdNow !== undefined &&
    e.bootIdNow !== '' &&
    e.bootIdNow !== e.bootIdBefore
  )
    return {
      fenced: true,
      how: 'ResetObserved',
      evidence: `the Node's bootID changed from ${e.bootIdBefore} to ${e.bootIdNow} after the ${e.action}`,
    };
  switch (e.provider?.kind) {
    case 'NotFenced':
      return { fenced: false, reason: e.provider.reason };
    case 'Unavailable':
      return { fenced: false, reason: `the provider could not be asked: ${e.provider.reason}` };
    default:
      return { fenced: false, reason: `no confirmation yet that the ${e.action} took effect` };
  }
}

/**
 * Asks the provider about a fence. An exception is not an answer: it is "could not ask"
 * (Unavailable), never fenced, so no caller can mistake a crash for evidence.
 */
export async function askFence(
  provider: MachineProvider,
  query: FenceQuery,
  signal: AbortSignal,
): Promise<FenceStatus> {
  try {
    return await provider.fence(query, { signal });
  } catch (e) {
    return { kind: 'Unavailable', reason: e instanceof Error ? e.message : String(e) };
  }
}
