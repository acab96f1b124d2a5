// The container runtime goes down: the kubelet keeps posting, with Ready=False and its own
// message "container runtime is down". noderepair classifies it ContainerRuntimeDown and
// reboots; the runtime starts with the fresh boot.
import { KubeletNotReadyMessages } from '@noderepair/envtest';
import { everSeen, novaReboots, type DemoRecord } from '../record/timeline.js';
import { lastState, rebootList, repairedAndHealthy } from './checks.js';
import { verdict, type Scenario } from './scenario.js';

export function runtimeDown(node: string, startAt = 0): Scenario {
  return {
    id: 'runtime-down',
    title: 'container runtime down',
    expectation: 'Ready=False "container runtime is down" -> cordon, drain -> soft reboot -> Ready',
    nodes: [node],
    startAt,
    async play(ctx) {
      ctx.mark(
        node,
        'RuntimeDown',
        `the kubelet reports Ready=False: ${KubeletNotReadyMessages.containerRuntimeDown}`,
      );
      await ctx.kubelet(node).setNotReady(KubeletNotReadyMessages.containerRuntimeDown);
    },
    settled: (rec) => repairedAndHealthy(rec, node),
    verify(rec: DemoRecord) {
      const tl = rec.nodes.get(node);
      return verdict([
        [
          everSeen(rec, node, (s) => s.ready === 'False') &&
            (tl?.messages ?? []).includes(KubeletNotReadyMessages.containerRuntimeDown),
          `Ready=False with the kubelet's message "${KubeletNotReadyMessages.containerRuntimeDown}"`,
        ],
        [
          (tl?.causes ?? []).includes('ContainerRuntimeDown'),
          `classified ContainerRuntimeDown (saw: ${(tl?.causes ?? []).join(', ') || 'none'})`,
        ],
        [
          !everSeen(rec, node, (s) => s.ready === 'Unknown'),
          'never Unknown: the kubelet kept posting',
        ],
        [
          novaReboots(rec, node).length === 1,
          `exactly one reboot through Nova (saw: ${rebootList(rec, node)})`,
        ],
        [
          repairedAndHealthy(rec, node),
          `repair succeeded, node Ready and uncordoned (now ${lastState(rec, node)})`,
        ],
      ]);
    },
  };
}
