// A node flaps: short NotReady episodes (PLEG not healthy for 2 s, then Ready for 3 s), each
// far shorter than the unhealthy timeout, so a timeout alone would never fire. noderepair
// remembers every episode's start in its annotation and, at the third within the window,
// repairs at once.
import { KubeletNotReadyMessages } from '@noderepair/envtest';
import { actionsOf, novaReboots, type DemoRecord } from '../record/timeline.js';
import { UNHEALTHY_TIMEOUT_S } from '../world/policy.js';
import { lastState, rebootList, repairedAndHealthy, seconds } from './checks.js';
import { verdict, type Scenario } from './scenario.js';

export const FLAP_DOWN_MS = 2000;
export const FLAP_UP_MS = 3000;

/** NotReady (Ready=False) segments of the node that began before `until`. */
export function notReadyEpisodes(
  rec: DemoRecord,
  node: string,
  until: number,
): { from: number; to: number }[] {
  const out: { from: number; to: number }[] = [];
  for (const s of rec.nodes.get(node)?.segments ?? []) {
    if (s.from >= until) break;
    const down = s.ready === 'False';
    const last = out[out.length - 1];
    // Consecutive segments that differ only in noderepair's phase are one episode.
    if (down && last && last.to === s.from) last.to = s.to ?? rec.now;
    else if (down) out.push({ from: s.from, to: s.to ?? rec.now });
  }
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
      for (let i = 1; i <= 8 && !repaired() && !ctx.signal.aborted; i++) {
        ctx.mark(node, 'FlapDown', `episode ${i}: ${KubeletNotReadyMessages.plegUnhealthy}`);
        await k.setNotReady(KubeletNotReadyMessages.plegUnhealthy);
        await ctx.sleep(FLAP_DOWN_MS);
        if (repaired()) break;
        await k.setReady();
        await ctx.sleep(FLAP_UP_MS);
      }
    },
    settled: (rec) => repairedAndHealthy(rec, node),
    verify(rec: DemoRecord) {
      const started = actionsOf(rec, node, 'RepairStarted', 'noderepair')[0];
      const until = started?.t ?? rec.now;
      const episodes = notReadyEpisodes(rec, node, until);
      const current = episodes[episodes.length - 1];
      const earlier = episodes.slice(0, -1);
      const timeout = UNHEALTHY_TIMEOUT_S * 1000;
      return verdict([
        [
          started !== undefined && /flapping/.test(started.note),
          `repair started for flapping ("${started?.note ?? 'no RepairStarted'}")`,
        ],
        [
          episodes.length >= 3,
          `at least 3 NotReady episodes before the repair (saw ${episodes.length})`,
        ],
        [
          earlier.every((e) => e.to - e.from < timeout),
          `every earlier episode shorter than the ${UNHEALTHY_TIMEOUT_S}s timeout (${earlier.map((e) => seconds(e.to - e.from)).join(', ') || 'none'})`,
        ],
        [
          current !== undefined && started !== undefined && started.t - current.from < timeout,
          `caught ${current && started ? seconds(started.t - current.from) : '?'} into the last episode, before its timeout`,
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
