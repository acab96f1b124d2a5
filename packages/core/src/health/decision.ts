// What one decision of the repair state machine says: the next state to persist, the actions
// for the shell to execute (each with its reason), and when to look again. Plain data: the
// shell persists `nextState` before it acts, so a restart never loses an intent.
import type { Assessment } from './assess.js';
import type { Cause } from './cause.js';
import type { RemediationStepKind } from './policy.js';
import type { DeleteNodeAction } from './replace.js';
import type { RepairPhase, RepairState } from './state.js';
import type { StormPause, StormVerdict } from './storm-guard.js';

/** What every action carries: why, and whether the shell only reports it (dry run). */
interface ActionBase {
  reason: string;
  /** From the policy: the shell reports the action but changes nothing in the cluster. */
  dryRun: boolean;
}

/** One thing the shell does for a decision, in order (cordon, drain, remediate, fence, ...). */
export type RepairAction =
  | (ActionBase & { type: 'Cordon' })
  | (ActionBase & {
      /**
       * One drain pass (the shell never waits in it): evict what may go now, then either
       * report the drain over (recordDrain) and go on to the next action, or stop and look
       * again shortly. The drain is a phase: `startedAt` is persisted, the timeout counts
       * from it.
       */
      type: 'Drain';
      /** The remediation the drain belongs to (recordDrain ignores a stale report). */
      remediationId: string;
      startedAt: number;
      /**
       * The drain starts in this reconcile: the power state asked before the repair's first
       * action is fresh. Otherwise a drain that ends in this pass was running while a person
       * could stop the machine, and the shell asks again before an action that can power it
       * on goes out in the same pass (power-before-action.ts sendsAfterDrain).
       */
      firstPass: boolean;
      /** When an earlier pass last had an eviction accepted. */
      lastEvictedAt?: number;
      unreachable: boolean;
      timeoutMs: number;
      outOfServiceAfterMs: number;
    })
  | (ActionBase & {
      type: 'Remediate';
      action: RemediationStepKind;
      /** For Rebuild: the image to rebuild from. */
      image?: string;
      /** Stable id; a provider receiving an id it already executed must not act again. */
      actionId: string;
      /** When the intent was persisted (the provider looks at what happened since). */
      issuedAt: number;
      step: number;
      attempt: number;
      /** True when re-issuing an intent found without completion (e.g. after a restart). */
      replay: boolean;
      /** How many times this intent was re-issued so far (paces the wait for a provider outage). */
      replays?: number;
    })
  | (ActionBase & {
      /**
       * The action was accepted, the node is still not Ready: ask whether the machine is
       * fenced and, only if it is and pods remain on the node, add the out-of-service taint
       * so the pod GC and the attach-detach controller can free stateful pods. Never for a
       * SoftReboot (provider/fence.ts).
       */
      type: 'Fence';
      action: RemediationStepKind;
      actionId: string;
      issuedAt: number;
      /** The Node's bootID when the intent was persisted. */
      bootIdBefore?: string;
      /** The Node's providerID when the intent was persisted (identity before the taint). */
      providerID?: string;
    })
  | (ActionBase & {
      type: 'Uncordon';
      /** Remove node.kubernetes.io/out-of-service: only when this repair added it. */
      removeOutOfServiceTaint: boolean;
      /** Leave spec.unschedulable alone: someone else cordoned the node. */
      keepCordon?: boolean;
    })
  /** After an accepted Replace: once the machine is fenced, delete the Node (replace.ts). */
  | DeleteNodeAction
  | (ActionBase & { type: 'GiveUp' })
  | (ActionBase & { type: 'Forget' });

/** One decision about one node: the next state, the actions, the reason and when to look again. */
export interface RepairDecision {
  /** The Node's name. */
  node: string;
  /** The decision's `now` (epoch ms): the time every deadline in it was measured against. */
  at: number;
  /** What the node's conditions say is wrong (kind `Healthy` when nothing is). */
  cause: Cause;
  /** The verdict after the policy's timeouts: healthy, suspect, unhealthy, waiting, paused or gone. */
  signal: Assessment['signal'];
  /** The phase of the persisted state the decision started from. */
  previousPhase: RepairPhase;
  /** The phase after the decision: `nextState`'s, or `previousPhase` when the Node is gone. */
  phase: RepairPhase;
  /** undefined when the Node is gone (there is nothing left to annotate). */
  nextState: RepairState | undefined;
  /** What the shell does, in order, after persisting `nextState`; empty: nothing to do but wait. */
  actions: RepairAction[];
  /**
   * Decide again after this many milliseconds (whole, at least 1): when a timeout or settle
   * period runs out. Absent: only the next change of the node brings a new decision.
   */
  requeueAfterMs?: number;
  /** Why, in words: the note of the decision's events, and the simulator's output. */
  reason: string;
  /** The node wants a repair but is held: by which brake and why (storm guard, another actor). */
  held?: Extract<StormVerdict, { admitted: false }>;
  /**
   * The node is unhealthy only by `unhealthyConditions` entries whose action is NoAction:
   * reported (phase Unhealthy, an Event), never repaired. Why, in words.
   */
  reportOnly?: string;
}

/** What the caller knows beyond the node: the fleet's storm-guard verdict. */
export interface DecideContext {
  /** The storm guard's verdict for this node; absent means admitted (single-node use). */
  storm?: StormVerdict;
  /**
   * The node's repair is in flight and its fleet or failure domain is over the storm limit:
   * its attempt waits instead of timing out and escalating (follow-repair.ts).
   */
  stormPause?: StormPause;
}

/**
 * True when `d` starts a new remediation on a node whose state was `prev`: a new remediation
 * id, not a retry, escalation or replay of the one in flight. The storm guard's batch pass
 * and the shell's events and disruption lease all ask this one question.
 */
export function startsRemediation(d: RepairDecision, prev: RepairState | undefined): boolean {
  const id = d.nextState?.remediation?.id;
  return d.phase === 'Remediating' && id !== undefined && id !== prev?.remediation?.id;
}
