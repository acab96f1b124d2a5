// A hold another actor puts on a node: what actors.ts judges, what the storm guard and the
// observation carry. Apart from actors.ts so that node.ts and storm-guard.ts can name the
// type without importing the judges (which import node.ts).
import type { ActorKind } from './coordination-policy.js';

/**
 * An actor the policy lists, Unreadable (a mark we were not allowed to read), or ControlPlane
 * (a control-plane node the policy leaves alone, or one that waits for the rest of the control
 * plane: control-plane.ts).
 */
export type HoldActor = ActorKind | 'Unreadable' | 'ControlPlane';

/**
 * Another actor's hold on a node: do not start a repair now, look again later (never a failed
 * attempt).
 */
export interface ActorHold {
  /** Who holds the node. */
  actor: HoldActor;
  /** Who and what, for Events and `noderepair status` (never a secret: these are object names). */
  detail: string;
  /** Epoch ms when the hold lapses on its own (an expiring lock or lease); absent: until removed. */
  until?: number;
  /**
   * The actor is taking the node out right now (a reboot lock, a maintenance, a drain): the
   * storm guard counts it as in flight, so maxInFlight caps our repairs and theirs together.
   * False for a node that is only marked (a rollout taint on a schedulable node, a cordon).
   */
  disrupting: boolean;
}
