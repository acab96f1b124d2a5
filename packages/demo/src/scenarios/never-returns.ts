// A node never comes back (dead disk, broken hardware): the kubelet stops, and no reboot
// brings it back. noderepair climbs its ladder — soft reboot, hard reboot — and, when the
// last reboot step times out, Replace (the policy opts in): noderepair deletes the Nova server
// and, once Nova no longer has it (fenced), the Node. The node group's owner (Cluster
// Autoscaler, Heat, a script; here the demo's stand-in) sees the server gone and brings
// capacity back: a new Node joins the same zone.
import {
  actionsOf,
  everSeen,
  isSettledHealthy,
  novaReboots,
  type DemoRecord,
} from '../record/timeline.js';
import { lastState, rebootList, successorOf } from './checks.js';
import { verdict, type Scenario } from './scenario.js';

export function neverReturns(node: string, startAt = 0): Scenario {
  const replaced = (rec: DemoRecord) => {
    const next = successorOf(rec, node);
    return (
      next !== undefined &&
      isSettledHealthy(rec, next) &&
      rec.nodes.get(node)?.last?.ready === 'Gone'
    );
  };
  return {
    id: 'never-returns',
    title: 'node never returns',
    expectation:
      'Ready=Unknown -> soft reboot -> hard reboot -> Replace: server and Node deleted -> the node group owner adds a new node',
    nodes: [node],
    startAt,
    async play(ctx) {
      ctx.breakMachine(node);
      ctx.mark(
        node,
        'MachineDead',
        'the kubelet stops and the machine will never boot into a working kubelet again',
      );
      ctx.kubelet(node).stopHeartbeats();
    },
    settled: replaced,
    verify(rec: DemoRecord) {
      const kinds = novaReboots(rec, node).map((a) => a.kind);
      const next = successorOf(rec, node);
      const replaceIntent = actionsOf(rec, node, 'ActionAccepted', 'noderepair').some((a) =>
        /Replace/.test(a.note),
      );
      const replaced = actionsOf(rec, node, 'Replaced', 'machine').length;
      return verdict([
        [everSeen(rec, node, (s) => s.ready === 'Unknown'), 'Ready=Unknown'],
        [
          kinds.length === 2 && kinds[0] === 'SoftReboot' && kinds[1] === 'HardReboot',
          `soft reboot, then hard reboot through Nova (saw: ${rebootList(rec, node)})`,
        ],
        [
          replaceIntent && replaced === 1,
          `ladder exhausted: Nova accepted noderepair's Replace and the server was gone once (gone ${replaced} time(s))`,
        ],
        [
          rec.nodes.get(node)?.last?.ready === 'Gone',
          `noderepair deleted the broken Node (now ${lastState(rec, node)})`,
        ],
        [
          next !== undefined && isSettledHealthy(rec, next),
          `the node group stand-in's replacement ${next ?? '(none)'} joined and is Ready (${next ? lastState(rec, next) : 'never seen'})`,
        ],
      ]);
    },
  };
}
