// A storm: a bad CNI rollout takes 40 % of one zone NotReady at once ("container runtime
// network not ready"). Rebooting them would not help and would make things worse; the storm
// guard's per-zone limit holds every repair in that zone until the storm passes, then the
// nodes recover by themselves, never rebooted.
import { KubeletNotReadyMessages } from '@noderepair/envtest';
import { everSeen, isSettledHealthy, novaReboots, type DemoRecord } from '../record/timeline.js';
import { UNHEALTHY_TIMEOUT_S } from '../world/policy.js';
import { lastState, noderepairEvents } from './checks.js';
import { verdict, type Scenario } from './scenario.js';

/** How long the storm lasts: well past the unhealthy timeout, so the guard has to hold. */
export const STORM_MS = (UNHEALTHY_TIMEOUT_S + 15) * 1000;

export function zoneStorm(
  zone: string,
  nodes: readonly string[],
  zoneSize: number,
  startAt = 0,
): Scenario {
  return {
    id: 'zone-storm',
    title: `storm: ${nodes.length} of ${zoneSize} nodes in ${zone}`,
    expectation: `${Math.round((100 * nodes.length) / zoneSize)}% of ${zone} NotReady at once -> storm guard holds every repair -> they recover unrebooted`,
    nodes,
    startAt,
    async play(ctx) {
      await Promise.all(
        nodes.map((n) => {
          ctx.mark(
            n,
            'StormBegins',
            `bad CNI rollout: ${KubeletNotReadyMessages.runtimeNetworkNotReady}`,
          );
          return ctx.kubelet(n).setNotReady(KubeletNotReadyMessages.runtimeNetworkNotReady);
        }),
      );
      await ctx.sleep(STORM_MS);
      await Promise.all(
        nodes.map((n) => {
          ctx.mark(
            n,
            'StormEnds',
            'the CNI rollout is rolled back: the kubelet reports Ready again',
          );
          return ctx.kubelet(n).setReady();
        }),
      );
    },
    settled: (rec) =>
      nodes.every((n) => isSettledHealthy(rec, n) && everSeen(rec, n, (s) => s.ready === 'False')),
    verify(rec: DemoRecord) {
      const held = nodes.filter((n) => noderepairEvents(rec, n, 'StormGuardHeld') > 0);
      const rebooted = nodes.filter((n) => novaReboots(rec, n).length > 0);
      const started = nodes.filter((n) => noderepairEvents(rec, n, 'RepairStarted') > 0);
      return verdict([
        [
          nodes.every((n) => everSeen(rec, n, (s) => s.ready === 'False')),
          `all ${nodes.length} went Ready=False together`,
        ],
        [
          held.length === nodes.length,
          `the storm guard held each of them (${held.length} of ${nodes.length} got StormGuardHeld)`,
        ],
        [
          nodes.every((n) => everSeen(rec, n, (s) => s.phase === 'Unhealthy')),
          'each was judged unhealthy (timeout passed) and still not repaired',
        ],
        [
          rebooted.length === 0 && started.length === 0,
          `nobody in the zone was rebooted (rebooted: ${rebooted.join(', ') || 'none'})`,
        ],
        [
          nodes.every((n) => isSettledHealthy(rec, n)),
          `all recovered on their own (${nodes.map((n) => `${n}: ${lastState(rec, n)}`).join('; ')})`,
        ],
      ]);
    },
  };
}
