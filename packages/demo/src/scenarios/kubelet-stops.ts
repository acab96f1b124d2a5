// A kubelet stops (hung, crashed, cut off): no more Lease renewals or status. The node
// lifecycle controller marks the node Ready=Unknown; noderepair cordons, drains (unreachable:
// out-of-service taint), soft-reboots the server through Nova; the kubelet comes back.
import { everSeen, novaReboots, type DemoRecord } from '../record/timeline.js';
import { lastState, noderepairEvents, rebootList, repairedAndHealthy } from './checks.js';
import { verdict, type Scenario } from './scenario.js';

export function kubeletStops(node: string, startAt = 0): Scenario {
  return {
    id: 'kubelet-stops',
    title: 'kubelet stops',
    expectation: 'Ready=Unknown -> cordon, drain -> soft reboot (Nova) -> Ready -> uncordon',
    nodes: [node],
    startAt,
    async play(ctx) {
      ctx.mark(node, 'KubeletStopped', 'the kubelet stops posting status and renewing its Lease');
      ctx.kubelet(node).stopHeartbeats();
    },
    settled: (rec) => repairedAndHealthy(rec, node),
    verify(rec: DemoRecord) {
      const reboots = novaReboots(rec, node);
      return verdict([
        [
          everSeen(rec, node, (s) => s.ready === 'Unknown'),
          'the node lifecycle controller marked it Ready=Unknown',
        ],
        [noderepairEvents(rec, node, 'Cordoned') > 0, 'noderepair cordoned it'],
        [
          noderepairEvents(rec, node, 'Drained') + noderepairEvents(rec, node, 'DrainIncomplete') >
            0,
          'noderepair drained it',
        ],
        [
          reboots.length === 1 && reboots[0]?.kind === 'SoftReboot',
          `exactly one soft reboot through Nova (saw: ${rebootList(rec, node)})`,
        ],
        [
          repairedAndHealthy(rec, node),
          `repair succeeded, node Ready and uncordoned (now ${lastState(rec, node)})`,
        ],
      ]);
    },
  };
}
