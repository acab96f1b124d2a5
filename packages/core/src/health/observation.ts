// A Node parsed once, at the boundary of the judgement. The snapshot a reconcile reads is
// structural and loose (times as Date, RFC 3339 text or numbers; conditions in a list);
// every rule used to look its condition up again and parse its timestamp again. Parsing it
// once here ("parse, don't validate") gives the rules plain values: conditions by type,
// times as epoch milliseconds, the fields the repair keeps (cordon, bootID, providerID).
import type { ActorHold } from './actor-hold.js';
import type { PowerState } from './machine.js';
import {
  NodeReady,
  TaintCloudShutdown,
  type HealthObservation,
  type NodeConditionSnapshot,
} from './node.js';
import { toMillis, type TimeInput } from './time.js';

/** One node condition with its times parsed to epoch milliseconds. */
export interface ConditionObservation {
  readonly type: string;
  readonly status: string;
  readonly reason: string | undefined;
  readonly message: string | undefined;
  /** lastTransitionTime; undefined when absent or unparseable. */
  readonly transitionAt: number | undefined;
  /** lastHeartbeatTime; undefined when absent or unparseable. */
  readonly heartbeatAt: number | undefined;
}

/** One taint of the node, its timeAdded parsed. */
export interface TaintObservation {
  readonly key: string;
  readonly value: string | undefined;
  readonly effect: string;
  readonly addedAt: number | undefined;
}

/** What the judgement reads about one node, parsed once per decision (observeNode). */
export interface NodeObservation {
  readonly nodeName: string;
  /** The Node object is gone, or being deleted: there is nothing left to repair. */
  readonly deleted: boolean;
  readonly createdAt: number | undefined;
  /** Conditions by type (the first of a type, as a lookup by type always found). */
  readonly conditions: ReadonlyMap<string, ConditionObservation>;
  /** The Ready condition; undefined when the kubelet has not posted one. */
  readonly ready: ConditionObservation | undefined;
  /** Latest sign of life from the kubelet: Ready's heartbeat or the Lease renewal, the newer. */
  readonly lastHeartbeatAt: number | undefined;
  /** spec.unschedulable: someone (we, or another actor) cordoned the node. */
  readonly cordoned: boolean;
  readonly taints: readonly TaintObservation[];
  readonly annotations: ReadonlyMap<string, string>;
  /** status.nodeInfo.bootID, when non-empty: changes when the machine restarts (fencing). */
  readonly bootId: string | undefined;
  /** spec.providerID, when non-empty: the machine's identity. */
  readonly providerID: string | undefined;
  /** The provider's power state, when the caller asked for it (HealthObservation.power). */
  readonly power: PowerState | undefined;
  /**
   * Whether the caller can ask the provider for the power state (HealthObservation.canAskPower);
   * undefined when the caller does not say (`noderepair status`, the simulator).
   */
  readonly canAskPower: boolean | undefined;
  /** Other actors' holds, when the caller read them (HealthObservation.actorHolds). */
  readonly actorHolds: readonly ActorHold[] | undefined;
}

/** Parses an absent time without entering the parser (most optional times are absent). */
function millis(value: TimeInput | undefined): number | undefined {
  return value === undefined ? undefined : toMillis(value);
}

function observeCondition(c: NodeConditionSnapshot): ConditionObservation {
  return {
    type: c.type,
    status: c.status,
    reason: c.reason,
    message: c.message,
    transitionAt: millis(c.lastTransitionTime),
    heartbeatAt: millis(c.lastHeartbeatTime),
  };
}

function newer(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.max(a, b);
}

/**
 * Parses what one reconcile saw about a node into a NodeObservation: every timestamp once,
 * every condition once. Pure; the clock is not read (no rule here depends on `now`).
 */
export function observeNode(input: HealthObservation): NodeObservation {
  const node = input.node;
  const conditions = new Map<string, ConditionObservation>();
  for (const c of node?.status?.conditions ?? []) {
    if (!conditions.has(c.type)) conditions.set(c.type, observeCondition(c));
  }
  const ready = conditions.get(NodeReady);
  const bootId = node?.status?.nodeInfo?.bootID;
  const providerID = node?.spec?.providerID;
  return {
    nodeName: input.nodeName,
    deleted: node === undefined || millis(node.metadata?.deletionTimestamp) !== undefined,
    createdAt: millis(node?.metadata?.creationTimestamp),
    conditions,
    ready,
    lastHeartbeatAt: newer(ready?.heartbeatAt, millis(input.leaseRenewTime)),
    cordoned: node?.spec?.unschedulable === true,
    taints: (node?.spec?.taints ?? []).map((t) => ({
      key: t.key,
      value: t.value,
      effect: t.effect,
      addedAt: millis(t.timeAdded),
    })),
    annotations: new Map(Object.entries(node?.metadata?.annotations ?? {})),
    bootId: bootId !== undefined && bootId !== '' ? bootId : undefined,
    providerID: providerID !== undefined && providerID !== '' ? providerID : undefined,
    power: input.power,
    canAskPower: input.canAskPower,
    actorHolds: input.actorHolds,
  };
}

/**
 * Why the node counts as shut down on purpose although its kubelet announced nothing: the
 * cloud-controller-manager marks its instance shut down (TaintCloudShutdown), or the provider
 * says its machine is off because somebody asked for a stop (PowerState Off with byRequest;
 * a stop this controller sent is not byRequest). Undefined when neither: a machine that is
 * off without a recorded request crashed (or its guest powered itself off), and is repaired.
 */
export function unannouncedShutdown(obs: NodeObservation): string | undefined {
  if (obs.taints.some((t) => t.key === TaintCloudShutdown))
    return `the cloud provider marks its instance shut down (taint ${TaintCloudShutdown})`;
  const p = obs.power;
  if (p?.kind === 'Off' && p.byRequest) return `its machine was stopped on request (${p.evidence})`;
  return undefined;
}
