// A node shutting down (a planned maintenance reboot: the kubelet's graceful node shutdown
// reports Ready=False "node is shutting down"), longer than the unhealthy timeout. noderepair
// waits for it — a node that is shutting down is never rebooted — and it comes back by itself.
import { KubeletNotReadyMessages } from '@noderepair/envtest';
import { everSeen, isSettledHealthy, novaReboots, type DemoRecord } from '../record/timeline.js';
import { UNHEALTHY_TIMEOUT_S } from '../world/policy.js';
import { lastState, noderepairEvents, rebootList } from './checks.js';
import { verdict, type Scenario } from './scenario.js';

export const SHUTDOWN_MS = (UNHEALTHY_TIMEOUT_S + 7) * 1000;

export function shuttingDown(node: string, startAt = 0): Scenario {
  let back = false;
  return {
    id: 'shutting-down',
    title: 'node shutting down',
    expectation: `Ready=False "node is shutting down" for ${SHUTDOWN_MS / 1000}s (> ${UNHEALTHY_TIMEOUT_S}s timeout) -> waited for, not rebooted`,
    nodes: [node],
    startAt,
    async play(ctx) {
      ctx.mark(node, 'ShuttingDown', `planned reboot: ${KubeletNotReadyMessages.shuttingDown}`);
      await ctx.kubelet(node).setNotReady(KubeletNotReadyMessages.shuttingDown);
      await ctx.sleep(SHUTDOWN_MS);
      ctx.mark(node, 'BootsBack', 'the node finished its own reboot');
      await ctx.kubelet(node).reboot(1500);
      back = true;
    },
    settled: (rec) => back && isSettledHealthy(rec, node),
    verify(rec: DemoRecord) {
      return verdict([
        [
          everSeen(rec, node, (s) => s.ready === 'False'),
          `Ready=False "${KubeletNotReadyMessages.shuttingDown}"`,
        ],
        [everSeen(rec, node, (s) => s.phase === 'Waiting'), 'noderepair waited (phase Waiting)'],
        [
          novaReboots(rec, node).length === 0 && noderepairEvents(rec, node, 'RepairStarted') === 0,
          `no repair, no reboot by noderepair (Nova reboots: ${rebootList(rec, node)})`,
        ],
        [noderepairEvents(rec, node, 'Cordoned') === 0, 'never cordoned'],
        [isSettledHealthy(rec, node), `back Ready by itself (now ${lastState(rec, node)})`],
      ]);
    },
  };
}
