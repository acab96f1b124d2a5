import { describe, expect, it } from 'vitest';
import { either } from 'fp-ts';
import { buildNode } from '../health/builders.js';
import { iso } from '../health/time.js';
import { evaluateTarget } from './judge.js';
import {
  applyFlapMemoryExtension,
  escalationStepExtension,
  type MhcFlapMemory,
} from './extensions.js';
import { decodeMachineHealthCheck, type MhcPolicy } from './spec.js';
import type { MhcCluster, MhcTarget } from './target.js';

const MIN = 60_000;
const T0 = Date.parse('2026-02-01T00:00:00Z');
const cluster: MhcCluster = {
  conditions: [
    { type: 'InfrastructureReady', status: 'True' },
    { type: 'ControlPlaneInitialized', status: 'True' },
  ],
};
const p = decodeMachineHealthCheck({
  apiVersion: 'cluster.x-k8s.io/v1beta2',
  spec: {
    clusterName: 'c',
    selector: { matchLabels: { pool: 'workers' } },
    checks: {
      unhealthyNodeConditions: [{ type: 'Ready', status: 'Unknown', timeoutSeconds: 300 }],
    },
  },
});
const policy = (p as either.Right<MhcPolicy>).right;
const t = (readySince: number, ready: 'ready' | 'unknown'): MhcTarget => ({
  machine: {
    metadata: { name: 'm', creationTimestamp: iso(T0) },
    status: { nodeRef: { name: 'm' } },
  },
  node: buildNode({ name: 'm', ready, since: readySince }),
  nodeMissing: false,
});

describe('noderepair extensions to MHC', () => {
  it('flap memory: short episodes that CAPI forgets add up to unhealthy', () => {
    const ext = { episodes: 3, windowMs: 60 * MIN };
    let memory: MhcFlapMemory = { episodes: [] };
    const verdicts: boolean[] = [];
    for (let i = 0; i < 3; i++) {
      const since = T0 + i * 10 * MIN;
      // Each 4 min episode is followed by a Ready look before the next one starts.
      const target = t(since, 'unknown');
      const now = since + 4 * MIN; // 4 min Unknown each time: never past CAPI's 5 min
      const capi = evaluateTarget(target, policy, cluster, now);
      expect(capi.needsRemediation).toBe(false);
      const r = applyFlapMemoryExtension(capi, target, policy, memory, ext, now);
      verdicts.push(r.evaluation.needsRemediation);
      const healthy = t(now + MIN, 'ready');
      memory = applyFlapMemoryExtension(
        evaluateTarget(healthy, policy, cluster, now + 2 * MIN),
        healthy,
        policy,
        r.memory,
        ext,
        now + 2 * MIN,
      ).memory;
    }
    expect(verdicts).toEqual([false, false, true]);
    expect(memory.episodes).toHaveLength(3);
    expect(memory.unhealthySince).toBeUndefined();
  });

  it('flap memory never fires while the node is currently healthy, and forgets old episodes', () => {
    const target = t(T0, 'ready');
    const now = T0 + 30 * MIN;
    const r = applyFlapMemoryExtension(
      evaluateTarget(target, policy, cluster, now),
      target,
      policy,
      { episodes: [now - 5 * MIN, now - 4 * MIN, now - 3 * MIN, now - 2 * 60 * MIN] },
      { episodes: 3, windowMs: 60 * MIN },
      now,
    );
    expect(r.evaluation.needsRemediation).toBe(false);
    expect(r.memory.episodes).toHaveLength(3);
  });

  it('flap memory: one continuous outage whose status flips Unknown -> False -> Unknown is one episode', () => {
    const both = decodeMachineHealthCheck({
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      spec: {
        clusterName: 'c',
        selector: { matchLabels: { pool: 'workers' } },
        checks: {
          unhealthyNodeConditions: [
            { type: 'Ready', status: 'Unknown', timeoutSeconds: 300 },
            { type: 'Ready', status: 'False', timeoutSeconds: 300 },
          ],
        },
      },
    });
    const pol = (both as either.Right<MhcPolicy>).right;
    const ext = { episodes: 3, windowMs: 60 * MIN };
    let memory: MhcFlapMemory = { episodes: [] };
    const flips: ['unknown' | 'runtimeDown', number][] = [
      ['unknown', T0],
      ['runtimeDown', T0 + 2 * MIN],
      ['unknown', T0 + 4 * MIN],
    ];
    let last = false;
    for (const [ready, since] of flips) {
      const target: MhcTarget = {
        ...t(since, 'unknown'),
        node: buildNode({ name: 'm', ready, since }),
      };
      const now = since + MIN;
      const r = applyFlapMemoryExtension(
        evaluateTarget(target, pol, cluster, now),
        target,
        pol,
        memory,
        ext,
        now,
      );
      memory = r.memory;
      last = r.flapping;
    }
    // Before the fix each new lastTransitionTime was an episode: three, and "flapping" at once.
    expect(memory.episodes).toEqual([T0]);
    expect(memory.unhealthySince).toBe(T0);
    expect(last).toBe(false);
  });

  it('escalation: repeated remediations within the window climb the ladder and never skip back', () => {
    const ext = { ladder: ['soft-reboot', 'hard-reboot', 'replace'], escalateWithinMs: 60 * MIN };
    expect(escalationStepExtension([], ext, T0)).toEqual({ step: 0, kind: 'soft-reboot' });
    expect(escalationStepExtension([T0 - 10 * MIN], ext, T0)).toEqual({
      step: 1,
      kind: 'hard-reboot',
    });
    expect(escalationStepExtension([T0 - 50 * MIN, T0 - 10 * MIN], ext, T0)).toEqual({
      step: 2,
      kind: 'replace',
    });
    expect(escalationStepExtension([T0 - 90 * MIN, T0 - 50 * MIN, T0 - 10 * MIN], ext, T0)).toEqual(
      { step: 2, kind: 'replace' },
    );
    expect(escalationStepExtension([T0 - 3 * 60 * MIN], ext, T0)).toEqual({
      step: 0,
      kind: 'soft-reboot',
    });
  });
});
