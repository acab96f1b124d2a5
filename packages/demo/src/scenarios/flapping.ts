// A node flaps: short NotReady episodes (PLEG not healthy for 3 s, then Ready for 3 s), each
// far shorter than the unhealthy timeout, so a timeout alone would never fire. noderepair
// remembers every episode's start in its annotation and, at the third within the window,
// repairs at once.
import { KubeletNotReadyMessages } from '@noderepair/envtest';
import { actionsOf, novaReboots, type DemoRecord } from '../record/timeline.js';
import { UNHEALTHY_TIMEOUT_S } from '../world/policy.js';
import { lastState, rebootList, repairedAndHealthy, seconds } from './checks.js';
import { verdict, type Scenario } from './scenario.js';

export const FLAP_DOWN_MS = 3000;
export const FLAP_UP_MS = 3000;

/**
 * NotReady (Ready=False) episodes that ended before `until`, dated by the API server's
 * lastTransitionTime (what noderepair reads), not by when the demo happened to look.
 */
export function notReadyEpisodes(
  rec: DemoRecord,
  node: string,
  until: number,
): { from: number; to: number }[] {
  const out: { from: number; to: number }[] = [];
  const trs = rec.nodes.get(node)?.transitions ?? [];
  trs.forEach((tr, i) => {
    const next = trs[i + 1];
    // Two False transitions in a row: the Ready moment between them was not seen, so the
    // end of that episode is unknown and it is not measured (noderepair's count is checked).
    if (tr.ready === 'False' && next !== undefined && next.ready !== 'False' && next.t <= until)
      out.push({ from: tr.t, to: next.t });
  });
  return out;
}

export function flapping(node: string, startAt = 0): Scenario {
  return {
    id: 'flapping',
    title: 'node flaps',
    expectation: `NotReady ${FLAP_DOWN_MS / 1000}s / Ready ${FLAP_UP_MS / 1000}s, episodes shorter than the ${UNHEALTHY_TIMEOUT_S}s timeout -> caught at the 3rd -> reboot`,
    nodes: [node],
    startAt,
    async play(ctx) {
      const k = ctx.kubelet(node);
      const repaired = () => ctx.powerCycles(node) > 0 || ctx.rebooting(node);
      // The flapping kubelet posts status only when it flips (each post renews the Lease
      // too): a periodic heartbeat queued between two flips would stretch an episode on a
      // slow API server. A reboot restarts the regular heartbeats.
      k.stopHeartbeats();
      try {
        for (let i = 1; i <= 10 && !repaired() && !ctx.signal.aborted; i++) {
          ctx.mark(node, 'FlapDown', `episode ${i}: ${KubeletNotReadyMessages.plegUnhealthy}`);
          await k.setNotReady(KubeletNotReadyMessages.plegUnhealthy);
          await ctx.sleep(FLAP_DOWN_MS);
          if (repaired()) break;
          await k.setReady();
          await ctx.sleep(FLAP_UP_MS);
        }
      } finally {
        if (!repaired()) k.resumeHeartbeats();
      }
    },
    settled: (rec) => repairedAndHealthy(rec, node),
    verify(rec: DemoRecord) {
      const started = actionsOf(rec, node, 'RepairStarted', 'noderepair')[0];
      const episodes = notReadyEpisodes(rec, node, started?.t ?? rec.now);
      const counted = rec.nodes.get(node)?.maxEpisodes ?? 0;
      const lengths = episodes.map((e) => seconds(e.to - e.from)).join(', ') || 'none seen whole';
      return verdict([
        // Timeouts are checked before flapping, so "flapping" in the first repair's reason
        // means no episode had lasted the timeout when noderepair decided. (The lengths below
        // are for the reader: lastTransitionTime has whole seconds, and on a loaded machine a
        // status post can land seconds late, so they are not a check of their own.)
        [
          started !== undefined && /flapping/.test(started.note),
          `repair started for flapping, not for a timeout ("${started?.note ?? 'no RepairStarted'}")`,
        ],
        [
          counted >= 3,
          `noderepair counted at least 3 NotReady episodes (counted ${counted}; lengths as the API server dated them: ${lengths}; timeout ${UNHEALTHY_TIMEOUT_S}s)`,
        ],
        [
          novaReboots(rec, node).length >= 1,
          `rebooted through Nova (saw: ${rebootList(rec, node)})`,
        ],
        [
          repairedAndHealthy(rec, node),
          `repair succeeded, node Ready and uncordoned (now ${lastState(rec, node)})`,
        ],
      ]);
    },
  };
}
