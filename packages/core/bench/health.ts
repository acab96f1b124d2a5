// Health state-machine evaluations per second: decideRepair (one node's observation +
// persisted state + policy + now -> decision) over a realistic mix, and decideFleet (the
// level-triggered pass over a whole fleet, storm guard included) over 10,000 nodes.
// The compiled package (dist/, what users run): a TypeScript loader's helpers would slow the
// hot paths measured here.
import {
  decideFleet,
  decideMember,
  decideRepair,
  defaultRepairPolicy,
  type FleetMember,
} from '@noderepair/core/health';
import { buildNode } from '@noderepair/core/testing';

const NOW = Date.parse('2026-06-01T12:00:00Z');

/** 98 % Ready, 1 % NotReady inside the timeout (Suspect), 1 % past it (Unhealthy). */
function fleet(n: number): FleetMember[] {
  return Array.from({ length: n }, (_, i) => {
    const kind = i % 100;
    const name = `node-${i}`;
    const node =
      kind === 0
        ? buildNode({
            name,
            ready: 'runtimeDown',
            since: NOW - 20 * 60_000,
            heartbeat: NOW - 5_000,
          })
        : kind === 1
          ? buildNode({ name, ready: 'unknown', since: NOW - 10_000 })
          : buildNode({ name, ready: 'ready', since: NOW - 86_400_000, heartbeat: NOW - 5_000 });
    return { obs: { nodeName: name, node }, state: undefined };
  });
}

function timeLoop(minMs: number, body: () => number): { evaluations: number; seconds: number } {
  let evaluations = 0;
  const t0 = process.hrtime.bigint();
  let secs = 0;
  do {
    evaluations += body();
    secs = Number(process.hrtime.bigint() - t0) / 1e9;
  } while (secs * 1000 < minMs);
  return { evaluations, seconds: secs };
}

const FLEET_NODES = 10_000;

/** One fleet-pass row; each evaluation is one node of a 10,000-node pass. */
function fleetRow(
  fn: string,
  t: { evaluations: number; seconds: number },
  what: string,
  why = '',
): Record<string, unknown> {
  const nodes = FLEET_NODES;
  return {
    bench: 'health-fleet',
    fn,
    nodes,
    passes: t.evaluations / nodes,
    msPerPass: +((t.seconds * 1000 * nodes) / t.evaluations).toFixed(1),
    evaluationsPerSec: Math.round(t.evaluations / t.seconds),
    note: `${fn} over 10,000 nodes (${what})${why}`,
  };
}

export function benchHealth(): Record<string, unknown>[] {
  const policy = defaultRepairPolicy;
  const members = fleet(FLEET_NODES);
  // Warm-up so the JIT has compiled the hot paths before anything is timed.
  for (const m of members.slice(0, 2_000)) decideRepair(m.obs, m.state, policy, NOW);

  const single = timeLoop(2_000, () => {
    for (const m of members) decideRepair(m.obs, m.state, policy, NOW);
    return members.length;
  });
  const pass = timeLoop(2_000, () => {
    decideFleet(members, policy, NOW);
    return members.length;
  });
  // What the auto-repair reconciler runs for a node about to start a repair: the storm guard
  // over every node, one decision.
  const member = timeLoop(2_000, () => {
    decideMember(members, 0, policy, NOW);
    return members.length;
  });
  return [
    {
      bench: 'health-decide',
      evaluations: single.evaluations,
      seconds: +single.seconds.toFixed(3),
      evaluationsPerSec: Math.round(single.evaluations / single.seconds),
      note: 'decideRepair per node: 98% Ready, 1% Suspect, 1% Unhealthy, default policy',
    },
    fleetRow('decideFleet', pass, 'assess all, storm guard, decide each'),
    fleetRow(
      'decideMember',
      member,
      'assess all, storm guard, decide one',
      ': a reconcile that may start a repair',
    ),
  ];
}
