// Node (as the API server returns it) -> NodeSample: the Ready condition, and noderepair's
// own view read back from its repair-state annotation with core's codec. Pure.
import type { V1Node } from '@kubernetes/client-node';
import { parseRepairState } from '@noderepair/core/health';
import type { NodeSample, ReadyStatus } from './timeline.js';

export const ZONE_LABEL = 'topology.kubernetes.io/zone';

export function nodeSample(node: V1Node, stateAnnotation: string, clockZero: number): NodeSample {
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  const status: ReadyStatus =
    ready === undefined
      ? 'None'
      : ready.status === 'True' || ready.status === 'False'
        ? ready.status
        : 'Unknown';
  const parsed = parseRepairState(node.metadata?.annotations?.[stateAnnotation]);
  // A state noderepair cannot read is shown as such; the controller itself starts over.
  const state = parsed._tag === 'Right' ? parsed.right : undefined;
  const rem = state?.remediation;
  const intent = rem?.intent;
  return {
    name: node.metadata?.name ?? '',
    zone: node.metadata?.labels?.[ZONE_LABEL] ?? '',
    ready: status,
    readyMessage: ready?.message ?? '',
    phase: parsed._tag === 'Left' ? 'Unreadable' : (state?.phase ?? 'Healthy'),
    cause: rem?.cause ?? '',
    step: intent?.action ?? '',
    phaseSince: state ? state.since - clockZero : undefined,
    unschedulable: node.spec?.unschedulable === true,
    readySince: ready?.lastTransitionTime
      ? new Date(ready.lastTransitionTime).getTime() - clockZero
      : undefined,
    episodes: state?.episodes.length ?? 0,
  };
}
