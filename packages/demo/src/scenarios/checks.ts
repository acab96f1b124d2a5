// Checks shared by the scenarios' verdicts, each a pure question about the record.
import { actionsOf, isSettledHealthy, novaReboots, type DemoRecord } from '../record/timeline.js';

export function noderepairEvents(rec: DemoRecord, node: string, reason: string): number {
  return actionsOf(rec, node, reason, 'noderepair').length;
}

/** Reboots Nova accepted for the node, as "SoftReboot, HardReboot". */
export function rebootList(rec: DemoRecord, node: string): string {
  return (
    novaReboots(rec, node)
      .map((a) => a.kind)
      .join(', ') || 'none'
  );
}

/** A repair ended: noderepair said RepairSucceeded and the node is Ready, Healthy, schedulable. */
export function repairedAndHealthy(rec: DemoRecord, node: string): boolean {
  return noderepairEvents(rec, node, 'RepairSucceeded') > 0 && isSettledHealthy(rec, node);
}

export function lastState(rec: DemoRecord, node: string): string {
  const s = rec.nodes.get(node)?.last;
  return s ? `Ready=${s.ready}, ${s.phase}${s.unschedulable ? ', cordoned' : ''}` : 'never seen';
}

/** The node that replaced `node` (the stand-in names it <node>-r<N>), if any. */
export function successorOf(rec: DemoRecord, node: string): string | undefined {
  return [...rec.nodes.keys()].find((n) => n.startsWith(`${node}-r`));
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}
