import { Registry } from 'prom-client';
import { either } from 'fp-ts';
import { describe, expect, it } from 'vitest';
import type { RepairDecision } from '../health/decide.js';
import { resolveRepairPolicy } from '../health/policy.js';
import type { KubeClient, KubePatch } from '../kube/client.js';
import { silentLogger } from '../runtime/logger.js';
import { Coordinator } from './coordinator.js';
import { AutoRepairMetrics } from './metrics.js';

describe('Coordinator', () => {
  it('patches NodeRepairHeld with the uid of the Node it read as a precondition', async () => {
    const p = resolveRepairPolicy({});
    if (either.isLeft(p)) throw new Error(p.left);
    const patches: { name: string; patch: KubePatch; subresource?: string | undefined }[] = [];
    // TEST DOUBLE: records patches; the lease calls are not reached (the decision holds).
    const client = {
      patch: async (_rt: unknown, name: string, patch: KubePatch, o?: { subresource?: string }) => {
        patches.push({ name, patch, subresource: o?.subresource });
        return {};
      },
    } as unknown as KubeClient;
    const c = new Coordinator({
      client,
      policy: p.right,
      metrics: new AutoRepairMetrics(new Registry()),
      log: silentLogger,
      now: () => Date.parse('2026-12-05T12:00:00Z'),
      recordEvent: async () => undefined,
    });
    const held = {
      node: 'n1',
      at: 0,
      cause: { kind: 'Unknown', message: '' },
      signal: 'unhealthy',
      previousPhase: 'Unhealthy',
      phase: 'Unhealthy',
      nextState: undefined,
      actions: [],
      reason: 'held',
      held: {
        admitted: false,
        scope: 'in-flight',
        reason: 'r',
        hold: { kind: 'in-flight', inFlight: 2, maxInFlight: 2 },
      },
    } as unknown as RepairDecision;
    await c.afterDecision(
      'n1',
      { metadata: { name: 'n1', uid: 'uid-1' }, spec: {}, status: {} },
      held,
      undefined,
      new AbortController().signal,
    );
    expect(patches).toHaveLength(1);
    expect(patches[0]).toMatchObject({
      name: 'n1',
      subresource: 'status',
      patch: {
        type: 'strategic',
        body: {
          metadata: { uid: 'uid-1' },
          status: {
            conditions: [{ type: 'NodeRepairHeld', status: 'True', reason: 'MaxInFlight' }],
          },
        },
      },
    });
  });
});
