// The demo's cast: three zones of ten nodes, six failures placed so that only the storm
// zone trips the per-zone guard (zone-a and zone-b never have more than 3 of 10 unhealthy,
// the limit), staggered a few seconds apart so the live view stays readable.
import { nodeName } from '../world/names.js';
import { bystanders } from './bystanders.js';
import { flapping } from './flapping.js';
import { kubeletStops } from './kubelet-stops.js';
import { neverReturns } from './never-returns.js';
import { runtimeDown } from './runtime-down.js';
import type { Scenario } from './scenario.js';
import { shuttingDown } from './shutting-down.js';
import { zoneStorm } from './zone-storm.js';

export { verdict, sleep, type Scenario, type ScenarioContext, type Verdict } from './scenario.js';

export const ZONES = ['zone-a', 'zone-b', 'zone-c'] as const;
export const NODES_PER_ZONE = 10;

export function demoScenarios(): Scenario[] {
  const n = (zone: string, i: number) => nodeName(zone, i);
  const cast: Scenario[] = [
    kubeletStops(n('zone-a', 3), 0),
    neverReturns(n('zone-b', 7), 0),
    flapping(n('zone-b', 2), 2_000),
    runtimeDown(n('zone-a', 6), 4_000),
    shuttingDown(n('zone-a', 9), 6_000),
    zoneStorm(
      'zone-c',
      [2, 4, 6, 8].map((i) => n('zone-c', i)),
      NODES_PER_ZONE,
      8_000,
    ),
  ];
  const busy = new Set(cast.flatMap((s) => s.nodes));
  const rest = ZONES.flatMap((z) =>
    Array.from({ length: NODES_PER_ZONE }, (_, i) => n(z, i + 1)),
  ).filter((x) => !busy.has(x));
  return [...cast, bystanders(rest)];
}
