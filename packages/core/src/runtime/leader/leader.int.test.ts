// Two managers elect one leader; the other takes over when the leader stops (gracefully,
// releasing the Lease) or is killed (the Lease must expire first).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { useControlPlane } from '@noderepair/envtest/vitest';
import { createKubeClient } from '../../kube/client-node/index.js';
import { ConfigMapResource, LeaseResource } from '../../kube/resource.js';
import type { KubeLease } from '../../kube/types.js';
import { silentLogger } from '../logger.js';
import { createRuntimeLogger } from '../manager/logging.js';
import { Manager } from '../manager/manager.js';
import { defaultLeaderIdentity } from './identity.js';

const env = useControlPlane();
const timings = { leaseDurationMs: 4000, renewDeadlineMs: 3000, retryPeriodMs: 500 };

function candidate(ns: string, lease: string, identity: string, reconciled: string[]) {
  const client = createKubeClient(env.kubeConfig);
  const m = new Manager({
    name: identity,
    logger: silentLogger,
    probes: { port: 0, host: '127.0.0.1' },
    leaderElection: { client, namespace: ns, name: lease, identity, ...timings },
  });
  const cms = m.informer(client, ConfigMapResource, { namespace: ns });
  m.controller({
    name: `ctl-${identity}`,
    reconcile: async (r) => {
      reconciled.push(`${identity}:${r.name}`);
    },
  }).for(cms);
  return m;
}

describe('leader election', () => {
  it('elects exactly one of two managers; the other takes over when the leader stops', async () => {
    const ns = await env.namespace('leader');
    const client = createKubeClient(env.kubeConfig);
    await client.create(ConfigMapResource, { metadata: { name: 'work', namespace: ns } });
    const reconciled: string[] = [];
    const a = candidate(ns, 'elect', 'a', reconciled);
    const b = candidate(ns, 'elect', 'b', reconciled);
    const runs = [a.start(), b.start()];
    await vi.waitFor(() => expect(a.isLeader() || b.isLeader()).toBe(true), {
      timeout: 20_000,
      interval: 100,
    });
    const [leader, follower] = a.isLeader() ? [a, b] : [b, a];
    // Over several renew periods, never two leaders and only the leader reconciles.
    for (let i = 0; i < 10; i++) {
      expect(a.isLeader() && b.isLeader()).toBe(false);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(reconciled).toEqual([`${leader.name}:work`]);
    const readyz = await fetch(`http://127.0.0.1:${leader.probePort}/readyz`);
    expect(readyz.status).toBe(200);
    const metrics = await (await fetch(`http://127.0.0.1:${leader.probePort}/metrics`)).text();
    expect(metrics).toContain(`leader_election_master_status{name="elect"} 1`);
    expect(metrics).toMatch(
      new RegExp(
        `controller_runtime_reconcile_total\\{controller="ctl-${leader.name}",result="success"\\} 1`,
      ),
    );

    leader.stop();
    await runs[leader === a ? 0 : 1];
    await vi.waitFor(() => expect(follower.isLeader()).toBe(true), {
      timeout: timings.leaseDurationMs * 2,
      interval: 100,
    });
    await vi.waitFor(() => expect(reconciled).toContain(`${follower.name}:work`), {
      timeout: 10_000,
    });
    const lease = await client.get<KubeLease>(LeaseResource, 'elect', { namespace: ns });
    expect(lease.spec?.holderIdentity).toBe(follower.name);
    follower.stop();
    await Promise.all(runs);
    const released = await client.get<KubeLease>(LeaseResource, 'elect', { namespace: ns });
    expect(released.spec?.holderIdentity ?? '').toBe('');
  });

  it('a clean stop (stop(), as SIGTERM) says "stopped leading" at info, not warn, and releases the Lease', async () => {
    const ns = await env.namespace('leader');
    const client = createKubeClient(env.kubeConfig);
    const lines: Record<string, unknown>[] = [];
    const m = new Manager({
      name: 'clean',
      logger: createRuntimeLogger({
        name: 'clean',
        level: 'debug',
        destination: {
          write: (s: string) => {
            for (const l of s.split('\n')) if (l !== '') lines.push(JSON.parse(l) as never);
          },
        },
      }),
      probes: false,
      leaderElection: { client, namespace: ns, name: 'clean', identity: 'clean', ...timings },
    });
    const run = m.start();
    await vi.waitFor(() => expect(m.isLeader()).toBe(true), { timeout: 20_000, interval: 100 });
    m.stop();
    await run;
    const stopped = lines.find((l) => String(l['msg']).startsWith('stopped leading'));
    expect(stopped).toMatchObject({ level: 30, msg: 'stopped leading: shutting down' });
    expect(lines.filter((l) => (l['level'] as number) >= 40)).toEqual([]);
    expect(lines.some((l) => l['outcome'] === 'aborted')).toBe(false);
    expect(lines.map((l) => l['msg'])).toContain('released lease');
  });

  it('two replicas without POD_NAME (same PID, as PID 1 in two containers) get distinct identities; one leads', async () => {
    const ns = await env.namespace('leader');
    const client = createKubeClient(env.kubeConfig);
    await client.create(ConfigMapResource, { metadata: { name: 'work', namespace: ns } });
    const reconciled: string[] = [];
    // Both in this process: the same PID and hostname, as two containers of one Deployment.
    const ids = [defaultLeaderIdentity({}), defaultLeaderIdentity({})];
    expect(ids[0]).not.toBe(ids[1]);
    const ms = ids.map((id) => candidate(ns, 'same-pid', id, reconciled));
    const runs = ms.map((m) => m.start());
    await vi.waitFor(() => expect(ms.some((m) => m.isLeader())).toBe(true), {
      timeout: 20_000,
      interval: 100,
    });
    for (let i = 0; i < 10; i++) {
      expect(ms.filter((m) => m.isLeader())).toHaveLength(1);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(reconciled).toHaveLength(1);
    ms.forEach((m) => m.stop());
    await Promise.all(runs);
  });

  it('takes over after the leader process is killed, but not before its lease expires', async () => {
    const ns = await env.namespace('leader');
    const client = createKubeClient(env.kubeConfig);
    const fixture = fileURLToPath(new URL('./candidate.fixture.mjs', import.meta.url));
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fixture, env.kubeconfigPath, ns, 'killed', 'child'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          if (d.toString().includes('LEADING')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`candidate exited early (${code})`)));
      });
      const reconciled: string[] = [];
      const d = candidate(ns, 'killed', 'survivor', reconciled);
      const run = d.start();
      // While the child renews, the survivor must stay a follower.
      for (let i = 0; i < 12; i++) {
        expect(d.isLeader()).toBe(false);
        await new Promise((r) => setTimeout(r, 500));
      }
      const before = await client.get<KubeLease>(LeaseResource, 'killed', { namespace: ns });
      expect(before.spec?.holderIdentity).toBe('child');
      child.kill('SIGKILL');
      await vi.waitFor(() => expect(d.isLeader()).toBe(true), {
        timeout: timings.leaseDurationMs * 3,
        interval: 100,
      });
      const after = await client.get<KubeLease>(LeaseResource, 'killed', { namespace: ns });
      expect(after.spec?.holderIdentity).toBe('survivor');
      expect(after.spec?.leaseTransitions).toBe((before.spec?.leaseTransitions ?? 0) + 1);
      // Safety: the survivor acquired only after the dead holder's lease could have expired.
      const lastRenew = Date.parse(before.spec!.renewTime!);
      expect(Date.parse(after.spec!.acquireTime!)).toBeGreaterThanOrEqual(
        lastRenew + timings.leaseDurationMs,
      );
      d.stop();
      await run;
    } finally {
      child.kill('SIGKILL');
    }
  });
});
