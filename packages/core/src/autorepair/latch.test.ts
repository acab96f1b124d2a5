import { describe, expect, it } from 'vitest';
import { formatLatch, latchLeaseName, parseLatch } from './latch.js';
import { latchLine, latchRefOf } from '../cli/status.js';
import { runCli } from '../cli/noderepair.js';
import { resetLatchCommand } from '../cli/reset-latch.js';
import type { KubeClient } from '../kube/client.js';
import { NotFoundError } from '../kube/errors.js';

describe('the latch record (noderepair.io/latched)', () => {
  it('round-trips since and reason', () => {
    const v = formatLatch(Date.parse('2026-12-07T10:00:00Z'), 'held too long');
    expect(JSON.parse(v)).toEqual({
      since: expect.stringMatching(/^2026-12-07T10:00:00(\.000)?Z$/),
      reason: 'held too long',
    });
    expect(parseLatch(v)).toEqual({
      kind: 'latched',
      since: Date.parse('2026-12-07T10:00:00Z'),
      reason: 'held too long',
    });
  });

  it('absent is not set; anything else that does not parse holds (unreadable), never released', () => {
    expect(parseLatch(undefined)).toBeUndefined();
    for (const bad of [
      '',
      'yes',
      '{"since":"soon","reason":"x"}',
      '{"since":"2026-12-07T10:00:00Z"}',
    ])
      expect(parseLatch(bad)).toMatchObject({ kind: 'unreadable' });
  });

  it('lives beside the leader-election Lease, where `noderepair run` with the same flags keeps it', () => {
    expect(latchLeaseName('noderepair-autorepair')).toBe('noderepair-autorepair-latch');
    expect(latchRefOf({}, { POD_NAMESPACE: 'noderepair-system' })).toEqual({
      namespace: 'noderepair-system',
      name: 'noderepair-autorepair-latch',
    });
    expect(latchRefOf({ leaderElectionNamespace: 'ops', leaderElectionId: 'nr' }, {})).toEqual({
      namespace: 'ops',
      name: 'nr-latch',
    });
  });

  it('noderepair status says it is set, and how to reset it', () => {
    expect(latchLine(undefined)).toBeUndefined();
    expect(latchLine({ kind: 'latched', since: 0, reason: 'held' })).toMatch(
      /latch SET since 1970-01-01T00:00:00.*noderepair reset-latch/,
    );
    expect(latchLine({ kind: 'unreadable', problem: 'forbidden' })).toMatch(/cannot be read/);
  });

  it('noderepair reset-latch: unknown flags are usage errors naming the flag', async () => {
    const err: string[] = [];
    const io = {
      stdout: () => undefined,
      stderr: (l: string) => err.push(l),
      readFile: async () => '',
    };
    expect(await runCli(['reset-latch', '--leader-election-nmespace', 'x'], io)).toBe(2);
    expect(err.join('\n')).toMatch(/leader-election-nmespace/);
    const out: string[] = [];
    expect(
      await runCli(['reset-latch', '--help'], { ...io, stdout: (l: string) => out.push(l) }),
    ).toBe(0);
    expect(out.join('\n')).toMatch(/noderepair\.io\/latched/);
  });

  it('noderepair reset-latch: no latch Lease names the Lease it checked and exits 2, not "not set"', async () => {
    const asked: string[] = [];
    const client = {
      get: async (_rt: unknown, name: string, opts?: { namespace?: string }) => {
        asked.push(`${opts?.namespace}/${name}`);
        throw new NotFoundError({ kind: 'Status', code: 404, reason: 'NotFound' });
      },
    } as unknown as KubeClient;
    const out: string[] = [];
    const err: string[] = [];
    const io = {
      stdout: (l: string) => out.push(l),
      stderr: (l: string) => err.push(l),
      env: {},
      client: async () => client,
    };
    // From a workstation: no $POD_NAMESPACE, no flag, so kube-system.
    expect(await resetLatchCommand([], io)).toBe(2);
    expect(asked).toEqual(['kube-system/noderepair-autorepair-latch']);
    expect(out.join('\n')).not.toMatch(/not set/);
    expect(err.join('\n')).toMatch(/no Lease kube-system\/noderepair-autorepair-latch/);
    expect(err.join('\n')).toMatch(/--leader-election-namespace/);
  });
});
