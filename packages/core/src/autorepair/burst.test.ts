// Burst admission's own bound (burst.ts): members are admitted a bounded number at a time, so
// a burst reuses the connections its fresh reads opened instead of opening one per member; a
// member waiting for its turn is already in the stash, so its own reconcile waits for the batch,
// and one whose turn comes after the term ended is not admitted at all.
import { describe, expect, it } from 'vitest';
import type { RepairDecision } from '../health/decide.js';
import { Burst, type BurstPorts, type Seen } from './burst.js';
import type { KubeNode } from '../kube/types.js';

function members(count: number) {
  const names = Array.from({ length: count }, (_, i) => `n${i}`);
  const decision = { nextState: { phase: 'Remediating' } } as unknown as RepairDecision;
  const admitted = new Map(names.map((n) => [n, decision]));
  const fresh = new Map(
    names.map((n) => [
      n,
      { node: { metadata: { name: n } }, previous: undefined, self: {} } as unknown as Seen & {
        node: KubeNode;
      },
    ]),
  );
  return { admitted, fresh };
}

/** Ports whose every write succeeds at once, but for the ones a test times or counts. */
function ports(over: Pick<BurstPorts, 'takeForStart'> & Partial<BurstPorts>): BurstPorts {
  return {
    policy: { stormGuard: { recheckIntervalMs: 60_000 } },
    store: { encode: () => 'persisted' },
    cachedStored: () => 'persisted',
    now: () => 0,
    log: { info: () => undefined, warn: () => undefined },
    observe: async () => undefined,
    giveBack: async () => undefined,
    persist: async () => undefined,
    announce: async () => undefined,
    wake: () => undefined,
    ...over,
  } as unknown as BurstPorts;
}

describe('Burst.admit', () => {
  it('admits 16 members at a time, each one in the stash before any write', async () => {
    let inFlight = 0;
    let most = 0;
    const burst = new Burst(
      ports({
        takeForStart: async () => {
          inFlight++;
          most = Math.max(most, inFlight);
          await new Promise((r) => setTimeout(r, 2));
          return true;
        },
        persist: async () => {
          await new Promise((r) => setTimeout(r, 2));
          inFlight--;
        },
      }),
    );
    const { admitted, fresh } = members(40);
    const term = new AbortController().signal;
    const batch = burst.admit(admitted, fresh, term);
    // The last member's turn comes long after this: its reconcile already finds it stashed.
    const last = burst.take('n39', term);
    const done = await batch;
    expect(done.size).toBe(40);
    expect(most).toBe(16);
    expect((await last)?.node.metadata?.name).toBe('n39');
  });

  it('admits nobody whose turn comes after the term ended (a lost leader lease)', async () => {
    const started: string[] = [];
    const term = new AbortController();
    const burst = new Burst(
      ports({
        takeForStart: async (seen) => {
          started.push(seen.node.metadata!.name!);
          // The lease is lost once the first 16 are in flight; 24 are still waiting for a turn.
          if (started.length === 16) term.abort(new Error('leader lease lost'));
          await new Promise((r) => setTimeout(r, 2));
          return true;
        },
      }),
    );
    const { admitted, fresh } = members(40);
    await burst.admit(admitted, fresh, term.signal);
    expect(started).toHaveLength(16);
  });
});
