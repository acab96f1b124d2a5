// Burst admission (fleet-batch.ts) against one-at-a-time admission: for random fleets,
// policies, storm memories and other actors' holds, one batch pass admits what deciding the
// same nodes one by one (withFleet, each with the fleet as the earlier ones left it) admits,
// in any arrival order, with the same decisions. Where they can differ (an admitted node
// that gives up instead of going in flight) the batch may only admit fewer.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { either } from 'fp-ts';
import type { ActorHold } from './actor-hold.js';
import { buildNode, type ReadyText } from './builders.js';
import { decideRepair, type RepairDecision } from './decide.js';
import { startsRemediation } from './decision.js';
import { decideBatch } from './fleet-batch.js';
import { newFleetDecider } from './fleet-decider.js';
import { decideFleet, decideWithFleet, type FleetMember } from './fleet.js';
import { resolveRepairPolicy, type RepairPolicy } from './policy.js';
import type { RepairState } from './state.js';
import type { StormMemory } from './storm-guard.js';

const MIN = 60_000;
const T0 = Date.parse('2026-03-01T00:00:00Z');
const ZONE = 'topology.kubernetes.io/zone';
const kinds: ReadyText[] = ['ready', 'ready', 'ready', 'runtimeDown', 'networkNotReady', 'unknown'];
const before: ReadyText[] = [...Array<ReadyText>(10).fill('ready'), 'runtimeDown', 'unknown'];

const arbPolicy: fc.Arbitrary<RepairPolicy> = fc
  .record({
    maxInFlight: fc.integer({ min: 1, max: 6 }),
    maxUnhealthy: fc.oneof(
      fc.integer({ min: 0, max: 12 }),
      fc.integer({ min: 30, max: 100 }).map((p) => `${p}%`),
    ),
    perDomain: fc.option(fc.integer({ min: 50, max: 100 }).map((p) => `${p}%`)),
    minUnhealthyAllowed: fc.integer({ min: 0, max: 2 }),
    cooldownMin: fc.integer({ min: 1, max: 30 }),
    ladder: fc.subarray(['SoftReboot', 'HardReboot', 'Replace'] as const, { minLength: 1 }),
    attempts: fc.integer({ min: 1, max: 2 }),
  })
  .map((r) => {
    const p = resolveRepairPolicy({
      unhealthyConditions: [
        { type: 'Ready', status: 'False', timeout: 5 * 60 },
        { type: 'Ready', status: 'Unknown', timeout: 5 * 60 },
      ],
      ladder: r.ladder.map((action) => ({ action, attempts: r.attempts, timeout: 10 * 60 })),
      stormGuard: {
        maxInFlight: r.maxInFlight,
        maxUnhealthy: r.maxUnhealthy,
        minUnhealthyAllowed: r.minUnhealthyAllowed,
        cooldown: r.cooldownMin * 60,
        ...(r.perDomain !== null
          ? { failureDomainLabel: ZONE, maxUnhealthyPerDomain: r.perDomain }
          : {}),
      },
    });
    if (either.isLeft(p)) throw new Error(p.left);
    return p.right;
  });

interface NodeSpec {
  zone: string;
  /** Ready kind at each of the two earlier passes and now. */
  before: [ReadyText, ReadyText];
  now: ReadyText;
  sinceMin: number;
  hold: { disrupting: boolean } | null;
}

const arbNode: fc.Arbitrary<NodeSpec> = fc.record({
  zone: fc.constantFrom('a', 'b', 'c'),
  // Mostly Ready before, so that not every slot is taken by earlier repairs.
  before: fc.tuple(fc.constantFrom(...before), fc.constantFrom(...before)),
  now: fc.constantFrom(...kinds),
  sinceMin: fc.integer({ min: 0, max: 60 }),
  // Another actor's hold on one node in six.
  hold: fc.oneof(
    { arbitrary: fc.constant(null), weight: 5 },
    { arbitrary: fc.record({ disrupting: fc.boolean() }), weight: 1 },
  ),
});

const arbFleet = fc.array(arbNode, { minLength: 1, maxLength: 12 });

function member(
  name: string,
  spec: NodeSpec,
  ready: ReadyText,
  at: number,
  state: RepairState | undefined,
): FleetMember {
  // The condition changed `sinceMin` before the pass, or never when the kind is unchanged.
  const node = buildNode({
    name,
    ready,
    since: at - spec.sinceMin * MIN,
    heartbeat: at,
    labels: { [ZONE]: spec.zone },
  });
  const holds: ActorHold[] =
    spec.hold !== null ? [{ actor: 'Kured', detail: 'reboot lock', ...spec.hold }] : [];
  return { obs: { nodeName: name, node, ...(holds.length ? { actorHolds: holds } : {}) }, state };
}

/** Realistic states and memory: two earlier fleet passes (in flight, held for a storm, ...). */
function history(policy: RepairPolicy, specs: NodeSpec[], now: number) {
  const states = new Map<string, RepairState>();
  let memory: StormMemory = { lastTrippedAt: { '': T0 } };
  for (const [i, at] of [now - 20 * MIN, now - 2 * MIN].entries()) {
    const members = specs.map((s, k) => member(`n${k}`, s, s.before[i]!, at, states.get(`n${k}`)));
    const fleet = decideFleet(members, policy, at, memory);
    memory = fleet.storm.memory;
    for (const d of fleet.decisions) if (d.nextState) states.set(d.node, d.nextState);
  }
  return { states, memory };
}

const started = (ds: Map<string, RepairDecision>, states: Map<string, RepairState>) =>
  [...ds].filter(([n, d]) => startsRemediation(d, states.get(n))).map(([n]) => n);

describe('burst admission: one batch pass against one-at-a-time admission', () => {
  it('admits what one-at-a-time admission admits, in any arrival order, with the same decisions (or fewer, never more)', () => {
    let exact = 0;
    let admittedSome = 0;
    fc.assert(
      fc.property(
        arbPolicy,
        arbFleet,
        fc.nat(),
        fc.array(fc.nat(), { minLength: 12, maxLength: 12 }),
        fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
        (policy, specs, selfPick, orderKeys, pick) => {
          const now = T0 + 60 * MIN;
          const { states, memory } = history(policy, specs, now);
          const names = specs.map((_, k) => `n${k}`);
          const fleetNow = (st: Map<string, RepairState>) =>
            specs.map((s, k) => member(`n${k}`, s, s.now, now, st.get(`n${k}`)));
          const self = names[selfPick % names.length]!;
          // The burst: self plus a random subset of the others (the shell picks those whose
          // cached decision would start; any subset must be safe).
          const candidates = new Set(names.filter((n, k) => n !== self && pick[k]));

          const members = fleetNow(states);
          const selfMember = members.find((m) => m.obs.nodeName === self)!;
          const others = members.filter((m) => m.obs.nodeName !== self);
          const batch = decideBatch(selfMember, others, candidates, policy, now, memory);

          // One at a time, in a random arrival order, each decision applied to the fleet.
          const order = [self, ...candidates]
            .map((n, k) => ({ n, key: orderKeys[k] ?? 0 }))
            .sort((a, b) => a.key - b.key || (a.n < b.n ? -1 : 1))
            .map((x) => x.n);
          // What newFleetDecider's withFleet does, from the same memory as the batch.
          const seq = { memory, tripped: false };
          const st = new Map(states);
          const seqDecisions = new Map<string, RepairDecision>();
          for (const n of order) {
            const all = fleetNow(st);
            const me = all.find((m) => m.obs.nodeName === n)!;
            const others = all.filter((m) => m.obs.nodeName !== n);
            const { decision, storm } = decideWithFleet(me, others, policy, now, seq.memory);
            seq.memory = storm.memory;
            seq.tripped = storm.tripped;
            seqDecisions.set(n, decision);
            if (decision.nextState !== undefined) st.set(n, decision.nextState);
          }

          const batchDecisions = new Map(batch.admitted);
          batchDecisions.set(self, batch.self);
          const batchStarts = started(batchDecisions, states).sort();
          if (batch.admitted.size > 0) admittedSome++;
          const seqStarts = started(seqDecisions, states).sort();
          // Never more: every repair the batch starts, one-at-a-time admission starts too,
          // with the very same decision.
          for (const n of batchStarts) expect(batchDecisions.get(n)).toEqual(seqDecisions.get(n));
          expect(seqStarts).toEqual(expect.arrayContaining(batchStarts));
          // Exactly the same, unless an admitted node of the pass did not go in flight.
          const overCounted = members.some((m) => {
            const n = m.obs.nodeName;
            const v = batch.storm.verdicts.get(n);
            if (v?.admitted !== true || (n !== self && !candidates.has(n))) return false;
            return !startsRemediation(
              decideRepair(m.obs, m.state, policy, now, { storm: v }),
              m.state,
            );
          });
          if (!overCounted) {
            expect(batchStarts).toEqual(seqStarts);
            // Self's decision, held or not, is what withFleet gives it.
            expect(batch.self).toEqual(seqDecisions.get(self));
            exact++;
          }
          // The memory and the tripped flag advance as one-at-a-time's last pass left them.
          expect(batch.storm.memory).toEqual(seq.memory);
          expect(batch.storm.tripped).toBe(seq.tripped);
        },
      ),
      { numRuns: 500 },
    );
    // The generator reaches the interesting cases (not a vacuous pass). The seed is random,
    // so the floor sits far below what it reaches: over 100 seeds, a batch admitted others
    // in 35-67 of the 500 runs (mean 52, sd 6.3); a floor of 40 failed CI at 35. 15 is ~6 sd
    // below the mean and still fails a generator that stopped producing bursts.
    expect(exact).toBeGreaterThan(100);
    expect(admittedSome).toBeGreaterThan(15);
  });

  it('the decider advances its memory and tripped flag once per batch, as withFleet does', () => {
    fc.assert(
      fc.property(arbPolicy, arbFleet, (policy, specs) => {
        const now = T0 + 60 * MIN;
        const members = specs.map((s, k) => member(`n${k}`, s, s.now, now, undefined));
        const [self, ...others] = members;
        const a = newFleetDecider(policy, T0);
        const b = newFleetDecider(policy, T0);
        const batch = a.withFleetBatch(
          self!,
          others,
          new Set(others.map((m) => m.obs.nodeName)),
          now,
        );
        const one = b.withFleet(self!, others, now);
        expect(batch.self).toEqual(one.decision);
        expect(a.memory).toEqual(b.memory);
        expect(a.tripped).toBe(b.tripped);
      }),
      { numRuns: 100 },
    );
  });
});
