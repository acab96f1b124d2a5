// What the operator publishes: one line per watched Node with the phase of its repair (from
// core's state store) and the cause core's health rules see right now. Pure.
import type { NodeView } from '@noderepair/core/autorepair';
import { classifyNode, type RepairState } from '@noderepair/core/health';

export interface NodeStatus {
  phase: RepairState['phase'];
  cause: string;
  /** The ladder step of a running remediation (0 = the first). */
  step?: number;
}

export type ReadState = (
  node: NodeView,
) => { _tag: 'Left'; left: string } | { _tag: 'Right'; right: RepairState | undefined };

/** ConfigMap data: `summary` plus one key per Node (Node names are valid ConfigMap keys). */
export function statusData(
  nodes: readonly NodeView[],
  read: ReadState,
  now: number,
): Record<string, string> {
  const data: Record<string, string> = {};
  const phases = new Map<string, number>();
  for (const node of [...nodes].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))) {
    const state = read(node);
    const current = state._tag === 'Right' ? state.right : undefined;
    const cause = classifyNode({ nodeName: node.metadata.name, node }, now, {
      staleHeartbeatTimeoutMs: 0,
    });
    const line: NodeStatus = { phase: current?.phase ?? 'Healthy', cause: cause.kind };
    if (current?.remediation) line.step = current.remediation.step;
    data[node.metadata.name] = JSON.stringify(line);
    phases.set(line.phase, (phases.get(line.phase) ?? 0) + 1);
  }
  const counts = [...phases].sort(([a], [b]) => a.localeCompare(b)).map(([p, n]) => `${n} ${p}`);
  data['summary'] = `${nodes.length} node(s)${counts.length ? `: ${counts.join(', ')}` : ''}`;
  return data;
}
