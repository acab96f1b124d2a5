// The status report: one node in each phase and each hold reason, with the counts and times
// an operator needs. States are made by the decider itself (decideFleet) and carried on the
// Node as the annotation the controller writes, so the report reads what a cluster shows.
import { describe, expect, it } from 'vitest';
import { either } from 'fp-ts';
import { buildNode, type NodeBuilderInput } from './builders.js';
import { recordOutcome } from './decide.js';
import { decideFleet } from './fleet.js';
import type { NodeSnapshot } from './node.js';
import { resolveRepairPolicy, type RepairPolicy } from './policy.js';
import { serializeRepairState, type RepairState } from './state.js';
import { holdMessage, statusReport, type NodeStatus } from './status.js';

const S = 1000;
const ZONE = 'topology.kubernetes.io/zone';
const STATE = 'noderepair.io/repair-state';
const NOW = 1_000 * S;

function policy(stormGuard: Record<string, unknown> = {}): RepairPolicy {
  const p = resolveRepairPolicy({
    unhealthyConditions: [{ type: 'Ready', status: 'False', timeout: '10s' }],
    ladder: [
      { action: 'SoftReboot', timeout: '5m' },
      { action: 'HardReboot', timeout: '10m', attempts: 2 },
    ],
    stormGuard: { maxUnhealthy: '100%', maxInFlight: 5, cooldown: '60s', ...stormGuard },
  });
  if (either.isLeft(p)) throw new Error(p.left);
  return p.right;
}

/** A node NotReady (network) since 100 s before NOW, or Ready; heartbeats are current. */
function node(name: string, down: boolean, extra: Partial<NodeBuilderInput> = {}): NodeSnapshot {
  return buildNode({
    name,
    ready: down ? 'networkNotReady' : 'ready',
    since: NOW - 100 * S,
    heartbeat: NOW - S,
    ...extra,
  });
}

function withState(n: NodeSnapshot, state: RepairState): NodeSnapshot {
  return {
    ...n,
    metadata: {
      ...n.metadata,
      annotations: { ...n.metadata?.annotations, [STATE]: serializeRepairState(state) },
    },
  };
}

/** The state the controller writes when it started repairing `n` at `at` and the provider accepted. */
function started(n: NodeSnapshot, p: RepairPolicy, at: number): RepairState {
  const name = n.metadata?.name ?? '';
  const d = decideFleet([{ obs: { nodeName: name, node: n }, state: undefined }], p, at);
  const s = d.decisions[0]?.nextState;
  const id = s?.remediation?.intent?.actionId;
  if (s?.phase !== 'Remediating' || id === undefined) throw new Error(`expected a start`);
  return recordOutcome(s, { actionId: id, result: 'Succeeded', at: at + S });
}

function byName(nodes: NodeStatus[], name: string): NodeStatus {
  const s = nodes.find((n) => n.name === name);
  if (s === undefined) throw new Error(`no status for ${name}`);
  return s;
}

describe('statusReport', () => {
  it('a healthy node has no hold and no next time; an admitted one acts now', () => {
    const r = statusReport([node('ok', false), node('bad', true)], policy(), NOW);
    expect(byName(r.nodes, 'ok')).toMatchObject({ phase: 'Healthy', cause: 'Healthy' });
    expect(byName(r.nodes, 'ok').hold).toBeUndefined();
    expect(byName(r.nodes, 'ok').nextAt).toBeUndefined();
    const bad = byName(r.nodes, 'bad');
    expect(bad).toMatchObject({
      phase: 'Remediating',
      cause: 'RuntimeNetworkNotReady',
      actsNow: true,
      nextAt: NOW,
      step: { index: 1, of: 2, action: 'SoftReboot', attempt: 1, attempts: 1 },
    });
    expect(bad.hold).toBeUndefined();
  });

  // Issue 42: a control-plane node's ladder has no Replace; its step counts say so.
  it("a control-plane node's step counts its ladder without Replace", () => {
    const p = resolveRepairPolicy({
      unhealthyConditions: [{ type: 'Ready', status: 'False', timeout: '10s' }],
      ladder: [{ action: 'HardReboot', timeout: '10m' }, { action: 'Replace' }],
      stormGuard: { maxUnhealthy: '100%', maxInFlight: 5 },
      controlPlane: { repair: true },
    });
    if (either.isLeft(p)) throw new Error(p.left);
    const cp = { labels: { 'node-role.kubernetes.io/control-plane': '' } };
    const r = statusReport([node('cp', true, cp), node('w', true)], p.right, NOW);
    expect(byName(r.nodes, 'cp').step).toMatchObject({ index: 1, of: 1, action: 'HardReboot' });
    expect(byName(r.nodes, 'w').step).toMatchObject({ index: 1, of: 2, action: 'HardReboot' });
  });

  it('a node in a fleet storm is held with the counts', () => {
    const p = policy({ maxUnhealthy: 1 });
    const r = statusReport([node('a', true), node('b', true), node('c', false)], p, NOW);
    for (const n of ['a', 'b']) {
      const s = byName(r.nodes, n);
      expect(s.phase).toBe('Unhealthy');
      expect(s.actsNow).toBe(false);
      expect(s.nextAt).toBe(NOW + p.stormGuard.recheckIntervalMs);
      expect(s.hold).toEqual({
        kind: 'storm',
        scope: 'fleet',
        unhealthy: 2,
        total: 3,
        limit: 1,
        message: 'storm guard: 2 of 3 nodes unhealthy (limit 1)',
      });
    }
    expect(r.storm).toEqual({ total: 3, unhealthy: 2, inFlight: 0, limit: 1, tripped: true });
  });

  it('a node in a failure-domain storm is held with its domain and counts', () => {
    const p = policy({ failureDomainLabel: ZONE, maxUnhealthyPerDomain: 1 });
    const zone = (z: string) => ({ labels: { [ZONE]: z } });
    const r = statusReport(
      [node('a1', true, zone('a')), node('a2', true, zone('a')), node('b1', true, zone('b'))],
      p,
      NOW,
    );
    expect(byName(r.nodes, 'a1').hold).toMatchObject({
      kind: 'storm',
      scope: 'failure-domain',
      unhealthy: 2,
      total: 2,
      limit: 1,
      domain: `${ZONE}=a`,
      message: `storm guard: 2 of 2 nodes unhealthy in ${ZONE}=a (limit 1)`,
    });
    // The other zone is under its limit: its node is repaired.
    expect(byName(r.nodes, 'b1')).toMatchObject({ phase: 'Remediating', actsNow: true });
  });

  it('a node held for a storm that lifted waits the cooldown until the time it says', () => {
    const p = policy();
    const held: RepairState = {
      v: 1,
      phase: 'Unhealthy',
      since: NOW - 50 * S,
      episodes: [],
      heldByStormSince: NOW - 50 * S,
    };
    const n = withState(node('h', true), held);
    // The controller's memory: the storm was last seen 10 s ago.
    const known = statusReport([n], p, NOW, { memory: { lastTrippedAt: { '': NOW - 10 * S } } });
    expect(byName(known.nodes, 'h').hold).toEqual({
      kind: 'cooldown',
      scope: 'fleet',
      until: NOW + 50 * S,
      message: `storm guard cooldown until ${new Date(NOW + 50 * S).toISOString()}`,
    });
    // Without it (the CLI), the latest it can end: a full cooldown from now.
    const cli = statusReport([n], p, NOW);
    expect(byName(cli.nodes, 'h').hold).toMatchObject({ kind: 'cooldown', until: NOW + 60 * S });
    expect(byName(cli.nodes, 'h').recordedPhase).toBe('Unhealthy');
  });

  it('maxInFlight holds a node behind one in repair, which shows its step and next look', () => {
    const p = policy({ maxInFlight: 1 });
    const first = node('first', true);
    const inRepair = withState(first, started(first, p, NOW - 30 * S));
    const r = statusReport([inRepair, node('second', true)], p, NOW);
    expect(byName(r.nodes, 'second').hold).toEqual({
      kind: 'in-flight',
      scope: 'in-flight',
      inFlight: 1,
      maxInFlight: 1,
      message: 'maxInFlight: 1 repairs in flight (max 1)',
    });
    const f = byName(r.nodes, 'first');
    expect(f.hold).toBeUndefined();
    expect(f.phase).toBe('Verifying');
    expect(f.recordedPhase).toBe('Verifying');
    expect(f.step).toEqual({ index: 1, of: 2, action: 'SoftReboot', attempt: 1, attempts: 1 });
    // It looks again at the step's deadline (5 min after the outcome) at the latest.
    expect(f.actsNow).toBe(false);
    expect(f.nextAt).toBeGreaterThan(NOW);
    expect(f.nextAt).toBeLessThanOrEqual(NOW - 29 * S + 5 * 60 * S);
    expect(r.storm.inFlight).toBe(1);
  });

  it('a paused node (Cluster API annotation) is held and names the annotation', () => {
    const r = statusReport(
      [node('p', true, { annotations: { 'cluster.x-k8s.io/skip-remediation': '' } })],
      policy(),
      NOW,
    );
    const s = byName(r.nodes, 'p');
    expect(s.hold?.kind).toBe('paused');
    expect(s.hold?.message).toContain('cluster.x-k8s.io/skip-remediation');
    expect(s.actsNow).toBe(false);
  });

  it('a node that gave up is held until recovery or the trigger annotation', () => {
    const p = policy();
    const failed: RepairState = {
      v: 1,
      phase: 'Failed',
      since: NOW - 60 * S,
      episodes: [],
      lastRemediation: { id: 'f/1', endedAt: NOW - 60 * S, step: 1, result: 'Failed' },
    };
    const s = byName(statusReport([withState(node('f', true), failed)], p, NOW).nodes, 'f');
    expect(s.phase).toBe('Failed');
    expect(s.hold).toEqual({
      kind: 'failed',
      trigger: p.annotations.trigger,
      message: `gave up (ladder used up); waits for recovery or the ${p.annotations.trigger} annotation`,
    });
    expect(s.nextAt).toBeUndefined();
    expect(s.lastRemediation).toEqual({
      id: 'f/1',
      endedAt: NOW - 60 * S,
      step: 1,
      result: 'Failed',
    });
  });

  it('a node shutting down is held (waited for, never rebooted)', () => {
    const s = byName(
      statusReport([node('sd', true, { ready: 'shuttingDown' })], policy(), NOW).nodes,
      'sd',
    );
    expect(s).toMatchObject({ phase: 'Waiting', cause: 'ShuttingDown', actsNow: false });
    expect(s.hold?.kind).toBe('shutdown');
  });

  it('a state annotation that does not parse is reported (the controller starts over)', () => {
    const n = node('x', false, { annotations: { [STATE]: '{not json' } });
    const s = byName(statusReport([n], policy(), NOW).nodes, 'x');
    expect(s.stateError).toMatch(/does not parse/);
    expect(s.phase).toBe('Healthy');
  });

  it('holdMessage words each storm hold', () => {
    expect(holdMessage({ kind: 'in-flight', inFlight: 2, maxInFlight: 2 })).toBe(
      'maxInFlight: 2 repairs in flight (max 2)',
    );
    expect(holdMessage({ kind: 'cooldown', until: 0, domain: 'z=a' })).toBe(
      'storm guard cooldown in z=a until 1970-01-01T00:00:00.000Z',
    );
  });
});
