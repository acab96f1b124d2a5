// Why a node looks broken, read from what the API shows. The strings are the kubelet's and
// the node lifecycle controller's own (pkg/kubelet/nodestatus, pkg/controller/nodelifecycle):
// the kubelet joins several errors into one Ready=False message, so we match substrings.
import type { HealthObservation } from './node.js';
import { observeNode, type NodeObservation } from './observation.js';

/** What a node's conditions say is wrong, before any timeout (classifyNode). */
export type CauseKind =
  | 'Healthy'
  | 'NodeDeleted'
  | 'NotStarted'
  | 'KubeletUnreachable'
  | 'StaleHeartbeat'
  | 'ContainerRuntimeDown'
  | 'RuntimeNetworkNotReady'
  | 'PLEGUnhealthy'
  | 'ShuttingDown'
  /** Shut down on purpose and still down after the policy's shutdown.failAfter (shutdown.ts). */
  | 'ShutDownTooLong'
  | 'CapacityMissing'
  | 'ConditionUnhealthy'
  | 'Other';

/** What is wrong with a node, in a kind and the condition's own words. */
export interface Cause {
  /** The kind of signal. */
  kind: CauseKind;
  /** The condition's own message (or ours when there is none). */
  message: string;
}

/** Kubelet Ready=False message fragments, most specific first. Order decides ties. */
const readyFalseFragments: ReadonlyArray<readonly [RegExp, CauseKind]> = [
  // nodeshutdown manager: ShutdownStatus() error, also surfaced by the kubelet as reason NodeShutdown.
  [/node is shutting down/i, 'ShuttingDown'],
  // runtimeState.runtimeErrors(): "container runtime is down", "container runtime not ready: RuntimeReady=false ..."
  // and "container runtime status check may not have completed yet".
  [
    /container runtime is down|container runtime not ready|container runtime status check/i,
    'ContainerRuntimeDown',
  ],
  // runtimeState.networkErrors(): "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady ..."
  [
    /container runtime network not ready|network plugin is not ready|NetworkPluginNotReady/i,
    'RuntimeNetworkNotReady',
  ],
  // PLEG health check: "PLEG is not healthy: pleg was last seen active 3m0s ago; threshold is 3m0s"
  [/PLEG is not healthy/i, 'PLEGUnhealthy'],
  // "missing node capacity for resources: cpu, memory" (older kubelets capitalise "Missing").
  [/missing node capacity for resources/i, 'CapacityMissing'],
];

/** Reason strings the node lifecycle controller writes when it takes over the Ready condition. */
export const ReasonNodeStatusUnknown = 'NodeStatusUnknown'; // "Kubelet stopped posting node status."
/** The Ready reason of a node whose kubelet never posted status (classified NotStarted). */
export const ReasonNodeStatusNeverUpdated = 'NodeStatusNeverUpdated'; // "Kubelet never posted node status."

/** Options of classifyNode. */
export interface ClassifyOptions {
  /** 0 disables. Ready=True whose newest heartbeat is older than this is StaleHeartbeat. */
  staleHeartbeatTimeoutMs: number;
}

/**
 * Classifies the node's current signal. This says *what* is wrong, not whether it has been
 * wrong long enough to act: timeouts are the state machine's job.
 */
export function classifyNode(obs: HealthObservation, now: number, opts: ClassifyOptions): Cause {
  return classifyObserved(observeNode(obs), now, opts);
}

/** classifyNode on a node already parsed (observation.ts): what decideRepair calls. */
export function classifyObserved(obs: NodeObservation, now: number, opts: ClassifyOptions): Cause {
  if (obs.deleted) {
    return { kind: 'NodeDeleted', message: `Node ${obs.nodeName} has been deleted` };
  }
  const ready = obs.ready;
  if (ready === undefined || ready.reason === ReasonNodeStatusNeverUpdated) {
    return {
      kind: 'NotStarted',
      message: ready?.message ?? 'the kubelet has not posted a Ready condition yet',
    };
  }
  if (ready.status === 'Unknown') {
    return { kind: 'KubeletUnreachable', message: ready.message ?? 'Ready is Unknown' };
  }
  if (ready.status === 'False') {
    const text = `${ready.reason ?? ''} ${ready.message ?? ''}`;
    if (ready.reason === 'NodeShutdown')
      return { kind: 'ShuttingDown', message: ready.message ?? 'node is shutting down' };
    for (const [re, kind] of readyFalseFragments) {
      if (re.test(text)) return { kind, message: ready.message ?? kind };
    }
    return {
      kind: 'Other',
      message: ready.message ?? `Ready is False (${ready.reason ?? 'no reason'})`,
    };
  }
  if (opts.staleHeartbeatTimeoutMs > 0) {
    const beat = obs.lastHeartbeatAt;
    if (beat !== undefined && now - beat > opts.staleHeartbeatTimeoutMs) {
      return {
        kind: 'StaleHeartbeat',
        message: `no kubelet heartbeat for ${Math.round((now - beat) / 1000)}s although Ready is True`,
      };
    }
  }
  return { kind: 'Healthy', message: ready.message ?? 'Ready' };
}
