// A leader whose API server connection freezes (a partition that resets nothing) while an
// action is in flight: the action's signal must abort before the Lease could be taken over,
// and an action that ignores its signal ends with the process (exit 1) before then. The
// successor's first action starts only after the old one stopped: no overlap.
// Real kube-apiserver (envtest); the leader talks to it through a loopback TCP relay the test
// freezes (TLS passes through, as in kube/abort.int.test.ts).
import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { KubeConfig } from '@kubernetes/client-node';
import { loadKubeConfigFile } from '@noderepair/envtest';
import { useControlPlane } from '@noderepair/envtest/vitest';
import { createKubeClient } from '../../kube/client-node/index.js';
import { LeaseResource } from '../../kube/resource.js';
import type { KubeLease } from '../../kube/types.js';
import { silentLogger } from '../logger.js';
import { LeadershipLostError, Manager } from './manager.js';

const env = useControlPlane();
const timings = { leaseDurationMs: 4000, renewDeadlineMs: 3000, retryPeriodMs: 500 };

class FreezableRelay {
  frozen = false;
  private readonly sockets = new Set<net.Socket>();
  private constructor(private readonly server: net.Server) {}

  static async start(upstream: URL): Promise<FreezableRelay> {
    const relay: FreezableRelay = new FreezableRelay(
      net.createServer((client) => {
        const up = net.connect(Number(upstream.port), upstream.hostname);
        relay.sockets.add(client).add(up);
        client.on('data', (c: Buffer) => {
          if (!relay.frozen) up.write(c);
        });
        up.on('data', (c: Buffer) => {
          if (!relay.frozen) client.write(c);
        });
        const close = () => {
          client.destroy();
          up.destroy();
        };
        client.on('close', close).on('error', close);
        up.on('close', close).on('error', close);
      }),
    );
    await new Promise<void>((r) => relay.server.listen(0, '127.0.0.1', r));
    return relay;
  }

  kubeConfig(): KubeConfig {
    const kc = loadKubeConfigFile(env.kubeconfigPath);
    const cluster = kc.getCurrentCluster()!;
    const server = `https://127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
    kc.clusters = kc.clusters.map((c) => (c.name === cluster.name ? { ...c, server } : c));
    return kc;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

type Mark = { what: string; at: number };

/** A manager whose one leader-only runnable is an action that starts when it leads. */
function replica(
  kc: KubeConfig,
  ns: string,
  identity: string,
  marks: Mark[],
  action: (signal: AbortSignal) => Promise<void>,
  exit?: (code: number) => void,
  gracefulShutdownTimeoutMs?: number,
) {
  const m = new Manager({
    ...(gracefulShutdownTimeoutMs !== undefined ? { gracefulShutdownTimeoutMs } : {}),
    name: identity,
    logger: silentLogger,
    probes: false,
    leaderElection: {
      client: createKubeClient(kc),
      namespace: ns,
      name: 'act',
      identity,
      ...timings,
    },
    ...(exit ? { exit } : {}),
  });
  m.add({
    name: 'action',
    start: async (signal) => {
      marks.push({ what: `${identity}:start`, at: Date.now() });
      await action(signal);
      marks.push({ what: `${identity}:stopped`, at: Date.now() });
    },
  });
  return m;
}

const at = (marks: Mark[], what: string) => marks.find((m) => m.what === what)?.at;

let relay: FreezableRelay | undefined;
afterEach(async () => {
  await relay?.close();
  relay = undefined;
});

/** A second candidate, straight to the API server, whose action runs until its term ends. */
const successorOf = (ns: string, marks: Mark[]) =>
  replica(
    env.kubeConfig,
    ns,
    'successor',
    marks,
    (s) => new Promise<void>((r) => s.addEventListener('abort', () => r(), { once: true })),
  );

async function freezeLeaderMidAction(
  leaderAction: (signal: AbortSignal, marks: Mark[]) => Promise<void>,
  exit?: (code: number) => void,
) {
  const ns = await env.namespace('lost-lease');
  const admin = createKubeClient(env.kubeConfig);
  relay = await FreezableRelay.start(new URL(env.server));
  const marks: Mark[] = [];
  const old = replica(relay.kubeConfig(), ns, 'old', marks, (s) => leaderAction(s, marks), exit);
  // It rejects (LeadershipLostError) while the test still waits for the successor.
  const oldError = old.start().then(
    () => undefined,
    (e: unknown) => e,
  );
  await vi.waitFor(() => expect(at(marks, 'old:start')).toBeDefined(), { timeout: 20_000 });
  const successor = successorOf(ns, marks);
  const successorRun = successor.start();
  await new Promise((r) => setTimeout(r, 1000)); // the successor sees the Lease renewed
  relay.frozen = true;
  const frozenAt = Date.now();
  // The newest renewal the server has (one may have landed whose reply was then held).
  const lease = await admin.get<KubeLease>(LeaseResource, 'act', { namespace: ns });
  const expires = Date.parse(lease.spec!.renewTime!) + timings.leaseDurationMs;
  expect(lease.spec?.holderIdentity).toBe('old');
  await vi.waitFor(() => expect(at(marks, 'successor:start')).toBeDefined(), {
    timeout: 20_000,
    interval: 50,
  });
  successor.stop();
  await successorRun;
  return { marks, frozenAt, expires, oldError: await oldError };
}

describe('a lost Lease stops in-flight actions before a successor can start', () => {
  it('aborts the in-flight call (its signal) before the Lease could be taken over', async () => {
    const exit = vi.fn();
    const { marks, frozenAt, expires, oldError } = await freezeLeaderMidAction(
      (signal, marks) =>
        new Promise<void>((resolve) =>
          signal.addEventListener(
            'abort',
            () => {
              marks.push({ what: 'old:aborted', at: Date.now() });
              resolve();
            },
            { once: true },
          ),
        ),
      exit,
    );
    const aborted = at(marks, 'old:aborted')!;
    expect(aborted).toBeGreaterThan(frozenAt);
    expect(aborted).toBeLessThan(expires);
    expect(at(marks, 'old:stopped')!).toBeLessThan(at(marks, 'successor:start')!);
    expect(exit).not.toHaveBeenCalled();
    expect(oldError).toBeInstanceOf(LeadershipLostError);
  });

  it('exits the process (code 1) when the in-flight call ignores its signal, before a takeover', async () => {
    let release = () => {};
    const exit = vi.fn((code: number) => {
      // Stands in for process.exit: the process, and the call with it, ends here.
      void code;
      release();
    });
    const { marks, expires } = await freezeLeaderMidAction(
      (_signal, marks) =>
        new Promise<void>((resolve) => {
          release = () => {
            marks.push({ what: 'old:exit', at: Date.now() });
            resolve();
          };
        }),
      exit,
    );
    expect(exit).toHaveBeenCalledWith(1);
    const exited = at(marks, 'old:exit')!;
    expect(exited).toBeLessThan(expires);
    expect(exited).toBeLessThan(at(marks, 'successor:start')!);
  });
});

describe('a stop whose in-flight call ignores its signal past the graceful timeout', () => {
  it('stops renewing without releasing the Lease, and exits (code 1) before a successor can start', async () => {
    const ns = await env.namespace('stuck-stop');
    const admin = createKubeClient(env.kubeConfig);
    const marks: Mark[] = [];
    let release = () => {};
    const exit = vi.fn((code: number) => {
      // Stands in for process.exit: the process, and the call with it, ends here.
      void code;
      marks.push({ what: 'old:exit', at: Date.now() });
      release();
    });
    const old = replica(
      env.kubeConfig,
      ns,
      'old',
      marks,
      () => new Promise<void>((resolve) => (release = resolve)),
      exit,
      1000,
    );
    const oldRun = old.start();
    await vi.waitFor(() => expect(at(marks, 'old:start')).toBeDefined(), { timeout: 20_000 });
    const successor = successorOf(ns, marks);
    const successorRun = successor.start();
    old.stop();
    const stoppedAt = Date.now();
    // Past the grace period the Lease is neither renewed nor released: still ours, unchanged.
    await new Promise((r) => setTimeout(r, 1500));
    const frozen = await admin.get<KubeLease>(LeaseResource, 'act', { namespace: ns });
    expect(frozen.spec?.holderIdentity).toBe('old');
    await new Promise((r) => setTimeout(r, 1000));
    const later = await admin.get<KubeLease>(LeaseResource, 'act', { namespace: ns });
    expect(later.spec?.renewTime).toBe(frozen.spec?.renewTime);
    const expires = Date.parse(frozen.spec!.renewTime!) + timings.leaseDurationMs;
    await vi.waitFor(() => expect(at(marks, 'successor:start')).toBeDefined(), {
      timeout: 20_000,
      interval: 50,
    });
    await oldRun;
    successor.stop();
    await successorRun;
    expect(exit).toHaveBeenCalledWith(1);
    const exited = at(marks, 'old:exit')!;
    expect(exited).toBeGreaterThan(stoppedAt);
    expect(exited).toBeLessThan(expires);
    expect(exited).toBeLessThan(at(marks, 'successor:start')!);
  });
});
