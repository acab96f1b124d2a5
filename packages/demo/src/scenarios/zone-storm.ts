// A storm: a bad CNI rollout takes 40 % of one zone NotReady at once ("container runtime
// network not ready"). Rebooting them would not help and would make things worse; the storm
// guard's per-zone limit holds every repair in that zone until the storm passes, then the
// nodes recover by themselves, never rebooted.
import { KubeletNotReadyMessages } from '@noderepair/envtest';
import { everSeen, isSettledHealthy, novaReboots, type DemoRecord } from '../record/timeline.js';
import { HEARTBEAT_S, UNHEALTHY_TIMEOUT_S } from '../world/policy.js';
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
      // While the storm lasts each kubelet posts its NotReady status itself, one post after
      // the other (each renews the Lease too), instead of its periodic heartbeat: then nothing
      // is queued in front of the recovery, and the four recover within a moment of each other.
      const storm = nodes.map(async (n) => {
        const k = ctx.kubelet(n);
        k.stopHeartbeats();
        ctx.mark(
          n,
          'StormBegins',
          `bad CNI rollout: ${KubeletNotReadyMessages.runtimeNetworkNotReady}`,
        );
        const until = Date.now() + STORM_MS;
        while (Date.now() < until && !ctx.signal.aborted) {
          await k.setNotReady(KubeletNotReadyMessages.runtimeNetworkNotReady);
          await ctx.sleep(Math.min(HEARTBEAT_S * 1000, Math.max(0, until - Date.now())));
        }
      });
      await Promise.all(storm);
      await Promise.all(
        nodes.map(async (n) => {
          ctx.mark(
            n,
            'StormEnds',
            'the CNI rollout is rolled back: the kubelet reports Ready again',
          );
          const k = ctx.kubelet(n);
          await k.setReady();
          k.resumeHeartbeats();
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
