// The machine provider port: how a repair reaches the infrastructure that runs a node
// (OpenStack Nova, a BMC, a hypervisor, a cloud API). Both controllers use it: `noderepair
// run` through a provider chosen by name or loaded from a module, capo-remediation through
// its Nova implementation. Anyone can write one (vSphere, bare metal): implement
// MachineProvider and follow the four promises below; nothing else is needed.
//
// 1. Exactly once. `execute` is called with a stable `actionId` per attempt, persisted by the
//    caller BEFORE the call. A provider that receives an id it has already executed must not
//    act again; it answers with the first outcome. When `replay` is true (the caller found
//    the intent without an outcome, e.g. after a restart), the provider MUST find out from
//    the infrastructure's own records whether the first send arrived before sending anything.
// 2. Outages are not answers. Only an answer about the action itself (the machine is gone,
//    the infrastructure refuses this action in this state, a bad request) is `Rejected`,
//    which uses up an attempt of the ladder. Anything that says "I could not ask" (network,
//    5xx, 429, timeout, authentication, catalog) is `Unavailable`: the caller waits and asks
//    again later with the same id; no attempt is used, nothing escalates, nothing is replaced.
// 3. A lost reply is "maybe done". If the request may have left (timeout after sending, a 5xx
//    from a proxy, a connection reset), the provider never resends it in the same call: it
//    looks at the infrastructure's records, and when it cannot tell, returns `Unavailable`
//    with `maybeSent: true`; the caller's next call is a replay, which asks first.
// 4. Fencing is reported, not assumed. `fence` says whether the machine is known to be
//    unable to run the node's workloads any more: powered off, deleted, or a hard reset
//    accepted AND observed (the infrastructure reports the power cycle done). Only then may
//    the caller add node.kubernetes.io/out-of-service or delete the Node (see fence.ts). A
//    soft reboot never fences: the guest may ignore it.

import type { PowerState, ProviderAction } from '../health/machine.js';

// The judgement reads these words too, so they live at its side (health/machine.ts says why).
export type { PowerState, ProviderAction } from '../health/machine.js';

/** Every ProviderAction, in the order help texts list them. */
export const ProviderActions: readonly ProviderAction[] = [
  'SoftReboot',
  'HardReboot',
  'PowerOff',
  'Rebuild',
  'Replace',
  'Command',
  'Webhook',
];

/** The machine behind a Node, as the provider knows it. */
export interface MachineRef {
  /** The Node's name (for messages; the provider identifies the machine by providerID). */
  readonly node: string;
  /**
   * spec.providerID of the Node, or of the Cluster API Machine. The caller has checked that
   * the Node it will touch carries this providerID (identity before every write).
   */
  readonly providerID: string;
}

/**
 * One action for a provider to execute on a machine, with the idempotency key and replay flag of
 * the attempt.
 */
export interface ActionRequest extends MachineRef {
  /** What to do to the machine. */
  readonly action: ProviderAction;
  /** Stable id of this attempt: the idempotency key (promise 1). */
  readonly actionId: string;
  /**
   * When the caller persisted the intent (ms since the epoch, the caller's clock). A provider
   * that answers "did this already run?" from the infrastructure's records looks at what
   * happened since then, allowing for clock skew.
   */
  readonly issuedAt: number;
  /** True when re-issued: the intent was persisted, its outcome was not (promise 1). */
  readonly replay: boolean;
  /** For Rebuild: the image to rebuild from. */
  readonly image?: string;
}

/**
 * A provider's answer to an action: Accepted, Rejected (a real failure, counts as an attempt), or
 * Unavailable (no answer; wait and ask again with the same id).
 */
export type ProviderOutcome =
  /** The infrastructure accepted the action (or had already accepted this id). */
  | {
      readonly kind: 'Accepted';
      readonly message: string;
      /** The infrastructure's own reference for the action (e.g. a Nova request id). */
      readonly ref?: string;
    }
  /** An answer about the action itself: this attempt failed and counts as such. */
  | { readonly kind: 'Rejected'; readonly message: string }
  /**
   * The provider could not get an answer (promise 2). No attempt is used; the caller asks
   * again with the same id after `retryAfterMs` (or its own backoff).
   */
  | {
      readonly kind: 'Unavailable';
      readonly message: string;
      /** The request may have reached the infrastructure (promise 3): the next call is a replay. */
      readonly maybeSent: boolean;
      readonly retryAfterMs?: number;
    };

/** What the caller asks about after an action: is the machine fenced now? */
export interface FenceQuery extends MachineRef {
  /** The action whose effect is asked about (its id and when its intent was persisted). */
  readonly actionId: string;
  /** The action whose effect is asked about. */
  readonly action: ProviderAction;
  /**
   * When the caller persisted the intent of the action (ms since the epoch, the caller's clock).
   */
  readonly issuedAt: number;
}

/** How a machine was fenced: powered off, a reset was observed, or the machine was deleted. */
export type FenceHow = 'PoweredOff' | 'ResetObserved' | 'Deleted';

/**
 * A provider's answer to a FenceQuery. Fenced is proof the machine is off or gone (see
 * judgeFence); NotFenced and Unavailable never allow the out-of-service taint or a Node deletion.
 */
export type FenceStatus =
  /** The machine cannot be running the node's old workloads; `evidence` says how we know. */
  | {
      readonly kind: 'Fenced';
      readonly how: FenceHow;
      readonly evidence: string;
      /** When the infrastructure says it happened, if it says. */
      readonly at?: number;
    }
  /** Not fenced (yet): e.g. the reset is still pending, or the action cannot fence. */
  | { readonly kind: 'NotFenced'; readonly reason: string }
  /** Could not ask (promise 2): not fenced as far as the caller may assume. */
  | { readonly kind: 'Unavailable'; readonly reason: string; readonly retryAfterMs?: number };

/** Passed to every provider call: cancelled when the controller stops or loses its lease. */
export interface ProviderContext {
  /**
   * Aborted when the controller stops or loses its Lease; the provider must stop waiting and
   * sending.
   */
  readonly signal: AbortSignal;
}

/**
 * The port to a machine's infrastructure (cloud, BMC, site automation): executes repair actions
 * exactly once per actionId and reports whether a machine is fenced.
 */
export interface MachineProvider {
  /** Short name for events, logs and metrics (e.g. "openstack"). */
  readonly name: string;
  /** The actions this provider can execute; a policy naming another one is refused at start. */
  readonly actions: ReadonlySet<ProviderAction>;
  /**
   * Executes the action once per actionId: a repeated id (replay) must not act again but report
   * what the first call did. An outage is Unavailable, never Rejected. A throw is taken as
   * Unavailable with maybeSent: no attempt is used, and the same actionId is sent again later
   * with replay: true, so the action may already have been carried out: deduplicate by actionId.
   */
  execute(req: ActionRequest, ctx: ProviderContext): Promise<ProviderOutcome>;
  /**
   * Whether the machine is fenced after the action. Answer Fenced only on proof; a provider error
   * is Unavailable. A throw is taken as Unavailable: not fenced, asked again later.
   */
  fence(query: FenceQuery, ctx: ProviderContext): Promise<FenceStatus>;
  /**
   * Optional: asked before the first action of a repair (a machine someone stopped is not
   * powered back on) and, for shutdown.poweredOff: FailAfter, for a node shut down that long.
   * Without it the controller cannot tell a stopped machine from a broken one. A throw is taken
   * as Unavailable: the repair holds (no action sent, no attempt used) and asks again later.
   */
  powerState?(machine: MachineRef, ctx: ProviderContext): Promise<PowerState>;
}
