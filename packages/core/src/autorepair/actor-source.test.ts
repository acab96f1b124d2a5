// Reading the other actors' marks: what each answer of the apiserver means. Only a 404 is
// "not installed"; a 403 (RBAC missing) and a mark we cannot understand (a garbled kured
// lock) hold the node (Unreadable); a timeout, a 5xx or a lost connection is no answer at all
// and fails the fleet pass (it is retried; no repair starts on it). The client is a test
// double answering one way for every read.
import { Registry } from 'prom-client';
import { either } from 'fp-ts';
import { describe, expect, it } from 'vitest';
import { resolveRepairPolicy } from '../health/policy.js';
import type { FleetMember } from '../health/fleet.js';
import type { KubeClient } from '../kube/client.js';
import {
  ForbiddenError,
  InternalError,
  KubeConnectionError,
  NotFoundError,
  ServerTimeoutError,
} from '../kube/errors.js';
import { silentLogger, type RuntimeLogger } from '../runtime/logger.js';
import { holdsFromSnapshot, readActorSnapshot, snapshotProblems } from './actor-source.js';
import { Coordinator } from './coordinator.js';
import { AutoRepairMetrics } from './metrics.js';

const NOW = Date.parse('2026-12-05T12:00:00Z');

function kuredPolicy() {
  const p = resolveRepairPolicy({ coordination: { actors: ['Kured'] } });
  if (either.isLeft(p)) throw new Error(p.left);
  return p.right;
}

/** TEST DOUBLE: every get and list answers with `answer` (a value, or an error thrown). */
function answering(answer: unknown): KubeClient {
  const reply = async () => {
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { get: reply, list: reply } as unknown as KubeClient;
}

const err = (Cls: new (...a: never[]) => Error, status: number) =>
  new (Cls as unknown as new (m: string, s: number) => Error)(`status ${status}`, status);

const node = { name: 'w1', node: undefined, cordonedByUs: false };

describe('readActorSnapshot: kured', () => {
  it('a missing DaemonSet (404) is kured not installed: no hold', async () => {
    const c = kuredPolicy().coordination;
    const snap = await readActorSnapshot(answering(err(NotFoundError, 404)), c);
    expect(snap.kuredDaemonSetAnnotations).toBeUndefined();
    expect(holdsFromSnapshot(snap, c, node, 'us', NOW)).toEqual([]);
    expect(snapshotProblems(snap, c)).toEqual([]);
  });

  it('a 403 is not "not installed": the node is held (Unreadable) naming the permission', async () => {
    const c = kuredPolicy().coordination;
    const snap = await readActorSnapshot(answering(err(ForbiddenError, 403)), c);
    expect(holdsFromSnapshot(snap, c, node, 'us', NOW)).toEqual([
      {
        actor: 'Unreadable',
        detail: "missing permission: get daemonsets kube-system/kured (kured's lock)",
        disrupting: false,
      },
    ]);
  });

  it.each([
    ['a server timeout (504)', err(ServerTimeoutError, 504)],
    ['an internal error (500)', err(InternalError, 500)],
    ['a lost connection', new KubeConnectionError('connect ECONNREFUSED 10.0.0.1:6443')],
  ])(
    '%s is no answer: the read fails (the pass is retried), never "not installed"',
    async (_, e) => {
      const c = kuredPolicy().coordination;
      await expect(readActorSnapshot(answering(e), c)).rejects.toBe(e);
    },
  );

  it('a garbled lock holds every node that wants a repair (Unreadable), naming the annotation', async () => {
    const c = kuredPolicy().coordination;
    const ds = { metadata: { annotations: { 'weave.works/kured-node-lock': '{nodeID: w1' } } };
    const snap = await readActorSnapshot(answering(ds), c);
    const problem =
      'kured lock weave.works/kured-node-lock on daemonset kube-system/kured unreadable: not JSON';
    expect(holdsFromSnapshot(snap, c, node, 'us', NOW)).toEqual([
      { actor: 'Unreadable', detail: problem, disrupting: false },
    ]);
    expect(snapshotProblems(snap, c)).toEqual([problem]);
  });
});

describe('Coordinator.fleetHolds: marks it cannot read', () => {
  it('holds the member and logs the problem once, not once per pass', async () => {
    const policy = kuredPolicy();
    const ds = { metadata: { annotations: { 'weave.works/kured-node-lock': 'not json' } } };
    const warnings: string[] = [];
    const log: RuntimeLogger = {
      ...silentLogger,
      warn: (_f, msg) => void warnings.push(msg ?? ''),
      child: () => log,
    };
    let now = NOW;
    const c = new Coordinator({
      client: answering(ds),
      policy,
      metrics: new AutoRepairMetrics(new Registry()),
      log,
      now: () => now,
      recordEvent: async () => undefined,
    });
    const member = { obs: { nodeName: 'w1', node: undefined } } as unknown as FleetMember;
    const first = (await c.fleetHolds(new AbortController().signal))(member);
    expect(first.obs.actorHolds).toEqual([
      expect.objectContaining({ actor: 'Unreadable', disrupting: false }),
    ]);
    now += 60_000; // a later pass reads the marks again: same problem, no second line
    await c.fleetHolds(new AbortController().signal);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /cannot read the other actors' marks: kured lock weave.works\/kured-node-lock on daemonset kube-system\/kured unreadable: not JSON: every node that wants a repair is held/,
    );
  });
});
