// A node never comes back (dead disk, broken hardware): the kubelet stops, and no reboot
// brings it back. noderepair climbs its ladder — soft reboot, hard reboot — and, when the
// last reboot step times out, asks for a replacement: the machine is deleted and a new Node
// joins the same zone (in a Cluster API cluster the MachineSet does that; here a stand-in).
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
      'Ready=Unknown -> soft reboot -> hard reboot -> ladder exhausted -> Replace -> a new node joins',
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
      const replaceIntent = actionsOf(rec, node, 'RemediationSucceeded', 'noderepair').some((a) =>
        /Replace/.test(a.note),
      );
      return verdict([
        [everSeen(rec, node, (s) => s.ready === 'Unknown'), 'Ready=Unknown'],
        [
          kinds.length === 2 && kinds[0] === 'SoftReboot' && kinds[1] === 'HardReboot',
          `soft reboot, then hard reboot through Nova (saw: ${rebootList(rec, node)})`,
        ],
        [
          replaceIntent && actionsOf(rec, node, 'Replaced', 'machine').length > 0,
          'ladder exhausted: noderepair asked for Replace and the machine was replaced',
        ],
        [
          rec.nodes.get(node)?.last?.ready === 'Gone',
          `the broken Node was deleted (now ${lastState(rec, node)})`,
        ],
        [
          next !== undefined && isSettledHealthy(rec, next),
          `replacement ${next ?? '(none)'} joined and is Ready (${next ? lastState(rec, next) : 'never seen'})`,
        ],
      ]);
    },
  };
}
