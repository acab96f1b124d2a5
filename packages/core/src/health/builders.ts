// Small builders for NodeSnapshots with the kubelet's and node lifecycle controller's real
// strings. Used by our tests and the simulator; handy for users' tests too.
import type { NodeConditionSnapshot, NodeSnapshot, TaintSnapshot } from './node.js';
import { iso } from './time.js';

/** Ready condition texts as Kubernetes writes them. */
export const readyTexts = {
  ready: { status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' },
  runtimeDown: { status: 'False', reason: 'KubeletNotReady', message: 'container runtime is down' },
  networkNotReady: {
    status: 'False',
    reason: 'KubeletNotReady',
    message:
      'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized',
  },
  plegUnhealthy: {
    status: 'False',
    reason: 'KubeletNotReady',
    message: 'PLEG is not healthy: pleg was last seen active 3m10s ago; threshold is 3m0s',
  },
  shuttingDown: { status: 'False', reason: 'KubeletNotReady', message: 'node is shutting down' },
  capacityMissing: {
    status: 'False',
    reason: 'KubeletNotReady',
    message: 'missing node capacity for resources: ephemeral-storage',
  },
  unknown: {
    status: 'Unknown',
    reason: 'NodeStatusUnknown',
    message: 'Kubelet stopped posting node status.',
  },
  neverUpdated: {
    status: 'Unknown',
    reason: 'NodeStatusNeverUpdated',
    message: 'Kubelet never posted node status.',
  },
} as const;

/** A name of a Ready condition text in readyTexts. */
export type ReadyText = keyof typeof readyTexts;

/** What buildNode makes a Node from; times are epoch ms. */
export interface NodeBuilderInput {
  /** The Node's name. */
  name: string;
  /** The Ready condition's texts; absent: no Ready condition (a node that has not started). */
  ready?: ReadyText | undefined;
  /** lastTransitionTime of Ready (epoch ms). */
  since?: number;
  /** lastHeartbeatTime of Ready (epoch ms); default `since`. */
  heartbeat?: number;
  /** creationTimestamp (epoch ms); default 0. */
  created?: number;
  /** Labels; default none. */
  labels?: Record<string, string>;
  /** Annotations; default none. */
  annotations?: Record<string, string>;
  /** Cordoned; default false. */
  unschedulable?: boolean;
  /** Taints; default none. */
  taints?: TaintSnapshot[];
  /** Conditions after Ready. */
  extraConditions?: NodeConditionSnapshot[];
  /** status.nodeInfo.bootID (changes when the machine restarts). */
  bootID?: string;
}

/** A NodeSnapshot with the kubelet's real condition texts, for tests and the simulator. */
export function buildNode(i: NodeBuilderInput): NodeSnapshot {
  const since = i.since ?? 0;
  const conditions = [
    ...(i.ready !== undefined
      ? [
          {
            type: 'Ready',
            ...readyTexts[i.ready],
            lastTransitionTime: iso(since),
            lastHeartbeatTime: iso(i.heartbeat ?? since),
          },
        ]
      : []),
    ...(i.extraConditions ?? []),
  ];
  return {
    metadata: {
      name: i.name,
      creationTimestamp: iso(i.created ?? 0),
      labels: i.labels ?? {},
      annotations: i.annotations ?? {},
    },
    spec: { unschedulable: i.unschedulable ?? false, taints: i.taints ?? [] },
    status: {
      conditions,
      capacity: { cpu: '4', memory: '8Gi', pods: '110', 'ephemeral-storage': '50Gi' },
      ...(i.bootID !== undefined ? { nodeInfo: { bootID: i.bootID } } : {}),
    },
  };
}
