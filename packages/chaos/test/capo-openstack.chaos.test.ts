// Fault 4: Keystone and Nova faults in the middle of a remediation, each with the behaviour the
// capo-remediation README documents ("The OpenStack client"): a token rejected with 401 is
// renewed once; 409 -> wait and retry; 5xx -> backoff honouring Retry-After; a reply lost
// after Nova accepted the action is not sent twice, nor one that got no reply before the
// client's own timeout; 404 -> ServerNotFound -> the ladder ends
// and the Machine goes to Cluster API. The fault is placed exactly on the reboot call by
// holding it in the GateProxy, injecting into the FakeOpenStack, then letting it go.
import { customResource } from '@noderepair/core/kube';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CapoCluster, type CapoWorld } from '../src/capo-world.js';
import type { ControllerProcess } from '../src/controller-process.js';
import { scanForSecrets } from '../src/secret-scan.js';
import { until } from '../src/wait.js';
import { chaosDir, NOT_MEASURED, record } from './support/chaos-file.js';

const SPEC = {
  steps: [
    { type: 'SoftReboot', timeoutSeconds: 60, retries: 0 },
    { type: 'HardReboot', timeoutSeconds: 60 },
  ],
  drain: { enabled: true, timeoutSeconds: 60 },
  minHealthySeconds: 1,
};
const ONE_STEP = {
  steps: [{ type: 'SoftReboot', timeoutSeconds: 60, retries: 0 }],
  drain: { enabled: true, timeoutSeconds: 60 },
  minHealthySeconds: 1,
};

interface Case {
  readonly name: string;
  readonly spec?: Record<string, unknown>;
  /** Before the remediation exists (e.g. a Keystone fault at the first authentication). */
  readonly before?: (w: CapoWorld) => void;
  /** With the reboot call held (before Nova saw it) or, for 'after', after Nova accepted it. */
  readonly hold?: 'before' | 'after';
  readonly atHold?: (w: CapoWorld, h: { release(): void; drop(): void }) => Promise<void> | void;
  /**
   * Keystone and Nova answer 503 to everything from before the remediation until the
   * controller has said CloudReachable=False and asked again at least twice.
   */
  readonly outage?: boolean;
  readonly outcome: 'Succeeded' | 'Failed';
  readonly check?: (w: CapoWorld, p: ControllerProcess) => Promise<void> | void;
}

const MachineV1beta2 = customResource({
  group: 'cluster.x-k8s.io',
  version: 'v1beta2',
  kind: 'Machine',
  plural: 'machines',
  namespaced: true,
});

const computeRequests = (w: CapoWorld) =>
  w.fake.requests.filter((r) => r.service === 'compute' || r.path.startsWith('/compute'));
const actionPosts = (w: CapoWorld) =>
  w.fake.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/action'));

const CASES: Case[] = [
  {
    name: 'token expired mid-flow (revoked before the reboot call)',
    hold: 'before',
    atHold: (w, h) => {
      w.fake.revokeTokens();
      h.release();
    },
    outcome: 'Succeeded',
    check: (w) => expect(w.fake.tokenIssues).toBeGreaterThanOrEqual(2),
  },
  {
    name: '401 on the reboot call',
    hold: 'before',
    atHold: (w, h) => {
      w.fake.failNext(1, { status: 401, service: 'compute' });
      h.release();
    },
    outcome: 'Succeeded',
    check: (w) => expect(w.fake.tokenIssues).toBeGreaterThanOrEqual(2),
  },
  {
    name: '409 (server locked) until unlocked',
    hold: 'before',
    atHold: async (w, h) => {
      w.fake.setLocked(w.serverId, true);
      h.release();
      await until('a 409 from Nova', () => computeRequests(w).some((r) => r.status === 409));
      w.fake.setLocked(w.serverId, false);
    },
    outcome: 'Succeeded',
  },
  {
    name: '500 on the reboot call',
    hold: 'before',
    atHold: (w, h) => {
      w.fake.failNext(1, { status: 500, service: 'compute' });
      h.release();
    },
    outcome: 'Succeeded',
  },
  {
    name: '503 with Retry-After: 2 on the reboot call',
    hold: 'before',
    atHold: (w, h) => {
      w.fake.failNext(1, { status: 503, service: 'compute', retryAfterSeconds: 2 });
      h.release();
    },
    outcome: 'Succeeded',
    check: (w) => {
      const posts = actionPosts(w);
      const i = posts.findIndex((r) => r.status === 503);
      expect(i).toBeGreaterThanOrEqual(0);
      const next = posts[i + 1];
      expect(next?.status).toBe(202);
      // Retry-After honoured: the next try came no sooner than the server asked.
      expect((next?.at ?? 0) - (posts[i]?.at ?? 0)).toBeGreaterThanOrEqual(1_900);
    },
  },
  {
    // Issue 21: a proxy in front of nova-api forwards the reboot, Nova acts, the proxy
    // answers 502. Not resent: the controller finds the reboot in os-instance-actions.
    name: '502 after forward on the reboot call (0 double actions)',
    hold: 'before',
    atHold: (w, h) => {
      w.fake.failNext(1, { status: 502, service: 'compute', afterForward: true });
      h.release();
    },
    outcome: 'Succeeded',
    check: (w) => {
      expect(actionPosts(w).filter((r) => r.status === 202)).toHaveLength(1);
      expect(w.fake.instanceActions(w.serverId).map((a) => a.action)).toEqual(['reboot']);
    },
  },
  {
    // Issue 21: a cloud outage is waiting, not failure. One step only, so a used attempt
    // would hand the Machine to Cluster API (phase Failed, OwnerRemediated=False).
    name: 'cloud outage during the remediation (0 attempts consumed, 0 replacements)',
    spec: ONE_STEP,
    before: (w) => w.fake.setOutage({ status: 503 }),
    outage: true,
    outcome: 'Succeeded',
    check: async (w) => {
      const events = await w.events();
      expect(events.filter((e) => e.reason === 'CloudUnavailable').length).toBeGreaterThan(0);
      expect(events.some((e) => e.reason === 'ActionFailed')).toBe(false);
    },
  },
  {
    name: 'Keystone 503 with Retry-After at authentication',
    before: (w) => w.fake.failNext(1, { status: 503, service: 'identity', retryAfterSeconds: 1 }),
    outcome: 'Succeeded',
    check: (w) =>
      expect(w.fake.requests.some((r) => r.service === 'identity' && r.status === 503)).toBe(true),
  },
  {
    name: 'reply lost after Nova accepted the reboot (connection reset)',
    hold: 'after',
    atHold: (_w, h) => h.drop(),
    outcome: 'Succeeded',
  },
  {
    // The reboot request is held before Nova until the OpenStack client's own 30 s timer fires:
    // the request may have left, so it is never sent again blindly. The provider asks Nova's
    // records (os-instance-actions): nothing there, so the answer is Unavailable (maybe sent),
    // CloudReachable=False, and no attempt of the ladder is used. The held request is then
    // dropped; the replay asks Nova again, finds nothing, and sends the SOFT reboot once.
    name: 'no reply at all: the client times out on the reboot call',
    hold: 'before',
    atHold: async (w, h) => {
      await until(
        'the unanswered reboot reported as an outage (CloudReachable=False)',
        async () => {
          const o = await w.osr();
          const cr = o?.status?.conditions?.find((x) => x.type === 'CloudReachable');
          return cr?.status === 'False' || undefined;
        },
      );
      h.drop();
    },
    outcome: 'Succeeded',
    check: async (w, p) => {
      const o = await w.osr();
      // One attempt, not a failed one and an escalation: the timeout used up nothing.
      expect(o?.status?.history?.map((a) => a.type)).toEqual(['SoftReboot']);
      expect(o?.status?.history?.[0]?.result).toBe('Succeeded');
      // The timeout really fired in the client, and was reported.
      const warned = p.lines.filter((l) =>
        l.includes('no answer to the server action; not sent again'),
      );
      expect(warned).toHaveLength(1);
      expect(warned[0]).toContain('"code":"Timeout"');
      // Nova saw exactly one reboot: the replay's, sent after its records showed none.
      expect(actionPosts(w).map((r) => r.status)).toEqual([202]);
      expect(w.fake.rebootCount(w.serverId, 'SOFT')).toBe(1);
      expect(w.fake.rebootCount(w.serverId, 'HARD')).toBe(0);
    },
  },
  {
    name: '404: the server was deleted',
    spec: ONE_STEP,
    hold: 'before',
    atHold: (w, h) => {
      w.fake.deleteServer(w.serverId);
      h.release();
    },
    outcome: 'Failed',
    check: async (w) => {
      const m = (await w.cluster.admin.get(MachineV1beta2, w.machineName, {
        namespace: w.ns,
      })) as { status?: { conditions?: { type: string; status: string }[] } };
      expect(m.status?.conditions).toContainEqual(
        expect.objectContaining({ type: 'OwnerRemediated', status: 'False' }),
      );
      const events = (await w.events()).map((e) => `${e.reason}: ${e.note}`);
      expect(events.join('\n')).toMatch(/ActionFailed: .*(not found|ServerNotFound)/i);
    },
  },
];

describe('Keystone and Nova faults mid-remediation', () => {
  let cluster: CapoCluster;
  const all: ControllerProcess[] = [];

  beforeAll(async () => {
    cluster = await CapoCluster.start(chaosDir(), 'capo-openstack');
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  CASES.forEach((c, i) => {
    it.concurrent(c.name, async () => {
      const ns = `openstack-${i}`;
      const w = await cluster.world(ns, c.spec ?? SPEC);
      c.before?.(w);
      const held = c.hold ? w.nova.hold((r) => w.isAction(r.path, r.method), c.hold) : undefined;
      const p = await cluster.startController({
        identity: `capo-${ns}`,
        leaseId: `capo-${ns}`,
        namespace: ns,
      });
      all.push(p);
      await w.breakNode();
      await w.createRemediation();
      if (held) await c.atHold?.(w, await held);
      if (c.outage) {
        await until(
          'CloudReachable=False',
          async () => {
            const o = await w.osr();
            const cr = o?.status?.conditions?.find((x) => x.type === 'CloudReachable');
            return cr?.status === 'False' ? o : undefined;
          },
          60_000,
        );
        // Long enough for more calls (backoff from 5 s): nothing persisted or sent, since the
        // first question (the server's power state: a server someone stopped stays off) has no
        // answer; no attempt used, no hand-back.
        await new Promise((r) => setTimeout(r, 12_000));
        const o = await w.osr();
        expect(o?.status?.phase === 'Failed' || o?.status?.phase === 'Succeeded').toBe(false);
        expect(o?.status?.history ?? []).toEqual([]);
        expect(w.rebootCount()).toBe(0);
        w.fake.setOutage(undefined);
      }
      const done = await until(
        `phase ${c.outcome}`,
        async () => {
          const o = await w.osr();
          const ph = o?.status?.phase;
          if (ph === 'Succeeded' || ph === 'Failed') return o;
          return undefined;
        },
        180_000,
      );
      const history = done.status?.history ?? [];
      const reboots = w.rebootCount();
      const expected = c.outcome === 'Succeeded' ? 1 : 0;
      record({
        fault: 'Nova/Keystone fault',
        variant: c.name,
        injected: 1,
        survived: done.status?.phase === c.outcome && reboots === expected ? 1 : 0,
        doubleReboots: Math.max(0, reboots - Math.max(1, history.length)),
        crashes: p.crashed ? 1 : 0,
        fuzzInputs: 0,
      });
      expect(done.status?.phase).toBe(c.outcome);
      expect(reboots).toBe(expected);
      expect(p.crashed).toBe(false);
      expect(p.unhandled).toEqual([]);
      await c.check?.(w, p);
      await p.stop();
    });
  });

  it('no credential in any log line or event of these runs', async () => {
    for (const w of cluster.worlds) for (const t of w.tokens()) cluster.secrets.add(t);
    const r = scanForSecrets(
      all.flatMap((p) => p.lines),
      await cluster.events(),
      cluster.secrets,
    );
    record({
      fault: 'secret scan (logs + events)',
      variant: 'OpenStack fault runs',
      injected: r.linesScanned + r.eventsScanned,
      survived: r.leaks.length === 0 ? r.linesScanned + r.eventsScanned : 0,
      // A scan of logs and events: no provider to ask.
      doubleReboots: NOT_MEASURED,
      crashes: 0,
      fuzzInputs: 0,
    });
    expect(r.linesScanned).toBeGreaterThan(50);
    expect(r.leaks).toEqual([]);
  });
});
